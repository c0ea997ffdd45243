"""The guided tour's panel (``bpe-tui learn``, or "Take the guided tour" in the command palette).

The panel sits under the explorer's panes and shows the current stop of a
:class:`~bpe_tui.core.lessons.Tour`: its text, its question, the verdict on the learner's
answer, and after a "which pair merges next?" answer the trainer's own explanation of the
merge it then makes (``MergeEvent.explanation``). The lessons and the answer checking live in
:mod:`bpe_tui.core.lessons`; this module only shows them and drives the explorer through a
few of its methods: open a worked example (``set_session``), move to a step
(``go_to_step``), hide which pair merges next while the question is open (the pair table's
``hide_next``), fill the encode box (``set_text``).

Keys (bound on the App, listed in :mod:`~bpe_tui.ui.keys`): ``]`` next stop, ``[`` previous
stop, ``1``-``4`` answer a numbered question, ``q`` leave the tour. A "which pair merges
next?" question is answered in the pair table itself: move to the pair, press enter (the App
hands the :class:`~bpe_tui.ui.messages.PairSelected` to :func:`take_answer`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from rich.text import Text
from textual.app import App, ComposeResult
from textual.containers import Vertical
from textual.widgets import Static

from ..core.errors import BPEError
from ..core.lessons import Example, Tour
from .session import Session, read_preview

if TYPE_CHECKING:
    from .app import ExplorerApp

#: What the learner reads under the question, by what the tour waits for.
KEY_HELP = {
    "pair": "  (pair table: ↑↓, enter)",
    "choice": "  (keys 1-{n})",
    None: "",
}
#: The keys that move through the tour, shown in the panel's title line.
MOVES = "[ back · ] next · q leave"


class TourPanel(Vertical):
    """The current stop of the tour: title, text, question, verdict, keys."""

    def __init__(self, tour: Tour, **kwargs) -> None:
        super().__init__(**kwargs)
        self.tour = tour
        #: The session this panel opened, and for which example (reused while stops share it).
        self._opened: tuple[Example, Session] | None = None
        #: What each line of the panel says, as plain text (what tests read).
        self.lines: dict[str, str] = {}
        #: The trainer's own sentence on the merge made after a pair answer (MergeEvent.explanation).
        self.why = ""

    def compose(self) -> ComposeResult:
        yield Static("", id="tour-text", markup=False)
        yield Static("", id="tour-question", markup=False)
        yield Static("", id="tour-verdict", markup=False)
        yield Static("", id="tour-why", markup=False)

    def on_mount(self) -> None:
        self.screen.add_class("-touring")  # the panes make room (tour.tcss)
        self.arrive()

    def on_unmount(self) -> None:
        self.screen.remove_class("-touring")

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
        why = self.why if verdict is not None else ""
        self.query_one("#tour-why", Static).set_class(not why, "-none")
        self._put("why", Text(why, end=""))

    # ------------------------------------------------------------------ driving the explorer

    @property
    def explorer(self) -> ExplorerApp:
        """The explorer this panel drives (its few methods named in the module docstring)."""
        return cast("ExplorerApp", self.app)

    def arrive(self) -> None:
        """Put the explorer where the current stop begins: its example, its step, its encode text."""
        app = self.explorer
        stop = self.tour.stop
        if self._opened is None or self._opened != (stop.example, app.session):
            try:
                trainer = stop.example.trainer()
            except BPEError as exc:
                app.notify(str(exc), title="cannot open the example", severity="error", timeout=10)
                self.show()
                return
            session = Session(trainer=trainer, preview=read_preview([str(stop.example.path)]))
            self._opened = (stop.example, session)
            app.set_session(session)
        app.pairs.hide_next = self.tour.waiting == "pair"
        app.go_to_step(stop.step)
        app.refresh_all()
        app.pairs.table.move_cursor(row=0, animate=False)  # a question starts at the top of the table
        if stop.encode_text is not None:
            app.encode.set_text(stop.encode_text, stop.dropout or 0.0)
        self.show()

    def move(self, delta: int) -> None:
        """The next (1) or previous (-1) stop."""
        if self.explorer.busy:
            self.app.notify("busy — escape cancels the run", severity="warning", timeout=2)
            return
        self.why = ""
        if not self.tour.go(delta):
            self.app.notify("that was the last stop: q leaves the tour" if delta > 0 else "this is the first stop", timeout=3)
            return
        self.arrive()

    def answer(self, answer: tuple | int) -> bool:
        """Check an answer (a pair, or a 0-based choice); True if the stop was waiting for it.

        After a "which pair merges next?" answer, right or wrong, the explorer makes that
        merge, so the learner sees it happen.
        """
        app = self.explorer
        session = app.session
        if session is None or session.trainer is None or session.busy:
            return False
        trainer = session.trainer
        kind = self.tour.waiting
        verdict = self.tour.answer(trainer, answer)
        if verdict is None:
            return False
        if kind == "pair":
            before = trainer.steps_done
            app.pairs.hide_next = False
            app.corpus.set_pair(None)
            app.go_to_step(before + 1)
            app.refresh_all()
            made = trainer.steps_done > before  # nothing is made when no pair is left
            self.why = f"Why: {trainer.history[-1].explanation}." if made else ""
        self.show()
        return True

    def leave(self) -> None:
        """Close the tour; the explorer stays where it is."""
        self.explorer.pairs.hide_next = False
        self.explorer.refresh_all()
        self.remove()


# ---------------------------------------------------------------------- the App's hooks


def tour_panel(app: App) -> TourPanel | None:
    """The open tour's panel, if any."""
    found = app.query(TourPanel)  # the explorer's screen, also while a dialog is up
    return found.first() if found else None


def open_tour(app: App, start: int = 0) -> None:
    """Start the tour at stop ``start`` (0-based) under the explorer's panes; a second call
    moves the open tour back to that stop."""
    panel = tour_panel(app)
    if panel is not None:
        panel.tour.go(start - panel.tour.index)
        panel.arrive()
        return
    app.mount(TourPanel(Tour(start=start), id="tour"), before="#progress-row")


def tour_action(app: App, what: str) -> None:
    """A tour key: "next", "back", "leave", or a choice number "1" ... "4"."""
    panel = tour_panel(app)
    if panel is None:
        return
    if what == "next":
        panel.move(1)
    elif what == "back":
        panel.move(-1)
    elif what == "leave":
        panel.leave()
    elif what.isdigit() and not panel.answer(int(what) - 1):
        app.bell()


def take_answer(app: App, pair: tuple | None) -> bool:
    """A pair chosen in the pair table: True if the tour took it as its answer."""
    panel = tour_panel(app)
    return panel is not None and pair is not None and panel.answer(tuple(pair))


def run_tour(start: int = 0) -> int:
    """``bpe-tui learn``: the explorer with the tour open at stop ``start`` (0-based)."""
    from .app import ExplorerApp

    app = ExplorerApp(tour=start)
    app.run()
    return app.return_code or 0
