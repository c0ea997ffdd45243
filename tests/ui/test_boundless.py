"""A BoundlessBPE model in the explorer: opened with no hints, the encode box shows its
superwords (``·of·the``) with the ids the authors' inference gives, at 120x40 and 80x24, and
dropout, which a table that replays its events cannot do, is said where the chips would be
(the explorer stays up)."""

from __future__ import annotations

from textual.widgets import Checkbox, Input

import bpe_tui
from bpe_tui.ui.app import ExplorerApp
from bpe_tui.ui.screens.inspect import InspectScreen
from tests.core.boundless_golden import SMALL_MODEL

from .conftest import settle, wait_for_screen

TEXT = "one of the best, in the end of the day"


async def test_a_boundless_model_encodes_its_superwords_and_refuses_dropout():
    table = bpe_tui.load(str(SMALL_MODEL))
    app = ExplorerApp(table_path=str(SMALL_MODEL))
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for_screen(app, pilot, InspectScreen)
        assert "format boundless" in app.status.text
        box = app.query_one("#encode-input", Input)
        box.focus()
        box.value = TEXT
        await settle(app, pilot)
        assert app.encode.ids == table.encode(TEXT)
        assert [table.surface(i) for i in app.encode.ids if b" " in table.surface(i)[1:]] == [b" of the", b" in the", b" end of the"]
        await pilot.resize_terminal(80, 24)
        box.value = TEXT + " again"
        await settle(app, pilot)
        assert app.encode.ids == table.encode(TEXT + " again")
        await pilot.resize_terminal(120, 40)
        await settle(app, pilot)
        await pilot.click("#dropout")
        await settle(app, pilot)
        assert app.query_one("#dropout", Checkbox).value
        assert app.encode.summary == "refused"
        assert app.is_running
