"""The comparison view: two merge tables on the same text, side by side.

It answers "why does table A split *bookshelf* differently from table B?": each side shows the
table's name and format, its token count and characters per token, and the text's tokens as
chips; tokens inside a span the two tables split differently are highlighted, and every such
span is listed below. The highlighted span's tokens are shown with the merge (rank) that made
each of them -- the lower rank was learned, and is applied, first.

All of it is computed by :func:`bpe_tui.core.analysis.compare.compare` on the UI thread as you type
(a one-line text encodes in well under a millisecond); loading the second table is the App's
job (a thread worker), so this screen receives two ready :class:`MergeTable` objects.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.style import Style
from rich.text import Text
from textual import events, on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Footer, Input, Static

from ...core.analysis.compare import Comparison, Difference, TokenSpan, compare
from ...core.tables.table import UNK_ID, MergeTable, merge_number
from ...core.wording import plural
from ..keys import bindings_for, untyped
from ..panes.status import KEEP, USEFUL, Phrases
from ..widgets.render import CHIP_CLASSES, ChipStyles, label, redraw_on_theme_change
from ..widgets.vlist import VirtualList

#: Text the view opens with when the encode box is empty.
DEFAULT_TEXT = "the bookshelf by the window holds unbelievably old books"
#: The differing span under the list's cursor.
SELECTED = Style(underline=True, bold=True)
#: The letters A and B where they name a table.
LETTER = Style(bold=True)


@dataclass(frozen=True)
class Side:
    """One table of the comparison and how to name it."""

    table: MergeTable
    name: str  # file name, or the corpus being trained
    origin: str  # "format gpt2", "training, step 12", ...

    def rules(self) -> str:
        return " · ".join(self.rule_parts())

    def rule_parts(self) -> list[str]:
        """Its size and rules, phrase by phrase: "50,257 tokens", "50,000 merges", "bytes", ..."""
        t = self.table
        parts = [plural(len(t), "token"), plural(t.num_merges, "merge"), t.units, t.pretokenizer if len(t.pretokenizer) < 24 else "custom regex"]
        if t.end_of_word:
            parts.append(f"eow {t.end_of_word}")
        if t.lowercase:
            parts.append("lowercase")
        return parts


def chip_style(index: int, token: TokenSpan, diff: int | None, selected: int | None, look: ChipStyles) -> Style:
    """A token's chip: the usual alternating colours where both tables agree, bright ones
    (``look.different``) inside a span they split differently, underlined when selected."""
    if token.special:
        style = look.special
    elif token.id == UNK_ID:
        style = look.unknown
    elif diff is not None:
        style = look.different[index % 2]
    else:
        style = look.pair[index % 2]
    if diff is not None and diff == selected:
        style = style + SELECTED
    return style


class ChipView(VirtualList):
    """A table's tokens of the text as chips, wrapped at token boundaries.

    Row spans carry the index of the differing span a chip belongs to (or None), so a click
    on a highlighted chip selects that span in the list below.
    """

    def __init__(self, **kwargs) -> None:
        super().__init__(show_cursor=False, **kwargs)
        self.lines: list[tuple[Text, list]] = []
        self.tokens: list[TokenSpan] = []
        self.diff_of: dict[int, int] = {}
        self.selected: int | None = None

    def render_row(self, index: int):
        return self.lines[index] if index < len(self.lines) else Text("")

    def on_mount(self) -> None:
        # (VirtualList's own on_mount runs too)
        redraw_on_theme_change(self, self._layout)

    def show(self, tokens: list[TokenSpan], diff_of: dict[int, int], selected: int | None) -> None:
        self.tokens, self.diff_of, self.selected = tokens, diff_of, selected
        self._layout()

    def _layout(self) -> None:
        width = max(10, (self.size.width or 50) - 1)
        look = self.chip_styles
        lines: list[tuple[Text, list]] = []
        line = Text(no_wrap=True, end="")
        spans: list = []
        for i, token in enumerate(self.tokens):
            diff = self.diff_of.get(id(token))
            name = token.display or "∅"
            cells = Text(name).cell_len
            if line.cell_len and line.cell_len + cells > width:
                lines.append((line, spans))
                line, spans = Text(no_wrap=True, end=""), []
            start = line.cell_len
            line.append(name, chip_style(i, token, diff, self.selected, look))
            spans.append((start, line.cell_len, diff))
        if spans:
            lines.append((line, spans))
        self.lines = lines
        self.set_count(len(lines))

    def on_resize(self, event: events.Resize) -> None:
        # (VirtualList's own on_resize runs too: Textual calls the handler of every class)
        if self.tokens:
            self._layout()


class CompareSide(Vertical):
    """One side: name and format, rules, the summary numbers, the chips."""

    #: The letter and the table's name take their colours from the theme.
    COMPONENT_CLASSES = CHIP_CLASSES

    def __init__(self, letter: str, side: Side, **kwargs) -> None:
        super().__init__(**kwargs)
        self.letter = letter
        self.side = side
        self.summary = ""
        self.title_text = ""

    def compose(self) -> ComposeResult:
        yield Static("", classes="side-name", markup=False)
        yield Phrases(classes="side-rules", separator=" · ")
        yield Static("", classes="side-summary", markup=False)
        yield ChipView(classes="side-chips")

    def on_mount(self) -> None:
        self.set_side(self.side)
        redraw_on_theme_change(self, lambda: self.set_side(self.side))

    def set_side(self, side: Side) -> None:
        """Name the table this side shows (the chips follow with the next :meth:`show`)."""
        self.side = side
        look = ChipStyles.of(self)
        head = Text(end="", no_wrap=True, overflow="ellipsis")
        head.append(f"{self.letter} ", look.note + LETTER)
        head.append(side.name, look.name)
        head.append(f"  {side.origin}")
        self.title_text = head.plain
        self.query_one(".side-name", Static).update(head)
        self.query_one(".side-rules", Phrases).show_phrases([(p, "dim", KEEP if i < 2 else USEFUL) for i, p in enumerate(side.rule_parts())])

    def show(self, result: Comparison, tokens, diff_of: dict[int, int], selected: int | None) -> None:
        side = result.a if self.letter == "A" else result.b
        n = side.count
        parts = [plural(n, "token"), f"{side.chars_per_token:.2f} chars/token"]
        if side.unknown:
            parts.append(f"{side.unknown:,} unknown")
        self.summary = " · ".join(parts)
        self.query_one(".side-summary", Static).update(Text(self.summary, style="bold", end=""))
        self.query_one(ChipView).show(tokens, diff_of, selected)


class DiffList(VirtualList):
    """One row per differing span: where, the text, A's split, B's split."""

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.differences: list[Difference] = []

    def render_row(self, index: int):
        d = self.differences[index]
        look = self.chip_styles
        text = Text(no_wrap=True, end="")
        text.append(f"{d.start:>4}–{d.end:<4} ", "dim")
        text.append(label(d.text), "bold")
        for letter, tokens in (("A", d.a), ("B", d.b)):
            text.append(f"   {letter} ", look.note + LETTER)
            for i, token in enumerate(tokens):
                if i:
                    text.append("|", "dim")
                text.append(token.display or "∅", look.different[i % 2])
            text.append(f" ({len(tokens)})", "dim")
        return text

    def set_differences(self, differences: list[Difference]) -> None:
        self.differences = differences
        self.set_count(len(differences))


class CompareScreen(Screen):
    """Two tables on one editable text; escape goes back to the explorer."""

    CSS_PATH = "compare.tcss"
    KIND = "compare"
    BINDINGS = bindings_for(KIND)
    #: The line over the differences and the selected span's tokens take their colours from
    #: the theme.
    COMPONENT_CLASSES = CHIP_CLASSES

    def __init__(self, a: Side, b: Side, text: str = "") -> None:
        super().__init__()
        self.a = a
        self.b = b
        self.initial = text or DEFAULT_TEXT
        self.comparison: Comparison | None = None
        self.why_lines: list[str] = []

    @property
    def active_bindings(self):
        """The keys the footer shows: not those the text box types (f1 Help, not ? Help)."""
        return untyped(super().active_bindings, self.focused)

    def compose(self) -> ComposeResult:
        yield Static(Text("Compare two tables on the same text", style="bold", end=""), id="compare-title", markup=False)
        yield Input(self.initial, id="compare-input", placeholder="type text to split with both tables…", compact=True)
        with Horizontal(id="compare-sides"):
            yield CompareSide("A", self.a, id="side-a")
            yield CompareSide("B", self.b, id="side-b")
        with Vertical(id="compare-diffs"):
            yield Static("", id="diff-head", markup=False)
            yield DiffList(id="diff-list")
            yield Static("", id="diff-why", markup=False)
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#compare-input", Input).focus()
        self.refresh_comparison()
        redraw_on_theme_change(self, self.refresh_comparison)

    # ------------------------------------------------------------------ the comparison

    @property
    def text(self) -> str:
        return self.query_one("#compare-input", Input).value

    @property
    def diff_list(self) -> DiffList:
        return self.query_one(DiffList)

    @property
    def diff_lines(self) -> list[str]:
        """Plain text of every row of the differences list (for tests)."""
        view = self.diff_list
        return [view.row_text(i) for i in range(view.count)]

    def side(self, letter: str) -> CompareSide:
        return self.query_one(f"#side-{letter.lower()}", CompareSide)

    def refresh_comparison(self) -> None:
        result = compare(self.a.table, self.b.table, self.text)
        self.comparison = result
        n = len(result.differences)
        head = self.query_one("#diff-head", Static)
        if not result.text:
            head.update(Text("type some text above", style="dim", end=""))
        elif not n:
            same = ChipStyles.of(self).good + Style(bold=True)
            head.update(Text("both tables split this text at the same places", style=same, end=""))
        else:
            head.update(Text(f"{plural(n, 'span')} split differently (↑↓ or click a highlighted chip)", style="bold", end=""))
        view = self.diff_list
        cursor = min(view.cursor, max(0, n - 1))
        view.cursor = cursor
        view.set_differences(result.differences)
        self._show(cursor if n else None)

    def _show(self, selected: int | None) -> None:
        result = self.comparison
        if result is None:
            return
        diff_a: dict[int, int] = {}
        diff_b: dict[int, int] = {}
        for k, d in enumerate(result.differences):
            diff_a.update((id(t), k) for t in d.a)
            diff_b.update((id(t), k) for t in d.b)
        with self.app.batch_update():
            self.side("A").show(result, result.a.tokens, diff_a, selected)
            self.side("B").show(result, result.b.tokens, diff_b, selected)
            self._why(selected)

    def _why(self, selected: int | None) -> None:
        """The selected span's tokens in each table with the merge that made each one."""
        why = self.query_one("#diff-why", Static)
        result = self.comparison
        if result is None or selected is None or selected >= len(result.differences):
            self.why_lines = []
            why.update("")
            return
        d = result.differences[selected]
        look = ChipStyles.of(self)
        text = Text(end="")
        lines = []
        for letter, side, tokens in (("A", self.a, d.a), ("B", self.b, d.b)):
            line = Text(no_wrap=True, overflow="ellipsis", end="")
            line.append(f"{letter} ", look.note + LETTER)
            for i, token in enumerate(tokens):
                if i:
                    line.append("  ")
                line.append(token.display or "∅", look.different[i % 2])
                line.append(f" ({self._made_by(side.table, token)})", "dim")
            lines.append(line)
        for i, line in enumerate(lines):
            if i:
                text.append("\n")
            text.append_text(line)
        self.why_lines = [line.plain for line in lines]
        why.update(text)

    @staticmethod
    def _made_by(table: MergeTable, token: TokenSpan) -> str:
        if token.id == UNK_ID:
            return "unknown"
        if token.special:
            return "special"
        rank = table.rank_of(token.id)
        return "base" if rank is None else f"merge {merge_number(rank):,}"

    # ------------------------------------------------------------------ events

    @on(Input.Changed, "#compare-input")
    def _text_changed(self, event: Input.Changed) -> None:
        event.stop()
        self.refresh_comparison()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        if self.diff_list.count:
            self.diff_list.focus()

    def on_virtual_list_highlighted(self, event: VirtualList.Highlighted) -> None:
        if isinstance(event.vlist, DiffList):
            event.stop()
            self._show(event.index)

    def on_virtual_list_chip_clicked(self, event: VirtualList.ChipClicked) -> None:
        event.stop()
        if isinstance(event.vlist, ChipView) and event.payload is not None:
            self.diff_list.move_cursor(event.payload)

    def action_swap(self) -> None:
        self.set_sides(self.b, self.a)

    @dataclass
    class OtherTableWanted(Message):
        """ctrl+o: the person wants to compare with another table B."""

    def action_other(self) -> None:
        """Ask for another table B (the session's screen asks which, loads it in a worker and
        calls :meth:`set_sides`)."""
        self.post_message(self.OtherTableWanted())

    def set_sides(self, a: Side, b: Side) -> None:
        self.a, self.b = a, b
        self.side("A").set_side(a)
        self.side("B").set_side(b)
        self.refresh_comparison()

    def action_close(self) -> None:
        self.dismiss(None)
