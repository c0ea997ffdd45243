"""Where each token comes from in the text: character offsets, as Hugging Face gives them.

:meth:`MergeTable.encode_with_offsets` returns the ids :meth:`~MergeTable.encode` gives and,
per token, the ``(start, end)`` characters of the text *as given* that it stands for (Hugging
Face's ``Encoding.offsets``; tiktoken's ``decode_with_offsets`` gives each token's start).
This module walks the text the way the encoder does, keeping track of positions:

1. lone surrogates become U+FFFD, and a whole-text normalizer (sentencepiece's) rewrites the
   text; special tokens are cut out (each spans its match: with Hugging Face's
   ``lstrip``/``rstrip``, the whitespace it takes in too, as tokenizers gives it);
2. each segment between them gets the prefix space where the table's scheme puts one, is
   normalized and pre-tokenized;
3. each pre-token is merged with a log (:mod:`~bpe_tui.core.engine.merging`): every final token
   is a run of the pre-token's base symbols, and each base symbol knows its characters.

The semantics, checked against ``tokenizers`` in tests/interop/test_offsets.py:

* **bytes inside a character**: a token holding some of a character's UTF-8 bytes spans the
  whole character (two tokens of one emoji both span it); so does each ``<0xNN>``
  byte-fallback token of a character;
* **the prefix space** (Metaspace's ``▁``, ByteLevel's ``add_prefix_space``) spans the first
  character of its segment, so ``"▁Hello"`` spans ``"Hello"``;
* **the end-of-word marker** spans nothing: a token that is only ``</w>`` is the empty span at
  the word's end;
* **normalized text** (lowercasing, NFC/NFKC, Replace, sentencepiece's): a character the
  normalizer made spans the characters it was made from, found by rewriting the text one
  character at a time or, where that gives another text, by ``difflib``'s alignment of the
  two (an inserted character spans its neighbour, as tokenizers' ``prepend`` does). Here
  tokenizers differs on purpose: it gives a composed character (NFC's ``é`` from ``e`` and
  U+0301) the first original character only.

This module is part of MergeTable's implementation, kept apart for length: it reads the
table's encoder (the names in :class:`Encoder`) and imports nothing of the table's module.
"""

from __future__ import annotations

import difflib
import random
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any, Protocol

from ..errors import BPEError
from ..text.pretokenize import PreTokenizer, valid_text
from ..types import UNK_ID

Span = tuple[int, int]


class Encoder(Protocol):
    """What this module reads of a table's encoder (``encoder.Encoder``)."""

    units: str
    special_tokens: dict[str, int]
    continuing_prefix: str | None
    pre: PreTokenizer
    base: dict[Any, int]
    continuing_base: dict[str, int]
    byte_tokens: dict[int, int]
    byte_token_values: dict[int, int]
    eow_id: int | None
    fuse_unk: bool
    by_token_rank: bool
    word_start: str | None
    removals: Any
    boundless: Any
    vocab: dict[int, Any]

    def whole_token(self, word: str) -> int | None: ...

    def symbols(self, word: str) -> list[Any]: ...

    def merged(self, symbols: list[Any], dropout: float = 0.0, rng: random.Random | None = None, log: list[Any] | None = None) -> list[int]: ...


class Alignment:
    """Where each character of a rewritten text came from in the text before it."""

    def __init__(self, source: str, target: str, per_char: Callable[[str], str] | None = None):
        self.size = len(source)
        self.spans: list[Span] | None = None  # None: the same text
        if source == target:
            return
        if per_char is not None:
            pieces = [per_char(c) for c in source]
            if "".join(pieces) == target:
                self.spans = [(k, k + 1) for k, piece in enumerate(pieces) for _ in piece]
                return
        spans: list[Span] = []
        matcher = difflib.SequenceMatcher(None, source, target, autojunk=False)
        for tag, i1, i2, j1, j2 in matcher.get_opcodes():
            if tag == "equal":
                spans += [(i, i + 1) for i in range(i1, i2)]
            elif tag == "replace":
                spans += [(i1, i2)] * (j2 - j1)
            elif tag == "insert":  # next to a neighbour: the one before, or the first one
                near = (i1 - 1, i1) if i1 > 0 else (0, min(1, self.size))
                spans += [near] * (j2 - j1)
        self.spans = spans

    def back(self, start: int, end: int) -> Span:
        """The span of the source that ``target[start:end]`` came from (an empty range: the
        point where it falls, after the character before it)."""
        spans = self.spans
        if spans is None:
            return start, end
        if start < end:
            return spans[start][0], spans[end - 1][1]
        point = spans[start - 1][1] if start > 0 else (spans[0][0] if spans else 0)
        return point, point


#: A piece's characters ``(start, end)`` as a span of the original text.
SpanOf = Callable[[int, int], Span]


