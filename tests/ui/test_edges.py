"""The screen's last rough edges (issue 23, items 7-10): the history as a table, a status line
that never wraps, a key that maximizes the focused pane, the merge explanation that scrolls
and opens, the pair table's headers in words and a change column that says what it compares
with, and the table's summary where the encode text's pairs will be."""

from __future__ import annotations

import shutil
import threading

import pytest
from rich.cells import cell_len
from textual.widgets import Input, Static

import bpe_tui
from bpe_tui import Trainer, TrainerConfig
from bpe_tui.ui.app import ExplorerApp
from bpe_tui.ui.panes.history import CURRENT_MARK, TIE_MARK, UNDONE_MARK, HistoryColumns, token_widths
from bpe_tui.ui.panes.pairs import PairsPane
from bpe_tui.ui.panes.status import lay_out
from bpe_tui.ui.screens.inspect import InspectScreen
from bpe_tui.ui.session.sessions import ExploreSession, read_preview

from .conftest import CORPORA, DEMO, classic_app, demo_app, history_cells, said, settle, settle_until, text_app, wait_for_screen

SIZES = pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=["80x24", "120x40"])


def drawn_rows(view) -> list[str]:
    """The history's rows as the screen draws them (the list's own lines, cursor and all)."""
    return [view.render_line(y).text.rstrip() for y in range(view.size.height) if view.scroll_offset.y + y < view.count]


# ---------------------------------------------------------------------- 7. the history as a table


@SIZES
async def test_history_rows_read_as_a_table_counts_right_aligned_marks_in_their_column(size):
    # court.txt (seed 001): ties decide merges (=); two undone at the end (·), the last applied ●
    app = classic_app("court.txt")
    async with app.run_test(size=size) as pilot:
        await settle(app, pilot)
        await pilot.press(*["space"] * 6)
        await settle(app, pilot)
        await pilot.press("b", "b")
        await settle(app, pilot)
        tr = app.session.trainer
        view = app.history.view
        rows = drawn_rows(view)
        assert len(rows) == view.count == 6
        timeline = app.session.timeline
        for row, ev in zip(rows, timeline):
            cells = history_cells(view, row)
            assert cells.number == f"{ev.step:,}"
            assert cells.state == (CURRENT_MARK if ev.step == tr.steps_done else UNDONE_MARK if ev.step > tr.steps_done else " "), row
            assert cells.mark == (TIE_MARK if ev.tie_count else " "), row
            assert cells.count == f"{ev.count:,}"
            # the marks never touch the number: a space on each side
            assert row[1] == " " and row[2 + view.columns.number] == " ", row
        # every count ends in the same column, and " + " and " → " stand one above the other
        assert len({cell_len(row) for row in rows}) == 1, rows
        assert len({cell_len(row[: row.index(" → ")]) for row in rows}) == 1, rows
        assert len({cell_len(row[: row.index(" + ")]) for row in rows}) == 1, rows
        assert any(history_cells(view, row).mark == TIE_MARK for row in rows)


async def test_history_columns_measure_cells_cjk_and_emoji():
    # double-width characters and emoji: columns are counted in cells, not characters
    text = "日本語 日本語 日本語 日本 日本 😀😀 😀😀 😀😀 ab ab ab ab"
    app = text_app(text, preset="gpt2", units="chars", pretokenizer="whitespace")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        await pilot.press(*["space"] * 5)
        await settle(app, pilot)
        view = app.history.view
        rows = drawn_rows(view)
        assert any("日" in row for row in rows) and any("😀" in row for row in rows)
        assert len({cell_len(row) for row in rows}) == 1, rows
        assert len({cell_len(row[: row.index(" → ")]) for row in rows}) == 1, rows
        width = view.scrollable_content_region.width  # left of the scrollbar
        assert all(cell_len(row) <= width for row in rows)


