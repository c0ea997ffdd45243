"""The screen's share of a run (ui/session/runner.py, ScreenShare): the worker shows progress
only while the UI thread's CPU stays within UI_SHARE of the run's, and at least once every
QUIET_SECONDS; clocks are faked here, so the rule is checked, not the machine's speed."""

from __future__ import annotations

from bpe_tui.ui.session import runner
from bpe_tui.ui.session.runner import QUIET_SECONDS, UI_SHARE, ScreenShare


class Clocks:
    def __init__(self) -> None:
        self.ui = 0.0  # the UI thread's CPU
        self.work = 0.0  # the worker's CPU
        self.wall = 0.0


def share_with(monkeypatch, clocks: Clocks) -> ScreenShare:
    monkeypatch.setattr(runner.time, "pthread_getcpuclockid", lambda ident: 7, raising=False)
    monkeypatch.setattr(runner.time, "clock_gettime", lambda clock: clocks.ui)
    monkeypatch.setattr(runner.time, "thread_time", lambda: clocks.work)
    monkeypatch.setattr(runner.time, "monotonic", lambda: clocks.wall)
    return ScreenShare()


def test_progress_waits_while_the_screen_has_had_more_than_its_share(monkeypatch):
    clocks = Clocks()
    share = share_with(monkeypatch, clocks)
    clocks.work, clocks.wall, clocks.ui = 0.08, 0.08, 0.05  # a first batch, and a 50 ms drawing
    assert not share.allows()
    # the worker has merged long enough that 50 ms is its share: the next batch is shown
    clocks.work = clocks.wall = 0.05 * (1 - UI_SHARE) / UI_SHARE
    assert share.allows()
    # a busy machine stretches the time, not the worker's CPU: still no room for more drawing
    clocks.ui, clocks.wall = 0.10, 0.9
    assert not share.allows()


def test_progress_is_shown_at_least_every_quiet_seconds(monkeypatch):
    clocks = Clocks()
    share = share_with(monkeypatch, clocks)
    clocks.ui, clocks.wall = 1.0, QUIET_SECONDS - 0.01  # a worker that hardly runs (held back)
    assert not share.allows()
    clocks.wall = QUIET_SECONDS
    assert share.allows()
    clocks.wall += QUIET_SECONDS / 2
    assert not share.allows()


def test_without_the_ui_threads_clock_progress_is_spaced_by_time(monkeypatch):
    def missing(ident):
        raise OSError("no such clock")

    clocks = Clocks()
    monkeypatch.setattr(runner.time, "pthread_getcpuclockid", missing, raising=False)
    monkeypatch.setattr(runner.time, "monotonic", lambda: clocks.wall)
    share = ScreenShare()
    clocks.wall = runner.BATCH_SECONDS / UI_SHARE - 0.01
    assert not share.allows()
    clocks.wall = runner.BATCH_SECONDS / UI_SHARE
    assert share.allows()
