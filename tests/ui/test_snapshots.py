"""SVG snapshots of the explorer (pytest-textual-snapshot). Update with --snapshot-update."""

from __future__ import annotations

import pytest
from textual.widgets import Input

from bpe_tui.ui.app import ExplorerApp

from .conftest import demo_app, settle


async def _ten_steps_and_text(pilot) -> None:
    app = pilot.app
    await settle(app, pilot)
    await pilot.press("N")
    await settle(app, pilot)
    app.query_one("#encode-input", Input).value = "the lowest [/b] newer"
    await settle(app, pilot)


@pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=["80x24", "120x40"])
def test_main_screen(snap_compare, size):
    assert snap_compare(demo_app(), terminal_size=size, run_before=_ten_steps_and_text)


def test_help_screen(snap_compare):
    async def open_help(pilot):
        await settle(pilot.app, pilot)
        await pilot.press("question_mark")
        await pilot.pause()

    assert snap_compare(demo_app(), terminal_size=(120, 40), run_before=open_help)


def test_inspect_gpt2(snap_compare, gpt2_table_path):
    async def encode(pilot):
        app = pilot.app
        await settle(app, pilot)
        app.query_one("#encode-input", Input).value = "Hello world, tokenizers!"
        await settle(app, pilot)

    assert snap_compare(ExplorerApp(table_path=gpt2_table_path), terminal_size=(120, 40), run_before=encode)
