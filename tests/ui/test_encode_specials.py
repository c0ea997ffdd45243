"""The encode box's special-token switch (ctrl+s): recognised, ordinary text, refused."""

from __future__ import annotations

from textual.widgets import Input

import bpe_tui
from bpe_tui.ui.app import ExplorerApp
from bpe_tui.ui.keys import COMMANDS, help_rows

from .conftest import CORPORA, demo_app, settle

TEXT = "the baker<|endoftext|> said"


def table_with_a_special(tmp_path) -> str:
    path = tmp_path / "t.json"
    table = bpe_tui.train(str(CORPORA / "demo.txt"), preset="gpt2", merges=200, special_tokens=["<|endoftext|>"])
    bpe_tui.save(table, str(path))
    return str(path)


async def test_ctrl_s_cycles_what_special_tokens_do(tmp_path):
    path = table_with_a_special(tmp_path)
    table = bpe_tui.load(path)
    special = table.special_tokens["<|endoftext|>"]
    app = ExplorerApp(table_path=path)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        pane = app.encode
        box = app.query_one("#encode-input", Input)
        box.focus()
        await pilot.press(*TEXT)
        await settle(app, pilot)
        # recognised, the default: the special token is its own id
        assert pane.ids == table.encode(TEXT) and special in pane.ids
        assert pane.border_title == "Encode · specials: recognise"
        # ctrl+s (inside the text box, where it types nothing): ordinary text
        await pilot.press("ctrl+s")
        await settle(app, pilot)
        assert box.value == TEXT
        assert pane.ids == table.encode_ordinary(TEXT) and special not in pane.ids
        assert pane.border_title == "Encode · specials: ordinary"
        # refused: no tokens, the summary names the token and its character
        await pilot.press("ctrl+s")
        await settle(app, pilot)
        assert pane.border_title == "Encode · specials: refuse"
        assert pane.ids == []
        assert pane.summary == "refused"
        shown = " ".join(line.plain for line, _ in pane.query_one("#encode-view").lines)
        assert "<|endoftext|> at character 10 is refused" in shown
        # a text without one encodes as usual under refuse
        await pilot.press(*["backspace"] * len(" said"))
        for _ in "<|endoftext|>":
            await pilot.press("backspace")
        await settle(app, pilot)
        assert box.value == "the baker" and pane.ids == table.encode("the baker")
        # and round to recognised again
        await pilot.press("ctrl+s")
        await settle(app, pilot)
        assert pane.border_title == "Encode · specials: recognise"


async def test_the_palette_and_help_list_the_switch(tmp_path):
    assert any(c.keys == "ctrl+s" and c.action == "cycle_specials" and c.where == "encode" for c in COMMANDS)
    assert any(keys == "ctrl+s" and "special tokens" in text for keys, text in help_rows("inspect"))
    app = ExplorerApp(table_path=table_with_a_special(tmp_path))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        app.query_one("#encode-input", Input).focus()
        await pilot.press(*TEXT)
        await settle(app, pilot)
        titles = {c.title: c for c in app.get_system_commands(app.screen)}
        entry = titles["Encode box: special tokens recognised, encoded as ordinary text, or refused (cycles; the title says which)"]
        await entry.callback()  # the palette's entry runs the pane's action
        await settle(app, pilot)
        assert app.encode.specials == "ordinary"


async def test_a_table_without_special_tokens_says_nothing_of_them():
    app = demo_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        assert app.encode.border_title == "Encode"
