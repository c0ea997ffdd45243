"""Turning token surfaces into rich Text: chips, colours, visible whitespace.

Every token reaches the screen through these helpers, as :class:`rich.text.Text` built from
plain strings -- never as markup -- so tokens such as ``[/b]`` or ``[red]`` are shown as
themselves. What a token's text looks like (whitespace and undecodable bytes made visible, a
lone combining mark on ``◌``, a joiner by its name) is :func:`bpe_tui.core.look.look`'s one
rule; a run of tokens that cuts a character draws it once (:func:`bpe_tui.core.look.pieces`),
underlined, unless the person asked for the bytes (``ChipStyles.whole``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from rich.cells import cell_len, set_cell_size
from rich.style import Style
from rich.text import Text

from ...core.engine.registry import token_mark as mark_of
from ...core.look import GRAPHEME, Piece, look, pieces


@dataclass(frozen=True)
class ChipStyles:
    """The styles a widget draws its token chips and coloured notes with, read from the theme.

    A widget that draws chips lists :data:`CHIP_CLASSES` in its COMPONENT_CLASSES; their
    colours are set in ``chips.tcss`` from theme variables, so a theme change (ctrl+p ->
    theme) recolours the chips as it does Textual's own widgets (DataTable's cursor, say).
    The styles are plain rich Styles: read them on the UI thread and hand them to a worker.
    There are no colours in the Python code: every coloured thing on screen is drawn with one
    of these roles.

    A filled chip's text colour is ``auto`` in chips.tcss: Textual picks a readable colour for
    the chip's own background (dark on a light chip, light on a dark one), in every theme.
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
    special: Style  # a special token (<|endoftext|>), never merged
    different: tuple[Style, Style]  # alternating chips of a span two tables split differently
    marked: Style  # the mark a variant draws beside some tokens (see token_mark)
    #: Draw a character that tokens cut between them once, whole (False: each token's own
    #: bytes, ``<0xE0><0xA4>``): the App's ``show_bytes``, which a key turns over.
    whole: bool = True

    @classmethod
    def of(cls, widget: Any) -> ChipStyles:
        """The roles' styles as ``widget`` draws them, worked out once per widget and theme:
        the chips' colours come from the theme alone (chips.tcss), and Textual forgets its own
        cache of component styles at every repaint, which made this cost a few milliseconds
        per call, several calls a keystroke. A theme change forgets it (redraw_on_theme_change)."""
        app = getattr(widget, "app", None)
        key = (getattr(app, "theme", None), not getattr(app, "show_bytes", False))
        cached = getattr(widget, "_chip_styles", None)
        if cached is not None and cached[0] == key:
            return cached[1]
        styles = cls._worked_out(widget, whole=key[1])
        widget._chip_styles = (key, styles)
        return styles

    @classmethod
    def _worked_out(cls, widget: Any, whole: bool = True) -> ChipStyles:
        def get(name: str) -> Style:
            return component_style(widget, name)

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
            get("chip--special"),
            (get("chip--diff-a"), get("chip--diff-b")),
            get("chip--mark"),
            whole,
        )


def component_style(widget: Any, name: str) -> Style:
    """The style a widget's component class ``name`` has in the theme, as a rich Style of its
    own properties (laid over the text it styles); on a component with its own background (a
    filled chip), with the text colour of the full style, where Textual works ``color: auto``
    out: a colour that reads well on that background. (Both styles are cached by Textual: this
    runs for every row drawn.)"""
    style: Style = widget.get_component_rich_style(name, partial=True)
    if style.bgcolor is not None:
        style += Style.from_color(widget.get_component_rich_style(name).color)
    return style


def redraw_on_theme_change(widget: Any, redraw: Callable[[], object]) -> None:
    """Call ``redraw`` after every theme change (ctrl+p -> theme), once the new theme's styles
    are in (call it from ``on_mount``), and after the App's ``look_changed_signal`` (the key
    that shows cut characters as their bytes, or whole).

    Text built with :meth:`ChipStyles.of` keeps the colours it was built with; a widget that
    keeps such Text (a Static's content, a list's cached rows) builds it again in ``redraw``.
    """

    def changed(theme: object) -> None:
        widget._rich_style_cache.clear()  # component styles read under the old theme
        widget._chip_styles = None

        def again() -> None:
            widget._chip_styles = None  # (in case something asked before the new styles were in)
            redraw()

        widget.call_after_refresh(again)

    widget.app.theme_changed_signal.subscribe(widget, changed)
    look_changed = getattr(widget.app, "look_changed_signal", None)
    if look_changed is not None:
        look_changed.subscribe(widget, changed)


