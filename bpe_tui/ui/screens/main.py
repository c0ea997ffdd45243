"""The explorer's main screens: one per kind of session, over one shared layout.

* :class:`ExploreScreen` shows an :class:`~bpe_tui.ui.session.sessions.ExploreSession` (a trainer on a
  corpus): corpus pane, top pairs, history, stats, encode box; stepping, running, auto-play.
* :class:`InspectScreen` shows an :class:`~bpe_tui.ui.session.sessions.InspectSession` (a saved
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

import os
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, cast

from textual import on
from textual.actions import SkipAction
from textual.app import ComposeResult
from textual.binding import ActiveBinding
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import Input, ProgressBar, Static, TabbedContent, TabPane

from ...core.engine.config import TrainerConfig
from ...core.errors import BPEError
from ...core.types import FormatName
from ...core.wording import plural
from ..keys import (
    EXPLORE,
    INSPECT,
    MAIN,
    SESSION,
    bindings_for,
    key_for,
    typed_in_text_box,
)
from ..messages import (
    CompareLoaded,
    EncodeChanged,
    LoadProgressed,
    MergesBuilt,
    MergesCancelled,
    MergesProgressed,
    PairSelected,
    Played,
    Progressed,
    Retrained,
    RetrainProgressed,
    StepChosen,
    TokenSelected,
    WorkDone,
)
from ..panes.corpus import CorpusPane
from ..panes.detail import TokenDetail
from ..panes.encode import EncodePane
from ..panes.history import HistoryPane
from ..panes.pairs import PairsPane
from ..panes.search import TokenSearch
from ..panes.stats import StatsPane
from ..panes.status import StatusLine
from ..session.loader import Loader
from ..session.runner import Runner
from ..session.sessions import (
    ExploreSession,
    InspectSession,
    MergeListBuild,
    Session,
    Snapshot,
)
from ..views.compare import CompareScreen, Side
from ..views.tour import Guide, TourPanel
from ..widgets.footer import FittingFooter
from ..widgets.workbar import WorkBar
from .dialogs import ConfirmScreen, FindScreen, GotoScreen, PathScreen

if TYPE_CHECKING:
    from ..app import ExplorerApp

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
        """The keys that work now (what the footer shows): in a text box, not those it types."""
        bindings = super().active_bindings
        if isinstance(self.focused, Input):
            return {key: b for key, b in bindings.items() if not typed_in_text_box(key)}
        return bindings

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
        if message.dask:
            self.show_progress(f"counting on dask {message.dask}: {message.done} of {message.total} blocks", message.total, message.done)
            return
        self.show_progress(f"reading corpus: {message.done / 1e6:.1f} of {message.total / 1e6:.1f} MB", message.total, message.done)

    def loading_stopped(self, note: str) -> None:
        """A load failed or was cancelled (the App has said why)."""
        self.hide_progress()

    def retire(self) -> None:
        """Another session's screen covers this one for good (it stays at the bottom of the
        stack): let go of the panes and what they show."""

    # ------------------------------------------------------------------ actions every main screen has

    async def action_help(self) -> None:
        await self.app.run_action("help")

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
        list in progress; False if there was none.

        The merge list builds by itself after a rank file opens: escape in a text box leaves
        the box (what a person typing means) and lets that build go on."""
        groups = ("train", "load", "merges") if background else ("train", "load")
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
        self.remove_children()
        del self.session  # a big corpus's trainer is freed

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
        return not self.session.busy or cast("ExplorerApp", self.app).free()

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

    def action_cancel(self) -> None:
        in_box = isinstance(self.focused, Input)
        if self.cancel_work(background=not in_box):
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
        from ...core.tables.formats import writers

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
            table.save(path, format=cast(FormatName, fmt))  # (the dialog offers writers() only)
        except BPEError as exc:
            self.notify(str(exc), title="save failed", severity="error", timeout=10)
            return False
        except OSError as exc:
            self.notify(f"{path}: {exc.strerror or exc}", title="save failed", severity="error", timeout=10)
            return False
        self.saved()
        self.notify(f"saved {plural(table.num_merges, 'merge')} to {path} ({fmt})", title="saved")
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
                self.app.push_screen(EvalScreen(side.table, side.name, origin=side.origin))


