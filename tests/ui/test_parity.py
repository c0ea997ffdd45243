"""Parity-aware BPE in the explorer: which language chose each merge and why (history, its why
line, the pair table), every language's development text over merges (Stats), undo and go to
across its steps, bad input as a notification; snapshots at 80x24 and 120x40."""

from __future__ import annotations

import pytest
from textual.widgets import TabbedContent

from bpe_tui import Trainer, TrainerConfig
from bpe_tui.ui.app import ExplorerApp
from bpe_tui.ui.session.sessions import read_preview
from bpe_tui.ui.widgets.plot import Chart

from .conftest import CORPORA, said, settle, settle_until
from .test_explore import history_rows

PARALLEL = CORPORA / "parallel"
LANGUAGES = ("en", "de", "fr", "es", "tr", "ru", "el", "ar", "hi", "zh", "ja", "ko")


def languages(names=LANGUAGES) -> dict[str, str]:
    return {lang: str(PARALLEL / f"{lang}.txt") for lang in names}


def parity_app(variant: str = "base", names=LANGUAGES, **cfg) -> ExplorerApp:
    """The explorer on the parallel texts, each language's text its own corpus and its own
    development text (loaded synchronously: a deterministic first frame)."""
    config = TrainerConfig(preset="parity", parity=variant, vocab_size=1000, **cfg)
    trainer = Trainer.from_languages(languages(names), dev=languages(names), config=config)
    return ExplorerApp(trainer=trainer, preview=read_preview(list(languages(names).values())))


async def test_each_merge_says_which_language_chose_it_and_why():
    app = parity_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        trainer = app.session.trainer
        assert "parity-aware base: the language served worst chooses each merge" in str(app.history.query_one("#history-head").render())
        assert "hi's turn: its most frequent pair" in app.pairs.caption_text
        await pilot.press("n", "n", "n")
        await settle(app, pilot)
        events = trainer.history
        assert [e.reason.language for e in events] == ["hi", "el", "el"]
        rows = history_rows(app)
        for row, event in zip(rows, events):
            assert f" {event.reason.language} " in row
        # the why line says why, the latest merge's sentence too
        app.history.show_why(0)
        assert app.history.why.startswith("merge 1: hi chose it: its development text needs the most tokens now (3,809; the others 1,575-3,136)")
        assert "el chose it" in app.pairs.why_text
        # the next merge in the pair table is the turn's language's pair, marked, not the corpus's leader
        nxt = trainer.variant.next_pair(trainer)
        assert app.pairs.caption_text.startswith(f"next (merge 4): ")
        assert nxt in app.pairs.pairs and app.pairs.rows[app.pairs.pairs.index(nxt)][0].startswith("▶")


async def test_stats_draws_every_language_and_follows_undo_and_go_to():
    app = parity_app("window", parity_window=20, parity_alpha=2)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        trainer = app.session.trainer
        app.query_one(TabbedContent).active = "tab-stats"
        await settle(app, pilot)
        chart = app.query_one("#variant-plot", Chart)
        assert chart.display and "dev tokens · hi's turn" in chart.text
        legend = str(app.stats.query_one("#variant-legend").render())
        assert all(lang in legend for lang in LANGUAGES)
        await pilot.press("g")
        await pilot.pause()
        await pilot.press(*"400", "enter")
        await settle_until(app, pilot, lambda: trainer.steps_done == 400, "go to 400")
        assert app.stats.series.history == trainer.variant.score_history() and len(app.stats.series.history) == 401
        spread = lambda row: max(row) - min(row)  # noqa: E731
        assert spread(app.stats.series.history[-1]) < spread(app.stats.series.history[0]) / 10  # the curves draw together
        at_400 = [e.pair for e in trainer.history]
        for _ in range(3):
            await pilot.press("b")
        await settle(app, pilot)
        assert len(app.stats.series.history) == 398
        await pilot.press("g")
        await pilot.pause()
        await pilot.press(*"400", "enter")
        await settle_until(app, pilot, lambda: trainer.steps_done == 400, "go to 400 again")
        assert [e.pair for e in trainer.history] == at_400


