"""The layout the explorer's main screens share, and the screen shown while nothing is open.

One screen per kind of session, over this one layout:

* :class:`~bpe_tui.ui.screens.explore.ExploreScreen` (screens/explore.py) shows an :class:`~bpe_tui.ui.session.sessions.ExploreSession` (a trainer on a
  corpus): corpus pane, top pairs, history, stats, encode box; stepping, running, auto-play.
* :class:`~bpe_tui.ui.screens.inspect.InspectScreen` (screens/inspect.py) shows an :class:`~bpe_tui.ui.session.sessions.InspectSession` (a saved
  table): token search, the encode text's pairs, the table's merges; cutting the table.
* :class:`StartScreen` is what shows while nothing is open yet (loading, or a load failed).

:class:`SessionScreen` holds what both main screens share: the layout (status line on top, a
left and a right column, tabs, the progress row, the footer), the panes, and every action
that works on any table (go to, save, compare, audit, evaluate, find). Each subclass says what
differs -- its left column, how it refreshes, what "go to step k" means -- so no code asks
which kind of session it holds. Keys come from :mod:`~bpe_tui.ui.keys` (one table for
bindings, footer, help and palette). Panes report by messages, which the screen routes.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable
from typing import cast

from textual.actions import SkipAction
from textual.app import ComposeResult
from textual.binding import ActiveBinding
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Input, ProgressBar, Static, TabbedContent, TabPane

from ...core.engine.config import TrainerConfig
from ...core.errors import BPEError
from ...core.tables.formats import save, writers
from ...core.types import FormatName
from ...core.wording import plural
from ..keys import (
    MAIN,
    SESSION,
    bindings_for,
    footer_within,
    untyped,
)
from ..messages import (
    CompareLoaded,
    LoadProgressed,
    StepChosen,
    TokenSelected,
)
from ..panes.detail import TokenDetail
from ..panes.encode import EncodePane
from ..panes.history import HistoryPane
from ..panes.pairs import PairsPane
from ..panes.stats import StatsPane
from ..panes.status import StatusLine
from ..session.loader import Loader
from ..session.sessions import (
    Session,
)
from ..views.compare import CompareScreen, Side
from ..widgets.footer import FittingFooter
from .dialogs import ConfirmScreen, GotoScreen, PathScreen
from .guards import session_free

#: Moves up to this many merges run on the UI thread; more go to a worker.
SYNC_STEPS = 10


class MainScreen(Screen):
    """What every main screen has: the status line, the progress row, the Loader, the footer.

    Each subclass sets its own BINDINGS from the key registry (a base class's bindings would
    come first in the footer, out of the registry's order).
    """

    #: Where this screen's keys live in the registry (:mod:`~bpe_tui.ui.keys`).
    KIND = MAIN

    def compose(self) -> ComposeResult:
        yield StatusLine(id="status")
        yield from self.compose_body()
        yield from self.compose_below()
        with Horizontal(id="progress-row"):
            yield Static("", id="progress-label", markup=False)
            yield ProgressBar(id="progress", show_eta=False)
        yield Loader()
        yield FittingFooter()

    def compose_body(self) -> ComposeResult:
        yield Static("", id="body")

    def compose_below(self) -> ComposeResult:
        """What goes under the body, above the progress row (the tour's panel)."""
        yield from ()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Under a dialog or another view this screen's keys are off (and out of its footer)."""
        return self.app.screen is self

    @property
    def active_bindings(self) -> dict[str, ActiveBinding]:
        """The keys that work now (what the footer shows): in a text box, not those it types;
        a key that acts on a pane's selection only while that pane has the focus."""
        focused = self.focused
        bindings = untyped(super().active_bindings, focused)
        within = {node.id for node in focused.ancestors_with_self} if focused is not None else set()
        return {key: b for key, b in bindings.items() if footer_within(b.binding.action) in within | {""}}

    @property
    def status(self) -> StatusLine:
        return self.query_one(StatusLine)

    @property
    def loader(self) -> Loader:
        return self.query_one(Loader)

    # ------------------------------------------------------------------ progress row

    def show_progress(self, label: str, total: float | None, done: float = 0) -> None:
        self.query_one("#progress-row").add_class("-working")
        self.query_one("#progress-label", Static).update(label)
        self.query_one(ProgressBar).update(total=total, progress=done)

    def hide_progress(self) -> None:
        self.query_one("#progress-row").remove_class("-working")

    def on_load_progressed(self, message: LoadProgressed) -> None:
        records = f" · {message.records:,} records" if message.records else ""
        if message.dask:
            self.show_progress(f"counting on dask {message.dask}: {message.done} of {message.total} blocks{records}", message.total, message.done)
            return
        self.show_progress(f"reading corpus: {message.done / 1e6:.1f} of {message.total / 1e6:.1f} MB{records}", message.total, message.done)

    def loading_stopped(self, note: str) -> None:
        """A load failed or was cancelled (the App has said why)."""
        self.hide_progress()

    def retire(self) -> None:
        """Another session's screen covers this one for good (it stays at the bottom of the
        stack): let go of the panes and what they show."""

    # ------------------------------------------------------------------ actions every main screen has

    async def action_open(self) -> None:
        await self.app.run_action("open")

    async def action_learn(self) -> None:
        await self.app.run_action("learn")

    def action_cancel(self) -> None:
        """escape (a priority key: it comes before the focused widget and a busy screen's
        queue, so a run stops at once): cancel the work; nothing to cancel: pass the key on."""
        if not self.cancel_work():
            raise SkipAction()

    def cancel_work(self, background: bool = True) -> bool:
        """Cancel the training run, the loading or (``background``) the building of a merge
        list or the Stats tab's encoding of a corpus (its Zipf plot) in progress; False if
        there was none.

        The merge list builds by itself after a rank file opens: escape in a text box leaves
        the box (what a person typing means) and lets that build go on."""
        groups = ("train", "load", "merges", "usage") if background else ("train", "load")
        running = [w for w in self.app.workers if w.group in groups and w.is_running]
        for w in running:
            w.cancel()
        return bool(running)

    def corpus_config(self) -> TrainerConfig | None:
        """The rules a corpus opened from here is counted with (None: the defaults)."""
        return None



class StartScreen(MainScreen):
    """Nothing open yet: the status line says what is loading, or why it failed.

    ``then``: called with this screen once it is up (the App starts opening what the command
    line named).
    """

    BINDINGS = bindings_for(MAIN)

    def __init__(self, then: Callable[[StartScreen], None] | None = None) -> None:
        super().__init__()
        self._then = then

    def on_mount(self) -> None:
        self.status.show_nothing()
        if self._then is not None:
            self._then(self)

    def loading_stopped(self, note: str) -> None:
        super().loading_stopped(note)
        self.status.show_nothing(note)


class SessionScreen(MainScreen):
    """The layout and actions both kinds of session share (see the module docstring)."""

    KIND = SESSION
    #: What ``z`` maximizes: the pane holding the focus, by id (the tabs as a whole, so 1 2 3
    #: still switch them), shown under the status line, above the progress row and the footer.
    PANES = ("corpus", "search", "encode", "pairs", "tabs")
    ALLOW_IN_MAXIMIZED_VIEW = "StatusLine, #progress-row, WorkBar, #tour, Footer"
    #: Escape cancels a run first (a priority key, see action_cancel), then restores the layout.
    ESCAPE_TO_MINIMIZE = False
    #: The encode box counts its text's pairs (the inspect screen's pair table shows them).
    COUNT_TEXT_PAIRS = False

    def __init__(self, session: Session, compare_path: str | None = None) -> None:
        super().__init__()
        self.session: Session = session
        #: ``bpe-tui open A --compare B``: compare with B once this screen is up.
        self._compare_path = compare_path
        self._last_compare = ""  # the compare prompt offers the last table B again

    def compose_body(self) -> ComposeResult:
        with Horizontal(id="body"):
            with Vertical(id="left"):
                yield from self.compose_left()
                yield EncodePane(id="encode", count_pairs=self.COUNT_TEXT_PAIRS)
            with Vertical(id="right"):
                yield PairsPane(id="pairs")
                with TabbedContent(id="tabs", initial="tab-history"):
                    with TabPane("History", id="tab-history"):
                        yield HistoryPane(id="history")
                    with TabPane("Stats", id="tab-stats"):
                        yield StatsPane(id="stats")
                    with TabPane("Token", id="tab-token"):
                        yield TokenDetail(id="detail")

    def compose_left(self) -> ComposeResult:
        raise NotImplementedError

    def retire(self) -> None:
        # The panes go once the new session's screen is up and this screen's Loader has
        # finished the work that opened it: removed sooner, the Loader's worker would be
        # cancelled in its last step, and the new screen would mount while this one is pruned.
        opening = [worker for worker in self.app.workers if worker.node is self.loader and not worker.is_finished]

        async def let_go() -> None:
            for worker in opening:
                with contextlib.suppress(Exception):  # (its outcome was already posted)
                    await worker.wait()
            await self.remove_children()
            del self.session  # a big corpus's trainer is freed

        self.call_after_refresh(let_go)

    def on_mount(self) -> None:
        self.refresh_all()  # the focus: AUTO_FOCUS, when the screen becomes active
        if self._compare_path is not None:
            path, self._compare_path = self._compare_path, None
            self.compare_with(path)

    # ------------------------------------------------------------------ panes

    @property
    def pairs(self) -> PairsPane:
        return self.query_one(PairsPane)

    @property
    def history(self) -> HistoryPane:
        return self.query_one(HistoryPane)

    @property
    def encode(self) -> EncodePane:
        return self.query_one(EncodePane)

    @property
    def stats(self) -> StatsPane:
        return self.query_one(StatsPane)

    @property
    def detail(self) -> TokenDetail:
        return self.query_one(TokenDetail)

    @property
    def busy(self) -> bool:
        return self.session.busy

    def refresh_all(self, follow: bool = True) -> None:
        """Re-render every pane from the session (UI thread, trainer idle)."""
        raise NotImplementedError

    def refresh_table_panes(self) -> None:
        """The panes that follow the table: encode box, token detail."""
        session = self.session
        self.encode.update_table(session)
        if self.detail.token_id is not None:
            table = session.lookup_table()
            if table is not None and self.detail.token_id in table.vocab:
                self.detail.show(table, self.detail.token_id, pending=session.merges_note())

    def focus_main(self) -> None:
        raise NotImplementedError

    def can_act(self) -> bool:
        """True when the session is free; else say why not (as the App does)."""
        return session_free(self.app, self.session)

    def merges_ready(self, doing: str) -> bool:
        """True when the merge list that ``doing`` needs is there (a trainer's always is);
        else a notification says how far its build has come, or how to build it."""
        note = self.session.merges_note()
        if note is None:
            return True
        self.notify(f"{doing} needs the merge list: {note}", title=doing, severity="warning", timeout=5)
        return False

    # ------------------------------------------------------------------ go to, find, tabs

    def action_goto(self) -> None:
        if not self.can_act() or not self.merges_ready("go to"):
            return

        def done(value: int | None) -> None:
            if value is not None:
                self.go_to_step(value)

        self.app.push_screen(GotoScreen(self.goto_prompt(), self.session.step), done)

    def goto_prompt(self) -> str:
        raise NotImplementedError

    def go_to_step(self, k: int) -> None:
        raise NotImplementedError

    def action_focus_encode(self) -> None:
        box = self.query_one("#encode-input", Input)
        box.focus()
        box.cursor_position = len(box.value)  # type on at the end; never select it all

    def action_show_tab(self, name: str) -> None:
        self.query_one(TabbedContent).active = f"tab-{name}"

    def action_maximize_pane(self) -> None:
        """z: the pane holding the focus fills the screen; again (or escape): the layout."""
        if self.restore_layout():
            return
        focused = self.focused
        for node in focused.ancestors_with_self if focused is not None else ():
            if isinstance(node, Widget) and node.id in self.PANES:
                self.maximized = node
                return
        self.notify("no pane has the focus: tab to one, then z", timeout=3)

    def restore_layout(self) -> bool:
        """Bring the layout back if a pane is maximized (escape); False if none was."""
        if self.maximized is None:
            return False
        self.minimize()
        return True

    def action_cancel(self) -> None:
        in_box = isinstance(self.focused, Input)
        if self.cancel_work(background=not in_box):
            return
        if self.restore_layout():
            return
        if in_box:
            self.focus_main()
            return
        raise SkipAction()

    def show_token(self, token_id: int, show: bool) -> None:
        table = self.session.lookup_table()
        if table is None:
            return
        self.detail.show(table, token_id, pending=self.session.merges_note())
        if show:
            self.action_show_tab("token")

    def on_token_selected(self, message: TokenSelected) -> None:
        self.show_token(message.token_id, message.show)

    def on_step_chosen(self, message: StepChosen) -> None:
        self.go_to_step(message.step)

    # ------------------------------------------------------------------ save

    def action_save(self) -> None:
        if not self.can_act() or not self.merges_ready("saving"):
            return
        session = self.session
        stem = os.path.splitext(session.name)[0] or "table"
        default = f"{stem}-{session.step}.json"

        def chosen(result: tuple[str, str] | None) -> None:
            if result is None:
                return
            path, fmt = result
            if os.path.exists(path) and (os.path.isfile(path) or os.listdir(path)):

                def confirmed(yes: bool | None) -> None:
                    if yes:
                        self.save_table(path, fmt)

                self.app.push_screen(ConfirmScreen(f"{path} exists. Overwrite it?"), confirmed)
            else:
                self.save_table(path, fmt)

        hint = "native: one JSON file, keeps the config and counts · gpt2: a directory with vocab.json + merges.txt"
        self.app.push_screen(PathScreen("Save the merge table", default, formats=list(writers()), hint=hint), chosen)

    def save_table(self, path: str, fmt: str) -> bool:
        """Write the current table (the saved file is replaced atomically, or left whole)."""
        table = self.session.table()
        if table is None:
            return False
        try:
            save(table, path, format=cast(FormatName, fmt))  # (the dialog offers writers() only)
        except BPEError as exc:
            self.notify(str(exc), title="save failed", severity="error", timeout=10)
            return False
        except OSError as exc:
            self.notify(f"{path}: {exc.strerror or exc}", title="save failed", severity="error", timeout=10)
            return False
        self.saved()
        renumbered = f"; ids without the gaps of {plural(len(table.removed), 'removed token')}, as PickyBPE's model numbers them" if table.removed else ""
        self.notify(f"saved {plural(table.num_merges, 'merge')} to {path} ({fmt}{renumbered})", title="saved")
        return True

    def saved(self) -> None:
        """The current table was just saved."""

    # ------------------------------------------------------------------ compare, audit, evaluate

    def action_compare(self) -> None:
        if not self.can_act() or not self.merges_ready("the comparison"):
            return

        def chosen(path: str | None) -> None:
            if path:
                self.compare_with(path)

        hint = "any readable table: native JSON, a GPT-2 directory, tokenizer.json, tiktoken, minbpe, subword-nmt, sentencepiece"
        self.app.push_screen(PathScreen("Compare the current table with (table B)", self._last_compare, hint=hint), chosen)

    def compare_with(self, path: str) -> None:
        """Load table B in a worker, then show the comparison (a bad path: a notification)."""
        path = os.path.expanduser(path)
        self._last_compare = path
        self.show_progress(f"opening {path} to compare…", None)
        self.loader.compare_table(path)

    def current_side(self) -> Side | None:
        """Table A: the table on this screen, and where it comes from."""
        raise NotImplementedError

    def on_compare_loaded(self, message: CompareLoaded) -> None:
        message.stop()
        self.hide_progress()
        b = Side(message.table, os.path.basename(os.path.normpath(message.path)), f"format {message.table.source_format}")
        if isinstance(self.app.screen, CompareScreen):
            self.app.screen.set_sides(self.app.screen.a, b)
            return
        if self.busy:
            self.notify("busy — press c again when the run ends", title="compare", severity="warning")
            return
        a = self.current_side()
        if a is None:
            return
        self.app.push_screen(CompareScreen(a, b, self.encode.text))

    def leaving(self) -> None:
        """Another screen (audit, evaluate) is about to cover this one."""

    def action_audit(self) -> None:
        if self.can_act() and self.merges_ready("the audit"):
            from ..views.audit import AuditScreen

            self.leaving()
            side = self.current_side()
            if side is not None:
                self.app.push_screen(AuditScreen(side.table, f"{side.name} ({side.origin})", trainer=self.audit_trainer()))

    def audit_trainer(self):
        """The trainer whose corpus the audit reads (None: the audit asks for a corpus)."""
        return None

    def action_evaluate(self) -> None:
        if self.can_act() and self.merges_ready("the evaluation"):
            from ..views.evaluate import EvalScreen

            self.leaving()
            side = self.current_side()
            if side is not None:
                languages, mark = self.variant_view()
                self.app.push_screen(EvalScreen(side.table, side.name, origin=side.origin, plain=self.plain_source(), own_languages=languages, mark=mark))

    def plain_source(self):
        """A variant's words and rules (any variant but plain BPE), for Evaluate to
        train the plain table at the same size and compare (None: no such comparison)."""
        return None

    def variant_view(self) -> tuple[tuple[str, ...], str]:
        """The languages the variant measures first, and its mark (Evaluate's defaults)."""
        return (), ""