def encode_with_offsets(table: Encoder, text: str, dropout: float = 0.0, seed: int | None = None) -> tuple[list[int], list[Span]]:
    """``(ids, spans)`` of ``text`` (ids before the table's last touches: see MergeTable)."""
    if table.boundless is not None:
        raise BPEError("character offsets are not worked out for a BoundlessBPE table (its supermerges join pre-tokens)")
    rng = random.Random(seed)
    ids: list[int] = []
    spans: list[Span] = []
    for special, piece, span_of in _pieces(table, text):
        if special is not None:
            ids.append(table.special_tokens[special])
            spans.append(span_of(0, len(piece)))
            continue
        for token_id, (s, e) in word_spans(table, piece, dropout, rng):
            ids.append(token_id)
            spans.append(span_of(s, e))
    return ids, spans


def pretoken_spans(table: Encoder, text: str) -> list[tuple[bool, str, Span]]:
    """``(is_special, piece, (start, end))`` per piece of ``text``, in order: the pieces encode
    sees (special tokens by name; pre-tokens lowercased, normalized and prefixed as encode
    takes them) and the characters of ``text`` as given that each stands for."""
    return [(special is not None, piece, span_of(0, len(piece))) for special, piece, span_of in _pieces(table, text)]


def _pieces(table: Encoder, text: str) -> Iterator[tuple[str | None, str, SpanOf]]:
    """The pieces of ``text`` as the encoder walks them: ``(special token or None, piece,
    span_of)``, where ``span_of(s, e)`` is where characters ``s..e`` of the piece came from in
    ``text`` as given."""
    pre = table.pre
    original = text
    text = valid_text(text)
    chain = [Alignment(original, text)]  # later text -> earlier, innermost last
    if pre.text_normalizer is not None:
        normalized = pre.text_normalizer(text)
        chain.insert(0, Alignment(text, normalized))
        text = normalized

    def back(start: int, end: int) -> Span:
        for alignment in chain:
            start, end = alignment.back(start, end)
        return start, end

    pos = 0
    matches = pre.special_matcher.finditer(text) if pre.special_matcher is not None else iter(())
    for m in matches:
        if m.start() > pos:
            yield from _segment(table, text, pos, m.start(), pos == 0, back)
        yield m.group(), m.group(), _whole(back(m.start(), m.end()))
        pos = m.end()
    if pos < len(text):
        yield from _segment(table, text, pos, len(text), pos == 0, back)


def _segment(
    table: Encoder, text: str, a: int, b: int, at_start: bool, back: Callable[[int, int], Span],
) -> Iterator[tuple[str | None, str, SpanOf]]:
    """The pieces of ``text[a:b]`` (no special token of the raw text inside), as
    :func:`_pieces` gives them."""
    pre = table.pre
    segment = text[a:b]
    if pre.matches_normalized_tokens and pre.prefix_space is not None:
        # normalized first, then the prefix before each part (Encoder.encode_raw's general path)
        norm = pre.normalize(segment)
        aligned = Alignment(segment, norm, pre.normalize)
        parts, add_at = _parts(pre, norm), None
    else:
        # the prefix first, then normalized (its fast path)
        prefixed = pre.prefixed(segment, at_start)
        add_at = len(prefixed) - len(segment)
        norm = pre.normalize(prefixed)
        aligned = Alignment(prefixed, norm, pre.normalize)
        parts = _parts(pre, norm)

    def to_text(start: int, end: int) -> Span:
        """A range of ``norm`` as a range of the original text."""
        start, end = aligned.back(start, end)
        if add_at:  # the prefix space is the segment's first character
            start, end = max(0, start - add_at), max(min(1, len(segment)), end - add_at)
        return back(a + start, a + end)

    for part_start, part_end, special in parts:
        if special is not None:
            yield special, special, _whole(to_text(part_start, part_end))
            continue
        part = norm[part_start:part_end]
        if add_at is None:
            prefixed_part = pre.prefixed(part, at_start and part_start == 0)
            shift = len(prefixed_part) - len(part)
        else:
            prefixed_part, shift = part, 0
        for w in pre.pattern.finditer(prefixed_part):
            # A pipeline's prefix step puts text in front of a piece (not in the text): it
            # spans the piece's first character, as Hugging Face aligns a prepended space.
            head = len(getattr(w, "prefix", ""))

            def span_of(
                s: int, e: int, at: int = w.start() - shift, part_start: int = part_start, size: int = len(part),
                head: int = head, first: int = min(1, w.end() - w.start()),
            ) -> Span:
                if head:
                    s, e = max(s - head, 0), max(e - head, first)
                lo, hi = at + s, at + e
                if lo < 0:  # the prefix space: the part's first character
                    lo, hi = 0, max(hi, min(1, size))
                return to_text(part_start + lo, part_start + hi)

            yield None, w.group(), span_of