#: How many colours the encode box's chips cycle through (chip--cycle-1 .. chip--cycle-N).
CYCLE = 6
#: Component classes of a widget that draws chips with :meth:`ChipStyles.of`.
CHIP_CLASSES = {
    "chip--a", "chip--b", "chip--next", "chip--touched", "chip--future", "chip--unknown",
    "chip--good", "chip--bad", "chip--note", "chip--name", "chip--special", "chip--diff-a",
    "chip--diff-b", "chip--mark",
} | {f"chip--cycle-{n}" for n in range(1, CYCLE + 1)}


#: A variant's events after a merge, readable without colour: a token removed right after a
#: merge (split back into its parts), and a removed token that a merge made again.
REMOVED_MARK = "-"
RESTORED_MARK = "+"


def token_mark(surface, look: ChipStyles) -> Text:
    """The mark a variant draws beside ``surface`` (``⁀`` beside a token that spans a space:
    :func:`~bpe_tui.core.engine.registry.token_mark`), in the ``marked`` role, else nothing."""
    mark = mark_of(surface)
    return Text(mark, style=look.marked, end="") if mark else Text(end="")


def label(surface, end_of_word: str | None = None) -> str:
    """A token surface as one readable line of plain text (:func:`~bpe_tui.core.look.look`)."""
    return look(surface, end_of_word)


def chip(surface, end_of_word: str | None, style: Style) -> Text:
    """One token as a chip (a coloured run of text) in ``style`` (a :class:`ChipStyles` role)."""
    return Text(label(surface, end_of_word), style=style, end="")


#: How a piece of several tokens (a character cut between them) is marked over its chip colour.
CUT = Style(underline=True)


def chip_pieces(surfaces, whole: bool = True) -> list[Piece]:
    """The chips a run of tokens is drawn as: :func:`~bpe_tui.core.look.pieces` (a character
    cut between tokens is one chip), or one chip a token when ``whole`` is False."""
    return pieces(surfaces) if whole else [Piece(i, i + 1) for i in range(len(surfaces))]


def piece_label(surfaces, piece: Piece, end_of_word: str | None = None) -> str:
    """What is drawn for ``piece`` of a run of tokens: its token, or the character (or
    letter with its marks) its tokens cut between them, whole."""
    if not piece.cut:
        return label(surfaces[piece.first], end_of_word)
    parts = surfaces[piece.first : piece.end]
    return label(b"".join(parts) if isinstance(parts[0], bytes) else "".join(parts), end_of_word)


def chips(
    surfaces,
    end_of_word: str | None,
    styles: tuple[Style, ...],
    payloads=None,
    sep: str = "",
    whole: bool = True,
) -> tuple[Text, list[tuple[int, int, object]]]:
    """Tokens side by side, their chips taking ``styles`` in turn (``ChipStyles.pair``, say).

    ``whole`` (``ChipStyles.whole``): tokens that cut a character between them are one chip,
    the character drawn once and underlined (:data:`CUT`); else each token is a chip of its
    own (a piece of a character as its bytes, ``<0xE0><0xA4>``).
    Returns the Text and ``(start, end, payload)`` cell spans (payload: ``payloads[i]`` when
    given, else the index; a cut character's chip: its first token's), so a click at column x
    can be mapped to a token.
    """
    surfaces = list(surfaces)
    text = Text(end="", no_wrap=True)
    spans = []
    pos = 0
    for k, piece in enumerate(chip_pieces(surfaces, whole)):
        if sep and k:
            text.append(sep)
            pos += len(sep)
        style = styles[k % len(styles)]
        text.append(piece_label(surfaces, piece, end_of_word), style + CUT if piece.cut else style)
        width = text.cell_len - pos
        spans.append((pos, pos + width, payloads[piece.first] if payloads is not None else piece.first))
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


def grapheme_ends(plain: str) -> list[int]:
    """Where each character as a reader sees it (a grapheme cluster) ends in ``plain``."""
    return [m.end() for m in GRAPHEME.finditer(plain)]


def fit(text: Text, width: int) -> Text:
    """``text`` cut to at most ``width`` terminal cells, ending in "…" when cut.

    Cuts by cell width, not characters, so double-width (CJK) characters and long tokens
    never spill into the next column; and between whole characters as a reader sees them
    (a letter with its marks, an emoji with its joiners), never inside one.
    """
    if text.cell_len <= width:
        return text
    out = Text(end="", no_wrap=True)
    used = 0
    for span_text in text.divide(grapheme_ends(text.plain)[:-1]):
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
