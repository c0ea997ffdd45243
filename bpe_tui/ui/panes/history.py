"""The merge history: every merge so far (or every merge of a saved table), virtualised.

Rows are drawn on demand (see :class:`~bpe_tui.ui.widgets.vlist.VirtualList`), so 50,000 merges
scroll as smoothly as 50. In explore mode merges that were undone stay listed, dimmed and
marked ``·``, and choosing one re-applies forward to it.

Each row carries a mark that needs no colour to read: ``=`` when a tie decided the merge
(other pairs had the same count and the tie-break rule picked this one) and ``h`` when it was
chosen by hand; a token that spans a space (a superword, SuperBPE) has ``⁀`` after it. With
superwords, the head names the transition, and the first merge after it explains it. Under the list, a "why" line speaks of the merge at the cursor (or under the
mouse): after a tie, the rule that decided, the winner and the pairs it beat. (The trainer's
sentence on the latest merge, :attr:`MergeEvent.explanation`, is under the pair table.)
"""

from __future__ import annotations

import os

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Static

from ...core.engine.events import TransitionEvent
from ...core.wording import plural
from ..messages import StepChosen, TokenSelected
from ..session.sessions import ExploreSession, HistoryRow, InspectSession, Session
from ..widgets.render import SUPERWORD_MARK, chip, fmt_int, label, superword_mark
from ..widgets.vlist import VirtualList

#: The mark column: chosen by hand, decided by a tie, undone (readable without colour).
MANUAL_MARK = "h"
TIE_MARK = "="
UNDONE_MARK = "·"


def row_mark(row: HistoryRow) -> str:
    """One character that says how this merge was chosen (" ": the leader, no tie)."""
    if row.manual:
        return MANUAL_MARK
    if row.ties:
        return TIE_MARK
    return " "


def pair_text(pair, eow) -> str:
    return f"({label(pair[0], eow)}, {label(pair[1], eow)})"


def why_text(row: HistoryRow | None, eow, latest: int | None = None, transition: TransitionEvent | None = None) -> Text:
    """What the "why" line under the history says about ``row``: how its pair was chosen.

    A merge a tie decided names the rule, the winner and the pairs it beat; a merge chosen by
    hand says so, and which pair the rules would have picked. Empty otherwise (the line is
    then hidden): a plain merge's row says it all, and a saved table does not record ties.
    ``latest``: the step whose explanation the pair table shows already (not repeated here).
    ``transition``: SuperBPE's switch to chunks, which the first merge after it explains.
    """
    text = Text(end="")
    if row is None:
        return text
    if transition is not None and row.step == transition.step + 1:
        text.append(f"merge {row.step:,}: ", "bold")
        text.append(f"[{SUPERWORD_MARK}] {transition.explanation}")
        return text
    ev = row.event
    if ev is None and not row.manual:
        return text
    text.append(f"merge {row.step:,}: ", "bold")
    if row.manual:  # the trainer's sentence names the pair the rules would have picked
        if row.step == latest:
            return Text(end="")
        text.append(f"[{MANUAL_MARK}] " + (ev.explanation if ev is not None else "chosen by hand when the table was trained"))
        return text
    if ev is not None and ev.tie_count:
        n = ev.tie_count
        more = n - len(ev.ties)
        text.append(f"[{TIE_MARK}] a tie at {ev.count:,}: ", "bold")
        text.append(f"{ev.rule} picked {pair_text(ev.pair, eow)} over ")
        text.append(", ".join(pair_text(p, eow) for p in ev.ties) + (f" and {more:,} more" if more > 0 else ""))
    else:  # the leader, no tie: the row says it all (the explanation is under the pair table)
        return Text(end="")
    return text


def history_head(session: ExploreSession, length: int, current: int) -> str:
    """The line over a trainer's history: how many merges, how many undone (still listed,
    enter re-applies them) and, after ``--from``, whose the merges before the first row are
    (not listed here: opening the start table lists them)."""
    first = session.first_step
    new = current - first
    head = plural(new, "new merge" if first else "merge")
    undone = length - new
    if undone:
        head += f", {fmt_int(undone)} undone (enter: redo)"
    if first:
        start = session.start.source if session.start is not None and session.start.source else "the start table"
        name = os.path.basename(os.path.normpath(start))
        head += f" · merges 1–{fmt_int(first)} are {name}'s: open it (o) to list them"
    transition = session.trainer.transition
    if transition is not None:
        head += f" · {SUPERWORD_MARK} superwords from merge {fmt_int(transition.step + 1)}: pairs may span spaces"
    elif session.trainer.config.superwords_after is not None:
        head += f" · superwords after merge {fmt_int(session.trainer.config.superwords_after)}"
    return head


