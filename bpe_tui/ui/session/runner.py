"""Moving the trainer without freezing the screen: long moves in a worker, and auto-play.

The Runner is a widget with nothing to show, the training counterpart of the
:class:`~bpe_tui.ui.session.loader.Loader`. It never touches another widget; it reports by messages
and the App decides what the screen does with them:

* :meth:`Runner.train` runs thousands of merges (or undos) in a thread worker, in batches of
  ~80 ms of work, posting a :class:`Progressed` (with a snapshot to render) after a batch when
  the screen has shown the last one (one in flight at most: a slow screen skips batches, never
  queues them) and drawing it has taken no more than ``UI_SHARE`` of the time since (a run
  to the target cost twice the headless run when the screen was drawn every batch), and a
  :class:`WorkDone` at the end, also when escape cancelled it or something failed. The worker looks at escape after every merge; escape itself is a priority key, so it
  reaches the screen before anything queued there;
* :meth:`Runner.play` merges at ``rate`` merges a second of the app's clock, posting
  :class:`Played` after each tick (and stopping itself when the trainer is finished). A tick
  comes every ``1/rate`` seconds but never more often than the screen can follow
  (:data:`BATCH_SECONDS`); each tick makes the merges that are due by the clock, so the rate
  holds even when re-rendering after a tick takes longer than ``1/rate``.

Workers are *exclusive* in their group: a new run cancels the one still running.
"""

from __future__ import annotations

import threading
import time

from textual import _time, work
from textual.timer import Timer
from textual.widget import Widget
from textual.worker import get_current_worker

from ...core.errors import BPEError
from ..messages import BATCH_SECONDS, UI_SHARE, Played, Progressed, WorkDone
from .sessions import ExploreSession

#: Auto-play rates (merges per second); ``+`` and ``-`` move along them.
RATES = (1, 2, 4, 8, 16, 32, 64)
#: The rate auto-play starts at.
DEFAULT_RATE = 4


class ScreenShare:
    """How much of a run the UI thread has taken: the worker shows its progress only while the
    UI thread's CPU since the run began is within :data:`UI_SHARE` of the run's CPU (its own
    and the worker's), and at least every :data:`QUIET_SECONDS` whatever that says.

    Both threads run Python, so every millisecond the screen spends drawing a batch (laying
    out and rendering every pane: 40-80 ms) is a millisecond the merges wait for the GIL. Shown
    after every 80 ms batch, the screen took half the run, and a run to 32,000 merges took
    twice the headless run. Counted against the worker's own CPU (not the time gone by, which
    a busy machine stretches for both), the screen costs the run the same share on a quiet
    machine and a loaded one; a slow screen spaces its updates by itself. The UI thread's
    clock is read from the worker (``pthread_getcpuclockid``); where there is none, progress
    is shown every ``BATCH_SECONDS / UI_SHARE`` seconds. Call it from the worker's thread."""

    def __init__(self) -> None:
        self._clock: int | None = None
        ident = threading.main_thread().ident
        try:
            if ident is not None:
                self._clock = time.pthread_getcpuclockid(ident)
                time.clock_gettime(self._clock)
        except (AttributeError, OSError):
            self._clock = None
        self._start_ui = self._ui_cpu()
        self._start_work = time.thread_time()
        self._last = time.monotonic()

    def _ui_cpu(self) -> float:
        return time.clock_gettime(self._clock) if self._clock is not None else 0.0

    def allows(self) -> bool:
        """Whether showing progress now keeps the UI thread within its share."""
        now = time.monotonic()
        if now - self._last >= QUIET_SECONDS:
            ok = True
        elif self._clock is None:
            ok = now - self._last >= BATCH_SECONDS / UI_SHARE
        else:
            ui, work = self._ui_cpu() - self._start_ui, time.thread_time() - self._start_work
            ok = ui * (1 - UI_SHARE) <= UI_SHARE * work
        if ok:
            self._last = now
        return ok


#: However the share stands, progress is shown at least this often (seconds) during a run.
QUIET_SECONDS = 2.0