def _whole(span: Span) -> SpanOf:
    """A special token's ``span_of``: any part of it spans its whole match."""
    return lambda s, e: span


def _parts(pre: PreTokenizer, norm: str) -> list[tuple[int, int, str | None]]:
    """``norm`` cut at the special tokens looked for in normalized text: ``(start, end, None)``
    for text, ``(start, end, token)`` for a token (its whole match)."""
    out: list[tuple[int, int, str | None]] = []
    pos = 0
    for m, name in pre.normalized_special_matches(norm):
        if m.start() > pos:
            out.append((pos, m.start(), None))
        out.append((m.start(), m.end(), name))
        pos = m.end()
    if pos < len(norm):
        out.append((pos, len(norm), None))
    return out


def word_spans(table: Encoder, word: str, dropout: float, rng: random.Random) -> list[tuple[int, Span]]:
    """``(id, (start, end))`` per token of one pre-token, spans in its characters."""
    whole = table.whole_token(word)
    if whole is not None:
        return [(whole, (0, len(word)))]
    symbols = table.symbols(word)
    units = base_spans(table, word, symbols)
    if table.removals is not None:  # PickyBPE's replay keeps no merge log: each token is a run of base symbols
        runs: list[tuple[int, Span]] = []
        i = 0
        for token_id in table.merged(symbols, dropout, rng if dropout else None):
            # as many base symbols as spell the token (the end-of-word marker is one symbol of
            # several characters: counting characters ran past the word's symbols)
            j, spelled, length = i, 0, (1 if token_id == UNK_ID else len(table.vocab[token_id]))
            while spelled < length:
                spelled += 1 if symbols[j] == UNK_ID else len(table.vocab[symbols[j]])
                j += 1
            runs.append((token_id, (units[i][0], units[j - 1][1])))
            i = j
        return runs
    log: list[Any] = []
    ids = table.merged(symbols, dropout, rng if dropout else None, log)
    n = len(symbols)
    nxt = list(range(1, n + 1))
    for start, *_ in log:  # (start, rank, new, position): the token at start took its right neighbour
        nxt[start] = nxt[nxt[start]]
    out: list[tuple[int, Span]] = []
    i = 0
    for token_id in ids:
        j = nxt[i]
        out.append((token_id, (units[i][0], units[j - 1][1])))
        i = j
    assert i == n, (word, ids)
    return out


def base_spans(table: Encoder, word: str, symbols: Sequence[Any]) -> list[Span]:
    """The characters of ``word`` each base symbol stands for (the end-of-word marker: the
    empty span at the end; a byte: its whole character; a fused run of unknown characters:
    the run; a word-start marker, PickyBPE's ``▁``: the word's first character, as a prefix
    space)."""
    if table.word_start is not None:
        lead = len(table.word_start.encode("utf-8")) if table.units == "bytes" else len(table.word_start)
        return [(0, min(1, len(word)))] * lead + _base_spans(table, word, symbols[lead:])
    return _base_spans(table, word, symbols)


def _base_spans(table: Encoder, word: str, symbols: Sequence[Any]) -> list[Span]:
    if table.units == "bytes":
        char_of = [k for k, c in enumerate(word) for _ in c.encode("utf-8")]
        end = len(word)
        return [(char_of[b], char_of[b] + 1) if b < len(char_of) else (end, end) for b in range(len(symbols))]
    byte_values: Mapping[int, int] = table.byte_token_values
    prefix = table.continuing_prefix
    spans: list[Span] = []
    k = 0  # the character the next symbol starts in
    taken = 0  # bytes of character k spelled by byte tokens so far
    for symbol in symbols:
        if k >= len(word):  # the end-of-word marker
            spans.append((len(word), len(word)))
        elif symbol in byte_values:  # (a byte token is never a character's own id)
            spans.append((k, k + 1))
            taken += 1
            spelled = prefix + word[k] if prefix is not None and k > 0 else word[k]
            if taken == len(spelled.encode("utf-8")):
                k, taken = k + 1, 0
        elif symbol == UNK_ID and table.fuse_unk:
            start = k
            k += 1
            while k < len(word) and _unknown(table, word, k):
                k += 1
            spans.append((start, k))
        else:
            spans.append((k, k + 1))
            k += 1
    return spans


def _unknown(table: Encoder, word: str, k: int) -> bool:
    """Whether character ``k`` of ``word`` is unknown to a chars table and cannot be spelled
    in byte tokens, so a run of them fuses into one unknown symbol (Encoder._unknown_chars)."""
    prefix = table.continuing_prefix
    base = table.continuing_base if prefix is not None and k > 0 else table.base
    if word[k] in base:
        return False
    spelled = (prefix + word[k] if prefix is not None and k > 0 else word[k]).encode("utf-8")
    return not (table.byte_tokens and all(b in table.byte_tokens for b in spelled))
