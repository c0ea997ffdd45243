"""The merge history: every merge so far (or every merge of a saved table), virtualised.

Rows are drawn on demand (see :class:`~bpe_tui.ui.widgets.vlist.VirtualList`), so 50,000 merges
scroll as smoothly as 50. In explore mode merges that were undone stay listed, dimmed and
marked ``·``, and choosing one re-applies forward to it.

The rows are a table (:class:`HistoryColumns`): a state mark (``●`` the merge the trainer
stands at, ``·`` undone), the merge number, a mark that needs no colour to read (``=`` when a
tie decided the merge, ``h`` when it was chosen by hand, ``⁀`` when it joined two whole
pre-tokens: BoundlessBPE's supermerge, whose left and right are the two pre-tokens), left,
right, the new token (``⁀`` after a token that spans a space: a variant's mark) and the count,
right-aligned. What a BPE variant did right after a merge has rows of its own under the
merge's, with the same number: removals and deletions (``-``: the token removed, ``→`` the
parts it was split into, and how many occurrences were split) and restores (``+``: a removed
token made again). Widths are
terminal cells (CJK and emoji take two). The number and count columns are as wide as the
largest number in the whole list (known without drawing it); the token columns are as wide as
the widest token drawn since the list was filled: they only grow, so scrolling back never
shifts them, and they grow at most once per longer token, never back and forth. When the pane
is too narrow, the widest token column gives up cells first (a cut token ends in ``…``).

When a variant cuts the corpus anew, the head names the transition (the variant's
``heading``), and the first merge after it explains it.
Under the list, a "why" line speaks of the merge at the cursor (or under the mouse): after a
tie, the rule that decided, the winner and the pairs it beat. (The trainer's sentence on the
latest merge, :attr:`MergeEvent.explanation`, is under the pair table.)
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from rich.cells import cell_len
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Static

from ...core.engine.events import TransitionEvent
from ...core.wording import plural
from ..messages import StepChosen, TokenSelected
from ..session.rows import HistoryRow
from ..session.sessions import ExploreSession, InspectSession, Session
from ..widgets.render import REMOVED_MARK, RESTORED_MARK, chip, fit, fmt_int, label, mark_of, token_mark
from ..widgets.vlist import VirtualList

#: The mark column: chosen by hand, decided by a tie, dropped at SuperBPE's transition (its
#: pair never occurs in the chunks: listed here, not in the table), undone (readable without
#: colour).
MANUAL_MARK = "h"
TIE_MARK = "="
#: A merge of two whole pre-tokens side by side (BoundlessBPE's supermerge): the boundary crossed.
JOIN_MARK = "⁀"
DROPPED_MARK = "x"
UNDONE_MARK = "·"
#: The state column: the merge the trainer stands at (a trainer's timeline).
CURRENT_MARK = "●"
#: What stands between the token columns.
PLUS, ARROW = " + ", " → "
#: A token column shrinks to this many cells at the least (then its tokens end in "…").
MIN_TOKEN = 3


@dataclass(frozen=True)
class HistoryColumns:
    """The history's column widths in cells: merge number, left, right, new token, count (0:
    no counts to show). A row reads ``{state} {number} {mark} {left} + {right} → {new} {count}``."""

    number: int = 1
    left: int = MIN_TOKEN
    right: int = MIN_TOKEN
    new: int = MIN_TOKEN
    count: int = 0
    language: int = 0  # a variant of languages: the language that chose the merge (0: no column)

    @property
    def fixed(self) -> int:
        """The cells a row takes besides its three token columns."""
        return (1 + 1 + self.number + 1 + 1 + 1 + len(PLUS) + len(ARROW) + (1 + self.count if self.count else 0)
                + (self.language + 1 if self.language else 0))


def token_widths(natural: tuple[int, int, int], room: int) -> tuple[int, int, int]:
    """The left, right and new token columns' widths for ``room`` cells: their ``natural``
    widths when they fit, else the widest gives up a cell at a time (down to MIN_TOKEN)."""
    widths = [max(1, w) for w in natural]
    floor = [min(w, MIN_TOKEN) for w in widths]
    while sum(widths) > room:
        shrinkable = [c for c in range(3) if widths[c] > floor[c]]
        if not shrinkable:
            break
        widest = max(shrinkable, key=lambda c: (widths[c], c))
        widths[widest] -= 1
    return widths[0], widths[1], widths[2]


def token_cells(row: HistoryRow, eow) -> tuple[int, int, int]:
    """How many cells the row's left, right and new token take (the new one with its ⁀)."""
    if row.after is not None:
        return cell_len(label(row.left, eow)), 0, cell_len(after_text(row, eow))
    new = row.new
    mark = cell_len(mark_of(new)) if isinstance(new, (str, bytes)) else 0
    return cell_len(label(row.left, eow)), cell_len(label(row.right, eow)), cell_len(label(row.new, eow)) + mark


