"""The pair table: the most frequent adjacent pairs, what changed, who ties, what merges next.

The change column compares each pair's count with its count in the state shown before the
last move (one step, an undo, a jump of thousands in a worker), worked out exactly from the
merges between (:meth:`ExploreSession.pair_counts_then`); the pane's title says which step
that was ("change since step 20"). ``new``: the pair did not occur then. Under the table the
trainer's sentence on the latest merge sits in a box of three lines that scrolls, and opens
to its whole length while it has the focus (tab, or a click).

In inspect mode (no corpus) it shows the adjacent token pairs of the encode box's text instead,
with the rank each pair has in the table (the lowest rank is the merge that would apply next);
until text is typed, the table's summary (format, size, rules, special tokens, the reader's
notes: :func:`~bpe_tui.core.tables.summary.summary`) is where those pairs will be.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Mapping

from rich.table import Table
from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.coordinate import Coordinate
from textual.widgets import DataTable, Static

from ...core.engine.events import MergeEvent
from ...core.engine.registry import about_table
from ...core.tables.summary import summary
from ...core.tables.table import UNK_ID, MergeTable, merge_number
from ...core.wording import plural
from ..messages import PairSelected, TokenSelected
from ..session.sessions import ExploreSession, InspectSession
from ..session.snapshot import Snapshot
from ..widgets.render import (
    CHIP_CLASSES,
    ChipStyles,
    chip,
    fit,
    label,
    plain,
    redraw_on_theme_change,
    short_int,
    token_mark,
)

#: (header, width in cells); a width of None shares what is left between the token columns.
#: "ties": = on the pairs tied with the leader; "change": since the state shown before (the
#: pane's title says which step).
EXPLORE_COLUMNS = (("#", 3), ("left", None), ("right", None), ("count", 7), ("ties", 4), ("change", 6))
INSPECT_COLUMNS = (("#", 3), ("left", None), ("right", None), ("count", 6), ("merge", 7), ("", 1))
#: Token columns are this wide at least and at most.
TOKEN_WIDTH = (4, 16)


def column_widths(columns, width: int) -> list[int]:
    """Each column's width for a table ``width`` cells wide (one cell of gap after each)."""
    fixed = sum(w + 1 for _, w in columns if w is not None)
    shared = [c for c in columns if c[1] is None]
    lo, hi = TOKEN_WIDTH
    each = max(lo, min(hi, (width - fixed) // len(shared) - 1)) if width else 10
    return [each if w is None else w for _, w in columns]


def text_pairs(table: MergeTable, text: str) -> Counter:
    """How often each adjacent ``(left_id, right_id)`` occurs inside the words of ``text``
    (each word encoded once, however often it comes: a text repeats its words)."""
    words = Counter(piece for is_special, piece in table.pretokenize(text) if not is_special)
    counter: Counter = Counter()
    for piece, times in words.items():
        ids = table.encode(piece)
        for a, b in zip(ids, ids[1:]):
            if a != UNK_ID and b != UNK_ID:
                counter[(a, b)] += times
    return counter


def delta_cell(now: int, before: int | None, look: ChipStyles) -> Text:
    """The change column: ▲/▼ by how much since ``before``, "new" when the pair did not occur
    then (0), nothing when unchanged or not known (None)."""
    if before is None:
        return plain("")
    if before == 0:
        return plain("new", look.name)
    d = now - before
    if d == 0:
        return plain("")
    return plain(("▲" if d > 0 else "▼") + short_int(abs(d), 4), look.good if d > 0 else look.bad)


def hidden_pairs(forbidden_by: Mapping[str, int]) -> str:
    """Why pairs of the corpus are not in the table, by the constraint that forbids them
    (:meth:`~bpe_tui.core.engine.trainer.Trainer.forbidden_by`): ``5 pairs hidden: <UNK>
    (coverage)``; with several, how many each hides."""
    n = sum(forbidden_by.values())
    if len(forbidden_by) == 1:
        return f"{plural(n, 'pair')} hidden: {next(iter(forbidden_by))}"
    return f"{plural(n, 'pair')} hidden: " + "; ".join(f"{what} ×{count:,}" for what, count in forbidden_by.items())


class PairsPane(Vertical):
    """Top pairs (explore) or the encode text's pairs (inspect)."""

    BORDER_TITLE = "Pairs"
    #: The chips, the deltas and the caption take their colours from the theme (chips.tcss).
    COMPONENT_CLASSES = CHIP_CLASSES

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        #: The columns shown: EXPLORE_COLUMNS (a trainer's top pairs) or INSPECT_COLUMNS.
        self.columns: tuple = ()
        self.pairs: list[tuple] = []  # row -> (left, right)
        self.rows: list[tuple[str, ...]] = []  # row -> plain cell texts (what tests read)
        self.widths: list[int] = []  # column widths in cells
        self._raw: list[tuple] = []  # rows as built, before fitting to the columns
        self._cells: list[tuple] = []
        #: The merged token of each row (the encode text's pairs); None: rows filter the corpus.
        self._ids: list | None = None
        self.caption = Text(end="")
        self.caption_text = ""
        self.why_text = ""  # the latest merge's explanation, as shown under the table
        self._caption_shown: Text | None = None  # what the caption and the why line show now (None: not drawn yet)
        self._why_shown: str | None = None
        self.summary_text = ""  # inspect, before any text is typed: the table's summary
        # Deltas compare the pairs on screen with the pairs of the state shown before the last
        # move, whatever the move was (one step, undo, a jump of thousands in a worker).
        self._session: ExploreSession | None = None
        self._shown: tuple[int, dict] | None = None  # (step, pair -> count) last shown while idle
        self._before: tuple[int, dict] | None = None  # the same of the state shown before that
        #: A question asks which pair merges next (the tour): list the pairs without saying
        #: which one wins, tied pairs in an order shuffled per step.
        self.hide_next = False
        #: Draws the pairs last shown again (a theme change: the colours are baked into the cells).
        self._redraw: Callable[[], None] | None = None

    def compose(self) -> ComposeResult:
        table: DataTable[Text] = DataTable(id="pair-table", cursor_type="row", zebra_stripes=False, cell_padding=0)
        yield table
        with VerticalScroll(id="pair-summary"):
            yield Static("", id="pair-summary-text", markup=False)
        yield Static("", id="pair-caption", markup=False)
        with VerticalScroll(id="pair-why"):
            yield Static("", id="pair-why-text", markup=False)

    @property
    def table(self) -> DataTable:
        return self.query_one("#pair-table", DataTable)

    def _set_columns(self, columns: tuple, title: str) -> None:
        if columns == self.columns:
            return
        self.columns = columns
        self.widths = []
        self._layout()
        self.border_title = title

    def _layout(self) -> None:
        """(Re)build the columns for the pane's width; refill the rows fitted to them."""
        if not self.columns:
            return
        width = (self.size.width or self.app.size.width // 2) - 1  # one cell for the scrollbar
        widths = column_widths(self.columns, width)
        if widths == self.widths:
            return
        self.widths = widths
        table = self.table
        table.clear(columns=True)
        for (header, _), w in zip(self.columns, widths):
            table.add_column(header, width=w + 1, key=header or "blank")
        self._cells = []
        if self._raw:
            self._fill(self._raw)

    def on_resize(self, event: events.Resize) -> None:
        self._layout()

    def on_mount(self) -> None:
        redraw_on_theme_change(self, self._theme_changed)

    def _theme_changed(self) -> None:
        """The cells were drawn in the old theme's colours: draw them again."""
        if self._redraw is not None:
            self._redraw()

    def show_merges_state(self) -> None:
        """The merge list's build moved on (or ended): the encode text's pairs again, with
        their merge numbers once the list is there."""
        if self._redraw is not None:
            self._redraw()

    def _fill(self, raw: list[tuple]) -> None:
        """Put rows in the table (each cell cut to its column), touching only changed cells."""
        self._raw = raw
        cells = [tuple(fit(cell, w) for cell, w in zip(row, self.widths)) for row in raw]
        table = self.table
        with self.app.batch_update():
            if len(cells) != len(self._cells):
                cursor = table.cursor_row
                table.clear()
                for i, row in enumerate(cells):
                    table.add_row(*row, key=str(i))
                if cells:
                    table.move_cursor(row=min(cursor, len(cells) - 1), animate=False)
            else:
                for r, (new, old) in enumerate(zip(cells, self._cells)):
                    for c, (a, b) in enumerate(zip(new, old)):
                        if a != b or a.style != b.style:  # Text's == ignores its base style
                            table.update_cell_at(Coordinate(r, c), a)
        self._cells = cells
        self.rows = [tuple(c.plain for c in row) for row in cells]

    def _caption(self, text: Text) -> None:
        # (the same caption again is left as it is: an update lays the screen out again,
        # which the inspect screen did on every keystroke in the encode box)
        if self._caption_shown is not None and self._caption_shown == text and self._caption_shown.style == text.style:
            return
        self._caption_shown = text
        self.caption = text  # as drawn, colours and all (what the theme test reads)
        self.caption_text = text.plain
        self.query_one("#pair-caption", Static).update(text)

    def _why(self, event: MergeEvent | None, transition: str | None = None) -> None:
        """Under the table: why the latest merge was made (the trainer's own sentence), or
        ``transition``, SuperBPE's switch to chunks, when that came after it."""
        why = transition or (event.explanation if event is not None else "")
        if why == self._why_shown:
            return  # (as in _caption)
        self.why_text = self._why_shown = why
        self.query_one("#pair-why-text", Static).update(Text(self.why_text, end=""))
        box = self.query_one("#pair-why", VerticalScroll)
        box.set_class(not self.why_text, "-empty")  # hidden (pairs.tcss; also while touring: tour.tcss)
        box.scroll_home(animate=False)

    # ------------------------------------------------------------------ explore

    def _baseline(self, session: ExploreSession, snap: Snapshot, idle: bool) -> tuple[int, dict] | None:
        """The state to compare with: its step and the pairs listed then (None: nothing to
        compare with yet)."""
        if session is not self._session:  # another corpus: its deltas start empty
            self._session, self._shown, self._before = session, None, None
        if not idle:  # a worker's batch: compare with the state before the run began
            return self._shown
        if self._shown is not None and self._shown[0] != snap.step:
            self._before = self._shown
        self._shown = (snap.step, dict(snap.top_pairs))
        return self._before

    def show(self, session: ExploreSession, snap: Snapshot, idle: bool = True) -> None:
        """The top pairs of ``snap``; ``idle`` is False for a running worker's batches."""
        self._set_columns(EXPLORE_COLUMNS, "Pairs — next merge first")
        self._redraw = lambda: self.show(session, snap)
        look = ChipStyles.of(self)
        self._ids = None
        eow = session.end_of_word
        top = list(snap.top_pairs)  # (a copy: the next pair may move to the top)
        if self.hide_next:
            shuffle = random.Random(snap.step).random
            top = sorted(top, key=lambda pc: (-pc[1], shuffle()))
        lead = top[0][1] if top else 0
        # The row that merges next: the leader, or the pair chosen by hand that the next step
        # replays (listed first, unranked, when it is not among the top pairs).
        ranks = list(range(1, len(top) + 1))
        nxt: int | None = None
        planned = snap.planned if not snap.finished and not self.hide_next else None
        # (or the pair a variant chooses instead of the leader, in its words: snap.turn)
        upcoming, upcoming_count = (planned, snap.planned_count) if planned is not None else (None, 0)
        if upcoming is None and snap.next_pair is not None and not snap.finished and not self.hide_next:
            upcoming, upcoming_count = snap.next_pair, snap.next_count
        if upcoming is not None:
            listed = [p for p, _ in top]
            if upcoming in listed:
                nxt = listed.index(upcoming)
                if planned is None and nxt:  # the variant's pick goes first, with its rank: "next merge first"
                    top.insert(0, top.pop(nxt))
                    ranks.insert(0, ranks.pop(nxt))
                    nxt = 0
            else:
                top, ranks, nxt = [(upcoming, upcoming_count)] + top, [0] + ranks, 0
        elif top and not snap.finished and not self.hide_next:
            nxt = 0
        base = self._baseline(session, snap, idle)
        then: dict = {}
        if base is not None:
            # Exact, from the merges between, while idle; during a run (or across SuperBPE's
            # transition) only the pairs listed then are known.
            exact = session.pair_counts_then(base[0], dict(top)) if idle else None
            then = exact if exact is not None else {pair: base[1].get(pair) for pair, _ in top}
            self.border_title = f"Pairs — change since step {base[0]:,}"
        elif snap.last_event is not None:  # nothing shown before (a corpus just opened, a retrain): the last merge's change
            then = {pair: before for pair, (before, _) in snap.last_event.pair_changes.items()}
            self.border_title = f"Pairs — change made by merge {snap.last_event.step:,}"
        else:
            self.border_title = "Pairs — next merge first"
        rows = []
        for i, (pair, count) in enumerate(top):
            delta = delta_cell(count, then.get(pair), look)
            tied = count == lead and snap.leader_ties > 0
            style = look.next if i == nxt else None
            rank = str(ranks[i]) if ranks[i] else ""
            rows.append(
                (
                    plain("▶" + rank if style else rank, "bold" if style else ""),
                    chip(pair[0], eow, style) if style else plain(label(pair[0], eow)),
                    # a pair whose merge would make a token a variant marks (⁀: it spans a space) carries the mark
                    Text.assemble(chip(pair[1], eow, style) if style else plain(label(pair[1], eow)), token_mark(pair[0] + pair[1], look)),
                    plain(short_int(count, 7), "bold" if style else ""),
                    plain("=" if tied else "", look.touched),
                    delta,
                )
            )
        self.pairs = [p for p, _ in top]
        self._fill(rows)
        caption = Text(end="")
        if snap.finished:
            caption.append("finished: " + (snap.stop_reason or "target reached"), look.note)
            if top:
                caption.append("  (g goes past the target)", "dim")
        elif top and self.hide_next:
            caption.append(f"merge {merge_number(snap.step):,}: which pair? ↑↓, enter")
        elif top and nxt is not None:
            (left, right), count = top[nxt]
            caption.append(f"next (merge {merge_number(snap.step):,}): ")
            caption.append_text(chip(left, eow, look.next))
            caption.append(" + ")
            caption.append_text(chip(right, eow, look.next))
            caption.append(f"  ×{count:,}")
            if planned is not None:
                caption.append("  chosen by hand: the next step replays it", "")
            elif snap.turn is not None:
                caption.append(f"  {snap.turn}", "")
            elif snap.leader_ties:
                n = snap.leader_ties
                caption.append(f"  tie with {plural(n, 'other pair')} (=); ", "")
                caption.append(f"{session.trainer.config.tie_break}", "bold")
                caption.append(" picks it")
        else:
            caption.append("no pairs left")
        if snap.forbidden:
            caption.append(f"  ({hidden_pairs(snap.forbidden_by)})", "dim")
        self._caption(caption)
        transition = snap.transition
        # Standing right at SuperBPE's transition: it is the latest thing that happened.
        self._why(snap.last_event, transition.explanation if transition is not None and transition.step == snap.step else None)

    # ------------------------------------------------------------------ inspect

    def show_text_pairs(self, session: InspectSession, text: str, counter: Counter | None = None) -> None:
        """Adjacent token pairs of ``text`` under the current (cut) table, with full-table merge numbers.

        ``counter``: the text's pairs when already counted (:func:`text_pairs`, in a worker).
        """
        self._set_columns(INSPECT_COLUMNS, "Pairs in the encode text")
        self._redraw = lambda: self.show_text_pairs(session, text, counter)
        look = ChipStyles.of(self)
        self._show_summary(session if not text else None, look)
        table = session.table()
        full = session.full_table
        pending = session.merges_note()  # merge numbers wait for a rank file's merge list
        ranks = session.rank_index() if pending is None else {}
        if counter is None:
            counter = text_pairs(table, text)
        rows = sorted(counter.items(), key=lambda kv: (ranks.get(kv[0], 1 << 40), -kv[1], kv[0]))[:50]
        eow = full.end_of_word
        cells = []
        ids: list[int | None] = []
        for i, ((a, b), count) in enumerate(rows):
            rank = ranks.get((a, b))
            style = look.next if i == 0 and rank is not None else None
            left, right = full.surface(a), full.surface(b)
            cells.append(
                (
                    plain(str(i + 1)),
                    chip(left, eow, style) if style else plain(label(left, eow)),
                    chip(right, eow, style) if style else plain(label(right, eow)),
                    plain(short_int(count, 6)),
                    plain(short_int(merge_number(rank), 7) if rank is not None else "…" if pending else "—"),
                    plain(""),
                )
            )
            ids.append(full.merge_at(rank)[2] if rank is not None else None)
        self._ids = ids
        self.pairs = [(full.surface(a), full.surface(b)) for (a, b), _ in rows]
        self._fill(cells)
        caption = Text(end="")
        if not text:
            caption.append("type in the encode box (e) to see its pairs")
        elif pending is not None:
            caption.append(f"merge numbers: {pending}", look.note)
        elif rows and ranks.get(rows[0][0]) is not None:
            caption.append(f"next (merge {merge_number(ranks[rows[0][0]]):,}): ")
            caption.append_text(chip(self.pairs[0][0], eow, look.next))
            caption.append(" + ")
            caption.append_text(chip(self.pairs[0][1], eow, look.next))
        else:
            caption.append("no pair of this text is in the table: encoding is complete")
        self._caption(caption)
        self._why(None)

    def _show_summary(self, session: InspectSession | None, look: ChipStyles) -> None:
        """Until text is typed, the table's summary where its pairs will be (None: the pairs)."""
        self.set_class(session is not None, "-summary")
        if session is None:
            self.border_title = "Pairs in the encode text"
            return
        self.border_title = "The table · type to see its pairs"
        table = session.full_table
        described = table.describe(build=False)
        rows = summary(described, about_table(table.config, described["merges"]), merges_note=session.merges_note())
        grid = Table.grid(padding=(0, 1))
        grid.add_column(no_wrap=True, style=look.name)
        grid.add_column(overflow="fold")
        for name, fact in rows:
            grid.add_row(Text(name), Text(fact))
        self.summary_text = "\n".join(f"{name} {fact}" for name, fact in rows)
        self.query_one("#pair-summary-text", Static).update(grid)

    # ------------------------------------------------------------------ selection

    @property
    def selected_pair(self) -> tuple | None:
        """The pair at the table's cursor (None: the table is empty)."""
        row = self.table.cursor_row
        return self.pairs[row] if self.pairs and 0 <= row < len(self.pairs) else None

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        row = event.cursor_row
        if not 0 <= row < len(self.pairs):
            return
        if self._ids is None:
            self.post_message(PairSelected(self.pairs[row]))
        elif self._ids[row] is not None:
            self.post_message(TokenSelected(self._ids[row], show=True))

