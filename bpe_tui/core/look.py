"""How a token looks on screen: the one rule every pane, view, chart and picture draws by.

A token is a piece of text, and often an odd one: a Devanagari vowel sign with no consonant,
a zero-width joiner, half of an emoji, the first two bytes of a Chinese character. Drawn as
they are, such tokens lie about their size: a lone combining mark sinks into the cell before
it (the token seems to take no room, and the columns after it slide), a joiner glues the
next chip onto this one, and one terminal counts a character one cell wide where another
counts it two. This module says what is drawn instead, so that **the cells a token's text
claims are the cells the terminal gives it**:

* whitespace and control characters are made visible as :func:`~bpe_tui.core.engine.units.visible`
  does (space ``·``, newline ``⏎``, ``\\x1b``), and bytes that are not a whole character
  on their own are ``<0xNN>``;
* a combining mark with no base of its own in the token (a vowel sign, a virama, a Thai tone
  mark, an Arabic haraka, a conjoining Hangul vowel) is drawn on a dotted circle, ``◌ा``, as
  the Unicode charts draw it;
* a character that is invisible by design (a joiner, a variation selector, a bidi control, a
  zero-width space) is drawn by its short name, ``<ZWJ>``, ``<VS16>``, ``<LRM>``, unless it
  is doing its job inside the token (a joiner between two emoji, a variation selector on its
  base, a non-joiner between two letters);
* a character that terminals give different widths (an emoji skin-tone modifier, the signs
  Unicode 16 made wide) is drawn by its code point, ``<U+1F3FD>``; a text-style symbol asked
  to look like an emoji (``❤`` with VS16) is drawn in its one-cell text style;
* a token with right-to-left letters (Arabic, Hebrew) ends in a left-to-right mark, so a
  terminal that orders text by direction keeps the columns after it in place.

Everything else is drawn as it is: letters with their marks, wide CJK characters and emoji
(two cells). What is drawn is plain text; the explorer renders it with ``rich.text.Text``,
never as markup. The exact escapes stay what :func:`~bpe_tui.core.engine.units.visible`
returns (``--json``, the library).

A run of tokens (a word of the corpus, the encode box's text) can cut a character: a
byte-level table starts with one token per byte, so every Hindi letter is three tokens.
:func:`pieces` groups such tokens, so the character is drawn once, whole, and the screen
marks that several tokens make it (rather than ``<0xE0><0xA4><0xB9>``).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

import regex

from .engine.units import utf8_runs
from .wording import one_line

#: The base a mark with no base of its own is drawn on (as in the Unicode code charts).
DOTTED_CIRCLE = "\u25cc"
#: Ends a token with right-to-left letters: what follows it stays left to right.
LRM = "\u200e"

ZWJ = "\u200d"
ZWNJ = "\u200c"
VS16 = "\ufe0f"

#: Whitespace as the explorer has always shown it.
_WHITESPACE = {" ": "·", "\n": "⏎", "\t": "→", "\r": "␍"}

#: Invisible characters people know by a short name (Unicode's own abbreviations).
_NAMES = {
    0x00AD: "SHY", 0x034F: "CGJ", 0x061C: "ALM", 0x115F: "HCF", 0x1160: "HJF", 0x180E: "MVS",
    0x200B: "ZWSP", 0x200C: "ZWNJ", 0x200D: "ZWJ", 0x200E: "LRM", 0x200F: "RLM",
    0x2028: "LS", 0x2029: "PS", 0x202A: "LRE", 0x202B: "RLE", 0x202C: "PDF", 0x202D: "LRO",
    0x202E: "RLO", 0x2060: "WJ", 0x2066: "LRI", 0x2067: "RLI", 0x2068: "FSI", 0x2069: "PDI",
    0x3164: "HF", 0xFEFF: "ZWNBSP", 0xFFA0: "HWHF",
}
_NAMES.update({0xFE00 + n: f"VS{n + 1}" for n in range(16)})
_NAMES.update({0xE0100 + n: f"VS{n + 17}" for n in range(240)})

#: Characters whose width terminals dispute: the emoji skin-tone modifiers (one emoji with
#: its base in some terminals, a square of colour two cells wide in others), and the signs
#: Unicode 16 made wide, which terminals on older tables (glibc's, tmux's) draw narrow.
_DISPUTED = (
    (0x1F3FB, 0x1F3FF),  # EMOJI MODIFIER FITZPATRICK TYPE-1-2 .. TYPE-6
    (0x2630, 0x2637),  # trigrams
    (0x268A, 0x268F),  # monograms and digrams
    (0x3248, 0x324F),  # circled numbers on black squares
    (0x1D300, 0x1D356),  # tetragrams
    (0x1D360, 0x1D376),  # counting rods
)

_PICTOGRAPH = regex.compile(r"\p{Extended_Pictographic}")
#: A grapheme cluster: a character as a reader sees it (a letter with its marks, an emoji).
GRAPHEME = regex.compile(r"\X")


def look(surface: bytes | str | None, end_of_word: str | None = None) -> str:
    """What is drawn for a token: its text made visible (see the module's rules), one line.

    ``end_of_word``: the marker of a chars-mode table (``</w>``), drawn as it is after the
    token's text. None (no token) is ``?``; the empty token ``∅``.
    """
    if surface is None:
        return "?"
    if isinstance(surface, bytes):
        parts = []
        for run in utf8_runs(surface):
            parts.append(_look_text(run) if isinstance(run, str) else "".join(f"<0x{b:02X}>" for b in run))
        drawn = "".join(parts)
    elif end_of_word and surface.endswith(end_of_word):
        drawn = _look_text(surface[: -len(end_of_word)]) + end_of_word
    else:
        drawn = _look_text(surface)
    return drawn or "∅"


def _look_text(text: str) -> str:
    """The drawn form of a token's decoded text."""
    out: list[str] = []
    base = ""  # the character the next mark attaches to ("": none, the mark gets ◌)
    rtl = False
    n = len(text)
    for i, ch in enumerate(text):
        code = ord(ch)
        shown = _WHITESPACE.get(ch)
        if shown is not None:
            out.append(shown)
            base = ""
            continue
        category = unicodedata.category(ch)
        if category == "Cc":
            out.append(one_line(ch))
            base = ""
            continue
        if ch == ZWJ:
            if base and _PICTOGRAPH.match(base) and i + 1 < n and _PICTOGRAPH.match(text[i + 1]):
                out.append(ch)  # inside an emoji sequence: 👨‍👩‍👧 is one emoji
                continue
        elif ch == ZWNJ:
            if base and i + 1 < n and unicodedata.category(text[i + 1])[0] in "LM":
                out.append(ch)  # between letters: keeps them apart, as the writer meant
                continue
        elif 0xFE00 <= code <= 0xFE0F or 0xE0100 <= code <= 0xE01EF:
            if base:
                if ch == VS16 and unicodedata.east_asian_width(base) not in "WF":
                    continue  # a text symbol as emoji: one cell or two, by terminal; drawn as text
                out.append(ch)
                continue
        if code in _NAMES or category in ("Cf", "Cn", "Cs", "Zl", "Zp") or _disputed(code):
            out.append(f"<{_NAMES[code]}>" if code in _NAMES else f"<U+{code:04X}>")
            base = ""
            continue
        if category[0] == "M" or 0x1160 <= code <= 0x11FF or 0xD7B0 <= code <= 0xD7FF:
            # a combining mark, or a Hangul vowel or final that joins the syllable before it
            if not base:
                out.append(DOTTED_CIRCLE)
                base = DOTTED_CIRCLE
            out.append(ch)
            continue
        if unicodedata.bidirectional(ch) in ("R", "AL"):
            rtl = True
        out.append(ch)
        base = ch
    if rtl:
        out.append(LRM)
    return "".join(out)


def one_cell_each(drawn: str) -> bool:
    """True when every character of ``drawn`` (a :func:`look`) takes one cell, as a chart
    library that puts one character in each cell of its canvas (plotext) assumes: no mark that
    sits on the cell before, no wide CJK character or emoji."""
    for ch in drawn:
        category = unicodedata.category(ch)
        if category in ("Mn", "Me", "Cf") or 0x1160 <= ord(ch) <= 0x11FF or unicodedata.east_asian_width(ch) in "WF":
            return False
    return True


def _disputed(code: int) -> bool:
    return any(lo <= code <= hi for lo, hi in _DISPUTED)


@dataclass(frozen=True)
class Piece:
    """Tokens drawn as one piece of a run: ``first`` up to (not including) ``end``, indices
    into the run. One token, or several that cut a character (or a letter from its marks)
    between them: their text is whole only together, so it is drawn once."""

    first: int
    end: int

    @property
    def cut(self) -> bool:
        """True when several tokens make this piece (a character cut between them)."""
        return self.end - self.first > 1


def pieces(surfaces: Sequence[bytes | str | None]) -> list[Piece]:
    """The run of tokens ``surfaces`` as pieces to draw: each token alone, except where a
    boundary between two tokens falls inside a character (bytes) or inside a letter with its
    marks (a grapheme cluster, ``कि`` = ``क`` + ``ि``): those tokens are one piece, drawn
    whole by :func:`look` of their joined surface.

    A run whose tokens are all whole characters gives one piece a token. The text of a run
    is read as UTF-8 where it is bytes; bytes that are no character even joined stay pieces
    of their own.
    """
    n = len(surfaces)
    if n < 2:
        return [Piece(i, i + 1) for i in range(n)]
    # where each token ends, in code units of the joined text (bytes or characters)
    kinds = {type(s) for s in surfaces if s is not None}
    if None in surfaces or len(kinds) > 1:  # (an unknown token, mixed units: nothing to join)
        return [Piece(i, i + 1) for i in range(n)]
    joined = b"".join(surfaces) if kinds == {bytes} else "".join(surfaces)  # type: ignore[arg-type]
    clean = _cluster_ends(joined)
    out: list[Piece] = []
    first = 0
    at = 0
    for i, surface in enumerate(surfaces):
        at += len(surface)  # type: ignore[arg-type]
        if at in clean or i == n - 1:
            out.append(Piece(first, i + 1))
            first = i + 1
    return out


def _cluster_ends(joined: bytes | str) -> set[int]:
    """The offsets (bytes of ``joined`` bytes, characters of a str) where a grapheme cluster
    ends: a token boundary there cuts nothing."""
    ends: set[int] = set()
    if isinstance(joined, str):
        for m in GRAPHEME.finditer(joined):
            ends.add(m.end())
        return ends
    at = 0
    for run in utf8_runs(joined):
        if isinstance(run, bytes):  # no character: each byte is a piece of its own
            for _ in run:
                at += 1
                ends.add(at)
            continue
        for m in GRAPHEME.finditer(run):
            at += len(m.group().encode("utf-8"))
            ends.add(at)
    return ends