def wider(a: tuple[int, int, int], b: tuple[int, int, int]) -> tuple[int, int, int]:
    """Column by column, the wider of two rows' token widths."""
    return max(a[0], b[0]), max(a[1], b[1]), max(a[2], b[2])


def widest_count(session: Session) -> int | None:
    """The largest count of any row of the session's history (None: no counts): the count
    column's width, the same wherever the list is scrolled."""
    if isinstance(session, ExploreSession):
        return max((ev.count for ev in session.timeline), default=None)
    if isinstance(session, InspectSession):
        counts = session.full_table.counts
        return max(counts) if counts else None
    return None


def row_mark(row: HistoryRow) -> str:
    """One character that says how this merge was chosen (" ": the leader, no tie), that
    SuperBPE's transition dropped it, that it joined two whole pre-tokens (a supermerge), or,
    on a variant's row, what happened (a removal or deletion, a restore)."""
    if row.dropped:
        return DROPPED_MARK
    if row.after is not None:
        return REMOVED_MARK if row.new is not None else RESTORED_MARK
    if row.joined:
        return JOIN_MARK
    if row.manual:
        return MANUAL_MARK
    if row.ties:
        return TIE_MARK
    return " "


def after_text(row: HistoryRow, eow) -> str:
    """What a variant's row shows in the new-token column: the parts a removed token was
    split into (``ent+ucky``), or that a restored one is back."""
    parts = row.new
    if isinstance(parts, tuple):
        return "+".join(label(part, eow) for part in parts)
    return "back"


def pair_text(pair, eow) -> str:
    return f"({label(pair[0], eow)}, {label(pair[1], eow)})"


def why_text(row: HistoryRow | None, eow, latest: int | None = None, transition: TransitionEvent | None = None, mark: str = "") -> Text:
    """What the "why" line under the history says about ``row``: how its pair was chosen.

    A merge a tie decided names the rule, the winner and the pairs it beat; a merge chosen by
    hand says so, and which pair the rules would have picked. Empty otherwise (the line is
    then hidden): a plain merge's row says it all, and a saved table does not record ties.
    ``latest``: the step whose explanation the pair table shows already (not repeated here).
    ``transition``: a variant's new cut of the corpus (SuperBPE's chunks), which the first
    merge after it explains, under the variant's ``mark``.
    """
    text = Text(end="")
    if row is None:
        return text
    if row.after is not None:  # a variant's row: its event's own sentence
        text.append(f"after merge {row.step:,}: ", "bold")
        text.append(f"[{row_mark(row)}] {getattr(row.after, 'explanation', '')}")
        return text
    if transition is not None and row.step == transition.step + 1:
        text.append(f"merge {row.step:,}: ", "bold")
        text.append(f"[{mark or '»'}] {transition.explanation}")
        return text
    if row.dropped:
        text.append(f"merge {row.step:,}: ", "bold")
        text.append(f"[{DROPPED_MARK}] dropped at the transition: its pair never occurs in the chunks, so the table leaves it out")
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
    reason = ev.reason if ev is not None else None
    if row.joined:  # two whole pre-tokens joined: the mark, then why (both whole, how often side by side)
        text.append(f"[{JOIN_MARK}] ")
    if reason is not None:  # a variant's account of its choice (which language chose it, and why)
        text.append(str(reason))
    if ev is not None and ev.tie_count:
        n = ev.tie_count
        more = n - len(ev.ties)
        language = getattr(reason, "language", None)  # a language chose: the tie was in its counts
        where = f" in {language}" if language else ""
        text.append(f"{'; ' if reason is not None else ''}[{TIE_MARK}] a tie at {getattr(reason, 'count', ev.count):,}{where}: ", "bold")
        text.append(f"{ev.rule} picked {pair_text(ev.pair, eow)} over ")
        text.append(", ".join(pair_text(p, eow) for p in ev.ties) + (f" and {more:,} more" if more > 0 else ""))
    elif reason is None:  # the leader, no tie: the row says it all (the explanation is under the pair table)
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
    trainer = session.trainer
    variant = trainer.variant
    described = variant.describe()
    if described and variant.removes_tokens:  # (its removals and restores are rows)
        head += f" · {described} ({REMOVED_MARK} removal, {RESTORED_MARK} restore)"
    elif described and (variant.elsewhere_kind or variant.split_kind):  # (BoundlessBPE's supermerges and deletions)
        marks = [f"{JOIN_MARK} {variant.elsewhere_kind}"] * bool(variant.elsewhere_kind) + [f"{REMOVED_MARK} {variant.split_kind}"] * bool(variant.split_kind)
        head += f" · {described} ({', '.join(marks)})"
    return head + variant.heading(trainer)  # what the variant says over its list