async def test_history_token_columns_only_grow_while_scrolling_and_draw_the_window_only():
    app = demo_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await pilot.press("r")  # 743 merges: short tokens first, longer ones later
        await settle(app, pilot)
        view = app.history.view
        assert view.count == 744 and view.cursor == 743
        measured: list[int] = []
        history_row = app.session.history_row
        app.session.history_row = lambda i: measured.append(i) or history_row(i)  # type: ignore[method-assign]
        at_end = view.columns
        view.focus()
        widths = [at_end]
        while view.cursor:
            await pilot.press("pageup")
            await pilot.pause()
            widths.append(view.columns)
        assert view.cursor == 0
        # never narrower than before: scrolling back never moves a column to the left
        for a, b in zip(widths, widths[1:]):
            assert b.left >= a.left and b.right >= a.right and b.new >= a.new, (a, b)
        # the number and count columns are as wide as the list's widest from the start
        assert at_end.number == len("744") and at_end.count == len(f"{app.session.timeline[0].count:,}")
        # only rows near the window were read, never the whole list
        assert len(set(measured)) < 744
        # narrower, the columns give up cells: every row still ends left of the scrollbar
        await pilot.press("end")
        await pilot.resize_terminal(80, 24)
        await settle(app, pilot)
        rows = drawn_rows(view)
        assert rows and all(cell_len(row) <= view.scrollable_content_region.width for row in rows), rows
        assert len({cell_len(row) for row in rows}) == 1, rows  # the counts still in one column


def test_token_columns_give_up_cells_widest_first():
    assert token_widths((5, 4, 9), 30) == (5, 4, 9)
    assert token_widths((5, 4, 9), 15) == (5, 4, 6)
    assert token_widths((10, 10, 20), 12) == (4, 4, 4)
    assert token_widths((10, 10, 20), 3) == (3, 3, 3)  # never below three cells (then …)
    assert HistoryColumns(number=3, count=6).fixed == 1 + 1 + 3 + 1 + 1 + 1 + 3 + 3 + 7


# ---------------------------------------------------------------------- 8. one status line


def status_rows(app) -> list[str]:
    status = app.status
    return [line for line in status.line.plain.split("\n")]


@SIZES
async def test_status_line_is_one_line_with_long_corpus_and_table_names(size, tmp_path):
    corpus = tmp_path / ("a-corpus-with-a-very-long-name-indeed-" * 2 + "tinyshakespeare.txt")
    shutil.copyfile(DEMO, corpus)
    trainer = Trainer.from_files([str(corpus)], TrainerConfig(preset="gpt2", vocab_size=1000, lowercase=True, special_tokens=["<|endoftext|>"]))
    app = ExplorerApp(trainer=trainer, preview=read_preview([str(corpus)]))
    async with app.run_test(size=size) as pilot:
        await settle(app, pilot)
        await pilot.press("N")
        await settle(app, pilot)
        status = app.status
        assert status.size.height == 1 and len(status_rows(app)) == 1
        line = status_rows(app)[0]
        assert cell_len(line) <= size[0] - 2
        assert "step 10/743" in line and "vocab 267" in line  # 743: the special token takes an id
        assert "lowercase" in status.text and corpus.name in status.text  # the full facts
        await pilot.press("p")  # auto-play adds a phrase: still one line
        await pilot.pause()
        assert status.size.height == 1 and len(status_rows(app)) == 1 and "step" in status_rows(app)[0]
        await pilot.press("p")
        await settle(app, pilot)
    table_path = tmp_path / ("a-merge-table-with-a-long-name-" * 3 + ".json")
    bpe_tui.save(bpe_tui.train(str(DEMO), preset="gpt2", merges=50, special_tokens=["<|endoftext|>"]), str(table_path))
    app = ExplorerApp(table_path=str(table_path))
    async with app.run_test(size=size) as pilot:
        await wait_for_screen(app, pilot, InspectScreen)
        await settle(app, pilot)
        assert app.status.size.height == 1 and len(status_rows(app)) == 1
        line = status_rows(app)[0]
        assert "50 merges" in line and "307 tokens" in line and cell_len(line) <= size[0] - 2


