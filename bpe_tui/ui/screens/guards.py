"""Before an action: is the open session free to move, and may unsaved merges be thrown away?

Both questions are asked by the App (open, quit, the tour) and by the screens (every action on
the session, the rules dialog): the answers live here once, so neither imports the other for them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from textual.app import App
from textual.notifications import SeverityLevel

from ...core.wording import plural
from ..session.sessions import Session
from .dialogs import ConfirmScreen


class Speaker(Protocol):
    """Who says "busy": the App, or anything that rings its bell and notifies (the tour's host)."""

    def bell(self) -> None: ...

    def notify(self, message: str, *, title: str = "", severity: SeverityLevel = "information", timeout: float | None = None) -> None: ...


def session_free(app: Speaker, session: Session | None) -> bool:
    """True when no worker moves ``session``; else say so (a bell and a note)."""
    if session is not None and session.busy:
        app.bell()
        app.notify("busy — escape cancels the run", severity="warning", timeout=2)
        return False
    return True


def confirm_discard(app: App, session: Session | None, doing: str, then: Callable[[], object]) -> None:
    """Run ``then()`` now, or after a yes when it would throw away ``session``'s unsaved merges."""
    if session is None or not session.unsaved:
        then()
        return

    def answered(yes: bool | None) -> None:
        if yes:
            then()

    question = f"{plural(session.unsaved, 'merge')} of {session.shown_name} are not saved (s saves them). {doing} anyway?"
    app.push_screen(ConfirmScreen(question), answered)
