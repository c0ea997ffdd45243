"""The explore screen: a trainer on a corpus, stepped, run, undone and steered.

:class:`ExploreScreen` shows an :class:`~bpe_tui.ui.session.sessions.ExploreSession`: the corpus
pane, the top pairs, the history, stats and the encode box; stepping, running to a target,
auto-play, hand merges, the rules dialog, and the guided tour's panel when the tour opened it.
What it shares with the inspect screen (the layout, go to, save, compare, audit, evaluate, find)
is :class:`~bpe_tui.ui.screens.layout.SessionScreen`'s.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.actions import SkipAction
from textual.app import ComposeResult
from textual.widgets import Input, ProgressBar

from ...core.engine.config import TrainerConfig
from ...core.errors import BPEError
from ...core.wording import plural
from ..keys import (
    EXPLORE,
    bindings_for,
)
from ..messages import (
    PairSelected,
    Played,
    Progressed,
    Retrained,
    RetrainProgressed,
    SessionOpened,
    WorkDone,
)
from ..panes.corpus import CorpusPane
from ..session.runner import Runner
from ..session.sessions import (
    ExploreSession,
    Snapshot,
)
from ..views.compare import Side
from ..views.tour import TourGuide, TourPanel
from .dialogs import FindScreen

if TYPE_CHECKING:
    pass

#: Moves up to this many merges run on the UI thread; more go to a worker.
SYNC_STEPS = 10
from .guards import confirm_discard
from .layout import SessionScreen


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
    def guide(self) -> TourGuide | None:
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
            self.stats.show(session, snap.step, idle, series=snap.series)
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
            try:
                if amount > 0:
                    done = session.advance(amount, respect_target=respect)
                else:
                    done = session.retreat(-amount)
            except BPEError as exc:  # a variant that failed: one line, and the trainer as it was before the step
                self.notify(str(exc), title=what, severity="error", timeout=10)
                self.refresh_all()
                return
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
        target = self.session.trainer.target_steps
        return f"go to step ({self.session.first_step:,} – any" + (f"; target {target:,}):" if target is not None else "):")

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
        if self.restore_layout():
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

        def chosen(config: TrainerConfig | None) -> None:
            if config == old:
                retrain(config)  # nothing to lose: the Loader says the rules are unchanged
            elif config is not None:
                confirm_discard(self.app, session, "Retrain under the new rules", lambda: retrain(config))

        def retrain(config: TrainerConfig) -> None:
            self.show_progress("retraining under the new rules…", None)
            self.loader.retrain(session, config, needs_recount(old, config))

        self.app.push_screen(SettingsScreen(old, recount=session.paths is not None, start=session.start is not None), chosen)

    def on_retrain_progressed(self, message: RetrainProgressed) -> None:
        self.show_progress(f"{message.what}: {message.done:,} of {message.total:,}", message.total, message.done)

    def on_retrained(self, message: Retrained) -> None:
        self.hide_progress()
        if message.session is None:
            self.notify(message.note, title="rules unchanged", severity="warning", timeout=8)
            self.refresh_all()
            return
        text, dropout = self.encode.text, self.encode.dropout
        # The App shows the new session; the encode box keeps its text, encoded with the new run's table.
        self.post_message(SessionOpened(message.session, encode=(text, dropout) if text else None))
        self.app.notify(message.note, title="retrained under the new rules", timeout=12)

    # ------------------------------------------------------------------ the rest

    def saved(self) -> None:
        self.session.saved_step = self.session.step

    def current_side(self) -> Side | None:
        table = self.session.table()
        if table is None:
            return None
        return Side(table, self.session.shown_name, f"training, step {self.session.step:,}")

    def audit_trainer(self):
        return self.session.trainer

    def plain_source(self):
        tr = self.session.trainer
        words = tr.variant.plain_words(tr)
        return (words, tr.config) if words is not None else None

    def variant_view(self) -> tuple[tuple[str, ...], str]:
        variant = self.session.trainer.variant
        return variant.measure_languages(), variant.token_mark

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
