"""Turning token surfaces into rich Text: chips, colours, visible whitespace.

Every token reaches the screen through these helpers, as :class:`rich.text.Text` built from
plain strings -- never as markup -- so tokens such as ``[/b]`` or ``[red]`` are shown as
themselves. Whitespace and undecodable bytes are made visible by
:func:`bpe_tui.core.units.visible`.
"""

from __future__ import annotations

from rich.cells import cell_len, set_cell_size
from rich.style import Style
from rich.text import Text
from dataclasses import dataclass
from typing import Any

from ..core.table import UNK_ID
from ..core.units import visible

#: Alternating chip backgrounds for words in the corpus pane.
CHIP_PAIR = (Style(color="#e8e8e8", bgcolor="#22446a"), Style(color="#e8e8e8", bgcolor="#5a3560"))
UNKNOWN = Style(color="#ffffff", bgcolor="#b00020", bold=True, underline=True)
SPECIAL = Style(color="#101010", bgcolor="#e0e0e0", bold=True)
DIM = Style(dim=True)
NEXT = Style(color="#101010", bgcolor="#ffd75f", bold=True)


@dataclass(frozen=True)
class ChipStyles:
    """The styles a widget draws its token chips and coloured notes with, read from the theme.

    A widget that draws chips lists :data:`CHIP_CLASSES` in its COMPONENT_CLASSES; their
    colours are set in ``chips.tcss`` from theme variables, so a theme change (ctrl+p ->
    theme) recolours the chips as it does Textual's own widgets (DataTable's cursor, say).
    The styles are plain rich Styles: read them on the UI thread and hand them to a worker.
    """

    pair: tuple[Style, Style]  # alternating chips
    next: Style  # the pair that merges next
    touched: Style  # the ● mark of words the last merge touched
    future: Style  # a merge that was undone (history)
    unknown: Style  # a character the table cannot encode
    cycle: tuple[Style, ...]  # the encode box's chips, one colour after another
    good: Style  # a gain: a pair count up, a merge that helped
    bad: Style  # a loss: a pair count down
    note: Style  # worth a look: finished, a key name, a tie
    name: Style  # a name: a table, a corpus, a pane

    @classmethod
    def of(cls, widget: Any) -> ChipStyles:
        def get(name: str) -> Style:
            return widget.get_component_rich_style(name, partial=True)

        return cls(
            (get("chip--a"), get("chip--b")),
            get("chip--next"),
            get("chip--touched"),
            get("chip--future"),
            get("chip--unknown"),
            tuple(get(f"chip--cycle-{n}") for n in range(1, CYCLE + 1)),
            get("chip--good"),
            get("chip--bad"),
            get("chip--note"),
            get("chip--name"),
        )


#: How many colours the encode box's chips cycle through (chip--cycle-1 .. chip--cycle-N).
CYCLE = 6
#: Component classes of a widget that draws chips with :meth:`ChipStyles.of`.
CHIP_CLASSES = {
    "chip--a", "chip--b", "chip--next", "chip--touched", "chip--future", "chip--unknown",
    "chip--good", "chip--bad", "chip--note", "chip--name",
} | {f"chip--cycle-{n}" for n in range(1, CYCLE + 1)}


def label(surface, end_of_word: str | None = None) -> str:
    """A token surface as one readable line of plain text."""
    if surface is None:
        return "?"
    text = visible(surface, end_of_word)
    return text if text else "∅"


def chip(surface, end_of_word: str | None = None, style: Style | None = None) -> Text:
    """One token as a chip (a coloured run of text)."""
    return Text(label(surface, end_of_word), style=style or CHIP_PAIR[0], end="")


def chips(
    surfaces,
    end_of_word: str | None = None,
    styles=CHIP_PAIR,
    ids=None,
    payloads=None,
    sep: str = "",
    unknown: Style = UNKNOWN,
) -> tuple[Text, list[tuple[int, int, object]]]:
    """Tokens side by side with alternating styles.

    Returns the Text and ``(start, end, payload)`` cell spans (payload: the token id when
    ``ids`` is given, else the index), so a click at column x can be mapped to a token.
    Ids equal to UNK_ID are drawn as unknown.
    """
    text = Text(end="", no_wrap=True)
    spans = []
    pos = 0
    for i, surface in enumerate(surfaces):
        token_id = ids[i] if ids is not None else None
        style = unknown if token_id == UNK_ID else styles[i % len(styles)]
        piece = label(surface, end_of_word)
        if sep and i:
            text.append(sep)
            pos += len(sep)
        text.append(piece, style)
        width = text.cell_len - pos
        spans.append((pos, pos + width, payloads[i] if payloads is not None else (token_id if ids is not None else i)))
        pos += width
    return text, spans


def plain(value: str, style: Style | str | None = None) -> Text:
    """Plain (never markup) text."""
    return Text(value, style=style or "", end="")


def fmt_int(n: int | None) -> str:
    return "—" if n is None else f"{n:,}"


def short_int(n: int, width: int) -> str:
    """``n`` with thousands separators, or shortened (``12k``, ``3.4M``) to fit ``width`` cells."""
    text = f"{n:,}"
    if len(text) <= width:
        return text
    scale, suffix = (1e3, "k") if abs(n) < 1e6 else (1e6, "M") if abs(n) < 1e9 else (1e9, "G")
    text = f"{n / scale:.1f}{suffix}"
    return text if len(text) <= width else f"{n / scale:.0f}{suffix}"


def fit(text: Text, width: int) -> Text:
    """``text`` cut to at most ``width`` terminal cells, ending in "…" when cut.

    Cuts by cell width, not characters, so double-width (CJK) characters and long tokens
    never spill into the next column.
    """
    if text.cell_len <= width:
        return text
    out = Text(end="", no_wrap=True)
    used = 0
    for span_text in text.divide(range(1, len(text.plain))):
        w = cell_len(span_text.plain)
        if used + w > width - 1:
            break
        out.append_text(span_text)
        used += w
    style = text.spans[-1].style if text.spans else text.style
    out.append("…", style)
    if out.cell_len < width:  # a double-width character did not fit: pad
        out.append(set_cell_size("", width - out.cell_len))
    return out
