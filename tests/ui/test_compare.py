"""The comparison view (two tables on one text) and inspect mode on every table format."""

from __future__ import annotations

import os

import pytest
from textual.widgets import Input

import bpe_tui
from bpe_tui import BPEError, cli
from bpe_tui.core.analysis.compare import compare
from bpe_tui.core.tables.formats import readers, writers
from bpe_tui.ui.app import ExplorerApp
from bpe_tui.ui.screens.dialogs import PathScreen
from bpe_tui.ui.session.sessions import InspectSession
from bpe_tui.ui.views.compare import CompareScreen

from .conftest import CORPORA, demo_app, said, settle, wait_for_screen


def expected_summary(side) -> str:
    return f"{side.count:,} token{'s' if side.count != 1 else ''} · {side.chars_per_token:.2f} chars/token"


def assert_shows(screen: CompareScreen, table_a, table_b, text: str) -> None:
    """The screen shows what the core's compare() says: counts, chars/token, each differing span."""
    result = compare(table_a, table_b, text)
    assert screen.text == text
    assert screen.side("A").summary == expected_summary(result.a)
    assert screen.side("B").summary == expected_summary(result.b)
    lines = screen.diff_lines
    assert len(lines) == len(result.differences)
    for line, d in zip(lines, result.differences):
        assert line.split()[0] == f"{d.start}–{d.end}"
        assert f"A {'|'.join(t.display for t in d.a)} ({len(d.a)})" in line
        assert f"B {'|'.join(t.display for t in d.b)} ({len(d.b)})" in line


async def type_text(pilot, screen: CompareScreen, text: str) -> None:
    box = screen.query_one("#compare-input", Input)
    box.focus()
    box.value = ""
    await pilot.press(*text)
    await settle(pilot.app, pilot)


async def test_c_key_compares_the_trainers_table_so_far(compare_tables):
    _, path_b = compare_tables
    table_b = bpe_tui.load(path_b)
    app = demo_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await pilot.press("N")
        await settle(app, pilot)
        table_a = app.session.table()
        await pilot.press("c")
        await pilot.pause()
        assert isinstance(app.screen, PathScreen)
        app.screen.query_one("#path-input", Input).value = path_b
        await pilot.press("enter")
        await wait_for_screen(app, pilot, CompareScreen)
        screen = app.screen
        assert screen.side("A").title_text == "A demo.txt  training, step 10"
        assert screen.side("B").title_text == "B multilingual-300.json  format native"
        assert "300 merges · bytes · gpt2" in str(screen.side("B").query_one(".side-rules").render())
        assert screen.focused is screen.query_one("#compare-input", Input)
        # typing updates counts and differing spans as you go
        await type_text(pilot, screen, "bookshelf")
        assert_shows(screen, table_a, table_b, "bookshelf")
        await pilot.press(*" by")
        await settle(app, pilot)
        assert_shows(screen, table_a, table_b, "bookshelf by")
        # escape goes back; the trainer is where it was and the c key works again
        await pilot.press("escape")
        await settle(app, pilot)
        assert not isinstance(app.screen, CompareScreen)
        assert app.session.trainer.steps_done == 10