class ExploreScreen(SessionScreen):
    """A trainer on a corpus: step, run, undo, go to, auto-play; the corpus as token chips."""

    KIND = EXPLORE
    BINDINGS = bindings_for(EXPLORE)
    AUTO_FOCUS = "#pair-table"

    session: ExploreSession

    def __init__(self, session: ExploreSession, compare_path: str | None = None) -> None:
        super().__init__(session, compare_path)
        self.work_label = ""
        #: The step a move is headed for while a worker moves the trainer (goto, steps).
        self._move_target: int | None = None

    def compose_left(self) -> ComposeResult:
        yield CorpusPane(id="corpus")

    def compose(self) -> ComposeResult:
        yield from super().compose()
        yield Runner()

    def compose_below(self) -> ComposeResult:
        guide = self.guide
        if guide is not None:
            yield TourPanel(guide, id="tour")

    def on_mount(self) -> None:
        super().on_mount()
        if self.guide is not None:
            self.guide.settle()  # the tour's stop: its step, its question, its encode text

    @property
    def guide(self) -> Guide | None:
        """The guided tour, when this screen shows the session it opened."""
        guide = getattr(self.app, "guide", None)
        return guide if guide is not None and guide.shows(self.session) else None

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """The tour's keys are on while the tour is open; 1-4 answer only while a numbered
        question waits (else 1-3 fall through to the tabs)."""
        if action == "tour":
            return self.guide is not None and super().check_action(action, parameters)
        if action == "answer":
            guide = self.guide
            return guide is not None and guide.waiting == "choice" and super().check_action(action, parameters)
        return super().check_action(action, parameters)

    def action_tour(self, what: str) -> None:
        """A tour key: "next", "back" or "leave"."""
        guide = self.guide
        if guide is None:
            return
        if what == "next":
            guide.move(1)
        elif what == "back":
            guide.move(-1)
        elif what == "leave":
            guide.leave()

    def action_answer(self, n: int) -> None:
        """Answer choice ``n`` (1-based) of the tour's numbered question."""
        guide = self.guide
        if guide is not None and not guide.answer(n - 1):
            self.app.bell()

    @property
    def corpus(self) -> CorpusPane:
        return self.query_one(CorpusPane)

    @property
    def runner(self) -> Runner:
        return self.query_one(Runner)

    @property
    def playing(self) -> bool:
        return self.runner.playing

    def focus_main(self) -> None:
        self.pairs.table.focus()

    # ------------------------------------------------------------------ rendering

    def refresh_all(self, follow: bool = True) -> None:
        self.apply(self.session.snapshot(), idle=True, follow=follow)

    def apply(self, snap: Snapshot, idle: bool, follow: bool = True) -> None:
        """Show ``snap``; ``idle`` is False for a running worker's batches (the trainer is busy)."""
        session = self.session
        with self.app.batch_update():
            self.status.show_training(session, snap, self.runner.rate if self.playing else None, self.work_label)
            self.pairs.show(session, snap, idle)
            self.corpus.show(session, snap)
            self.history.show(session, snap.timeline_len, snap.step, follow=follow)
            self.stats.show(session, snap.step)
            if idle:
                self.refresh_table_panes()

    # ------------------------------------------------------------------ moving the trainer

    def move(self, what: str, target: int | None = None, forward: int = 0, respect: bool = True) -> None:
        """Move the trainer: ``forward`` merges, or to step ``target``; small moves inline."""
        session = self.session
        step = session.trainer.steps_done
        if target is not None:
            amount = target - step
            respect = False
        else:
            amount = forward
        if amount == 0:
            return
        if abs(amount) <= SYNC_STEPS:
            if amount > 0:
                done = session.advance(amount, respect_target=respect)
            else:
                done = session.retreat(-amount)
            if done < abs(amount) and amount > 0:
                self._notify_stopped_short()
            self.refresh_all()
            return
        self.show_progress(what, abs(amount))
        self.work_label = what
        self._move_target = step + amount
        self.runner.train(session, what, amount, respect)

    def on_progressed(self, message: Progressed) -> None:
        try:
            if not self.session.busy or self.runner.cancelling:  # a cancelled run's batch: WorkDone follows
                return
            self.query_one(ProgressBar).update(total=message.total, progress=message.done)
            self.apply(message.snapshot, idle=False)
        finally:
            message.shown.set()  # the worker may post the next batch

    def on_work_done(self, message: WorkDone) -> None:
        self.hide_progress()
        self.work_label = ""
        self.refresh_all()
        tr = self.session.trainer
        if message.error:
            self.notify(message.error, title=message.what, severity="error")
        elif message.cancelled:
            self.notify(f"cancelled after {message.done:,} — kept what was done", title=message.what)
        elif tr.stop_reason and message.what.startswith("run"):
            self.notify(tr.stop_reason, title="finished")
        elif self._move_target is not None and tr.steps_done < self._move_target:
            self._notify_stopped_short()
        self._move_target = None

    def _notify_stopped_short(self) -> None:
        """A forward move (steps, go to step k) ended early: say at which step and why."""
        tr = self.session.trainer
        self.notify(f"stopped at step {tr.steps_done:,}: {tr.stop_reason or 'finished'}", title="stopped")

    def action_step(self, n: int = 1) -> None:
        if self.can_act():
            self.move(plural(n, "step"), forward=n)

    def action_run(self) -> None:
        if not self.can_act():
            return
        tr = self.session.trainer
        if tr.finished:
            self.notify(tr.stop_reason or "already at the target", title="nothing to run")
            return
        target = tr.target_steps
        amount = target - tr.steps_done if target is not None and target > tr.steps_done else 10**9
        self.show_progress("run to target", amount if amount < 10**9 else None)
        self.work_label = "run"
        self.runner.train(self.session, "run to target", amount, True)

    def action_undo(self) -> None:
        if not self.can_act():
            return
        first = self.session.first_step
        if self.session.trainer.steps_done <= first:
            self.notify(f"already at step {first:,}" + (": the merges before come from the start table" if first else ""), timeout=3)
            return
        self.move("undo", forward=-1)

    def goto_prompt(self) -> str:
        return f"go to step ({self.session.first_step:,} – any; target {self.session.trainer.target_steps}):"

    def go_to_step(self, k: int) -> None:
        if k < 0:
            self.notify("steps start at 0", severity="warning")
            return
        if self.can_act():
            first = self.session.first_step
            if k < first:
                self.notify(f"the first {first:,} merges come from the start table: going to step {first:,}", timeout=4)
                k = first
            self.move(f"go to step {k}", target=k)

    def action_cancel(self) -> None:
        if self.cancel_work(background=not isinstance(self.focused, Input)):
            return
        if self.playing:
            self.stop_play()
            self.refresh_all()
            return
        if isinstance(self.focused, Input):
            self.focus_main()
            return
        if self.corpus.pair is not None:
            self.corpus.set_pair(None)
            return
        raise SkipAction()

    # ------------------------------------------------------------------ auto-play

    def action_play(self) -> None:
        if self.playing:
            self.stop_play()
        elif self.can_act():
            self.runner.play(self.session)
        self.refresh_all()

    def stop_play(self) -> None:
        self.runner.stop()

    def on_played(self, message: Played) -> None:
        if message.stopped is not None:
            self.notify(message.stopped, title="auto-play stopped")
        self.refresh_all()

    def _rate(self, delta: int) -> None:
        rate = self.runner.change_rate(delta)
        self.notify(f"auto-play: {plural(rate, 'merge')} a second", timeout=1.5)
        if not self.session.busy:
            self.refresh_all(follow=False)

    def action_faster(self) -> None:
        self._rate(1)

    def action_slower(self) -> None:
        self._rate(-1)

    # ------------------------------------------------------------------ corpus pane keys

    def action_toggle_text(self) -> None:
        self.corpus.action_toggle_text()

    def action_clear_filters(self) -> None:
        self.corpus.action_clear_filters()

    def on_pair_selected(self, message: PairSelected) -> None:
        guide = self.guide
        if guide is not None and guide.take_answer(message.pair):
            return
        self.corpus.set_pair(message.pair)

    def action_boundaries(self) -> None:
        """|: token boundaries between the corpus pane's chips, on or off."""
        self.corpus.set_boundaries(not self.corpus.boundaries)

    # ------------------------------------------------------------------ steering (behaviour in pairs.py, settings.py, loader.py)

    def action_merge_selected(self) -> None:
        """m: merge the pair table's selected pair instead of the leader."""
        if not self.can_act():
            return
        pair = self.pairs.selected_pair
        if pair is None:
            self.notify("no pair to merge", severity="warning")
            return
        self.stop_play()
        try:
            event = self.session.merge_by_hand(pair)
        except BPEError as exc:
            self.notify(str(exc), title="cannot merge this pair", severity="error", timeout=8)
            return
        self.refresh_all()
        if event is None:
            self._notify_stopped_short()

    def action_settings(self) -> None:
        """, : the settings dialog; a changed config retrains in the Loader's worker."""
        if not self.can_act():
            return
        from .settings import SettingsScreen, needs_recount

        self.stop_play()
        session = self.session
        old = session.trainer.config

        app: Any = self.app  # the ExplorerApp: how (and where) it counts corpora; asks before losing merges

        def chosen(config: TrainerConfig | None) -> None:
            if config == old:
                retrain(config)  # nothing to lose: the Loader says the rules are unchanged
            elif config is not None:
                app.confirm_discard("Retrain under the new rules", lambda: retrain(config))

        def retrain(config: TrainerConfig) -> None:
            self.show_progress("retraining under the new rules…", None)
            self.loader.retrain(session, config, needs_recount(old, config), workers=app.count_workers, dask=app.dask)

        self.app.push_screen(SettingsScreen(old, recount=session.paths is not None, start=session.start is not None), chosen)

    def on_retrain_progressed(self, message: RetrainProgressed) -> None:
        self.show_progress(f"{message.what}: {message.done:,} of {message.total:,}", message.total, message.done)

    def on_retrained(self, message: Retrained) -> None:
        self.hide_progress()
        if message.session is None:
            self.notify(message.note, title="rules unchanged", severity="warning", timeout=8)
            self.refresh_all()
            return
        app: Any = self.app
        text, dropout = self.encode.text, self.encode.dropout
        app.opened(message.session)
        if text:  # the encode box keeps its text, encoded with the new run's table
            new = app.main
            new.call_after_refresh(lambda: new.encode.set_text(text, dropout))
        self.app.notify(message.note, title="retrained under the new rules", timeout=12)

    # ------------------------------------------------------------------ the rest

    def saved(self) -> None:
        self.session.saved_step = self.session.step

    def current_side(self) -> Side | None:
        table = self.session.table()
        if table is None:
            return None
        return Side(table, self.session.name, f"training, step {self.session.step:,}")

    def audit_trainer(self):
        return self.session.trainer

    def leaving(self) -> None:
        self.stop_play()

    def action_find(self) -> None:
        table = self.session.table()

        def chosen(token_id: int | None) -> None:
            if token_id is not None:
                self.show_token(token_id, True)

        self.app.push_screen(FindScreen(table), chosen)

    def corpus_config(self) -> TrainerConfig | None:
        return self.session.trainer.config


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
            self.notify("\n".join("• " + n[:160] for n in added), title=f"merge list of {self.session.name}: notes", timeout=12)
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
            self.history.view.move_cursor(min(k, session.full_table.num_merges) - 1, notify=False)

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
        return Side(table, session.name, origin)

    def on_token_selected(self, message: TokenSelected) -> None:
        super().on_token_selected(message)
        if message.show and self.session.full_table.merges_built:
            rank = self.session.full_table.rank_of(message.token_id)
            if rank is not None:
                self.history.view.move_cursor(rank, notify=False)

    @on(EncodeChanged)
    def text_pairs(self, message: EncodeChanged) -> None:
        self.pairs.show_text_pairs(self.session, message.text, message.pairs)
