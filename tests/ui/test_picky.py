"""PickyBPE in the explorer: removals and restores in the history (their own marks, the parts,
readable without colour), the why line and the pair table's sentence, the corpus as the
removal leaves it, undo and go-to across them, the settings' threshold (bad input stays in
the dialog), saving (formats that cannot hold removals: a notification, nothing written), and
the screen at 80x24 and 120x40."""

from __future__ import annotations

import pytest
from textual.widgets import Input

import bpe_tui
from bpe_tui import Trainer, TrainerConfig
from bpe_tui.core.engine.variants.picky import PickyBPE, RemovalEvent
from bpe_tui.ui.app import ExplorerApp
from bpe_tui.ui.screens.settings import SettingsScreen
from bpe_tui.ui.session.sessions import read_preview
from bpe_tui.ui.widgets.render import REMOVED_MARK

from .conftest import DEMO, history_cells, said, settle, settle_until

#: On the demo corpus at τ 0.7, merge 13 (▁a + nd) is followed by the first removal: nd.
FIRST_REMOVAL = 13


def picky_app(tau: float | None = 0.7, vocab_size: int = 400) -> ExplorerApp:
    """The explorer on the demo corpus under the picky preset (the explorer's token limit)."""
    cfg = TrainerConfig(preset="picky", picky=tau, vocab_size=vocab_size, max_token_length=32)
    trainer = Trainer.from_files([str(DEMO)], cfg)
    return ExplorerApp(trainer=trainer, preview=read_preview([str(DEMO)]))


def notes(app) -> list[str]:
    return [str(n.message) for n in said(app)]


async def step_to(app, pilot, k: int) -> None:
    await settle(app, pilot)
    app.main.go_to_step(k)
    await settle(app, pilot)


def drawn(view) -> list[str]:
    return [view.render_line(y).text.rstrip() for y in range(view.size.height) if view.scroll_offset.y + y < view.count]


async def test_a_removal_has_a_row_of_its_own_under_its_merge():
    app = picky_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        for _ in range(FIRST_REMOVAL):
            await pilot.press("space")
        await settle(app, pilot)
        tr = app.session.trainer
        event = tr.history[-1]
        removal = event.after[0]
        assert isinstance(removal, RemovalEvent) and removal.token == "nd"
        view = app.history.view
        assert view.count == FIRST_REMOVAL + 1  # 13 merges and one removal
        merge_row, removal_row = view.row_text(FIRST_REMOVAL - 1), view.row_text(FIRST_REMOVAL)
        cells = history_cells(view, removal_row)
        assert cells.number == str(FIRST_REMOVAL) and cells.mark == REMOVED_MARK and cells.left == "nd"
        assert "n+d" in removal_row and removal_row.rstrip().endswith(f"{removal.freq:,}")
        assert history_cells(view, merge_row).new == "▁and"
        # the cursor follows to the step's last row: the why line explains the removal
        assert view.cursor == FIRST_REMOVAL
        assert app.history.why.startswith(f"after merge {FIRST_REMOVAL}: [{REMOVED_MARK}] removed nd: IoS ")
        assert "now lives almost only inside ▁and" in app.history.why
        # the pair table's sentence speaks of the whole step
        assert "; then removed nd: IoS" in app.pairs.why_text
        # the corpus shows the words as the removal left them: no nd anywhere
        assert all("nd" not in tr.segmentation(w) for w in range(tr.word_count))
        # the head says what the marks mean
        head = str(app.history.query_one("#history-head").render())
        assert f"PickyBPE τ 0.7 ({REMOVED_MARK} removal, + restore)" in head


async def test_the_pairs_caption_says_which_constraint_hides_pairs():
    """The pairs holding <UNK> are never merged and not listed: the caption says it is
    PickyBPE's coverage that hides them, not a vague "the constraints"."""
    app = picky_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        n = app.session.trainer.forbidden_pair_count()
        assert n == 5
        assert f"({n} pairs hidden: <UNK> (coverage))" in app.pairs.caption_text


async def test_undo_and_go_to_cross_removals_exactly():
    app = picky_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await step_to(app, pilot, FIRST_REMOVAL + 40)
        tr = app.session.trainer
        after = sum(len(ev.after) for ev in tr.history)
        assert after >= 2 and app.history.view.count == tr.steps_done + after
        await pilot.press("b")
        await settle(app, pilot)
        await step_to(app, pilot, FIRST_REMOVAL - 1)
        fresh = Trainer.from_files([str(DEMO)], tr.config)
        fresh.goto(FIRST_REMOVAL - 1)
        assert tr.vocab() == fresh.vocab() and tr.pair_counts() == fresh.pair_counts()
        assert [tr.segmentation(w) for w in range(tr.word_count)] == [fresh.segmentation(w) for w in range(fresh.word_count)]
        # the undone removal stays listed, dimmed as undone, and choosing it goes forward to its merge
        view = app.history.view
        row = app.session.row_of(FIRST_REMOVAL - 1) + 1
        assert view.row_text(row).startswith("·") and REMOVED_MARK in view.row_text(row)
        view.focus()
        view.move_cursor(row)
        await pilot.press("enter")
        await settle(app, pilot)
        assert tr.steps_done == FIRST_REMOVAL and "nd" not in tr.vocab().values()


