"""The Audit and Evaluate views: Pilot tests (numbers agree with the core, cancel, bad input)
and SVG snapshots at 80x24 and 120x40."""

from __future__ import annotations

import threading

import pytest
from textual.widgets import Static

from bpe_tui.core.analysis import evaluate as ev
from bpe_tui.core.analysis.audit import Cancelled, audit
from bpe_tui.core.analysis.side_by_side import side_by_side
from bpe_tui.ui.views import audit as audit_ui
from bpe_tui.ui.views.audit import AuditScreen, words_counts
from bpe_tui.ui.views.evaluate import METRICS, EvalScreen

from .conftest import demo_app, said, settle


async def _open(pilot, key: str) -> None:
    app = pilot.app
    await settle(app, pilot)
    await pilot.press("N")  # ten merges
    await settle(app, pilot)
    await pilot.press(key)
    await settle(app, pilot)


async def test_audit_view_agrees_with_the_core():
    app = demo_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await _open(pilot, "a")
        screen = app.screen
        assert isinstance(screen, AuditScreen)
        table = app.session.table()
        expected = audit(table, words_counts(app.session.trainer))
        assert screen.report.summary() == expected.summary()
        assert screen.report.corpus_tokens == app.session.trainer.total_tokens  # the trainer's own count
        lines = screen.category_lines
        assert len(lines) == len(expected.categories)
        # the first category (unreachable) has no token: the detail says where tokens are chosen here
        assert not expected.categories[0].ids
        info = screen.query_one("#audit-detail #detail-info")
        assert str(info.render()) == "select a token in the list above"
        unused = next(line for line in lines if line.split(maxsplit=1)[1].startswith("unused on the corpus"))  # after its number
        assert unused.split()[-1] == f"{len(expected['unused']):,}"
        # the whitespace category: its tokens listed, the first one's merge tree shown
        index = [c.key for c in expected.categories].index("whitespace_only")
        await pilot.press(*["down"] * index)
        await pilot.pause()
        ids = expected["whitespace_only"].ids
        assert ids and len(screen.token_lines) == len(ids)
        assert screen.token_lines[0].split()[0] == str(ids[0])
        assert screen.query_one("#audit-detail").token_id == ids[0]
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, AuditScreen)


async def test_audit_cancel_keeps_the_view(monkeypatch):
    """escape while the audit runs cancels the worker; the view stays, with nothing half-done."""
    started = threading.Event()

    def slow_audit(table, emitted=None, should_stop=None, progress=None, **kw):
        started.set()
        while not should_stop():
            threading.Event().wait(0.01)
        raise Cancelled()

    monkeypatch.setattr(audit_ui, "audit", slow_audit)
    app = demo_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await pilot.press("a")
        while not started.is_set():
            await pilot.pause()
        await pilot.press("escape")
        await settle(app, pilot)
        assert isinstance(app.screen, AuditScreen) and app.screen.report is None
        assert not app.screen.query_one("#audit-work").display
        await pilot.press("escape")  # nothing runs now: back to the explorer
        await pilot.pause()
        assert not isinstance(app.screen, AuditScreen)


async def test_evaluate_view_agrees_with_the_core():
    app = demo_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await _open(pilot, "v")
        screen = app.screen
        assert isinstance(screen, EvalScreen)
        corpora = ev.parallel_set()
        expected = ev.evaluate([app.session.table()], corpora, workers=1)
        labels = [line.split()[0] for line in screen.bar_lines]
        assert labels == [c.label for c in corpora] and labels[0] == "en"
        for line, c in zip(screen.bar_lines, range(len(corpora))):
            assert line.split()[-1] == f"{expected.get(0, c).bytes_per_token:.3f}"
        # one curve per language, over the table cut at several steps (0 .. 10 merges); the
        # legend entry ends in the value with the whole table
        assert screen.steps[0] == 0 and screen.steps[-1] == 10
        assert len(screen.curve_lines) == 1 + len(corpora)
        assert screen.curve_lines[1].split("→")[-1] == f"{expected.get(0, 0).bytes_per_token:.3f}"
        premium = [k for k, m in enumerate(METRICS) if m[0] == "premium"][0]
        await pilot.press(*["right"] * premium)
        await pilot.pause()
        assert screen.bar_lines[0].split()[-1] == "1.000"
        assert screen.bar_lines[1].split()[-1] == f"{expected.premium(0, 1):.3f}"
        # the table across the corpora: the core's numbers, as eval prints them
        [summary] = side_by_side([app.session.table()], expected)
        assert screen.summaries == [summary]
        side = str(screen.query_one("#eval-side", Static).render()).splitlines()
        assert side[0] == "across the 12 corpora"
        rows = {line.split("  ")[0]: line.split("  ")[-1].strip() for line in side[3:]}
        assert list(rows) == ["vocabulary", "bytes/tok all", "premium spread", "worst/best", "gini", "scaffold", "unused", "superwords"]
        assert rows["gini"] == f"{summary.parity.gini:.4f}" and rows["unused"] == f"{summary.unused_share:.1%} ({summary.unused:,})"


