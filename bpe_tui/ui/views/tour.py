"""The guided tour's panel (``bpe-tui learn``, or "Take the guided tour" in the command palette).

The panel sits under the explorer's panes and shows the current stop of a
:class:`~bpe_tui.core.teaching.lessons.Tour`: its text, its question, the verdict on the learner's
answer, and after a "which pair merges next?" answer the trainer's own explanation of the
merge it then makes (``MergeEvent.explanation``). The lessons and the answer checking live in
:mod:`bpe_tui.core.teaching.lessons`; this module only shows them. The tour's state, and the
driving of the explorer, is :class:`bpe_tui.ui.guide.Guide`'s, held on the App (``app.guide``):
each explore screen of the tour's session mounts a :class:`TourPanel` that shows it, and knows
the guide only as a :class:`TourGuide`.

Keys (rows of :mod:`~bpe_tui.ui.keys`, actions on the explore screen, on only while the tour
is open): ``]`` next stop, ``[`` previous stop, ``1``-``4`` answer a numbered question (while
one is open; otherwise 1-3 show the tabs), ``q`` leave the tour. A "which pair merges next?"
question is answered in the pair table itself: move to the pair, press enter (the screen hands
the :class:`~bpe_tui.ui.messages.PairSelected` to :meth:`TourGuide.take_answer`).
"""

from __future__ import annotations

from typing import Protocol

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Static

from ...core.teaching.lessons import Tour
from ..session.sessions import Session

#: What the learner reads under the question, by what the tour waits for.
KEY_HELP = {
    "pair": "  (pair table: ↑↓, enter)",
    "choice": "  (keys 1-{n})",
    None: "",
}
#: The keys that move through the tour, shown in the panel's title line.
MOVES = "[ back · ] next · q leave"


class TourGuide(Protocol):
    """What the panel and the explore screen ask of the open tour (:class:`bpe_tui.ui.guide.Guide`)."""

    tour: Tour
    #: The trainer's own sentence on the merge made after a pair answer.
    why: str

    @property
    def waiting(self) -> str | None: ...

    def shows(self, session: Session) -> bool: ...

    def settle(self) -> None: ...

    def move(self, delta: int) -> None: ...

    def answer(self, answer: tuple | int) -> bool: ...

    def take_answer(self, pair: tuple | None) -> bool: ...

    def leave(self) -> None: ...




class TourPanel(Vertical):
    """The current stop of the tour: title, text, question, verdict, keys."""

    def __init__(self, guide: TourGuide, **kwargs) -> None:
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
        """Check an answer (see :meth:`bpe_tui.ui.guide.Guide.answer`)."""
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
