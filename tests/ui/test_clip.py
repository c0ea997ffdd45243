"""A CLIP table in the explorer: opened compressed (from the command line and the open dialog),
the status line names its 77-token context, the encode box's title says how much of it a text
takes."""

from __future__ import annotations

from textual.widgets import Input

import bpe_tui
from bpe_tui.ui.app import ExplorerApp
from bpe_tui.ui.screens.inspect import InspectScreen

from .conftest import demo_app, open_in_dialog, settle, wait_for_screen

PROMPT = "a photo of an astronaut riding a horse on the moon, highly detailed, trending on artstation, " * 3


async def test_a_clip_table_shows_its_context_in_the_status_and_the_encode_box(clip_table):
    table = bpe_tui.load(clip_table)
    app = ExplorerApp(table_path=clip_table)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for_screen(app, pilot, InspectScreen)
        assert "format clip" in app.status.text and "77-token context" in app.status.text
        assert "bytes · clip" in app.status.text
        box = app.query_one("#encode-input", Input)
        box.focus()
        await pilot.press(*"a photo of a cat")
        await settle(app, pilot)
        n = len(table.encode("a photo of a cat"))
        assert app.encode.ids == table.encode("a photo of a cat")
        assert app.encode.border_title == f"Encode · specials: recognise · context {n + 2}/77"
        box.value = PROMPT
        await settle(app, pilot)
        n = len(table.encode(PROMPT))
        assert n + 2 > 77
        assert app.encode.border_title == f"Encode · specials: recognise · context {n + 2}/77, {n + 2 - 77} over"
        # At 80 columns the pane has no room for both: the default policy gives way to the context.
        await pilot.resize_terminal(80, 24)
        box.value = PROMPT + " again"
        await settle(app, pilot)
        n = len(table.encode(PROMPT + " again"))
        assert app.encode.border_title == f"Encode · context {n + 2}/77, {n + 2 - 77} over"
        await pilot.press("ctrl+s")  # ordinary: not the default, so it is said, the context too
        await settle(app, pilot)
        assert app.encode.border_title.startswith("Encode · specials: ordinary · context")


async def test_the_open_dialog_opens_a_compressed_clip_table(clip_table):
    app = demo_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await open_in_dialog(app, pilot, clip_table)
        await wait_for_screen(app, pilot, InspectScreen)
        assert app.session.name == "clip_vocab.txt.gz" and app.session.full_table.source_format == "clip"
        assert any("gzip-compressed" in note for note in app.session.full_table.notes)


async def test_a_table_without_a_context_says_nothing_of_one(tmp_path):
    path = tmp_path / "t.json"
    bpe_tui.save(bpe_tui.train(bpe_tui.demo_corpus_path(), merges=50), str(path))
    app = ExplorerApp(table_path=str(path))
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for_screen(app, pilot, InspectScreen)
        app.query_one("#encode-input", Input).value = PROMPT
        await settle(app, pilot)
        assert app.encode.border_title == "Encode" and "context" not in app.status.text


async def test_the_trace_follows_the_cursor_through_text_the_table_lowercases(clip_table):
    """CLIP lowercases before pre-tokenizing: the word under the cursor is found by where it
    stands in the typed text, not by looking for its lowercased form there."""
    app = ExplorerApp(table_path=clip_table)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for_screen(app, pilot, InspectScreen)
        box = app.query_one("#encode-input", Input)
        box.focus()
        text = "The cow jumped over the Moon while WINNING"
        box.value = text
        box.cursor_position = len(text)
        await settle(app, pilot)
        assert app.encode.trace_word == "winning"
        assert app.encode.trace_lines[0].startswith("trace of “winning”")
        box.cursor_position = text.index("Moon") + 2
        await settle(app, pilot)
        assert app.encode.trace_word == "moon"
        box.cursor_position = text.index("jumped") + 1
        await settle(app, pilot)
        assert app.encode.trace_word == "jumped"
