"""A screen's work in progress: a label and a progress bar, hidden while nothing runs.

The Audit and Evaluate views each run one thread worker at a time (one worker group per
screen); :func:`cancel_or_close` is their escape key: cancel the work if it runs, else go back.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.screen import Screen
from textual.widgets import ProgressBar, Static


class WorkBar(Horizontal):
    """``show(label, total, done)`` while working (total None: busy, no amount); ``hide()``."""

    def compose(self) -> ComposeResult:
        yield Static("", classes="work-label", markup=False)
        yield ProgressBar(show_eta=False)

    def show(self, label: str, total: float | None = None, done: float = 0) -> None:
        self.display = True
        self.query_one(".work-label", Static).update(label)
        self.query_one(ProgressBar).update(total=total, progress=done)

    def hide(self) -> None:
        self.display = False


def cancel_or_close(screen: Screen, group: str) -> None:
    """Cancel the screen's running workers of ``group``; with none running, dismiss it."""
    running = [w for w in screen.app.workers if w.group == group and w.is_running]
    for worker in running:
        worker.cancel()
    if not running:
        screen.dismiss(None)
