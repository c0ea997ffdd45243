"""SVG snapshots of the explorer (pytest-textual-snapshot). Update with --snapshot-update."""

from __future__ import annotations

import pytest
from textual.widgets import Input, TabbedContent

from bpe_tui.ui.app import ExplorerApp
from bpe_tui.ui.screens.inspect import InspectScreen
from bpe_tui.ui.views.compare import CompareScreen

from .conftest import DEMO, classic_app, demo_app, settle, wait_for_screen


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


@pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=["80x24", "120x40"])
def test_inspect_gpt2(snap_compare, gpt2_table_path, size):
    async def encode(pilot):
        app = pilot.app
        await wait_for_screen(app, pilot, InspectScreen)
        app.query_one("#encode-input", Input).value = "Hello world, tokenizers! 日本語"
        await settle(app, pilot)

    assert snap_compare(ExplorerApp(table_path=gpt2_table_path), terminal_size=size, run_before=encode)


def test_stats_tab_80x24(snap_compare):
    """The Stats tab on a narrow screen: both curves and two watched words fit or scroll."""

    async def stats(pilot):
        app = pilot.app
        await _ten_steps_and_text(pilot)
        await pilot.press("ctrl+n")  # 110 merges: curves with a shape
        await settle(app, pilot)
        app.query_one(TabbedContent).active = "tab-stats"
        app.query_one("#watch-input", Input).value = "the lowest"
        await settle(app, pilot)

    assert snap_compare(demo_app(), terminal_size=(80, 24), run_before=stats)


def test_stats_tab_120x40(snap_compare):
    """The Stats tab on a wide screen: characters per token and vocabulary over merges with the
    step marked (undone merges muted after two undos), merge counts, pairs occurring k times."""

    async def stats(pilot):
        app = pilot.app
        await _ten_steps_and_text(pilot)
        await pilot.press("ctrl+n")
        await settle(app, pilot)
        await pilot.press("b", "b")
        await settle(app, pilot)
        app.query_one(TabbedContent).active = "tab-stats"
        app.query_one("#watch-input", Input).value = "the lowest"
        await settle(app, pilot)

    assert snap_compare(demo_app(), terminal_size=(120, 40), run_before=stats)


def test_stats_tab_scrolled_80x24(snap_compare):
    """Further down the Stats tab at 80x24: the pair count distribution (log-log) and the
    watched words on the merge axis."""

    async def stats(pilot):
        app = pilot.app
        await _ten_steps_and_text(pilot)
        await pilot.press("ctrl+n")
        await settle(app, pilot)
        app.query_one(TabbedContent).active = "tab-stats"
        app.query_one("#watch-input", Input).value = "the lowest"
        await settle(app, pilot)
        app.stats.scroll_to_widget(app.stats.query_one("#pairs-plot"), animate=False, top=True)
        await settle(app, pilot)

    assert snap_compare(demo_app(), terminal_size=(80, 24), run_before=stats)


def test_inspect_stats_120x40(snap_compare, compare_tables):
    """Inspect mode's Stats tab, wide: merge counts and token lengths in bytes and characters."""

    async def stats(pilot):
        app = pilot.app
        await wait_for_screen(app, pilot, InspectScreen)
        app.query_one(TabbedContent).active = "tab-stats"
        await settle(app, pilot)

    assert snap_compare(ExplorerApp(table_path=compare_tables[0]), terminal_size=(120, 40), run_before=stats)


def test_inspect_stats_80x24(snap_compare, compare_tables):
    """Inspect mode's Stats tab: merge counts (stored in the native file) and token lengths."""

    async def stats(pilot):
        app = pilot.app
        await wait_for_screen(app, pilot, InspectScreen)
        app.query_one(TabbedContent).active = "tab-stats"
        await settle(app, pilot)

    assert snap_compare(ExplorerApp(table_path=compare_tables[0]), terminal_size=(80, 24), run_before=stats)


def test_compare_view(snap_compare, compare_tables):
    """Two tiny tables (gpt2 rules, 300 merges on demo.txt vs multilingual.txt) on one text."""
    path_a, path_b = compare_tables

    async def open_compare(pilot):
        app = pilot.app
        await wait_for_screen(app, pilot, CompareScreen)
        box = app.screen.query_one("#compare-input", Input)
        box.cursor_blink = False
        box.value = "the bookshelf by the window holds unbelievably old books"
        await settle(app, pilot)
        await pilot.press("enter", "down")  # into the list of spans, select the second
        await settle(app, pilot)

    app = ExplorerApp(table_path=path_a, compare_path=path_b)
    assert snap_compare(app, terminal_size=(120, 40), run_before=open_compare)


def test_settings_dialog_80x24(snap_compare):
    """The rules dialog fits 80x24 (every field one line, the buttons in view)."""

    async def open_settings(pilot) -> None:
        await settle(pilot.app, pilot)
        await pilot.press("comma")
        await settle(pilot.app, pilot)

    assert snap_compare(demo_app(), terminal_size=(80, 24), run_before=open_settings)


def test_court_ties_80x24(snap_compare):
    """Court after two merges: tie marks in the history, the why line on the cursor's row (a
    tie), the explanation under the pair table."""

    async def three(pilot) -> None:
        await settle(pilot.app, pilot)
        await pilot.press("space", "space")
        await settle(pilot.app, pilot)

    assert snap_compare(classic_app("court.txt"), terminal_size=(80, 24), run_before=three)