async def test_status_line_refits_on_resize():
    app = demo_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        wide = status_rows(app)[0]
        assert "tokens 52,799 (step 0: 52,799)" in wide
        await pilot.resize_terminal(60, 24)
        await settle(app, pilot)
        narrow = status_rows(app)
        assert len(narrow) == 1 and cell_len(narrow[0]) <= 58
        assert "step 0/744" in narrow[0] and "vocab 256" in narrow[0] and "tokens 52,799 (step 0" not in narrow[0]


async def test_status_phrases_give_way_in_order_step_and_vocab_stay(tmp_path):
    """The training line at every width from 140 to 20 cells: each phrase goes through its
    shorter forms and out in the order of its importance; step and vocabulary stay."""
    corpus = tmp_path / "tinyshakespeare.txt"
    shutil.copyfile(DEMO, corpus)
    trainer = Trainer.from_files([str(corpus)], TrainerConfig(preset="gpt2", vocab_size=1000, lowercase=True))
    app = ExplorerApp(trainer=trainer, preview=read_preview([str(corpus)]))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await pilot.press("N", "N")
        await settle(app, pilot)
        parts = app.status.parts
        text = app.status.text
    assert text == "tinyshakespeare.txt │ bytes · gpt2 · lexical-max · lowercase │ step 20/744 │ vocab 276 │ tokens 39,553 (step 0: 52,799) │ 1.33 chars/token"
    seen = []
    for width in range(140, 19, -1):
        line = lay_out(parts, width, max_lines=1).plain
        assert "\n" not in line and cell_len(line) <= width
        if width >= len("step 20/744 │ vocab 276"):  # the name goes before they do
            assert "step 20/744" in line and "vocab 276" in line, (width, line)
        if not seen or seen[-1][1] != line:
            seen.append((width, line))
    order = [line for _, line in seen]
    first = [next(i for i, line in enumerate(order) if not cond(line)) for cond in (
        lambda line: "(step 0: 52,799)" in line,  # the tokens' comparison goes first
        lambda line: "tokens 39,553" in line,  # then the tokens
        lambda line: "lowercase" in line,  # then the rules' extras
        lambda line: "bytes" in line,  # then the units
        lambda line: "lexical-max" in line,  # then the rules
        lambda line: "chars/token" in line,  # then characters per token
        lambda line: "tinyshakespeare.txt" in line,  # and last the name is cut
        lambda line: "tinysh" in line,  # and left out
    )]
    assert first == sorted(first) and len(set(first)) == len(first), seen


# ---------------------------------------------------------------------- 9. z, the explanation, the headers


async def test_z_maximizes_the_focused_pane_and_brings_the_layout_back():
    app = demo_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        await pilot.press("N")
        await settle(app, pilot)
        screen = app.screen
        assert screen.focused is app.pairs.table
        await pilot.press("z")
        await settle(app, pilot)
        assert isinstance(screen.maximized, PairsPane)
        # the pane fills the screen between the status line (still on top) and the footer
        assert app.status.region.y == 0 and app.status.region.height == 1
        assert app.pairs.region.y == 1 and app.pairs.region.width == 80 and app.pairs.region.height >= 20
        assert not app.history.region.area  # the rest is hidden meanwhile
        # the pair table's token columns take the room
        wide = app.pairs.widths
        await pilot.press("z")
        await settle(app, pilot)
        assert screen.maximized is None and app.pairs.region.width < 80 and app.pairs.widths[1] < wide[1]
        # the tabs as a whole: 1 2 3 still switch them; escape brings the layout back
        app.history.view.focus()
        await pilot.press("z")
        await settle(app, pilot)
        assert screen.maximized is app.query_one("#tabs")
        await pilot.press("2")
        await settle(app, pilot)
        assert app.query_one("#tabs").active == "tab-stats" and screen.maximized is not None
        await pilot.press("escape")
        await settle(app, pilot)
        assert screen.maximized is None
        # the encode box's pane too, from its text box
        await pilot.press("e")
        app.encode.query_one("#encode-input", Input).value = "the lowest"
        await app.screen.run_action("maximize_pane")
        await settle(app, pilot)
        assert screen.maximized is app.encode
        await pilot.press("escape")  # restores first; the box keeps the focus
        await settle(app, pilot)
        assert screen.maximized is None


