"""A rank file (tiktoken: o200k, cl100k, Llama 3) opens at once: the inspect screen shows as soon
as the file is read, encodes and searches by token rank, and builds the merge list behind the
panes in a worker (work bar, escape cancels, M builds again). The panes that need the merges say
how far the build has come, then fill in.

The build is held in the test (the replay waits on a threading.Event), so each state is seen
for sure, whatever the machine's speed: no sleeps, no timing.
"""

from __future__ import annotations

import threading

import pytest
from textual.widgets import Input

import bpe_tui
from bpe_tui.core.tables.formats import tiktoken_bpe
from bpe_tui.ui.app import ExplorerApp
from bpe_tui.ui.screens.inspect import InspectScreen
from bpe_tui.ui.widgets.workbar import WorkBar
from tests.conftest import SHARED, need, rank_file

from .conftest import said, settle

#: Tokens after the 256 bytes: ranks 256.. (" the" is made of " t" + "he"; "xabcdy" is one no
#: merge reaches: tiktoken emits it only whole).
TOKENS = [b"ab", b"cd", b"abcd", b"xabcdy", b" t", b"he", b" the", b"in", b" in"]
#: Pilot pauses (of 50 ms) before a state that must come is declared missing.
PATIENCE = 1200


class HeldBuild:
    """Holds the replay that builds a rank file's merge list until :attr:`release` is set:
    it reports half the work done, then waits (stopping when the build is cancelled)."""

    def __init__(self, monkeypatch) -> None:
        self.started = threading.Event()
        self.release = threading.Event()
        self.calls = 0
        real = tiktoken_bpe.rebuild_merges

        def held(by_rank, progress=None, cancelled=None):
            self.calls += 1
            if progress is not None:
                progress(len(by_rank) // 2, len(by_rank))  # 49% of the small table (132 of 265), 50% of o200k
            self.started.set()
            while not self.release.wait(0.01):
                if cancelled is not None and cancelled():
                    return None
            return real(by_rank, progress, cancelled)

        monkeypatch.setattr(tiktoken_bpe, "rebuild_merges", held)


async def until(pilot, condition, what: str) -> None:
    """Let the app run until ``condition()`` holds (a generous bound, for a loaded machine)."""
    for _ in range(PATIENCE):
        if condition():
            return
        await pilot.pause(0.05)
    raise AssertionError(f"never happened: {what}")


@pytest.fixture
def small_rank_file(tmp_path, monkeypatch) -> str:
    monkeypatch.setenv("BPE_TUI_CACHE", str(tmp_path / "cache"))  # built afresh, not read from a cache
    return rank_file(tmp_path / "small.tiktoken", TOKENS)


def head(app) -> str:
    """The history pane's head line ("" while the inspect screen is not up yet)."""
    found = app.main.query("#history-head")
    return str(found.first().content) if found else ""


def notes(app) -> list[str]:
    return [str(n.message) for n in said(app)]


async def test_screen_shows_and_encodes_while_the_merge_list_builds(small_rank_file, monkeypatch):
    held = HeldBuild(monkeypatch)
    reference = bpe_tui.load(small_rank_file)  # encodes by token rank: no merge list needed
    app = ExplorerApp(table_path=small_rank_file)
    async with app.run_test(size=(120, 40)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, InspectScreen) and "49%" in head(app), "the screen, building")
        table = app.session.full_table
        assert held.started.is_set() and not table.merges_built
        # the panes that need the merges say how far the build has come
        assert head(app) == "building the merge list… 49%" and app.history.view.count == 0
        assert "merges: building… 49%" in app.status.text and "265 tokens" in app.status.text
        bar = app.main.query_one(WorkBar)
        assert bar.display and "building the merge list… 49% (escape cancels)" in str(bar.query_one(".work-label").content)
        # encoding works meanwhile
        text = "xabcdy the in abcdy"
        box = app.query_one("#encode-input", Input)
        box.focus()
        await pilot.press(*text)
        await until(pilot, lambda: app.encode.ids == reference.encode(text), "the text encoded")
        assert app.encode.ids == [259, 262, 264, 32, 258, 121]  # xabcdy whole, as tiktoken does
        assert app.encode.trace_lines[-1].strip() == "building the merge list… 49%"  # " abcdy" needs merges
        assert app.pairs.caption_text == "merge numbers: building the merge list… 49%"
        # enter on " the": the token detail shows the token, and waits for its merge tree
        box.cursor_position = 8
        await pilot.press("enter")
        await until(pilot, lambda: app.detail.token_id is not None, "the token detail")
        assert app.detail.token_id == 262 and "merge tree: building the merge list… 49%" in app.detail.info
        # the build goes on: the panes fill in
        held.release.set()
        await until(pilot, lambda: table.merges_built and "merges ·" in head(app), "the merges shown")
        await settle(app, pilot)
        merges = len(reference.merge_ids)
        assert merges == 8  # xabcdy: no merge builds it, and the build's note says so
        assert any(n.startswith("• 1 token no merge builds") and n.endswith("emits them: xabcdy") for n in notes(app))  # (it read b'xabcdy')
        assert head(app) == f"{merges} merges · enter: cut here"
        assert app.history.view.count == merges and app.history.view.row_text(0).split()[:4] == ["1", "a", "+", "b"]
        assert f"{merges} merges" in app.status.text and "building" not in app.status.text
        assert not bar.display
        assert "id 262 · merge 6" in app.detail.info and "merge tree" not in app.detail.info
        assert "building" not in app.pairs.caption_text
        box.focus()
        await pilot.press("end")  # the trace of " abcdy" now lists its merges
        await settle(app, pilot)
        assert [line.split()[:2] for line in app.encode.trace_lines[1:]] == [["merge", "1"], ["merge", "2"], ["merge", "3"]]


