"""Compare two merge tables on the same text: how many tokens each makes, and where they differ.

The question this answers is "why does table A split *bookshelf* differently from table B?"::

    from bpe_tui import load
    from bpe_tui.core.analysis.compare import compare

    result = compare(load("a.json"), load("b.json"), "the bookshelf")
    result.a.count, result.b.count             # token counts
    result.a.chars_per_token                   # characters per token
    for d in result.differences:               # spans where the two split differently
        print(d.text, [t.display for t in d.a], [t.display for t in d.b])

Every token carries the character offsets ``[start, end)`` of the text it covers, so the two
tokenizations can be aligned even when one table is byte-level and the other chars-mode. A
token that holds only part of a character's UTF-8 bytes covers that whole character (several
byte tokens of one emoji all span the emoji). A *difference* is a stretch of text between two
offsets where both tables have a token boundary, with no such shared boundary inside, and
where the tokens differ (in their offsets or in how many bytes they hold). Text a
pre-tokenizer drops (whitespace, for the whitespace pre-tokenizer) belongs to no token.

The explorer's comparison view and ``bpe-tui compare`` are built on :func:`compare`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..engine.units import visible
from ..look import look
from ..tables.table import UNK_ID, MergeTable
from ..wording import plural


@dataclass(frozen=True)
class TokenSpan:
    """One token of a text: its id, where it sits in the text, and how to show it."""

    id: int  # UNK_ID for a character the table does not know
    start: int  # character offset in the text
    end: int  # character offset just past the token
    nbytes: int  # UTF-8 bytes of text the token holds (0 for a bare end-of-word marker)
    display: str  # the token as drawn (bpe_tui.core.look: whitespace visible, a lone mark on ◌)
    special: bool = False

    @property
    def key(self) -> tuple[int, int, int]:
        """What makes two tokens of different tables 'the same split'."""
        return (self.start, self.end, self.nbytes)


@dataclass(frozen=True)
class Tokenization:
    """One table's tokens of the text, with summary numbers."""

    tokens: list[TokenSpan]
    chars: int  # characters in the text

    @property
    def count(self) -> int:
        return len(self.tokens)

    @property
    def chars_per_token(self) -> float:
        return self.chars / self.count if self.tokens else 0.0

    @property
    def unknown(self) -> int:
        """Tokens that are unknown characters (chars-mode tables only)."""
        return sum(1 for t in self.tokens if t.id == UNK_ID)


@dataclass(frozen=True)
class Difference:
    """A stretch of text ``[start, end)`` that the two tables split differently."""

    start: int
    end: int
    text: str
    a: list[TokenSpan]
    b: list[TokenSpan]


@dataclass(frozen=True)
class Comparison:
    """The result of :func:`compare`."""

    text: str
    a: Tokenization
    b: Tokenization
    differences: list[Difference] = field(default_factory=list)

    @property
    def same(self) -> bool:
        """True when both tables split the whole text at the same places."""
        return not self.differences


def token_spans(table: MergeTable, text: str) -> list[TokenSpan]:
    """The tokens ``table`` makes of ``text``, each with its character offsets."""
    pieces = table.pieces(text)
    eow = table.end_of_word
    eow_key = (eow.encode("utf-8") if table.units == "bytes" else eow) if eow else None
    haystack = text.lower() if table.lowercase else text
    out: list[TokenSpan] = []
    k = 0
    pos = 0
    for is_special, piece in table.pretokenize(text):
        found = haystack.find(piece, pos)
        start = found if found >= 0 else pos
        if is_special:
            token_id, _ = pieces[k]
            k += 1
            out.append(TokenSpan(token_id, start, start + len(piece), len(piece.encode("utf-8")), piece, True))
            pos = start + len(piece)
            continue
        raw = piece.encode("utf-8")
        # char_at[b] = index (within the piece) of the character holding byte b
        char_at = []
        for ci, ch in enumerate(piece):
            char_at.extend([ci] * len(ch.encode("utf-8")))
        need = len(raw)
        done = 0
        while k < len(pieces):
            token_id, surface = pieces[k]
            bare_eow = eow_key is not None and token_id != UNK_ID and surface == eow_key
            if done >= need and not bare_eow:
                break
            k += 1
            body = surface
            # body and eow_key are the same kind (a table holds bytes or str, never both)
            if eow_key is not None and token_id != UNK_ID and body.endswith(eow_key):  # type: ignore[arg-type]
                body = body[: -len(eow_key)]
            n = len(body) if isinstance(body, bytes) else len(body.encode("utf-8"))
            if n == 0:
                t_start = t_end = start + (char_at[done - 1] + 1 if done else 0)
            else:
                t_start = start + char_at[min(done, need - 1)]
                t_end = start + char_at[min(done + n, need) - 1] + 1
            shown = "<unk>" + look(surface) if token_id == UNK_ID else look(table.surface(token_id), table.end_of_word)
            out.append(TokenSpan(token_id, t_start, t_end, n, shown))
            done += n
        pos = start + len(piece)
    return out