async def test_escape_cancels_a_run_before_it_restores_the_layout(monkeypatch):
    # one merge per batch, 10 ms apart: the 743 merges take seconds, time to press escape
    advance = ExploreSession.advance

    def slow_advance(self, max_steps, *args, **kwargs):
        threading.Event().wait(0.01)
        return advance(self, 1, *args, **kwargs)

    monkeypatch.setattr(ExploreSession, "advance", slow_advance)
    app = demo_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        await pilot.press("z")
        await settle(app, pilot)
        assert app.screen.maximized is not None
        await pilot.press("r")
        for _ in range(600):  # the worker starts from a message: wait for it
            if app.session.busy:
                break
            await pilot.pause(0.05)
        assert app.session.busy
        await pilot.press("escape")
        await settle(app, pilot)
        assert not app.session.busy and app.screen.maximized is not None  # the run stopped, the pane stays
        assert any("cancelled" in n.message for n in said(app))
        await pilot.press("escape")
        await settle(app, pilot)
        assert app.screen.maximized is None


async def test_the_zoom_key_is_in_the_help_the_footer_and_the_palette():
    app = demo_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        titles = {c.title for c in app.get_system_commands(app.screen)}
        assert "Maximize the pane that has the focus, or restore it (escape restores it too)" in titles
        from textual.widgets._footer import FooterKey

        zoom = [k for k in app.screen.query(FooterKey) if k.action == "maximize_pane"]
        assert zoom and zoom[0].visible and zoom[0].region.right <= 80  # it fits at 80 columns
        await pilot.press("f1")
        await pilot.pause()
        assert "maximize the pane that has the focus" in app.screen.text


async def test_the_merge_explanation_scrolls_and_opens_whole_when_focused():
    app = demo_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        await pilot.press("space")
        await settle(app, pilot)
        box = app.pairs.query_one("#pair-why")
        sentence = app.pairs.why_text
        assert sentence.endswith("no other pair occurs as often")
        # the whole sentence is there, three lines of it shown, the rest a scroll away
        assert str(app.pairs.query_one("#pair-why-text", Static).content) == sentence
        assert box.size.height == 3 and box.virtual_size.height > 3 and box.max_scroll_y > 0
        # with the focus (tab from the pair table, or a click) it opens to its whole length
        await pilot.press("tab")
        await settle(app, pilot)
        assert app.screen.focused is box
        assert box.size.height == box.virtual_size.height > 3 and box.max_scroll_y == 0
        await pilot.press("tab")
        await settle(app, pilot)
        assert box.size.height == 3
        await pilot.click("#pair-why")
        await settle(app, pilot)
        assert app.screen.focused is box and box.max_scroll_y == 0


# ---------------------------------------------------------------------- 10. the table's summary


@SIZES
async def test_inspect_shows_the_table_summary_until_text_is_typed(size, tmp_path):
    path = tmp_path / "demo.tiktoken"  # a rank file: the reader notes what it assumed
    bpe_tui.save(bpe_tui.train(str(DEMO), preset="gpt2", merges=40, special_tokens=["<|endoftext|>"]), str(path), format="tiktoken")
    app = ExplorerApp(table_path=str(path))
    async with app.run_test(size=size) as pilot:
        await wait_for_screen(app, pilot, InspectScreen)
        await settle(app, pilot)
        pairs = app.pairs
        table = app.session.full_table
        assert table.notes
        assert pairs.has_class("-summary") and pairs.query_one("#pair-summary").region.area
        assert not pairs.table.region.area
        summary = pairs.summary_text
        assert "format tiktoken" in summary and f"size {len(table.vocab):,} tokens, 40 merges" in summary
        assert "units bytes" in summary and "pre-tokenizer gpt2" in summary
        assert all(f"note {note}" in summary for note in table.notes)
        assert pairs.caption_text == "type in the encode box (e) to see its pairs"
        box = app.query_one("#encode-input", Input)
        box.value = "the lowest"
        await settle(app, pilot)
        assert not pairs.has_class("-summary") and pairs.table.region.area and pairs.rows
        box.value = ""
        await settle(app, pilot)
        assert pairs.has_class("-summary")