async def test_escape_cancels_the_build_and_m_builds_it_again(small_rank_file, monkeypatch):
    """Opened as ``bpe-tui open FILE`` does (the CLI reads the table first): escape stops the
    build, the panes and a notification say the merge list was not built and which key
    builds it, and what needs it says so; M builds it."""
    held = HeldBuild(monkeypatch)
    app = ExplorerApp(table=bpe_tui.load(small_rank_file))
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: held.started.is_set() and "49%" in head(app), "the build")
        table = app.session.full_table
        assert "Cancel" in [c.title for c in app.get_system_commands(app.screen)]  # the palette offers it too
        await pilot.press("escape")
        await until(pilot, lambda: "not built" in head(app), "the cancel")
        assert head(app) == "the merge list was not built (cancelled): press M to build it"
        assert not table.merges_built and not app.main.query_one(WorkBar).display
        assert "the merge list was not built: press M to build it" in notes(app)
        assert "merges not built (M builds them)" in app.status.text
        await pilot.press("g")  # the cut needs the merge numbers
        await pilot.pause()
        assert isinstance(app.screen, InspectScreen)
        assert any(n.startswith("go to needs the merge list: the merge list was not built") for n in notes(app))
        await pilot.press("s")
        await pilot.pause()
        assert isinstance(app.screen, InspectScreen) and any(n.startswith("saving needs the merge list") for n in notes(app))
        # build again, held, then let it go
        await pilot.press("M")
        await until(pilot, lambda: held.calls == 2 and "49%" in head(app), "the second build")
        held.release.set()
        await until(pilot, lambda: table.merges_built and "merges ·" in head(app), "the merges shown")
        await settle(app, pilot)
        assert app.history.view.count == len(table.merge_ids) == len(bpe_tui.load(small_rank_file).merge_ids)
        await pilot.press("M")  # already there: says so
        await pilot.pause()
        assert any(n.startswith("the merge list is there") for n in notes(app))


async def test_o200k_shows_before_its_merge_list_is_built(tmp_path, monkeypatch):
    """The real o200k (200,000 tokens): the screen shows and encodes (as tiktoken's ranks say)
    while its merge list is held back; then the history lists its 199,742 merges."""
    path = str(need(SHARED / "tables" / "o200k" / "o200k_base.tiktoken"))
    monkeypatch.setenv("BPE_TUI_CACHE", str(tmp_path / "cache"))
    held = HeldBuild(monkeypatch)
    reference = bpe_tui.load(path)
    app = ExplorerApp(table_path=path)
    async with app.run_test(size=(120, 40)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, InspectScreen) and "50%" in head(app), "the screen, building")
        assert not app.session.full_table.merges_built
        assert "200,000 tokens" in app.status.text and "merges: building… 50%" in app.status.text
        text = "Hello wörld 日本語 tokenizers"
        app.query_one("#encode-input", Input).value = text
        await until(pilot, lambda: app.encode.ids == reference.encode(text), "the text encoded")
        held.release.set()
        await until(pilot, lambda: app.session.full_table.merges_built and "merges ·" in head(app), "the merges shown")
        assert head(app).startswith("199,742 merges") and app.history.view.count == 199_742
        assert "199,742 merges" in app.status.text
        await settle(app, pilot)