class Runner(Widget):
    """Runs training moves in a thread worker and auto-play on a timer; reports by messages."""

    DEFAULT_CSS = "Runner { display: none; }"

    def __init__(self) -> None:
        super().__init__()
        self.rate = DEFAULT_RATE
        self._session: ExploreSession | None = None
        self._timer: Timer | None = None
        #: The app's clock (Textual's timers run on it); auto-play counts merges against it.
        self.clock = _time.get_time
        self._play_start = 0.0
        self._played = 0

    # ------------------------------------------------------------------ long moves

    @work(thread=True, exclusive=True, group="train", exit_on_error=False)
    def train(self, session: ExploreSession, what: str, amount: int, respect_target: bool) -> None:
        """``amount`` merges forward (or ``-amount`` undos) in batches; see the module docstring."""
        worker = get_current_worker()
        session.busy = True
        done = 0
        total = abs(amount)
        error = None
        cancelled = lambda: worker.is_cancelled  # noqa: E731
        posted: Progressed | None = None  # the last progress posted (shown yet?)
        share = ScreenShare()
        try:
            while done < total and not worker.is_cancelled:
                deadline = time.monotonic() + BATCH_SECONDS
                if amount > 0:
                    n = session.advance(total - done, respect_target, deadline, cancelled)
                else:
                    n = session.retreat(total - done, deadline, cancelled)
                done += n
                if n == 0:
                    break
                # One progress message in flight at most: a screen slower than the batches (a
                # loaded machine, a big screen) skips some rather than queue them up, so the
                # screen never shows stale batches and escape never waits behind them; and the
                # next one only while the UI thread has had no more than its share of the run
                # (ScreenShare). The worker goes on meanwhile: it never waits for the screen.
                if posted is None or (posted.shown.is_set() and share.allows()):
                    posted = Progressed(session.snapshot(), done, total)
                    self.post_message(posted)
        except BPEError as exc:  # a variant that failed (one line already): reported, the trainer stays usable
            error = str(exc)
        except Exception as exc:  # pragma: no cover - reported, never fatal
            error = f"{type(exc).__name__}: {exc}"
        finally:
            session.busy = False
            self.post_message(WorkDone(what, done, worker.is_cancelled, error))

    @property
    def training(self) -> bool:
        """True while a training worker runs."""
        return any(w.is_running for w in self.workers if w.group == "train")

    @property
    def cancelling(self) -> bool:
        """True while a training worker that escape cancelled is still winding down."""
        return any(w.is_running and w.is_cancelled for w in self.workers if w.group == "train")

    # ------------------------------------------------------------------ auto-play

    @property
    def playing(self) -> bool:
        return self._timer is not None

    def play(self, session: ExploreSession) -> None:
        """Start (or restart, at the current rate) one merge per tick on ``session``."""
        self._session = session
        if self._timer is not None:
            self._timer.stop()
        self._play_start = self.clock()
        self._played = 0
        self._timer = self.set_interval(max(1 / self.rate, BATCH_SECONDS), self._tick)

    def stop(self) -> None:
        """Stop auto-play (nothing happens if it is not playing)."""
        if self._timer is not None:
            self._timer.stop()
            self._timer = None

    def change_rate(self, delta: int) -> int:
        """Move the rate ``delta`` places along RATES (clamped); a running play follows it."""
        i = RATES.index(self.rate) if self.rate in RATES else RATES.index(DEFAULT_RATE)
        self.rate = RATES[max(0, min(len(RATES) - 1, i + delta))]
        if self.playing and self._session is not None:
            self.play(self._session)
        return self.rate

    def _tick(self) -> None:
        session = self._session
        if session is None or session.busy:
            return
        due = int((self.clock() - self._play_start) * self.rate) - self._played
        if due <= 0:
            return
        # After a stall (a slow screen update, a busy machine) the backlog is made up over the
        # next ticks, at most half a second's merges per tick, so the rate holds on average.
        want = min(due, max(1, self.rate // 2))
        done = session.advance(want, deadline=time.monotonic() + BATCH_SECONDS)
        self._played += done
        stopped = None
        if done < want and session.trainer.finished:
            self.stop()
            stopped = session.trainer.stop_reason or "finished"
        elif done < want:  # the trainer itself is slower than the rate: go on from here
            self._play_start, self._played = self.clock(), 0
        self.post_message(Played(stopped))