class HistoryView(VirtualList):
    """One merge per row, in columns (:class:`HistoryColumns`): step, mark, left + right →
    new token, count."""

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.session: Session | None = None
        self.current = 0
        #: Mark the merge the trainer stands at with ● (a trainer's timeline, not a table).
        self.mark_current = False
        self.columns = HistoryColumns()
        #: The widest left, right and new token drawn since the list was filled (they only grow).
        self._seen = (1, 1, 1)
        self._number = 1  # the number, count and language columns' widths: from the whole list
        self._count = 0
        self._language = 0
        self._fitted: tuple | None = None  # what the columns were last fitted to

    def fill(self, session: Session, count: int, largest_number: int, cursor: int | None, follow: bool) -> None:
        """Show ``count`` rows of ``session``; ``largest_number``: the widest merge number the
        list will show. Another session (or another kind of list) starts the token columns
        afresh; the same one keeps them (a step never narrows them)."""
        if session is not self.session:
            self._seen = (1, 1, 1)
        self.session = session
        self._number = len(f"{largest_number:,}")
        widest = widest_count(session)
        self._count = len(f"{widest:,}") if widest is not None else 0
        self._language = max(map(len, session.languages), default=0) if isinstance(session, ExploreSession) else 0
        self._fitted = None
        self.set_count(count, cursor=cursor, follow=follow)

    def _fit_columns(self) -> None:
        """Measure the rows in view and set the column widths (the rows cached under other
        widths are drawn again)."""
        # the room left of the scrollbar (the list's size counts the scrollbar's column too)
        top, height, width = self.scroll_offset.y, self.size.height, self.scrollable_content_region.width
        key = (top, height, width, self.count, self._number, self._count, self._language, self._seen)
        if key == self._fitted:
            return
        session = self.session
        if session is not None:
            seen = self._seen
            for index in range(top, min(self.count, top + height)):
                row = session.history_row(index)
                if row is not None:
                    seen = wider(seen, token_cells(row, session.end_of_word))
            self._seen = seen
        self._set_columns(width)
        self._fitted = (top, height, width, self.count, self._number, self._count, self._language, self._seen)

    def _set_columns(self, width: int) -> None:
        columns = HistoryColumns(number=self._number, count=self._count, language=self._language)
        left, right, new = token_widths(self._seen, (width or 80) - columns.fixed)
        columns = HistoryColumns(self._number, left, right, new, self._count, self._language)
        if columns != self.columns:
            self.columns = columns
            self._cache.clear()

    def render_line(self, y: int):
        self._fit_columns()
        return super().render_line(y)

    def render_row(self, index: int):
        session = self.session
        row = session.history_row(index) if session is not None else None
        if session is None or row is None:
            return Text("")
        eow = session.end_of_word
        natural = token_cells(row, eow)
        if any(n > s for n, s in zip(natural, self._seen)):  # a row drawn before it came into view (row_text)
            self._seen = wider(self._seen, natural)
            self._set_columns(self.scrollable_content_region.width)
        return history_line(row, self.columns, eow, self.chip_styles, here=self.mark_current and row.step == self.current)


