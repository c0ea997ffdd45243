"""Real merge tables in the explorer: what the reader assumed is shown when a table opens."""

from __future__ import annotations

import time

import bpe_tui
from bpe_tui.ui.app import ExplorerApp
from tests.conftest import SHARED, need

from .conftest import said


async def test_opening_llama3_shows_what_was_recognised():
    path = need(SHARED / "tables" / "llama3" / "tokenizer.model")
    app = ExplorerApp(table_path=str(path))
    async with app.run_test(size=(120, 40)) as pilot:
        # The notes are said when the table opens, before its merge list is built.
        def noted():
            return [n for n in said(app) if "notes" in (n.title or "")]

        deadline = time.monotonic() + 120  # a bound for a loaded machine, not a speed claim
        while not noted():
            assert time.monotonic() < deadline, "the reader's notes were not shown"
            await pilot.pause()
        notes = noted()
        assert "sha256" in notes[0].message and "Llama 3" in notes[0].message
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert app.session is not None and app.session.full_table.num_merges > 100_000


async def test_a_table_without_notes_opens_quietly(tmp_path):
    from bpe_tui import train
    from tests.conftest import CORPORA

    path = tmp_path / "t.json"
    bpe_tui.save(train(str(CORPORA / "court.txt"), preset="classic", merges=3), str(path))
    app = ExplorerApp(table_path=str(path))
    async with app.run_test(size=(80, 24)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert app.session is not None
        assert not [n for n in said(app) if "notes" in (n.title or "")]


async def test_trace_says_a_pre_token_is_emitted_whole():
    """Llama 3's " Việt" is a token no merge builds: the encode pane's trace says it is
    emitted whole rather than showing merges the encoding does not use."""
    from textual.widgets import Input

    import bpe_tui

    path = need(SHARED / "tables" / "llama3" / "tokenizer.model")
    table = bpe_tui.load(str(path))
    assert len(table.encode(" Việt")) == 1 and table.rank_of(table.encode(" Việt")[0]) is None
    app = ExplorerApp(table=table)
    async with app.run_test(size=(120, 40)) as pilot:
        box = app.query_one("#encode-input", Input)
        box.focus()
        box.value = "a Việt"
        box.cursor_position = len(box.value)
        await app.workers.wait_for_complete()
        await pilot.pause()
        lines = " ".join(app.query_one("EncodePane").trace_lines)
        assert "emitted whole" in lines, lines