async def test_the_settings_threshold_retrains_and_bad_input_stays_in_the_dialog():
    app = picky_app(tau=None)
    async with app.run_test(size=(120, 40)) as pilot:
        await step_to(app, pilot, 20)
        assert not app.session.trainer.removed
        await pilot.press("comma")
        await pilot.pause()
        assert isinstance(app.screen, SettingsScreen)
        box = app.screen.query_one("#picky", Input)
        for bad, says in (("lots", "PickyBPE τ: 'lots' is not a number"), ("1.5", "picky: the IoS threshold must be a number above 0 and at most 1")):
            box.focus()
            box.value = bad
            await pilot.press("enter")
            await pilot.pause()
            assert isinstance(app.screen, SettingsScreen)
            assert says in str(app.screen.query_one("#settings-error").render())
        box.value = "0.7"
        await pilot.press("enter")
        await pilot.pause()
        await pilot.press("y")  # (the 20 merges made are not saved: retrain anyway)
        await settle_until(app, pilot, lambda: app.session.trainer.config.picky == 0.7, "the retrain did not happen")
        tr = app.session.trainer
        assert isinstance(tr.variant, PickyBPE) and tr.steps_done == 20 and tr.removed


async def test_saving_as_a_format_without_removals_is_refused(tmp_path):
    app = picky_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await step_to(app, pilot, FIRST_REMOVAL + 5)
        out = tmp_path / "picky.tokenizer.json"
        app.main.save_table(str(out), "hf")
        await settle(app, pilot)
        assert any("the hf format cannot hold PickyBPE's removals" in n for n in notes(app))
        assert not out.exists()
        good = tmp_path / "picky.json"
        app.main.save_table(str(good), "native")
        await settle(app, pilot)
        table = bpe_tui.load(str(good))
        assert table.removals and len(table) == app.session.trainer.vocab_size
        assert any("ids without the gaps of" in n for n in notes(app))


@pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=["80x24", "120x40"])
def test_picky_screen(snap_compare, size):
    async def to_the_first_removals(pilot):
        app = pilot.app
        await step_to(app, pilot, FIRST_REMOVAL + 37)  # merge 50 removes ▁T
        app.query_one("#encode-input", Input).value = "That band stands"
        await settle(app, pilot)

    assert snap_compare(picky_app(), terminal_size=size, run_before=to_the_first_removals)


async def test_a_removed_token_says_so_in_the_token_pane():
    app = picky_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await step_to(app, pilot, FIRST_REMOVAL)
        view = app.history.view
        view.focus()
        view.move_cursor(0)
        view.move_cursor(FIRST_REMOVAL)  # the removal's row: selecting it shows the token removed
        await settle(app, pilot)
        detail = app.screen.query_one("TokenDetail")
        assert detail.info.startswith("nd  id ") and f"{REMOVED_MARK} removed (PickyBPE)" in detail.info
        # and the encode box's trace says where a removal took a token back
        app.query_one("#encode-input", Input).value = "stands"
        await settle(app, pilot)
        lines = [" ".join(line.split()) for line in app.encode.trace_lines]
        assert lines[0].startswith("trace of “stands”")
        assert any(line.startswith(f"after {FIRST_REMOVAL} {REMOVED_MARK} nd →") for line in lines), lines


async def test_a_saved_table_shows_its_removals_in_inspect_mode(tmp_path):
    trainer = Trainer.from_files([str(DEMO)], TrainerConfig(preset="picky", picky=0.7, merges=60))
    for _ in trainer.run():
        pass
    path = tmp_path / "picky.json"
    bpe_tui.save(trainer.table, str(path))
    table = bpe_tui.load(str(path))
    app = ExplorerApp(table_path=str(path))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        view = app.history.view
        assert view.count == table.num_merges + len(table.removals)
        row = app.session.row_of(FIRST_REMOVAL - 1) + 1  # the removal after merge 13
        cells = history_cells(view, view.row_text(row))
        assert (cells.number, cells.mark, cells.left) == (str(FIRST_REMOVAL), REMOVED_MARK, "nd") and "n+d" in view.row_text(row)
        view.focus()
        view.move_cursor(row)
        await settle(app, pilot)
        assert app.history.why.startswith(f"after merge {FIRST_REMOVAL}: [{REMOVED_MARK}] removed nd (PickyBPE): split into n + d")
        # cutting the table there encodes with the merges and removals up to it
        app.main.go_to_step(FIRST_REMOVAL)
        await settle(app, pilot)
        assert app.session.table().removals == [[FIRST_REMOVAL, table.removals[0][1], table.removals[0][2]]]