async def test_palette_compares_the_opened_table(compare_tables):
    path_a, path_b = compare_tables
    table_a, table_b = bpe_tui.load(path_a), bpe_tui.load(path_b)
    app = ExplorerApp(table_path=path_a)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        app.query_one("#encode-input", Input).value = "the lowest newer books"
        await settle(app, pilot)
        await pilot.press("ctrl+p")
        await pilot.pause()
        await pilot.press(*"compare")
        await pilot.pause(0.3)
        await pilot.press("enter")
        await settle(app, pilot)
        assert isinstance(app.screen, PathScreen)
        app.screen.query_one("#path-input", Input).value = path_b
        await pilot.press("enter")
        await wait_for_screen(app, pilot, CompareScreen)
        screen = app.screen
        assert screen.side("A").title_text == "A demo-300.json  format native"
        # the view opens on the encode box's text
        assert_shows(screen, table_a, table_b, "the lowest newer books")
        result = compare(table_a, table_b, "the lowest newer books")
        # [3:5] '·l': A has ·l, B has · then l
        first = result.differences[0]
        assert (first.start, first.end, first.text) == (3, 5, " l")
        assert screen.diff_lines[0].split()[:2] == ["3–5", "·l"]
        # the highlighted span's tokens with the merge that made each of them
        assert screen.why_lines[0] == f"A ·l (merge {table_a.rank_of(first.a[0].id) + 1:,})"
        assert screen.why_lines[1] == "B · (base)  l (base)"
        # moving through the list selects another span
        screen.diff_list.focus()
        await pilot.press("down")
        await settle(app, pilot)
        second = result.differences[1]
        assert screen.why_lines[0].startswith(f"A {second.a[0].display} ")
        # the palette on this screen offers the view's own commands, not the explorer's
        titles = {c.title for c in app.get_system_commands(screen)}
        assert {"Compare with another table B", "Swap tables A and B", "Back to the explorer"} <= titles
        assert "One merge step" not in titles
        # ctrl+t swaps the sides
        await pilot.press("ctrl+t")
        await settle(app, pilot)
        assert screen.side("A").title_text.startswith("A multilingual-300.json")
        assert_shows(screen, table_b, table_a, "the lowest newer books")
        # no text, no differences
        await type_text(pilot, screen, "")
        assert screen.diff_lines == [] and screen.side("A").summary == "0 tokens · 0.00 chars/token"
        # the same table on both sides splits everything the same
        screen.set_sides(screen.b, screen.b)
        await type_text(pilot, screen, "anything at all")
        assert screen.diff_lines == []
        assert "same places" in str(screen.query_one("#diff-head").render())


async def test_compare_path_opens_the_view_and_cli_passes_it(compare_tables, monkeypatch):
    path_a, path_b = compare_tables
    table_a, table_b = bpe_tui.load(path_a), bpe_tui.load(path_b)
    app = ExplorerApp(table_path=path_a, compare_path=path_b)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for_screen(app, pilot, CompareScreen)
        screen = app.screen
        assert screen.side("B").title_text == "B multilingual-300.json  format native"
        await type_text(pilot, screen, "unbelievably old books")
        assert_shows(screen, table_a, table_b, "unbelievably old books")
        assert len(screen.diff_lines) == 4
        # clicking a highlighted chip selects its span
        chips = screen.side("B").query_one("ChipView")
        row, spans = chips.lines[0]
        start, _, diff = next(s for s in spans if s[2] == 3)
        await pilot.click(chips, offset=(start, 0))
        await settle(app, pilot)
        assert screen.diff_list.cursor == diff == 3
    # bpe-tui open A --compare B hands both to the explorer; a bad B fails before the screen opens
    calls = []
    monkeypatch.setattr(
        "bpe_tui.ui.app.run_inspect", lambda a, compare_path=None, table=None: calls.append((a, compare_path, table.source)) or 0
    )
    assert cli.main(["open", path_a, "--compare", path_b]) == 0
    assert calls == [(path_a, path_b, path_a)]  # table A is read once, by the CLI
    assert cli.main(["open", path_a, "--compare", path_a + ".missing"]) == 2
    assert len(calls) == 1


