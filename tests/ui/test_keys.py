"""One registry (bpe_tui.ui.keys.COMMANDS) for keys: the footer, the help screen, the command
palette and the screens' bindings all list the same actions."""

from __future__ import annotations

import pytest
from textual.widgets._footer import FooterKey

import bpe_tui
from bpe_tui.ui.app import ExplorerApp
from bpe_tui.ui.keys import COMMANDS, EXPLORE, INSPECT, PANES, TOUR, VIEWS, commands_for
from bpe_tui.ui.screens.dialogs import HelpScreen
from bpe_tui.ui.screens.explore import ExploreScreen
from bpe_tui.ui.screens.inspect import InspectScreen

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
        # every action the registry gives this screen exists on it (or, "app.x", on the App)
        for command in commands:
            name = command.action.split("(")[0]
            owner, name = (app, name[4:]) if name.startswith("app.") else (app.screen, name)
            assert hasattr(owner, "action_" + name), command
        # the footer: exactly the registry's footer entries that are on now (the tour's keys
        # are off while no tour is open: test_tour checks them), in its order
        footer = [k.action for k in app.screen.query(FooterKey) if k.action != "command_palette"]
        on = [c for c in commands if app.screen.check_action(c.action.split("(")[0], ()) is not False]
        assert len(on) < len(commands) if kind == EXPLORE else len(on) == len(commands)
        assert footer == [c.action for c in on if c.footer]
        # the palette: every palette command of the registry, by its title
        titles = {c.title for c in app.get_system_commands(app.screen)}
        assert {c.title for c in commands if c.palette} <= titles
        # the help: every key of this screen, with what it does, and no other screen's
        # (nor the tour's, with no tour open)
        await pilot.press("f1")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        rows = app.screen.keys
        for command in commands:
            if command.where != TOUR:
                assert (command.shown_keys, command.description) in rows or command.group, command
        other = {EXPLORE: INSPECT, INSPECT: EXPLORE}[kind]
        for command in COMMANDS:
            if command.where in (other, TOUR, *VIEWS):
                assert command.description not in app.screen.text, command


async def test_help_lists_the_tour_keys_only_while_the_tour_is_open():
    app = ExplorerApp(tour=1)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await pilot.press("f1")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        assert ("]", "tour: next stop") in app.screen.keys
        assert ("1 / 2 / 3 / 4", "tour: answer a numbered question (a pair question: enter in the pair table)") in app.screen.keys
        await pilot.press("escape")
        await pilot.pause()
        await pilot.press("q")  # leave the tour
        await settle(app, pilot)
        await pilot.press("f1")
        await pilot.pause()
        assert "tour: next stop" not in app.screen.text and "one merge step" in app.screen.text


async def test_help_continues_a_long_description_under_itself():
    """At 80 columns a long description wraps under its own column, never back under the keys."""
    app = demo_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        await pilot.press("question_mark")
        await pilot.pause()

        help_text = app.screen.query_one("#help-text")
        strips = [help_text.render_line(y).text for y in range(help_text.size.height)]
        run = next(i for i, line in enumerate(strips) if "run to the target" in line)
        column = strips[run].index("run to the target")
        follow = strips[run + 1]
        assert follow[:column].strip() == "" and follow[column:].strip(), (strips[run], follow)


async def test_footer_in_a_text_box_shows_only_keys_that_work_there():
    """Typing in the encode box, the footer leaves out the keys the box types (/ ? space n...);
    f1 still opens the help."""
    app = demo_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        shown = [k.key for k in app.screen.query(FooterKey)]
        assert "slash" in shown and "question_mark" in shown and "space" in shown
        await pilot.press("e")
        await pilot.press("a", "/", "b")
        await settle(app, pilot)
        assert app.encode.text == "a/b"
        shown = [k.key for k in app.screen.query(FooterKey) if k.display]
        assert "f1" in shown
        assert not {"slash", "question_mark", "space", "n", "r", "b", "g", "s", "o", "c", "p"} & set(shown), shown
        await pilot.press("f1")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)


@pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=["80x24", "120x40"])
async def test_footer_keys_are_whole_or_left_out(size):
    """A key that does not fit the footer is left out whole (never cut to "c Compa"); the
    palette's key stays on the right."""
    app = demo_app()
    async with app.run_test(size=size) as pilot:
        await settle(app, pilot)
        await pilot.pause()
        keys = [k for k in app.screen.query(FooterKey) if not k.has_class("-command-palette")]
        palette = next(k for k in app.screen.query(FooterKey) if k.has_class("-command-palette"))
        shown = [k for k in keys if k.visible]
        assert shown[0].key == "question_mark"
        for key in shown:
            assert key.region.right <= palette.region.x, key.key
        hidden = [k for k in keys if not k.visible]
        assert keys == shown + hidden  # the first that does not fit and every key after it
        assert "maximize_pane" in {k.action for k in shown}  # zoom fits, even at 80 columns
        # at 120 columns every key fits, but for m (merge the selected pair) while the pair
        # table has the focus: then the last one (P) makes room
        if size[0] == 120:
            assert [k.action for k in hidden] == ["app.picture"]
        app.history.view.focus()
        await settle(app, pilot)
        assert bool([k for k in app.screen.query(FooterKey) if not k.visible]) == (size[0] == 80)


async def test_m_is_in_the_footer_while_the_pair_table_has_the_focus():
    """m merges the pair table's selected pair: the footer says so while that table has the
    focus (at 120 columns; at 80 the footer's room ends at zoom), and m works from elsewhere."""
    app = demo_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        app.pairs.table.focus()
        await settle(app, pilot)
        merge = [k for k in app.screen.query(FooterKey) if k.action == "merge_selected"]
        assert merge and merge[0].visible and merge[0].key == "m" and "Merge" in merge[0].description
        app.history.view.focus()
        await settle(app, pilot)
        assert not [k for k in app.screen.query(FooterKey) if k.action == "merge_selected"]
        app.pairs.table.focus()
        await pilot.press("down")
        chosen = app.pairs.pairs[1]
        app.history.view.focus()
        await pilot.press("m")
        await settle(app, pilot)
        assert app.session.trainer.history[-1].pair == chosen


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


@pytest.mark.parametrize(("key", "kind"), [("a", "audit"), ("v", "evaluate"), ("c", "compare")])
async def test_help_on_a_view_lists_the_views_keys(compare_tables, key, kind):
    """? and f1 did nothing on the audit, evaluate and compare views, though the README says
    ? lists the keys of the screen it is opened on."""
    from textual.widgets import Input

    from bpe_tui.ui.screens.dialogs import PathScreen
    from bpe_tui.ui.views.audit import AuditScreen
    from bpe_tui.ui.views.compare import CompareScreen
    from bpe_tui.ui.views.evaluate import EvalScreen

    from .conftest import wait_for_screen

    app = demo_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await pilot.press(key)
        await pilot.pause()
        if kind == "compare":  # (it asks for table B first)
            assert isinstance(app.screen, PathScreen)
            app.screen.query_one("#path-input", Input).value = compare_tables[1]
            await pilot.press("enter")
        await wait_for_screen(app, pilot, {"audit": AuditScreen, "evaluate": EvalScreen, "compare": CompareScreen}[kind])
        view = app.screen
        footer = [(k.action, k.key_display) for k in view.query(FooterKey)]
        assert footer[0] == ("app.help", "f1" if kind == "compare" else "?")  # (? types in compare's text box)
        await pilot.press("f1")  # (compare's text box has the focus: ? types there, f1 does not)
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        assert app.screen.heading == f"keys of the {kind} view"
        rows = app.screen.keys
        for command in commands_for(kind):
            assert (command.shown_keys, command.description) in rows, command
        assert not any(c.description in app.screen.text for c in COMMANDS if c.where in (EXPLORE, INSPECT, TOUR))
        assert [name for name, _ in app.screen.panes] == [name for name, _ in PANES if name.startswith(f"{kind} (")]
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is view
        if kind != "compare":
            await pilot.press("question_mark")
            await pilot.pause()
            assert isinstance(app.screen, HelpScreen) and app.screen.heading == f"keys of the {kind} view"