def test_no_color_80x24(snap_compare, monkeypatch):
    """NO_COLOR: Textual greys the colours out; token boundaries are drawn as | and check
    boxes show their state by their mark."""
    monkeypatch.setenv("NO_COLOR", "1")
    assert snap_compare(demo_app(), terminal_size=(80, 24), run_before=_ten_steps_and_text)


@pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=["80x24", "120x40"])
def test_inspect_clip_prompt_past_the_context(snap_compare, clip_table, size):
    """A CLIP table (opened gzip-compressed) with a prompt longer than its 77-token context."""

    async def encode(pilot):
        app = pilot.app
        await wait_for_screen(app, pilot, InspectScreen)
        app.query_one("#encode-input", Input).value = "a photo of an astronaut riding a horse on the moon, highly detailed, " * 4
        await settle(app, pilot)

    assert snap_compare(ExplorerApp(table_path=clip_table), terminal_size=size, run_before=encode)


@pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=["80x24", "120x40"])
def test_maximized_pairs(snap_compare, size):
    """z on the pair table after ten steps: the pane fills the screen under the status line,
    its change column since step 0."""

    async def zoom(pilot):
        await _ten_steps_and_text(pilot)
        pilot.app.pairs.table.focus()
        await pilot.press("z")
        await settle(pilot.app, pilot)

    assert snap_compare(demo_app(), terminal_size=size, run_before=zoom)


def test_explanation_open_80x24(snap_compare):
    """The merge explanation under the pair table, opened whole while it has the focus."""

    async def open_why(pilot):
        await _ten_steps_and_text(pilot)
        pilot.app.pairs.table.focus()
        await pilot.press("tab")
        await settle(pilot.app, pilot)

    assert snap_compare(demo_app(), terminal_size=(80, 24), run_before=open_why)


@pytest.fixture(scope="session")
def rank_file(tmp_path_factory) -> str:
    """The demo corpus's first 40 merges as a tiktoken rank file (its reader notes what it assumed)."""
    import bpe_tui

    path = tmp_path_factory.mktemp("rank") / "demo.tiktoken"
    bpe_tui.save(bpe_tui.train(str(DEMO), preset="gpt2", merges=40), str(path), format="tiktoken")
    return str(path)


@pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=["80x24", "120x40"])
def test_inspect_summary(snap_compare, rank_file, size):
    """Inspect before any text is typed: the table's summary where the encode text's pairs go."""

    async def opened(pilot):
        app = pilot.app
        await wait_for_screen(app, pilot, InspectScreen)
        await settle(app, pilot)

    assert snap_compare(ExplorerApp(table_path=rank_file), terminal_size=size, run_before=opened)


@pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=["80x24", "120x40"])
def test_encode_specials_refused(snap_compare, size):
    """The encode box with special tokens refused (ctrl+s twice): its title says so, the
    summary names the token and its character, no chips."""
    import bpe_tui

    from .conftest import CORPORA

    table = bpe_tui.train(str(CORPORA / "demo.txt"), preset="gpt2", merges=200, special_tokens=["<|endoftext|>"])

    async def refuse(pilot):
        app = pilot.app
        await wait_for_screen(app, pilot, InspectScreen)
        box = app.query_one("#encode-input", Input)
        box.cursor_blink = False  # (a blinking cursor made the picture depend on the moment it was taken)
        box.focus()
        box.value = "the baker<|endoftext|> said"
        await settle(app, pilot)
        await pilot.press("ctrl+s", "ctrl+s")
        await settle(app, pilot)

    assert snap_compare(ExplorerApp(table=table), terminal_size=size, run_before=refuse)


@pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=["80x24", "120x40"])
def test_open_dialog(snap_compare, size):
    """The open dialog: the path, the text field of a dataset and skipping bad records, the
    hint naming what opens, the buttons in view."""

    async def open_dialog(pilot) -> None:
        await settle(pilot.app, pilot)
        await pilot.press("o")
        await settle(pilot.app, pilot)
        box = pilot.app.screen.query_one("#path-input", Input)
        box.cursor_blink = False  # (a blinking cursor is caught on or off by chance)
        box.value = "shards/*.jsonl.gz"
        pilot.app.screen.query_one("#text-field", Input).value = "meta.body"
        await settle(pilot.app, pilot)

    assert snap_compare(demo_app(), terminal_size=size, run_before=open_dialog)


@pytest.mark.parametrize("step", [0, 4, 7], ids=["step0", "step4", "step7"])
def test_worked_example(snap_compare, step):
    """The pictures of docs/learn/bpe-in-ten-minutes.md: low x5, lower x2, lowest x3 under the
    classic rules at step 0 (l + o and o + w tie at 10), 4 (next: lowe + s, not e + s) and 7
    (every word one token), with "slowest" in the encode box."""

    async def steps(pilot):
        app = pilot.app
        await settle(app, pilot)
        for _ in range(step):
            await pilot.press("space")
            await settle(app, pilot)
        app.query_one("#encode-input", Input).value = "slowest"
        await settle(app, pilot)

    assert snap_compare(classic_app(), terminal_size=(120, 40), run_before=steps)