def history_line(row: HistoryRow, columns: HistoryColumns, eow, look, here: bool = False) -> tuple[Text, list]:
    """One history row in ``columns``, and the cells of its new token (a click there selects
    it): ``● 1,234 = ·t   + he  → ·the  8,684``."""
    if row.after is not None:
        return after_line(row, columns, eow, look)
    text = Text(no_wrap=True, end="")
    text.append(CURRENT_MARK if here else UNDONE_MARK if row.future else " ", look.touched)
    text.append(" ")
    text.append(f"{row.step:,}".rjust(columns.number), "dim" if row.future else "")
    text.append(" ")
    text.append(row_mark(row), "bold")
    text.append(" ")
    if columns.language:  # which language chose it (blank: the hybrid's global merges, or by hand)
        text.append((row.language or "").ljust(columns.language), "dim" if row.future else look.name)
        text.append(" ")
    spans = []
    cells = ((row.left, PLUS, columns.left), (row.right, ARROW, columns.right), (row.new, "", columns.new))
    for i, (surface, sep, width) in enumerate(cells):
        token = chip(surface, eow, look.future if row.future else look.pair[i % 2])
        if i == 2:  # the new token keeps its mark (⁀: it spans a space) when it is cut
            mark = token_mark(row.new, look)
            token = Text.assemble(fit(token, max(1, width - mark.cell_len)), mark)
        token = fit(token, width)
        start = text.cell_len
        text.append_text(token)
        if i == 2:
            spans.append((start, text.cell_len, row.new_id))
        text.append(" " * max(0, width - token.cell_len))
        text.append(sep, "dim")
    if columns.count:
        count = f"{row.count:,}" if row.count is not None else ""
        text.append(" " + count.rjust(columns.count), "dim" if row.future else look.good)
    return text, spans


def after_line(row: HistoryRow, columns: HistoryColumns, eow, look) -> tuple[Text, list]:
    """A variant's row, in the merge rows' columns: ``    1,234 - entucky        → ent+ucky  12``
    (a token removed after merge 1,234, the parts its 12 occurrences left were split into),
    ``    1,235 + the            → back`` (a removed token made again); a click on the token
    selects it."""
    text = Text(no_wrap=True, end="")
    style = "dim" if row.future else ""
    text.append(UNDONE_MARK if row.future else " ", look.touched)
    text.append(" ")
    text.append(f"{row.step:,}".rjust(columns.number), "dim")
    text.append(" ")
    text.append(row_mark(row), "bold")
    text.append(" ")
    token = fit(chip(row.left, eow, look.future if row.future else look.bad), columns.left)
    start = text.cell_len
    text.append_text(token)
    spans = [(start, text.cell_len, row.new_id)]
    text.append(" " * (columns.left - token.cell_len + len(PLUS) + columns.right))
    text.append(ARROW, "dim")
    text.append_text(fit(Text(after_text(row, eow), style=style or look.note), columns.new))
    if columns.count:
        text.append(" " * max(0, columns.new - cell_len(after_text(row, eow))))
        count = f"{row.count:,}" if row.count is not None else ""
        text.append(" " + count.rjust(columns.count), "dim")
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
        view.current = current
        view.mark_current = True
        first = session.first_step  # merges of a start table (--from) are not listed
        # (the cursor on the current step's last row: its merge, or what the variant did after it)
        cursor = max(0, session.row_of(current - first) - 1) if follow else None
        # the number column as wide as the target's number (a run to it never widens it)
        view.fill(session, session.row_count(length), max(first + length, session.trainer.target_steps or 0), cursor=cursor, follow=follow)
        self.query_one("#history-head", Static).update(Text(history_head(session, length, current), style="dim", end=""))
        self.show_why(view.cursor)

    def show_table(self, session: InspectSession) -> None:
        """A saved table's merges (rows past a cut dimmed); while a rank file's merge list is
        being built, no rows and a head that says how far the build has come."""
        view = self.view
        view.mark_current = False
        pending = session.merges_note()
        self.set_class(pending is not None, "-pending")
        if pending is not None:
            view.fill(session, 0, 0, cursor=None, follow=False)
            self.query_one("#history-head", Static).update(Text(pending, end=""))
            self.show_why(view.cursor)
            return
        view.current = session.step
        length = session.lookup_table().num_merges
        view.fill(session, session.row_count(length), length, cursor=None, follow=False)
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
        mark = session.trainer.variant.token_mark if isinstance(session, ExploreSession) else ""
        why = why_text(row, eow, latest=self.view.current if explore else None, transition=transition, mark=mark)
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