async def test_bad_second_table_notifies_and_keeps_what_was_there(compare_tables, tmp_path):
    path_a, path_b = compare_tables
    garbage = tmp_path / "garbage.json"
    garbage.write_text('{"format": "bpe-tui", "version": 999')
    app = ExplorerApp(table_path=path_a)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        session = app.session
        app.main.compare_with(str(tmp_path / "missing.json"))
        await settle(app, pilot)
        app.main.compare_with(str(garbage))
        await settle(app, pilot)
        errors = [n for n in said(app) if n.severity == "error"]
        assert any("missing.json" in n.message and "no such file" in n.message for n in errors)
        assert any("garbage.json" in n.message for n in errors)
        assert not isinstance(app.screen, CompareScreen)
        assert app.session is session and not app.query_one("#progress-row").display
        # table A is the table as inspected: cut after merge 20 here
        app.main.go_to_step(20)
        app.main.compare_with(path_b)
        await wait_for_screen(app, pilot, CompareScreen)
        screen = app.screen
        assert screen.side("A").title_text == "A demo-300.json  format native, first 20 merges"
        assert screen.a.table.num_merges == 20
        # inside the view, ctrl+o asks for another B; a bad one keeps the B it had
        await pilot.press("ctrl+o")
        await pilot.pause()
        assert isinstance(app.screen, PathScreen)
        box = app.screen.query_one("#path-input", Input)
        assert box.value == path_b  # the last table B is offered again
        box.value = str(garbage)
        await pilot.press("enter")
        await settle(app, pilot)
        assert app.screen is screen
        assert screen.side("B").title_text.startswith("B multilingual-300.json")
        # and a good one replaces B
        await pilot.press("ctrl+o")
        await pilot.pause()
        app.screen.query_one("#path-input", Input).value = path_a
        await pilot.press("enter")
        await settle(app, pilot)
        assert app.screen is screen
        assert screen.side("B").title_text == "B demo-300.json  format native"
        full = bpe_tui.load(path_a)
        assert_shows(screen, full.truncated(20), full, screen.text)
        assert screen.diff_lines  # 20 merges split the sample text more finely than 300


# ---------------------------------------------------------------------- every format in inspect mode


@pytest.fixture(scope="module")
def saved_formats(tmp_path_factory) -> dict[str, str]:
    """A tiny table saved in every writable format: byte-level, or chars-mode or byte-level with
    an end-of-word marker where the format needs it."""
    d = tmp_path_factory.mktemp("formats")
    byte_level = bpe_tui.train(str(CORPORA / "demo.txt"), preset="gpt2", merges=120)
    chars = bpe_tui.train(str(CORPORA / "demo.txt"), preset="classic", merges=120)
    clip_style = bpe_tui.train(str(CORPORA / "demo.txt"), units="bytes", pretokenizer="clip", end_of_word="</w>", merges=120)
    picky = bpe_tui.train(str(CORPORA / "demo.txt"), preset="picky", picky=0.7, merges=120)
    paths = {}
    for name in writers():
        path = d / f"table-{name}"
        # subword-nmt: chars only; clip: bytes with </w>; picky: PickyBPE's setup only
        for table in (byte_level, chars, clip_style, picky):
            try:
                bpe_tui.save(table, str(path), format=name)
                break
            except BPEError:
                continue
        paths[name] = str(path)
    return paths


FORMAT_TEXT = "the newest books, the lowest shelf"


@pytest.mark.parametrize("fmt", sorted(readers()))
async def test_inspect_mode_names_every_format(fmt, saved_formats, tmp_path):
    if fmt in saved_formats:
        path = saved_formats[fmt]
    else:
        assert fmt == "sentencepiece", f"{fmt} is readable but neither written nor trained here"
        spm = pytest.importorskip("sentencepiece")
        spm.SentencePieceTrainer.train(
            input=str(CORPORA / "demo.txt"), model_prefix=str(tmp_path / "sp"), vocab_size=300,
            model_type="bpe", minloglevel=2,
        )
        path = str(tmp_path / "sp.model")
    table = bpe_tui.load(path)
    assert table.source_format == fmt
    app = ExplorerApp(table_path=path)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(app, pilot)
        assert app.session is not None and isinstance(app.session, InspectSession)
        assert f"format {fmt} │" in app.status.text
        assert os.path.basename(path) in app.status.text
        assert app.history.view.count == table.num_merges + len(table.removals)  # (a picky table: a row per removal too)
        app.query_one("#encode-input", Input).value = FORMAT_TEXT
        await settle(app, pilot)
        assert app.encode.ids == table.encode(FORMAT_TEXT) and app.encode.ids
        assert app.encode.summary.startswith(f"{len(app.encode.ids)} tokens")


async def test_table_read_by_the_cli_opens_with_its_comparison(compare_tables):
    path_a, path_b = compare_tables
    app = ExplorerApp(table=bpe_tui.load(path_a), compare_path=path_b)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for_screen(app, pilot, CompareScreen)
        assert app.screen.side("B").title_text == "B multilingual-300.json  format native"
