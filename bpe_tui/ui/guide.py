"""The open guided tour: which stop, the answers given, and the explorer it drives.

The tour (``bpe-tui learn``, or "Take the guided tour" in the command palette) outlives a screen:
each worked example is a session of its own, shown by an
:class:`~bpe_tui.ui.screens.explore.ExploreScreen` of its own. So its state is a :class:`Guide`
held on the App (``app.guide``); each explore screen of the tour's session mounts a
:class:`~bpe_tui.ui.views.tour.TourPanel` that shows it. The lessons and the answer checking
live in :mod:`bpe_tui.core.teaching.lessons`.

The Guide drives the explorer through a few of its methods: open a worked example
(:meth:`TourHost.opened`, the App's), move to a step (``ExploreScreen.go_to_step``), hide which
pair merges next while the question is open (the pair table's ``hide_next``), fill the encode box
(``set_text``). It sits beside the App, above the screens it drives: it imports them, and knows
the App only as the :class:`TourHost` it asks for those few things.
"""

from __future__ import annotations

from typing import Protocol

from textual.notifications import SeverityLevel
from textual.screen import Screen

from ..core.errors import BPEError
from ..core.teaching.lessons import Example, Tour
from .screens.explore import ExploreScreen
from .screens.guards import session_free
from .session.sessions import ExploreSession, Session, read_preview
from .views.tour import TourPanel


class TourHost(Protocol):
    """What the tour asks of the explorer App that holds it."""

    guide: Guide | None
    session: Session | None

    @property
    def main(self) -> Screen: ...

    def opened(self, session: Session) -> None: ...

    def bell(self) -> None: ...

    def notify(self, message: str, *, title: str = "", severity: SeverityLevel = "information", timeout: float | None = None) -> None: ...


class Guide:
    """The open tour: which stop, the answers given, the session it opened; it drives the
    explorer (``app.guide`` while the tour is open)."""

    def __init__(self, app: TourHost, start: int = 0) -> None:
        self.app = app
        self.tour = Tour(start=start)
        #: The session this tour opened, and for which example (reused while stops share it).
        self.opened: tuple[Example, ExploreSession] | None = None
        #: The trainer's own sentence on the merge made after a pair answer (MergeEvent.explanation).
        self.why = ""

    def shows(self, session: Session) -> bool:
        """True when ``session`` is the one this tour opened (its screen shows the panel)."""
        return self.opened is not None and self.opened[1] is session

    @property
    def screen(self) -> ExploreScreen | None:
        """The explore screen of the tour's session, when it is the main screen."""
        main = self.app.main
        return main if isinstance(main, ExploreScreen) and self.shows(main.session) else None

    @property
    def panel(self) -> TourPanel | None:
        screen = self.screen
        if screen is None:
            return None
        found = screen.query(TourPanel)
        return found.first() if found else None

    @property
    def waiting(self) -> str | None:
        """What the current stop waits for: "pair", "choice" or None."""
        return self.tour.waiting

    def show(self) -> None:
        panel = self.panel
        if panel is not None:
            panel.show()
            panel.screen.refresh_bindings()  # the footer: 1-4 answer only while a question waits

    def arrive(self) -> None:
        """Put the explorer where the current stop begins: its example, its step, its encode text.

        A stop on another example opens it as a new session; its screen mounts a panel and
        calls :meth:`settle` once it is up.
        """
        stop = self.tour.stop
        if self.opened is None or self.opened[0] != stop.example or self.screen is None:
            try:
                trainer = stop.example.trainer()
            except BPEError as exc:
                self.app.notify(str(exc), title="cannot open the example", severity="error", timeout=10)
                self.show()
                return
            paths = [str(stop.example.path)]
            session = ExploreSession(trainer, read_preview(paths), paths=paths)
            self.opened = (stop.example, session)
            self.app.opened(session)
            return
        self.settle()

    def settle(self) -> None:
        """On the tour's screen: go to the stop's step, hide the answer, fill the encode box."""
        screen = self.screen
        if screen is None:
            return
        stop = self.tour.stop
        screen.pairs.hide_next = self.tour.waiting == "pair"
        screen.go_to_step(stop.step)
        screen.refresh_all()
        screen.pairs.table.move_cursor(row=0, animate=False)  # a question starts at the top of the table
        if stop.encode_text is not None:
            screen.encode.set_text(stop.encode_text, stop.dropout or 0.0)
        self.show()

    def move(self, delta: int) -> None:
        """The next (1) or previous (-1) stop."""
        if not session_free(self.app, self.app.session):
            return
        self.why = ""
        if not self.tour.go(delta):
            self.app.notify("that was the last stop: q leaves the tour" if delta > 0 else "this is the first stop", timeout=3)
            return
        self.arrive()

    def go_to(self, start: int) -> None:
        """Back (or on) to stop ``start`` (0-based)."""
        self.why = ""
        self.tour.go(start - self.tour.index)
        self.arrive()

    def answer(self, answer: tuple | int) -> bool:
        """Check an answer (a pair, or a 0-based choice); True if the stop was waiting for it.

        After a "which pair merges next?" answer, right or wrong, the explorer makes that
        merge, so the learner sees it happen.
        """
        screen = self.screen
        if screen is None or screen.session.busy:
            return False
        trainer = screen.session.trainer
        kind = self.tour.waiting
        verdict = self.tour.answer(trainer, answer)
        if verdict is None:
            return False
        if kind == "pair":
            before = trainer.steps_done
            screen.pairs.hide_next = False
            screen.corpus.set_pair(None)
            screen.go_to_step(before + 1)
            screen.refresh_all()
            made = trainer.steps_done > before  # nothing is made when no pair is left
            self.why = f"Why: {trainer.history[-1].explanation}." if made else ""
        self.show()
        return True

    def take_answer(self, pair: tuple | None) -> bool:
        """A pair chosen in the pair table: True if the tour took it as its answer."""
        return pair is not None and self.answer(tuple(pair))

    def leave(self) -> None:
        """Close the tour; the explorer stays where it is."""
        screen = self.screen
        self.app.guide = None
        if screen is not None:
            screen.pairs.hide_next = False
            screen.refresh_all()
            screen.remove_class("-touring")
            screen.query(TourPanel).remove()
            screen.refresh_bindings()  # the tour's keys leave the footer


def tour_panel(app) -> TourPanel | None:
    """The open tour's panel on the main screen, if any."""
    guide = getattr(app, "guide", None)
    return guide.panel if guide is not None else None


def open_tour(app: TourHost, start: int = 0) -> None:
    """Start the tour at stop ``start`` (0-based); a second call moves the open tour back to
    that stop."""
    if app.guide is not None and app.guide.screen is not None:
        app.guide.go_to(start)
        return
    app.guide = Guide(app, start)
    app.guide.arrive()
