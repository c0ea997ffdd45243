"""The guided tour's panel (``bpe-tui learn``, or "Take the guided tour" in the command palette).

The panel sits under the explorer's panes and shows the current stop of a
:class:`~bpe_tui.core.teaching.lessons.Tour`: its text, its question, the verdict on the learner's
answer, and after a "which pair merges next?" answer the trainer's own explanation of the
merge it then makes (``MergeEvent.explanation``). The lessons and the answer checking live in
:mod:`bpe_tui.core.teaching.lessons`; this module only shows them and drives the explorer through a
few of its methods: open a worked example (``ExplorerApp.opened``), move to a step
(``ExploreScreen.go_to_step``), hide which pair merges next while the question is open (the
pair table's ``hide_next``), fill the encode box (``set_text``).

The tour outlives a screen: each worked example is a session of its own, shown by an
:class:`~bpe_tui.ui.screens.explore.ExploreScreen` of its own. So the tour's state is a
:class:`Guide` held on the App (``app.guide``), and each explore screen of the tour's session
mounts a :class:`TourPanel` that shows it.

Keys (rows of :mod:`~bpe_tui.ui.keys`, actions on the explore screen, on only while the tour
is open): ``]`` next stop, ``[`` previous stop, ``1``-``4`` answer a numbered question (while
one is open; otherwise 1-3 show the tabs), ``q`` leave the tour. A "which pair merges next?"
question is answered in the pair table itself: move to the pair, press enter (the screen hands
the :class:`~bpe_tui.ui.messages.PairSelected` to :meth:`Guide.take_answer`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Static

from ...core.errors import BPEError
from ...core.teaching.lessons import Example, Tour
from ..session.sessions import ExploreSession, Session, read_preview

if TYPE_CHECKING:
    from ..app import ExplorerApp
    from ..screens.explore import ExploreScreen

#: What the learner reads under the question, by what the tour waits for.
KEY_HELP = {
    "pair": "  (pair table: ↑↓, enter)",
    "choice": "  (keys 1-{n})",
    None: "",
}
#: The keys that move through the tour, shown in the panel's title line.
MOVES = "[ back · ] next · q leave"


class Guide:
    """The open tour: which stop, the answers given, the session it opened; it drives the
    explorer (``app.guide`` while the tour is open)."""

    def __init__(self, app: ExplorerApp, start: int = 0) -> None:
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
        from ..screens.explore import ExploreScreen

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
        if not self.app.free():
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


class TourPanel(Vertical):
    """The current stop of the tour: title, text, question, verdict, keys."""

    def __init__(self, guide: Guide, **kwargs) -> None:
        super().__init__(**kwargs)
        self.guide = guide
        #: What each line of the panel says, as plain text (what tests read).
        self.lines: dict[str, str] = {}

    @property
    def tour(self) -> Tour:
        return self.guide.tour

    def compose(self) -> ComposeResult:
        yield Static("", id="tour-text", markup=False)
        yield Static("", id="tour-question", markup=False)
        yield Static("", id="tour-verdict", markup=False)
        yield Static("", id="tour-why", markup=False)

    def on_mount(self) -> None:
        self.screen.add_class("-touring")  # the panes make room (tour.tcss)
        self.show()

    def answer(self, answer: tuple | int) -> bool:
        """Check an answer (see :meth:`Guide.answer`)."""
        return self.guide.answer(answer)

    # ------------------------------------------------------------------ what is on screen

    @property
    def text(self) -> str:
        """Everything the panel says, as plain text."""
        return "\n".join(line for line in self.lines.values() if line)

    def _put(self, name: str, text: Text) -> None:
        self.lines[name] = text.plain
        self.query_one(f"#tour-{name}", Static).update(text)

    def show(self) -> None:
        """Render the current stop and the verdict on its question."""
        tour = self.tour
        stop = tour.stop
        self.border_title = f"Tour {tour.index + 1}/{len(tour.stops)} · {stop.title} ─ {MOVES}"
        self.lines["title"] = self.border_title
        self._put("text", Text(stop.text, end=""))
        self.query_one("#tour-question", Static).set_class(stop.question is None, "-none")
        if stop.question is None:
            self._put("question", Text(""))
        else:
            prompt = Text("? ", style="bold", end="")
            prompt.append(stop.question.prompt, style="bold")
            choices = getattr(stop.question, "choices", ())
            for n, choice in enumerate(choices, 1):
                prompt.append(f"   {n}) ", style="bold")
                prompt.append(choice)
            prompt.append(KEY_HELP[tour.waiting].format(n=len(choices)), style="dim")
            self._put("question", prompt)
        verdict = tour.verdict
        box = self.query_one("#tour-verdict", Static)
        box.set_class(verdict is not None and verdict.correct, "right")
        box.set_class(verdict is not None and not verdict.correct, "wrong")
        box.set_class(verdict is None, "-none")
        # ✓ and ✗ say it without colour (NO_COLOR)
        self._put("verdict", Text("" if verdict is None else ("✓ " if verdict.correct else "✗ ") + verdict.message, end=""))
        why = self.guide.why if verdict is not None else ""
        self.query_one("#tour-why", Static).set_class(not why, "-none")
        self._put("why", Text(why, end=""))


# ---------------------------------------------------------------------- the App's hooks


def tour_panel(app) -> TourPanel | None:
    """The open tour's panel on the main screen, if any."""
    guide = getattr(app, "guide", None)
    return guide.panel if guide is not None else None


def open_tour(app: ExplorerApp, start: int = 0) -> None:
    """Start the tour at stop ``start`` (0-based); a second call moves the open tour back to
    that stop."""
    if app.guide is not None and app.guide.screen is not None:
        app.guide.go_to(start)
        return
    app.guide = Guide(app, start)
    app.guide.arrive()


def run_tour(start: int = 0) -> int:
    """``bpe-tui learn``: the explorer with the tour open at stop ``start`` (0-based)."""
    from ..app import ExplorerApp

    app = ExplorerApp(tour=start)
    app.run()
    return app.return_code or 0
