"""The encode box: type text, see it tokenized by the table as it stands right now.

Tokens are drawn as coloured chips with their ids underneath, unknown characters marked;
a summary gives the token count and characters per token; a trace shows, for the word under
the cursor (or the last word), each merge applied in rank order and the segmentation after
it. BPE-dropout samples another segmentation with probability p.
"""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.widgets import Checkbox, Input, Static

from ..core.table import UNK_ID, MergeTable
from .messages import EncodeChanged, TokenSelected
from .render import CHIP_CYCLE, UNKNOWN, chips, label
from .session import Session
from .vlist import VirtualList


class EncodeView(VirtualList):
    """Wrapped token chips with ids beneath, then the trace."""

    def __init__(self, **kwargs) -> None:
        super().__init__(show_cursor=False, **kwargs)
        self.lines: list[tuple[Text, list]] = []

    def render_row(self, index: int):
        return self.lines[index] if index < len(self.lines) else Text("")

    def set_lines(self, lines: list[tuple[Text, list]]) -> None:
        self.lines = lines
        self.set_count(len(lines))


class EncodePane(Vertical):
    BORDER_TITLE = "Encode"

    BINDINGS = [Binding("ctrl+r", "resample", "Resample dropout", show=False)]

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.session: Session | None = None
        self.ids: list[int] = []
        self.pieces: list[tuple[int, object]] = []
        self.trace_word: str | None = None
        self.trace_lines: list[str] = []
        self.summary = ""
        self.seed = 0

    def compose(self) -> ComposeResult:
        yield Input(placeholder="type text to encode…", id="encode-input", compact=True)
        with Horizontal(id="encode-bar"):
            yield Checkbox("dropout", id="dropout", compact=True)
            yield Input("0.1", id="dropout-p", compact=True, restrict=r"[0-9.]*", max_length=5)
            yield Static("", id="encode-summary", markup=False)
        yield EncodeView(id="encode-view")

    @property
    def text(self) -> str:
        return self.query_one("#encode-input", Input).value

    @property
    def dropout(self) -> float:
        if not self.query_one("#dropout", Checkbox).value:
            return 0.0
        try:
            p = float(self.query_one("#dropout-p", Input).value or 0)
        except ValueError:
            return 0.0
        return min(max(p, 0.0), 1.0)

    # ------------------------------------------------------------------ encoding

    def update_table(self, session: Session) -> None:
        """The table changed (a step, a cut, a new session): encode again."""
        self.session = session
        self._encode()

    def _encode(self) -> None:
        session = self.session
        table = session.table() if session is not None else None
        view = self.query_one(EncodeView)
        text = self.text
        summary = self.query_one("#encode-summary", Static)
        if table is None:
            self.ids, self.pieces, self.trace_lines = [], [], []
            view.set_lines([])
            summary.update("")
            return
        p = self.dropout
        self.pieces = table.pieces(text, dropout=p, seed=self.seed) if text else []
        self.ids = [i for i, _ in self.pieces]
        eow = table.end_of_word
        width = max(20, view.size.width - 1 if view.size.width else 60)
        lines = self._chip_lines(self.pieces, eow, width)
        self.trace_word, trace = self._trace(table, text)
        self.trace_lines = [t.plain for t, _ in trace]
        view.set_lines(lines + ([(Text(""), [])] if lines and trace else []) + trace)
        unknown = sum(1 for i in self.ids if i == UNK_ID)
        n = len(self.ids)
        parts = [f"{n} token{'s' if n != 1 else ''}"]
        if n:
            parts.append(f"{len(text) / n:.2f} chars/token")
        if unknown:
            parts.append(f"{unknown} unknown")
        if p:
            parts.append(f"dropout p={p:g} seed {self.seed}")
        self.summary = " · ".join(parts)
        summary.update(Text(self.summary, end=""))
        self.post_message(EncodeChanged(text))

    @staticmethod
    def _chip_lines(pieces, eow, width: int) -> list[tuple[Text, list]]:
        """Wrap chips into lines of ``width`` cells, each followed by a line of their ids."""
        out = []
        top = Text(no_wrap=True, end="")
        bottom = Text(no_wrap=True, end="")
        spans: list = []
        for n, (token_id, surface) in enumerate(pieces):
            name = label(surface, eow)
            ident = "unk" if token_id == UNK_ID else str(token_id)
            cell = max(len(name), len(ident))
            if top.cell_len and top.cell_len + cell + 1 > width:
                out.append((top, spans))
                out.append((bottom, list(spans)))
                top, bottom, spans = Text(no_wrap=True, end=""), Text(no_wrap=True, end=""), []
            start = top.cell_len
            style = UNKNOWN if token_id == UNK_ID else CHIP_CYCLE[n % len(CHIP_CYCLE)]
            top.append(name, style)
            top.append(" " * (cell - Text(name).cell_len + 1))
            bottom.append(ident.ljust(cell + 1), "dim")
            spans.append((start, start + cell, token_id))
        if spans:
            out.append((top, spans))
            out.append((bottom, list(spans)))
        return out

    def _word_under_cursor(self, table: MergeTable, text: str) -> str | None:
        cursor = self.query_one("#encode-input", Input).cursor_position
        pos = 0
        last = None
        for is_special, piece in table.pretokenize(text):
            start = text.find(piece, pos)
            if start < 0:
                start = pos
            end = start + len(piece)
            pos = end
            if is_special:
                continue
            if start <= cursor < end or (cursor == end and cursor == len(text)):
                return piece
            if start < cursor:
                last = piece
            elif last is None:
                last = piece
        return last

    def _trace(self, table: MergeTable, text: str) -> tuple[str | None, list]:
        if not text:
            return None, []
        word = self._word_under_cursor(table, text)
        if word is None:
            return None, []
        eow = table.end_of_word
        head = Text(f"trace of “{label(word)}”: ", style="bold", end="")
        base = table.initial_symbols(word.lower() if table.lowercase else word)
        body, _ = chips(base, eow, sep=" ")
        head.append_text(body)
        lines = [(head, [])]
        for step in table.trace(word):
            line = Text(f"{step.rank:>7,} ", style="dim", end="", no_wrap=True)
            line.append(label(step.pair[0], eow) + "+" + label(step.pair[1], eow), "#ffd75f")
            line.append(" → ")
            body, _ = chips(step.symbols, eow, sep=" ")
            line.append_text(body)
            lines.append((line, []))
        if len(lines) == 1:
            lines.append((Text("  (no merge applies)", style="dim", end=""), []))
        return word, lines

    # ------------------------------------------------------------------ events

    def on_input_changed(self, event: Input.Changed) -> None:
        if event.input.id in ("encode-input", "dropout-p"):
            event.stop()
            self._encode()

    def on_checkbox_changed(self, event: Checkbox.Changed) -> None:
        if event.checkbox.id == "dropout":
            event.stop()
            self._encode()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        """Enter: show the longest token of the word under the cursor in the token detail."""
        event.stop()
        session = self.session
        table = session.table() if session is not None else None
        if table is None or not self.text:
            return
        word = self._word_under_cursor(table, self.text)
        if word is None:
            return
        ids = [i for i in table.encode(word) if i != UNK_ID]
        if ids:
            self.post_message(TokenSelected(max(ids, key=lambda i: len(table.surface(i))), show=True))

    def on_mount(self) -> None:
        self.watch(self.query_one("#encode-input", Input), "selection", self._cursor_moved, init=False)

    def _cursor_moved(self, _selection) -> None:
        # the trace follows the word under the cursor
        session = self.session
        table = session.table() if session is not None else None
        if table is not None and self.text and self._word_under_cursor(table, self.text) != self.trace_word:
            self._encode()

    def on_virtual_list_chip_clicked(self, event: VirtualList.ChipClicked) -> None:
        event.stop()
        if event.payload is not None and event.payload != UNK_ID:
            self.post_message(TokenSelected(event.payload, show=True))

    def action_resample(self) -> None:
        self.seed += 1
        self._encode()
