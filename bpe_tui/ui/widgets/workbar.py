"""A screen's work in progress: a label and a progress bar, hidden while nothing runs.

The Audit and Evaluate views are :class:`WorkScreen` s: each runs one thread worker at a time
and shows it in a :class:`WorkBar`; their escape key cancels the work if it runs, else goes back.
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
        self.remove_class("-hidden")
        self.query_one(".work-label", Static).update(label)
        self.query_one(ProgressBar).update(total=total, progress=done)

    def hide(self) -> None:
        self.add_class("-hidden")


class WorkScreen(Screen):
    """A screen that runs one thread worker at a time (group :attr:`WORK_GROUP`) with a
    :class:`WorkBar`; escape cancels the work, or goes back when nothing runs."""

    WORK_GROUP = "work"
    WORK_NAME = "work"  # "audit", "evaluation": named in the cancel notice

    def show_work(self, label: str, total: float | None = None, done: float = 0) -> None:
        self.query_one(WorkBar).show(label, total, done)

    def hide_work(self) -> None:
        self.query_one(WorkBar).hide()

    def work_cancelled(self) -> None:
        self.hide_work()
        self.notify(f"{self.WORK_NAME} cancelled", title=self.WORK_NAME)

    def work_failed(self, message: str) -> None:
        self.hide_work()
        self.notify(message, title=f"{self.WORK_NAME} failed", severity="error", timeout=10)

    def action_close(self) -> None:
        running = [w for w in self.app.workers if w.group == self.WORK_GROUP and w.is_running]
        for worker in running:
            worker.cancel()
        if not running:
            self.dismiss(None)