class HistoryView(VirtualList):
    """One merge per row: step, left + right → new token, count."""

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.session: Session | None = None
        self.current = 0
        #: Mark the merge the trainer stands at with ● (a trainer's timeline, not a table).
        self.mark_current = False

    def render_row(self, index: int):
        session = self.session
        row = session.history_row(index) if session is not None else None
        if session is None or row is None:
            return Text("")
        eow = session.end_of_word
        look = self.chip_styles
        text = Text(no_wrap=True, end="")
        here = self.mark_current and row.step == self.current
        text.append("●" if here else UNDONE_MARK if row.future else " ", look.touched)
        text.append(f"{row.step:>6}", "dim" if row.future else "")
        text.append(row_mark(row), "bold")
        text.append(" ")
        spans = []
        for i, (surface, sep) in enumerate(((row.left, " + "), (row.right, " → "), (row.new, ""))):
            start = text.cell_len
            text.append_text(chip(surface, eow, look.future if row.future else look.pair[i % 2]))
            if i == 2:
                spans.append((start, text.cell_len, row.new_id))
            text.append(sep, "dim")
        text.append_text(superword_mark(row.new, look))
        if row.count is not None:
            text.append(f"  {row.count:,}", "dim" if row.future else look.good)
        return text, spans


class HistoryPane(Vertical):
    BORDER_TITLE = "History"

    def compose(self) -> ComposeResult:
        yield Static("", id="history-head", markup=False)
        yield HistoryView(id="history-list")
        yield Static("", id="history-why", markup=False)

    @property
    def view(self) -> HistoryView:
        return self.query_one(HistoryView)

    def show(self, session: ExploreSession, length: int, current: int, follow: bool = True) -> None:
        """A trainer's timeline: ``length`` rows; the merge at step ``current`` is the latest
        applied, the rows after it were undone (dimmed)."""
        view = self.view
        view.session = session
        view.current = current
        view.mark_current = True
        first = session.first_step  # merges of a start table (--from) are not listed
        cursor = max(0, current - first - 1) if follow else None
        view.set_count(length, cursor=cursor, follow=follow)
        self.query_one("#history-head", Static).update(Text(history_head(session, length, current), style="dim", end=""))
        self.show_why(view.cursor)

    def show_table(self, session: InspectSession) -> None:
        """A saved table's merges (rows past a cut dimmed); while a rank file's merge list is
        being built, no rows and a head that says how far the build has come."""
        view = self.view
        view.session = session
        view.mark_current = False
        pending = session.merges_note()
        self.set_class(pending is not None, "-pending")
        if pending is not None:
            view.set_count(0, cursor=None, follow=False)
            self.query_one("#history-head", Static).update(Text(pending, end=""))
            self.show_why(view.cursor)
            return
        view.current = session.step
        length = session.lookup_table().num_merges
        view.set_count(length, cursor=None, follow=False)
        head = f"{plural(length, 'merge')} · enter: cut here"
        self.query_one("#history-head", Static).update(Text(head, style="dim", end=""))
        self.show_why(view.cursor)

    @property
    def why(self) -> str:
        """The "why" line as plain text (what tests read)."""
        return str(self.query_one("#history-why", Static).content)

    def show_why(self, index: int) -> None:
        """Explain the merge in row ``index`` (the cursor's row) under the list."""
        session = self.view.session
        row = session.history_row(index) if session is not None else None
        eow = session.end_of_word if session is not None else None
        explore = isinstance(session, ExploreSession)
        transition = session.trainer.transition if isinstance(session, ExploreSession) else None
        why = why_text(row, eow, latest=self.view.current if explore else None, transition=transition)
        line = self.query_one("#history-why", Static)
        line.update(why)
        line.display = bool(why.plain)

    def on_virtual_list_highlighted(self, event: VirtualList.Highlighted) -> None:
        event.stop()
        row = self.view.session.history_row(event.index) if self.view.session else None
        self.show_why(event.index)
        if row is not None:
            self.post_message(TokenSelected(row.new_id))

    def on_virtual_list_hovered(self, event: VirtualList.Hovered) -> None:
        """The mouse over a row explains that row; leaving the list explains the cursor's again."""
        event.stop()
        self.show_why(event.index if event.index >= 0 else self.view.cursor)

    def on_virtual_list_chosen(self, event: VirtualList.Chosen) -> None:
        event.stop()
        row = self.view.session.history_row(event.index) if self.view.session else None
        self.show_why(event.index)
        if row is not None:
            self.post_message(StepChosen(row.step))

    def on_virtual_list_chip_clicked(self, event: VirtualList.ChipClicked) -> None:
        event.stop()
        self.post_message(TokenSelected(event.payload, show=True))
