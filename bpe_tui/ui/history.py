"""The merge history: every merge so far (or every merge of a saved table), virtualised.

Rows are drawn on demand (see :class:`~bpe_tui.ui.vlist.VirtualList`), so 50,000 merges
scroll as smoothly as 50. In explore mode merges that were undone stay listed, dimmed, and
choosing one re-applies forward to it.
"""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Static

from .messages import StepChosen, TokenSelected
from .render import chip, fmt_int
from .session import Session
from .vlist import VirtualList



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
        if row is None:
            return Text("")
        eow = session.end_of_word
        look = self.chip_styles
        text = Text(no_wrap=True, end="")
        here = self.mark_current and row.step == self.current
        text.append("●" if here else " ", look.touched)
        text.append(f"{row.step:>6} ", "dim" if row.future else "")
        spans = []
        for i, (surface, sep) in enumerate(((row.left, " + "), (row.right, " → "), (row.new, ""))):
            start = text.cell_len
            text.append_text(chip(surface, eow, look.future if row.future else look.pair[i % 2]))
            if i == 2:
                spans.append((start, text.cell_len, row.new_id))
            text.append(sep, "dim")
        if row.count is not None:
            text.append(f"  {row.count:,}", "dim" if row.future else "#a8e6a3")
        return text, spans


class HistoryPane(Vertical):
    BORDER_TITLE = "History"

    def compose(self) -> ComposeResult:
        yield Static("", id="history-head", markup=False)
        yield HistoryView(id="history-list")

    @property
    def view(self) -> HistoryView:
        return self.query_one(HistoryView)

    def show(self, session: Session, length: int, current: int, follow: bool = True) -> None:
        """A trainer's timeline: ``length`` rows; the merge at step ``current`` is the latest
        applied, the rows after it were undone (dimmed)."""
        view = self.view
        view.session = session
        view.current = current
        view.mark_current = True
        cursor = max(0, current - 1) if follow else None
        view.set_count(length, cursor=cursor, follow=follow)
        undone = length - current
        head = f"{fmt_int(current)} merges" + (f" (+{fmt_int(undone)} undone: enter re-applies)" if undone else "")
        self.query_one("#history-head", Static).update(Text(head, style="dim", end=""))

    def show_table(self, session: Session) -> None:
        """A saved table's merges (rows past a cut dimmed)."""
        view = self.view
        view.session = session
        view.current = session.step
        view.mark_current = False
        length = session.lookup_table().num_merges
        view.set_count(length, cursor=None, follow=False)
        head = f"{fmt_int(length)} merges · enter: encode with merges up to here"
        self.query_one("#history-head", Static).update(Text(head, style="dim", end=""))

    def on_virtual_list_highlighted(self, event: VirtualList.Highlighted) -> None:
        event.stop()
        row = self.view.session.history_row(event.index) if self.view.session else None
        if row is not None:
            self.post_message(TokenSelected(row.new_id))

    def on_virtual_list_chosen(self, event: VirtualList.Chosen) -> None:
        event.stop()
        row = self.view.session.history_row(event.index) if self.view.session else None
        if row is not None:
            self.post_message(StepChosen(row.step))

    def on_virtual_list_chip_clicked(self, event: VirtualList.ChipClicked) -> None:
        event.stop()
        self.post_message(TokenSelected(event.payload, show=True))