async def test_summary_says_how_far_a_rank_files_merge_list_has_come(tmp_path):
    from bpe_tui.core.tables.formats import load
    from bpe_tui.core.tables.summary import summary

    path = tmp_path / "demo.tiktoken"
    bpe_tui.save(bpe_tui.train(str(CORPORA / "cat_sat.txt"), preset="gpt2", merges=10), str(path), format="tiktoken")
    table = load(str(path))
    rows = dict(summary(table.describe(build=False), merges_note="building the merge list… 49%"))
    assert not table.merges_built  # the summary did not build it
    assert rows["size"] == f"{len(table.vocab):,} tokens, building the merge list… 49%"
    assert rows["specials"] == "none"


def test_pair_counts_then_are_the_counts_a_trainer_has_at_that_step():
    config = TrainerConfig(preset="gpt2", vocab_size=1000)
    session = ExploreSession(Trainer.from_files([str(DEMO)], config))
    reference = Trainer.from_files([str(DEMO)], config)
    session.advance(300)
    at_300 = session.trainer.pair_counts()
    now = dict(session.trainer.top_pairs(50))
    for then in (0, 1, 17, 150, 299):
        reference.goto(then)
        assert session.pair_counts_then(then, now) == {pair: reference.pair_count(pair) for pair in now}, then
    # back (an undo, a go to below): the counts of the later step
    session.retreat(40)
    now = dict(session.trainer.top_pairs(50))
    assert session.pair_counts_then(300, now) == {pair: at_300.get(pair, 0) for pair in now}
    # a hand merge is one of the merges between like any other
    pair = session.trainer.top_pairs(3)[2][0]
    session.merge_by_hand(pair)
    now = dict(session.trainer.top_pairs(50))
    reference.goto(260)
    assert session.pair_counts_then(260, now) == {p: reference.pair_count(p) for p in now}


def test_pair_counts_then_are_not_guessed_across_the_superword_transition():
    text = (CORPORA / "demo.txt").read_text(encoding="utf-8")
    session = ExploreSession(Trainer.from_text(text, TrainerConfig(preset="gpt2", merges=60, superwords_after=30), name="demo"))
    session.advance(50)
    now = dict(session.trainer.top_pairs(10))
    assert session.pair_counts_then(20, now) is None  # the corpus was cut anew at merge 30
    assert session.pair_counts_then(30, now) is not None


async def test_encode_chips_move_whole_to_the_next_line_when_the_pane_narrows(tmp_path):
    """Chips laid out at 120 columns are laid out again at 80: every chip line fits the view,
    so no token is cut at the edge, and the chips still spell the tokens in order."""
    from bpe_tui.ui.panes.encode import EncodeView

    path = tmp_path / "t.json"
    bpe_tui.save(bpe_tui.train(str(DEMO), preset="gpt2", merges=600), str(path))
    app = ExplorerApp(table_path=str(path))
    text = "the baker said that the old house was standing there in the middle of the village " * 3
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for_screen(app, pilot, InspectScreen)
        app.query_one("#encode-input", Input).value = text
        await settle(app, pilot)
        view = app.query_one(EncodeView)
        wide = [line.plain for line, _ in view.lines]
        await pilot.resize_terminal(80, 24)
        await settle(app, pilot)
        narrow = [line.plain for line, _ in view.lines]
        assert narrow != wide and len(narrow) > len(wide)
        assert all(cell_len(row) <= view.size.width - 1 for row in narrow)
        chips = [name for row in narrow[0::2] for name in row.split()]
        assert chips == [name for row in wide[0::2] for name in row.split()]
        assert len(chips) == len(app.encode.ids)


