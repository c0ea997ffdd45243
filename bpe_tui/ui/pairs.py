"""The pair table: the most frequent adjacent pairs, what changed, who ties, what merges next.

In inspect mode (no corpus) it shows the adjacent token pairs of the encode box's text instead,
with the rank each pair has in the table (the lowest rank is the merge that would apply next).
"""

from __future__ import annotations

from collections import Counter

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import DataTable, Static

from ..core.table import UNK_ID
from .messages import PairSelected, TokenSelected
from .render import NEXT, TOUCHED, chip, fmt_int, plain
from .session import Session, Snapshot

EXPLORE_COLUMNS = (("#", 3), ("left", 10), ("right", 10), ("count", 7), ("=", 1), ("Δ", 5))
INSPECT_COLUMNS = (("#", 3), ("left", 10), ("right", 10), ("count", 6), ("rank", 8), ("", 1))


class PairsPane(Vertical):
    """Top pairs (explore) or the encode text's pairs (inspect)."""

    BORDER_TITLE = "Pairs"

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.mode = ""
        self.pairs: list[tuple] = []  # row -> (left, right)
        self.rows: list[tuple[str, ...]] = []  # row -> plain cell texts (what tests read)
        self._cells: list[tuple] = []
        self._prev: dict = {}
        self._ids: list = []
        self.caption_text = ""

    def compose(self) -> ComposeResult:
        table = DataTable(id="pair-table", cursor_type="row", zebra_stripes=False, cell_padding=0)
        yield table
        yield Static("", id="pair-caption", markup=False)

    @property
    def table(self) -> DataTable:
        return self.query_one("#pair-table", DataTable)

    def _set_mode(self, mode: str) -> None:
        if mode == self.mode:
            return
        self.mode = mode
        table = self.table
        table.clear(columns=True)
        for label, width in EXPLORE_COLUMNS if mode == "explore" else INSPECT_COLUMNS:
            table.add_column(label, width=width + 1, key=label or "blank")
        self._cells = []
        self._prev = {}
        self.border_title = "Pairs — next merge first" if mode == "explore" else "Pairs in the encode text"

    def _fill(self, cells: list[tuple]) -> None:
        """Put rows in the table, touching only the cells that changed."""
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
                        if a != b:
                            table.update_cell_at((r, c), a)
        self._cells = cells
        self.rows = [tuple(c.plain if isinstance(c, Text) else str(c) for c in row) for row in cells]

    def _caption(self, text: Text) -> None:
        self.caption_text = text.plain
        self.query_one("#pair-caption", Static).update(text)

    # ------------------------------------------------------------------ explore

    def show(self, session: Session, snap: Snapshot) -> None:
        self._set_mode("explore")
        eow = session.end_of_word
        top = snap.top_pairs
        lead = top[0][1] if top else 0
        changes = snap.last_event.pair_changes if snap.last_event is not None else {}
        cells = []
        for i, (pair, count) in enumerate(top):
            if pair in self._prev:
                d = count - self._prev[pair]
                delta = plain(f"▲{d}" if d > 0 else f"▼{-d}" if d < 0 else "", "green" if d > 0 else "red")
            elif self._prev or pair in changes:
                delta = plain("new", "bold cyan")
            else:
                delta = plain("")
            tied = count == lead and snap.leader_ties > 0
            style = NEXT if i == 0 and not snap.finished else None
            cells.append(
                (
                    plain("▶1" if style else str(i + 1), "bold" if style else ""),
                    chip(pair[0], eow, style) if style else plain(_label(pair[0], eow)),
                    chip(pair[1], eow, style) if style else plain(_label(pair[1], eow)),
                    plain(fmt_int(count), "bold" if style else ""),
                    plain("=" if tied else "", TOUCHED),
                    delta,
                )
            )
        self._prev = dict(top)
        self.pairs = [p for p, _ in top]
        self._fill(cells)
        caption = Text(end="")
        if snap.finished:
            caption.append("finished: " + (snap.stop_reason or "target reached"), "#ffd75f")
            if top:
                caption.append("  (g goes past the target)", "dim")
        elif top:
            (left, right), count = top[0]
            caption.append("next: ")
            caption.append_text(chip(left, eow, NEXT))
            caption.append(" + ")
            caption.append_text(chip(right, eow, NEXT))
            caption.append(f"  ×{count:,}")
            if snap.leader_ties:
                n = snap.leader_ties
                caption.append(f"  tie with {n} other pair{'s' if n > 1 else ''} (=); ", "")
                caption.append(f"{session.trainer.config.tie_break}", "bold")
                caption.append(" picks it")
        else:
            caption.append("no pairs left")
        self._caption(caption)

    # ------------------------------------------------------------------ inspect

    def show_text_pairs(self, session: Session, text: str) -> None:
        """Adjacent token pairs of ``text`` under the current (cut) table, with full-table ranks."""
        self._set_mode("inspect")
        table = session.table()
        full = session.full_table
        ranks = session.rank_index()
        counter: Counter = Counter()
        for is_special, piece in table.pretokenize(text):
            if is_special:
                continue
            ids = table.encode(piece)
            for a, b in zip(ids, ids[1:]):
                if a != UNK_ID and b != UNK_ID:
                    counter[(a, b)] += 1
        rows = sorted(counter.items(), key=lambda kv: (ranks.get(kv[0], 1 << 40), -kv[1], kv[0]))[:50]
        eow = full.end_of_word
        cells = []
        self._ids = []
        for i, ((a, b), count) in enumerate(rows):
            rank = ranks.get((a, b))
            style = NEXT if i == 0 and rank is not None else None
            left, right = full.surface(a), full.surface(b)
            cells.append(
                (
                    plain(str(i + 1)),
                    chip(left, eow, style) if style else plain(_label(left, eow)),
                    chip(right, eow, style) if style else plain(_label(right, eow)),
                    plain(str(count)),
                    plain(fmt_int(rank) if rank is not None else "—"),
                    plain(""),
                )
            )
            self._ids.append(full.merge_at(rank)[2] if rank is not None else None)
        self.pairs = [(full.surface(a), full.surface(b)) for (a, b), _ in rows]
        self._fill(cells)
        caption = Text(end="")
        if not text:
            caption.append("type in the encode box to see its pairs")
        elif rows and ranks.get(rows[0][0]) is not None:
            caption.append(f"next merge at rank {ranks[rows[0][0]]:,}: ")
            caption.append_text(chip(self.pairs[0][0], eow, NEXT))
            caption.append(" + ")
            caption.append_text(chip(self.pairs[0][1], eow, NEXT))
        else:
            caption.append("no pair of this text is in the table: encoding is complete")
        self._caption(caption)

    # ------------------------------------------------------------------ selection

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        row = event.cursor_row
        if not 0 <= row < len(self.pairs):
            return
        if self.mode == "explore":
            self.post_message(PairSelected(self.pairs[row]))
        elif self._ids[row] is not None:
            self.post_message(TokenSelected(self._ids[row], show=True))


def _label(surface, eow) -> str:
    from .render import label

    return label(surface, eow)
