"""The inspect screen: a saved merge table, browsed, searched and cut.

:class:`InspectScreen` shows an :class:`~bpe_tui.ui.session.sessions.InspectSession`: token
search on the left, the encode text's pairs, the table's merges (built behind the screen for a
rank file); "go to step k" cuts the table at merge k. The shared layout and actions are
:class:`~bpe_tui.ui.screens.layout.SessionScreen`'s.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual import on
from textual.app import ComposeResult
from textual.widgets import Input

from ...core.wording import plural
from ..keys import (
    INSPECT,
    bindings_for,
    key_for,
)
from ..messages import (
    EncodeChanged,
    MergesBuilt,
    MergesCancelled,
    MergesProgressed,
    TokenSelected,
)
from ..notifications import note_lines
from ..panes.search import TokenSearch
from ..session.sessions import (
    InspectSession,
    MergeListBuild,
)
from ..views.compare import Side
from ..widgets.workbar import WorkBar

if TYPE_CHECKING:
    pass

#: Moves up to this many merges run on the UI thread; more go to a worker.
SYNC_STEPS = 10
from .layout import SessionScreen


class InspectScreen(SessionScreen):
    """A saved table: search its tokens, encode with it (whole or cut), see the text's pairs."""

    KIND = INSPECT
    BINDINGS = bindings_for(INSPECT)
    AUTO_FOCUS = "#history-list"
    COUNT_TEXT_PAIRS = True

    session: InspectSession

    def __init__(self, session: InspectSession, compare_path: str | None = None) -> None:
        super().__init__(session, compare_path)
        #: ``bpe-tui open A --compare B`` with a rank file A: the comparison opens once A's
        #: merge list is built (it shows merge numbers).
        self._compare_when_built: str | None = None
        #: The reader's notes shown on opening; building the merge list may add some (the
        #: tokens no merge builds), which are shown when it is built.
        self._notes_shown = len(session.full_table.notes)

    def compose_left(self) -> ComposeResult:
        yield TokenSearch(id="search")

    def compose_below(self) -> ComposeResult:
        yield WorkBar(id="merges-bar", classes="-hidden")

    @property
    def search(self) -> TokenSearch:
        return self.query_one("#search", TokenSearch)

    def on_mount(self) -> None:
        self.search.set_table(self.session.full_table)
        if not self.session.full_table.merges_built:
            self._compare_when_built, self._compare_path = self._compare_path, None
            self.call_after_refresh(self.action_build_merges)  # after the first frame: the build takes the CPU
        super().on_mount()

    # ------------------------------------------------------------------ a rank file's merge list, built behind the panes

    def action_build_merges(self) -> None:
        """Build the merge list in the Loader's worker (a rank file stores none; encoding and
        search do not need it, the history, trees, traces and merge numbers do)."""
        session = self.session
        if session.full_table.merges_built:
            self.notify(f"the merge list is there: {session.full_table.num_merges:,} merges", timeout=3)
            return
        if any(w.group == "merges" and w.is_running for w in self.app.workers):
            return
        session.build = MergeListBuild()
        self.query_one(WorkBar).show(f"{session.build.note()} (escape cancels)", None)
        self.show_merges_state()
        self.loader.merges(session)

    def show_merges_state(self) -> None:
        """The panes that need the merge list say how far its build has come (or fill in)."""
        with self.app.batch_update():
            self.status.show_table(self.session)
            self.history.show_table(self.session)
            self.pairs.show_merges_state()
            self.encode.show_merges_state()
            self.stats.show_merges_state()
            if self.detail.token_id is not None:
                self.show_token(self.detail.token_id, False)

    def on_merges_progressed(self, message: MergesProgressed) -> None:
        message.stop()
        build = self.session.build
        build.done, build.total = message.done, message.total
        self.query_one(WorkBar).show(f"{build.note()} (escape cancels)", message.total, message.done)
        self.show_merges_state()

    def on_merges_built(self, message: MergesBuilt) -> None:
        message.stop()
        self.query_one(WorkBar).hide()
        self.search.show_merges_state()
        self.show_merges_state()
        added = message.table.notes[self._notes_shown :]
        self._notes_shown += len(added)
        if added:
            self.notify(note_lines(n[:160] for n in added), title=f"merge list of {self.session.name}: notes", timeout=12)
        if self._compare_when_built is not None:
            path, self._compare_when_built = self._compare_when_built, None
            self.compare_with(path)

    def on_merges_cancelled(self, message: MergesCancelled) -> None:
        message.stop()
        self.query_one(WorkBar).hide()
        self.session.build.stopped = True
        self.show_merges_state()
        key = key_for("build_merges")
        if message.error is not None:
            self.notify(message.error, title="the merge list was not built", severity="error", timeout=10)
        else:
            self.notify(f"the merge list was not built: press {key} to build it", title="cancelled", timeout=6)
        if self._compare_when_built is not None:
            self._compare_when_built = None
            self.notify(f"the comparison needs the merge list: press {key}, then c", title="compare", severity="warning")

    def focus_main(self) -> None:
        self.history.view.focus()

    def refresh_all(self, follow: bool = True) -> None:
        session = self.session
        with self.app.batch_update():
            self.status.show_table(session)
            self.history.show_table(session)
            self.stats.show_table(session)
            self.refresh_table_panes()  # the pair table follows the encode box's EncodeChanged

    def goto_prompt(self) -> str:
        return f"cut the table after merge (0 – {self.session.full_table.num_merges:,}):"

    def go_to_step(self, k: int) -> None:
        """Encode with the first ``k`` merges only (the cut)."""
        if k < 0:
            self.notify("steps start at 0", severity="warning")
            return
        session = self.session
        session.cut = None if k >= session.full_table.num_merges else k
        self.refresh_all()
        if k > 0:
            self.history.view.move_cursor(session.row_of(min(k, session.full_table.num_merges) - 1), notify=False)

    def action_whole_table(self) -> None:
        self.session.cut = None
        self.refresh_all()

    def action_find(self) -> None:
        self.query_one("#search-input", Input).focus()

    def current_side(self) -> Side | None:
        session = self.session
        table = session.table()
        origin = f"format {table.source_format}"
        if session.cut is not None:
            origin += f", first {plural(session.cut, 'merge')}"
        return Side(table, session.shown_name, origin)

    def on_token_selected(self, message: TokenSelected) -> None:
        super().on_token_selected(message)
        if message.show and self.session.full_table.merges_built:
            rank = self.session.full_table.rank_of(message.token_id)
            if rank is not None:
                self.history.view.move_cursor(self.session.row_of(rank), notify=False)

    @on(EncodeChanged)
    def text_pairs(self, message: EncodeChanged) -> None:
        self.pairs.show_text_pairs(self.session, message.text, message.pairs)