async def test_encode_chips_fill_the_free_rows_before_they_scroll(tmp_path):
    """A text of six chip lines at 120x40 showed two of them (23 of 40 tokens) above a dozen
    empty rows: the chips take the rows they need, the trace keeps its own below them; at
    80x24 the chips keep at least two lines and scroll beyond."""
    from bpe_tui.ui.panes.encode import CHIP_ROWS, EncodeView, TraceView

    app = demo_table_app(tmp_path, 400)
    async with app.run_test(size=(120, 40)) as pilot:
        await encoded_in_chips(app, pilot, "The baker's lowest price: 7:45 नमस्ते 🙂")
        view, trace = app.query_one(EncodeView), app.query_one(TraceView)
        assert len(view.lines) > CHIP_ROWS
        assert view.size.height == len(view.lines)  # every chip line shown, none scrolled away
        assert trace.size.height >= len(trace.rows)
        shown = [int(i) for line, _ in view.lines[1::2] for i in line.plain.split()]  # (the lines of ids)
        assert shown == app.encode.ids and len(shown) == 40
        await pilot.resize_terminal(80, 24)
        await settle(app, pilot)
        assert view.size.height >= CHIP_ROWS and trace.size.height >= 1
        assert view.size.height + trace.size.height <= app.encode.content_size.height - 2


async def test_the_rules_dialog_says_in_a_sentence_what_counts_the_files_again():
    """It read "lowercase, the pre-tokenizer count the corpus files again"."""
    from bpe_tui.ui.app import default_config
    from bpe_tui.ui.screens.explore import ExploreScreen

    from .conftest import open_settings

    app = ExplorerApp(paths=[str(DEMO)], config=default_config(None))
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for_screen(app, pilot, ExploreScreen)
        await settle(app, pilot)
        await open_settings(app, pilot)
        hints = [str(h.render()) for h in app.screen.query(".hint")]
        assert "changing lowercase or the pre-tokenizer counts the corpus files again" in hints, hints


async def test_a_chip_wider_than_the_pane_goes_on_under_itself(tmp_path):
    """👨‍👩‍👧 is one chip of 18 byte tokens, its ids wider than the pane at 80x24: they ran
    past the edge (tmux read "… 240" and lost the rest). The ids go on in lines under the
    chip, in order, none past the edge."""
    from bpe_tui.ui.panes.encode import EncodeView

    app = demo_table_app(tmp_path, 50)
    async with app.run_test(size=(80, 24)) as pilot:
        await encoded_in_chips(app, pilot, "the family 👨\u200d👩\u200d👧 went out")
        view = app.query_one(EncodeView)
        rows = [line.plain for line, _ in view.lines]
        assert all(cell_len(row) <= view.chip_width for row in rows), rows
        shown = [int(i) for row in rows[1::2] for i in row.split()]
        assert shown == app.encode.ids and shown.count(240) == 3


def demo_table_app(tmp_path, merges: int) -> ExplorerApp:
    """The explorer on a table of the demo corpus (``merges`` merges, GPT-2's rules) saved here."""
    path = tmp_path / "t.json"
    bpe_tui.save(bpe_tui.train(str(DEMO), preset="gpt2", merges=merges), str(path))
    return ExplorerApp(table_path=str(path))


async def encoded_in_chips(app, pilot, text: str) -> None:
    """Once the table is open: ``text`` in the encode box, and its chips drawn."""
    from bpe_tui.ui.panes.encode import EncodeView

    await wait_for_screen(app, pilot, InspectScreen)
    app.query_one("#encode-input", Input).value = text
    await settle(app, pilot)
    view = app.query_one(EncodeView)
    await settle_until(app, pilot, lambda: bool(app.encode.ids) and bool(view.lines), "the chips")
