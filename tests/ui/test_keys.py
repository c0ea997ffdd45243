"""One registry (bpe_tui.ui.keys.COMMANDS) for keys: the footer, the help screen, the command
palette and the screens' bindings all list the same actions."""

from __future__ import annotations

import pytest
from textual.widgets._footer import FooterKey

import bpe_tui
from bpe_tui.ui.app import ExplorerApp
from bpe_tui.ui.dialogs import HelpScreen
from bpe_tui.ui.keys import COMMANDS, EXPLORE, INSPECT, VIEWS, commands_for
from bpe_tui.ui.screens import ExploreScreen, InspectScreen

from .conftest import CORPORA, demo_app, settle


def inspect_app() -> ExplorerApp:
    return ExplorerApp(table=bpe_tui.train(str(CORPORA / "cat_sat.txt"), preset="gpt2", merges=20))


@pytest.mark.parametrize("kind", [EXPLORE, INSPECT])
async def test_footer_help_and_palette_list_the_registry(kind):
    app = demo_app() if kind == EXPLORE else inspect_app()
    screen_type = ExploreScreen if kind == EXPLORE else InspectScreen
    commands = commands_for(kind)
    async with app.run_test(size=(220, 40)) as pilot:  # wide: the footer has room for every key
        await settle(app, pilot)
        assert isinstance(app.screen, screen_type)
        # every action the registry gives this screen exists on it
        for command in commands:
            assert hasattr(app.screen, "action_" + command.action.split("(")[0]), command
        # the footer: exactly the registry's footer entries that are on now (the tour's keys
        # are off while no tour is open: test_tour checks them), in its order
        footer = [k.action for k in app.screen.query(FooterKey) if k.action != "command_palette"]
        on = [c for c in commands if app.screen.check_action(c.action.split("(")[0], ()) is not False]
        assert len(on) < len(commands) if kind == EXPLORE else len(on) == len(commands)
        assert footer == [c.action for c in on if c.footer]
        # the palette: every palette command of the registry, by its title
        titles = {c.title for c in app.get_system_commands(app.screen)}
        assert {c.title for c in commands if c.palette} <= titles
        # the help: every key of the registry, with what it does
        await pilot.press("f1")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        text = str(app.screen.query_one("#help-text").render())
        for command in COMMANDS:
            if command.where not in VIEWS:
                assert command.shown_keys in text and command.description in text, command


async def test_keys_of_the_registry_run_their_actions():
    """The new tab keys and the text view: bound by the registry, they do what the help says."""
    app = demo_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        tabs = app.query_one("#tabs")
        await pilot.press("2")
        assert tabs.active == "tab-stats"
        await pilot.press("3")
        assert tabs.active == "tab-token"
        await pilot.press("1")
        assert tabs.active == "tab-history"
        assert not app.corpus.text_view
        await pilot.press("t")  # from the pair table: the key is the screen's, not the pane's
        await settle(app, pilot)
        assert app.corpus.text_view
        # and the palette runs a pane's command on the pane
        titles = {c.title: c for c in app.get_system_commands(app.screen)}
        assert "Encode box: resample BPE-dropout" in titles