async def test_the_rules_dialog_retrains_parity_aware_and_refuses_what_it_cannot_honour():
    from textual.widgets import Input, Select

    from .test_steer import yes_lose_unsaved

    app = parity_app(names=("en", "de", "hi"))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        for _ in range(5):
            await pilot.press("n")
        await settle(app, pilot)
        await pilot.press("comma")
        await pilot.pause()
        dialog = app.screen
        assert dialog.query_one("#pretokenizer", Select).value == app.session.trainer.config.pretokenizer
        dialog.query_one("#max-token-length", Input).value = "8"
        await pilot.click("#ok")
        await pilot.pause()
        assert "does not take max_token_length" in str(dialog.query_one("#settings-error").render())
        await pilot.press("escape")  # cancelled: the rules stay as they were
        await pilot.pause()
        await pilot.press("comma")
        await pilot.pause()
        app.screen.query_one("#tie-break", Select).value = "lexical-max"
        await pilot.click("#ok")
        await yes_lose_unsaved(app, pilot)
        await settle_until(app, pilot, lambda: app.session.trainer.config.tie_break == "lexical-max", "the retrain")
        trainer = app.session.trainer
        assert trainer.steps_done == 5 and trainer.config.parity == "base"
        assert [e.reason.language for e in trainer.history][0] == "hi"
        assert app.session.languages == ("en", "de", "hi")


async def test_a_plain_trainer_shows_no_language_column_nor_chart():
    from .conftest import demo_app

    app = demo_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await pilot.press("n")
        await settle(app, pilot)
        assert app.history.view.columns.language == 0
        app.query_one(TabbedContent).active = "tab-stats"
        await settle(app, pilot)
        assert not app.query_one("#variant-plot", Chart).display


async def test_languages_that_cannot_train_are_a_notification(tmp_path):
    short = tmp_path / "de.txt"
    short.write_text("Nur eine Zeile.\n", encoding="utf-8")
    corpora = languages(("en", "de"))
    dev = {"en": corpora["en"], "de": str(short)}
    app = ExplorerApp(languages=(corpora, dev, None), config=TrainerConfig(preset="parity", parity="base", vocab_size=400))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle_until(app, pilot, lambda: bool(said(app)), "the refusal")
        messages = [n.message for n in said(app)]
        assert any("development texts are not parallel" in m and "(de) has 1 line" in m for m in messages), messages


async def test_the_command_lines_languages_open_in_the_explorer():
    corpora = languages(("en", "de", "hi"))
    app = ExplorerApp(languages=(corpora, corpora, None), config=TrainerConfig(preset="parity", parity="window", vocab_size=400))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle_until(app, pilot, lambda: app.session is not None and hasattr(app.session, "trainer"), "the trainer")
        assert app.session.languages == ("en", "de", "hi")
        await pilot.press("n")
        await settle(app, pilot)
        assert app.session.trainer.history[0].reason.language == "hi"


# ---------------------------------------------------------------------- snapshots


def _steps_then(tab: str):
    async def run_before(pilot) -> None:
        app = pilot.app
        await settle(app, pilot)
        for _ in range(12):
            await pilot.press("n")
        await settle(app, pilot)
        app.query_one(TabbedContent).active = tab
        await settle(app, pilot)

    return run_before


def test_history_80x24(snap_compare):
    assert snap_compare(parity_app(), terminal_size=(80, 24), run_before=_steps_then("tab-history"))


def test_history_120x40(snap_compare):
    assert snap_compare(parity_app(), terminal_size=(120, 40), run_before=_steps_then("tab-history"))


def test_stats_80x24(snap_compare):
    assert snap_compare(parity_app("window"), terminal_size=(80, 24), run_before=_steps_then("tab-stats"))


def test_stats_120x40(snap_compare):
    assert snap_compare(parity_app("window"), terminal_size=(120, 40), run_before=_steps_then("tab-stats"))


@pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=["80x24", "120x40"])
def test_parity_screen(snap_compare, size):
    """The screen parity.md's "In the explorer" shows: English and Hindi, window variant, as
    ``bpe-tui --language en=... --dev en=... --language hi=... --dev hi=... --parity window``
    opens it, six merges in: Hindi's text still needs the most tokens, so the caption says it
    is hi's turn, and the history names the language that chose each merge."""

    async def six_merges(pilot):
        app = pilot.app
        await settle(app, pilot)
        for _ in range(6):
            await pilot.press("n")
        await settle(app, pilot)
        app.query_one(TabbedContent).active = "tab-history"
        await settle(app, pilot)
        assert "hi's turn" in app.pairs.caption_text
        assert [e.reason.language for e in app.session.trainer.history] == ["hi"] * 6

    assert snap_compare(parity_app("window", names=("en", "hi")), terminal_size=size, run_before=six_merges)