def compare(table_a: MergeTable, table_b: MergeTable, text: str) -> Comparison:
    """Tokenize ``text`` with both tables and find the spans where they split differently."""
    a = token_spans(table_a, text)
    b = token_spans(table_b, text)
    return Comparison(text, Tokenization(a, len(text)), Tokenization(b, len(text)), _differences(text, a, b))


def _differences(text: str, a: list[TokenSpan], b: list[TokenSpan]) -> list[Difference]:
    out = []
    i = j = 0
    pa = pb = 0
    seg_a: list[TokenSpan] = []
    seg_b: list[TokenSpan] = []

    def pending(tokens: list[TokenSpan], k: int, p: int) -> bool:
        """Does the next token still belong before offset p (overlapping, or empty at p)?"""
        return k < len(tokens) and (tokens[k].start < p or tokens[k].end <= p)

    def closable() -> bool:
        return pa == pb and not pending(a, i, pa) and not pending(b, j, pb)

    while i < len(a) or j < len(b):
        if j >= len(b):
            take_a = True
        elif i >= len(a):
            take_a = False
        elif pa != pb:
            take_a = pa < pb
        else:
            take_a = pending(a, i, pa) or not pending(b, j, pb)
        if take_a:
            seg_a.append(a[i])
            pa = max(pa, a[i].end)
            i += 1
        else:
            seg_b.append(b[j])
            pb = max(pb, b[j].end)
            j += 1
        if closable() or (i == len(a) and j == len(b)):
            if [t.key for t in seg_a] != [t.key for t in seg_b]:
                spans = seg_a + seg_b
                start = min(t.start for t in spans)
                end = max(t.end for t in spans)
                out.append(Difference(start, end, text[start:end], seg_a, seg_b))
            seg_a, seg_b = [], []
    return out


def format_comparison(result: Comparison, name_a: str = "A", name_b: str = "B", limit: int | None = 20) -> str:
    """A plain-text report: counts, characters per token, and each differing span."""
    lines = []
    width = max(len(name_a), len(name_b))
    for name, side in ((name_a, result.a), (name_b, result.b)):
        unk = f", {side.unknown} unknown" if side.unknown else ""
        lines.append(f"{name:<{width}}  {side.count:,} tokens, {side.chars_per_token:.2f} characters per token{unk}")
    n = len(result.differences)
    if not n:
        lines.append("both tables split the text at the same places")
        return "\n".join(lines)
    lines.append(f"{plural(n, 'span')} split differently:")
    shown = result.differences if limit is None else result.differences[:limit]
    for d in shown:
        lines.append(f"  [{d.start}:{d.end}] {visible(d.text)!r}")
        lines.append(f"    {name_a:<{width}}  " + " | ".join(t.display for t in d.a))
        lines.append(f"    {name_b:<{width}}  " + " | ".join(t.display for t in d.b))
    if limit is not None and n > limit:
        lines.append(f"  ... and {n - limit:,} more")
    return "\n".join(lines)
