"""BoundlessBPE trained in the explorer: a supermerge is a history row of its own (``⁀`` in
the mark column, readable without colour, the two pre-tokens it joined on either side of the
``+``), its why line says why, deletions are rows as PickyBPE's removals, the running text
marks where a token crosses a pre-token boundary, undo and go-to cross both kinds, and the
screen at 80x24 and 120x40 mid-supermerge (the docs page's picture)."""

from __future__ import annotations

import pytest
from textual.widgets import Input, Static

from bpe_tui import Trainer, TrainerConfig
from bpe_tui.ui.app import ExplorerApp
from bpe_tui.ui.panes.history import JOIN_MARK
from bpe_tui.ui.session.sessions import read_preview
from bpe_tui.ui.widgets.render import REMOVED_MARK

from .conftest import DEMO, history_cells, settle

#: On the demo corpus under --preset boundless: merge 91 (·wit + h) deletes ·wit, merge 97 is
#: the first supermerge, ·in + ·the (65 times side by side, as often as a + l: ties go to it).
FIRST_DELETION = 91
FIRST_SUPERMERGE = 97


def boundless_app(vocab_size: int = 500) -> ExplorerApp:
    trainer = Trainer.from_files([str(DEMO)], TrainerConfig(preset="boundless", vocab_size=vocab_size))
    return ExplorerApp(trainer=trainer, preview=read_preview([str(DEMO)]))


async def step_to(app, pilot, k: int) -> None:
    await settle(app, pilot)
    app.main.go_to_step(k)
    await settle(app, pilot)


async def test_a_supermerge_is_a_row_of_its_own_and_its_why_line_says_why():
    app = boundless_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await step_to(app, pilot, FIRST_SUPERMERGE - 1)
        await pilot.press("space")
        await settle(app, pilot)
        tr = app.session.trainer
        assert tr.steps_done == FIRST_SUPERMERGE and tr.history[-1].reason.kind == "supermerge"
        view = app.history.view
        row = app.session.row_of(FIRST_SUPERMERGE - 1)
        cells = history_cells(view, view.row_text(row))
        assert (cells.number, cells.mark, cells.left, cells.right) == (str(FIRST_SUPERMERGE), JOIN_MARK, "·in", "·the")
        assert cells.new.startswith("·in·the")
        why = app.history.why
        assert why.startswith(f"merge {FIRST_SUPERMERGE}: [{JOIN_MARK}] a supermerge: ·in + ·the: both whole tokens, 65 times side by side")
        assert "ties go to the supermerge" in why
        head = str(app.history.query_one("#history-head").render())
        assert f"BoundlessBPE τ 0.9 ({JOIN_MARK} supermerge, {REMOVED_MARK} deletion) · 1 supermerge" in head
        # the pair table's sentence is the trainer's, whole
        assert "merged ·in + ·the into ·in·the: 65 times; a supermerge" in app.pairs.why_text


async def test_a_deletion_is_a_row_under_its_merge():
    app = boundless_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await step_to(app, pilot, FIRST_DELETION)
        view = app.history.view
        assert view.count == FIRST_DELETION + 1  # 91 merges and the deletion after the last
        cells = history_cells(view, view.row_text(FIRST_DELETION))
        assert (cells.number, cells.mark, cells.left) == (str(FIRST_DELETION), REMOVED_MARK, "·wit")
        assert "·+w+i+t" in view.row_text(FIRST_DELETION)
        assert app.history.why.startswith(f"after merge {FIRST_DELETION}: [{REMOVED_MARK}] deleted ·wit: IoS 1 >= 0.9")


async def test_undo_and_go_to_cross_supermerges_and_deletions():
    app = boundless_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await step_to(app, pilot, FIRST_SUPERMERGE)
        await pilot.press("b")
        await settle(app, pilot)
        tr = app.session.trainer
        assert tr.steps_done == FIRST_SUPERMERGE - 1
        view = app.history.view
        row = app.session.row_of(FIRST_SUPERMERGE - 1)
        assert view.row_text(row).startswith("·") and JOIN_MARK in view.row_text(row)  # undone, still listed
        await step_to(app, pilot, FIRST_DELETION - 1)
        fresh = Trainer.from_files([str(DEMO)], tr.config)
        fresh.goto(FIRST_DELETION - 1)
        assert tr.vocab() == fresh.vocab() and tr.pair_counts() == fresh.pair_counts()
        assert [tr.segmentation(w) for w in range(tr.word_count)] == [fresh.segmentation(w) for w in range(fresh.word_count)]
        await step_to(app, pilot, 150)
        fresh.goto(150)
        assert [(e.pair, e.count, len(e.after)) for e in tr.history] == [(e.pair, e.count, len(e.after)) for e in fresh.history]


async def test_the_running_text_marks_where_a_boundary_was_crossed():
    app = boundless_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await step_to(app, pilot, FIRST_SUPERMERGE)
        await pilot.press("t")
        await settle(app, pilot)
        body = str(app.query_one("#corpus-text-body", Static).render())
        assert f"·in{JOIN_MARK}·the" in body
        await pilot.press("b")
        await settle(app, pilot)
        body = str(app.query_one("#corpus-text-body", Static).render())
        assert JOIN_MARK not in body and "·in·the" in body


@pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=["80x24", "120x40"])
def test_boundless_screen(snap_compare, size):
    async def mid_supermerge(pilot):
        app = pilot.app
        await step_to(app, pilot, FIRST_SUPERMERGE + 22)  # merge 119 joins ·of + ·the
        app.query_one("#encode-input", Input).value = "in the middle of the night"
        await settle(app, pilot)

    assert snap_compare(boundless_app(), terminal_size=size, run_before=mid_supermerge)


async def test_evaluate_sets_it_beside_plain_bpe_at_the_same_size():
    """``v`` trains plain BPE on the same pre-tokens to the size of the table encoding gives
    (deleted tokens keep their ids but encode to nothing) and sets the two side by side: the
    supermerges are superwords, plain BPE has none."""
    from bpe_tui.core.analysis.side_by_side import side_by_side
    from bpe_tui.core.engine.trainer import plain_counterpart
    from bpe_tui.ui.views.evaluate import EvalScreen

    app = boundless_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await step_to(app, pilot, 150)
        await pilot.press("v")
        await settle(app, pilot)
        screen = app.screen
        assert isinstance(screen, EvalScreen) and screen.plain is not None
        table = app.session.table()
        assert "vs plain BPE at the same size" in str(screen.query_one("#eval-title", Static).render())
        side = str(screen.query_one("#eval-side", Static).render()).splitlines()
        rows = {line.split("  ")[0]: line for line in side[3:]}
        assert rows["vocabulary"].split()[-2:] == [f"{len(table):,}"] * 2
        supermerges = len(table.supermerges)
        assert supermerges == 4 and rows["superwords"].split()[-2:] == ["0.0%", "(0)"]
        assert screen.summaries[0].superwords == supermerges and screen.summaries[1].superwords == 0
        plain = plain_counterpart(app.session.trainer.corpus_counts()[0], app.session.trainer.config, len(table))
        assert [s.as_dict() for s in screen.summaries] == [s.as_dict() for s in side_by_side([table, plain], screen.result)]