async def test_the_open_dialog_shows_a_rank_file_at_once_too(small_rank_file, monkeypatch):
    """o from the explore screen: the rank file's screen comes up while its build is held."""
    from .conftest import demo_app, open_in_dialog

    held = HeldBuild(monkeypatch)
    app = demo_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await open_in_dialog(app, pilot, small_rank_file)
        await until(pilot, lambda: isinstance(app.main, InspectScreen) and "49%" in head(app), "the screen, building")
        assert app.session.name == "small.tiktoken" and not app.session.full_table.merges_built
        held.release.set()
        await until(pilot, lambda: "merges ·" in head(app), "the merges shown")
        await settle(app, pilot)


async def test_open_a_compare_b_waits_for_the_merge_list_of_a(small_rank_file, monkeypatch, compare_tables):
    """``bpe-tui open A --compare B`` with a rank file A: the comparison (which numbers A's
    merges) opens once A's merge list is built, not before."""
    from bpe_tui.ui.views.compare import CompareScreen

    held = HeldBuild(monkeypatch)
    app = ExplorerApp(table=bpe_tui.load(small_rank_file), compare_path=compare_tables[0])
    async with app.run_test(size=(120, 40)) as pilot:
        await until(pilot, lambda: "49%" in head(app), "the build")
        assert isinstance(app.screen, InspectScreen)
        held.release.set()
        await until(pilot, lambda: isinstance(app.screen, CompareScreen), "the comparison")
        await settle(app, pilot)  # (its panes mount before the test ends)
        assert app.screen.a.table is app.session.full_table and app.session.full_table.merges_built


async def test_escape_in_a_text_box_leaves_the_box_and_lets_the_build_go_on(small_rank_file, monkeypatch):
    """The merge list builds by itself: escape while typing (find, encode) means "leave the
    box", not "stop the build"; a second escape, outside the box, stops it."""
    held = HeldBuild(monkeypatch)
    app = ExplorerApp(table=bpe_tui.load(small_rank_file))
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: held.started.is_set() and "49%" in head(app), "the build")
        await pilot.press("e")
        await until(pilot, lambda: isinstance(app.focused, Input), "the encode box focused")
        await pilot.press("escape")
        await until(pilot, lambda: not isinstance(app.focused, Input), "the box left")
        assert "49%" in head(app) and app.main.query_one(WorkBar).display  # still building
        await pilot.press("escape")
        await until(pilot, lambda: "not built" in head(app), "the cancel")


async def test_a_folder_holding_one_table_opens_it_and_a_folder_of_several_names_them(tmp_path):
    """The open dialog's path (and the command line's) may be a folder a table was downloaded
    into: one table file inside opens; several are named, and none is counted as a corpus."""
    from bpe_tui.ui.screens.explore import ExploreScreen

    one, several = tmp_path / "one", tmp_path / "several"
    one.mkdir()
    several.mkdir()
    table = bpe_tui.train(str(bpe_tui.demo_corpus_path()), preset="gpt2", merges=30)
    bpe_tui.save(table, str(one / "demo.tiktoken"), format="tiktoken")
    bpe_tui.save(table, str(several / "a.tiktoken"), format="tiktoken")
    bpe_tui.save(table, str(several / "b.model"), format="minbpe")
    app = ExplorerApp()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        app.open_path(str(several))
        await settle(app, pilot)
        assert not isinstance(app.screen, (InspectScreen, ExploreScreen))
        assert any("a folder of 2 merge tables; open one of them: a.tiktoken, b.model" in str(n.message) for n in said(app))
        app.open_path(str(one))
        await settle(app, pilot)
        assert isinstance(app.screen, InspectScreen)
        assert app.session is not None and app.session.full_table.source_format == "tiktoken"
