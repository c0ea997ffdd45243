"""What the explorer writes is whole, true and readable at 80x24: no stray scrollbar, no
phrase cut mid-word, tables named after their folders, counts of one in the singular with
thousands separators, and a corpus that is not UTF-8 offered a way in from the TUI."""

from __future__ import annotations

import pytest
from textual.widgets import Input

import bpe_tui
from bpe_tui.ui.app import NOTES_SECONDS, NOTES_SHOWN, ExplorerApp
from bpe_tui.ui.panes.search import LIMIT, matches
from bpe_tui.ui.panes.status import Phrases
from bpe_tui.ui.screens.dialogs import ConfirmScreen
from bpe_tui.ui.screens.explore import ExploreScreen
from bpe_tui.ui.screens.inspect import InspectScreen
from bpe_tui.ui.views.compare import CompareScreen

from .conftest import CORPORA, DEMO, demo_app, said, settle, text_app, wait_for_screen


def notes(app) -> list:
    return said(app)


@pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=["80x24", "120x40"])
async def test_lists_draw_no_horizontal_scrollbar(size):
    """The corpus and history lists are one row per line, cut to their width: the vertical
    scrollbar's column must not bring a horizontal scrollbar (the stray "▏ ▏" under the corpus)."""
    app = demo_app()
    async with app.run_test(size=size) as pilot:
        await settle(app, pilot)
        await pilot.press("ctrl+n")  # 100 merges: the history scrolls too
        await settle(app, pilot)
        for view in (app.corpus.words_view, app.history.view):
            assert view.show_vertical_scrollbar
            assert not view.show_horizontal_scrollbar
            assert view.max_scroll_x == 0 or not view.allow_horizontal_scroll


@pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=["80x24", "120x40"])
async def test_history_head_fits_after_undoing_many(size):
    app = demo_app()
    async with app.run_test(size=size) as pilot:
        await settle(app, pilot)
        await pilot.press("ctrl+n")
        await settle(app, pilot)
        app.main.go_to_step(10)
        await settle(app, pilot)
        head = app.history.query_one("#history-head")
        text = str(head.render())
        assert text == "10 merges, 90 undone (enter: redo)"
        assert len(text) <= head.size.width and head.size.height == 1


async def test_counts_of_one_are_singular_and_big_ones_separated():
    app = text_app("ab ab ab cd " * 1200)  # 12 characters a repeat: 14,400 characters
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await pilot.press("space")
        await settle(app, pilot)
        assert str(app.history.query_one("#history-head").render()) == "1 merge"
        box = app.query_one("#encode-input", Input)
        box.value = "a"
        await settle(app, pilot)
        assert app.encode.summary.startswith("1 token · ")
        box.value = "xyz " * 2500  # long: encoded in a worker, "encoding 10,000 characters…" meanwhile
        await settle(app, pilot)
        assert app.encode.summary.startswith("10,000 tokens · ")
        assert app.query_one("#encode-summary", Phrases).text.startswith("10,000 tokens")
    assert matches(1) == "1 token matches — enter shows it"
    assert matches(0) == "no token matches"
    assert matches(1234) == f"{LIMIT:,}+ tokens match — enter shows one"
    assert matches(12) == "12 tokens match — enter shows one"


async def test_encode_summary_leaves_out_whole_phrases_at_80x24():
    """One line (the trace needs the rows): what does not fit is left out whole, never cut to
    "1.32" without its unit."""
    app = demo_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        app.query_one("#encode-input", Input).value = "the lowest [/b] newer and older " * 2
        await settle(app, pilot)
        summary = app.query_one("#encode-summary", Phrases)
        lines = summary.line.plain.split("\n")
        assert "chars/token" in summary.text and len(lines) == 1
        for line in lines:
            assert len(line) <= summary.size.width
            for phrase in line.split(" · "):
                assert phrase in summary.text.split(" · "), (phrase, lines)


def gpt2_folder(tmp_path, name: str, corpus: str = "demo.txt", merges: int = 40) -> str:
    folder = tmp_path / name
    bpe_tui.save(bpe_tui.train(str(CORPORA / corpus), preset="gpt2", merges=merges), str(folder), format="gpt2")
    return str(folder)


async def test_a_gpt2_folder_is_named_after_the_folder(tmp_path):
    """vocab.json + merges.txt in a folder: the table is the folder's (status line, compare
    sides), not "merges.txt"; the same from the CLI's path (the table read first)."""
    a = gpt2_folder(tmp_path, "my-table")
    b = gpt2_folder(tmp_path, "other-table", "multilingual.txt")
    assert bpe_tui.load(a).source == a
    assert bpe_tui.load(a + "/merges.txt").source == a
    app = ExplorerApp(table=bpe_tui.load(a), compare_path=b)  # as `bpe-tui open A --compare B`
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for_screen(app, pilot, CompareScreen)
        assert app.session.name == "my-table"
        assert app.screen.side("A").title_text == "A my-table  format gpt2"
        assert app.screen.side("B").title_text == "B other-table  format gpt2"
        await pilot.press("escape")
        await settle(app, pilot)
        assert isinstance(app.screen, InspectScreen)
        assert app.status.text.startswith("my-table │ format gpt2")


async def test_compare_rules_wrap_between_phrases_at_80x24(tmp_path):
    a = gpt2_folder(tmp_path, "a")
    app = ExplorerApp(table=bpe_tui.load(a), compare_path=a)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for_screen(app, pilot, CompareScreen)
        side = app.screen.side("B")
        rules = side.query_one(".side-rules", Phrases)
        parts = side.side.rule_parts()
        for line in rules.line.plain.split("\n"):
            assert len(line) <= rules.size.width
            assert all(p in parts for p in line.split(" · ")), line


async def test_a_corpus_not_utf8_is_offered_with_invalid_bytes_replaced(tmp_path):
    bad = tmp_path / "latin1.txt"
    bad.write_bytes("café crème brûlée\n".encode("latin-1") * 3)
    app = demo_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        before = app.session
        app.open_path(str(bad))
        await settle(app, pilot)
        assert isinstance(app.screen, ConfirmScreen)
        question = app.screen.question
        assert "not valid UTF-8 at byte 3" in question and "U+FFFD" in question and "--errors" not in question
        await pilot.press("n")  # no: what was open stays, and the failure is said
        await settle(app, pilot)
        assert app.session is before
        assert any("not valid UTF-8" in n.message for n in notes(app))
        app.open_path(str(bad))
        await settle(app, pilot)
        await pilot.press("y")
        await wait_for_screen(app, pilot, ExploreScreen)
        while app.session is before:
            await settle(app, pilot)
        assert app.session.name == "latin1.txt" and app.session.errors == "replace"
        assert "\ufffd" in "".join(app.session.word_counts())


async def test_a_tables_notes_are_short_and_brief(tmp_path):
    table = bpe_tui.train(str(DEMO), preset="gpt2", merges=20)
    table.config["notes"] = [f"note number {n}" for n in range(1, 6)]
    app = ExplorerApp(table=table)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        (note,) = [n for n in notes(app) if n.title.startswith("opened")]
        assert note.timeout == NOTES_SECONDS <= 5
        lines = note.message.split("\n")
        assert lines[:NOTES_SHOWN] == ["• note number 1", "• note number 2"]
        assert lines[NOTES_SHOWN:] == ["• + 3 more notes: bpe-tui inspect lists them"]