async def test_evaluate_bad_corpus_is_a_notification(tmp_path):
    app = demo_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await _open(pilot, "v")
        screen = app.screen
        await pilot.press("ctrl+o")
        await pilot.pause()
        app.screen.query_one("Input").value = str(tmp_path / "missing.txt")
        await pilot.press("enter")
        await settle(app, pilot)
        assert app.screen is screen and len(screen.bar_lines) == 12
        assert any("no such file" in str(n.message) for n in said(app))


@pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=["80x24", "120x40"])
def test_audit_snapshot(snap_compare, size):
    async def run_before(pilot):
        await _open(pilot, "a")
        await pilot.press("down", "down", "down", "down", "down", "down", "down")  # whitespace only
        await settle(pilot.app, pilot)

    assert snap_compare(demo_app(), terminal_size=size, run_before=run_before)


@pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=["80x24", "120x40"])
def test_evaluate_snapshot(snap_compare, size):
    async def run_before(pilot):
        await _open(pilot, "v")

    assert snap_compare(demo_app(), terminal_size=size, run_before=run_before)


async def test_palette_offers_audit_and_evaluate():
    app = demo_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        titles = {c.title: c for c in app.get_system_commands(app.screen)}
        audit_cmd = next(c for t, c in titles.items() if t.startswith("Audit the table"))
        assert any(t.startswith("Evaluate the table") for t in titles)
        await audit_cmd.callback()  # run_action, as the palette calls it
        await settle(app, pilot)
        assert isinstance(app.screen, AuditScreen) and app.screen.report is not None


@pytest.mark.parametrize("variant", ["picky", "parity"])
async def test_evaluate_sets_a_variant_beside_plain_bpe_at_the_same_size(variant):
    """v on a PickyBPE or parity-aware trainer: Evaluate trains plain BPE on the same words to
    the same vocabulary size and shows the two side by side (as it does for SuperBPE)."""
    from bpe_tui import Trainer, TrainerConfig
    from bpe_tui.core.engine.trainer import plain_counterpart
    from bpe_tui.ui.app import ExplorerApp

    from .conftest import CORPORA

    if variant == "picky":
        trainer = Trainer.from_files([str(CORPORA / "demo.txt")], TrainerConfig(preset="picky", picky=0.6, merges=120))
    else:
        langs = {lang: str(CORPORA / "parallel" / f"{lang}.txt") for lang in ("en", "de", "ja")}
        trainer = Trainer.from_languages(langs, dev=langs, config=TrainerConfig(preset="parity", parity="base", merges=120))
    app = ExplorerApp(trainer=trainer, preview="")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await pilot.press("r")  # run to the target
        await settle(app, pilot)
        tr = app.session.trainer
        assert tr.finished and tr.steps_done == 120
        await _open(pilot, "v")
        screen = app.screen
        assert isinstance(screen, EvalScreen) and screen.plain is not None
        words, config = screen.plain
        assert words == tr.corpus_counts()[0]
        table = app.session.table()
        plain = plain_counterpart(words, config, len(table))
        assert len(plain) == len(table) and plain.merges != table.merges  # the variant chose otherwise
        own = [c for c in ev.parallel_set() if c.label in ("en", "de", "ja")] if variant == "parity" else ev.parallel_set()
        assert [c.label for c in screen.corpora] == [c.label for c in own]  # parity: its own languages first
        expected = ev.evaluate([table, plain], own, workers=1)
        assert [s.as_dict() for s in screen.summaries] == [s.as_dict() for s in side_by_side([table, plain], expected)]
        title = str(screen.query_one("#eval-title", Static).render())
        assert "vs plain BPE at the same size" in title
        side = str(screen.query_one("#eval-side", Static).render()).splitlines()
        assert side[1].endswith("  plain BPE")
        if variant == "parity":  # l: every shipped language, and back
            await pilot.press("l")
            await settle(app, pilot)
            assert screen.result is not None and len(screen.result.corpora) == len(ev.parallel_set()) == 12
            assert "all; l: its own" in str(screen.query_one("#eval-title", Static).render())
            await pilot.press("l")
            await settle(app, pilot)
            assert screen.result is not None and screen.result.corpora == ("en", "de", "ja")


async def test_evaluate_of_plain_bpe_has_nothing_beside_it():
    app = demo_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await _open(pilot, "v")
        assert isinstance(app.screen, EvalScreen) and app.screen.plain is None
