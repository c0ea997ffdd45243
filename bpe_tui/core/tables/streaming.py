"""Streaming: a stream of text (a file's lines, stdin's blocks) cut into what is decided.

:meth:`MergeTable.encode_iterable` encodes a stream as if it were one string, with memory
bounded by the longest pre-token, not by the input. The rule: of the text read so far, every
piece but the last is final (the regex decided each of them by looking at characters that are
already here), and so is everything before a tail that could begin a special token; the last
piece and such a tail wait for more text.

Two ways to apply it. :func:`stream_parts`, for text taken as it is (no normalizer, lowercasing
or prefix space: the tiktoken-style tables): each chunk's text is split once, the final
pre-tokens handed to the encoder as a list (so they are looked up in C, as in ``encode``), and
the last ones kept for the next chunk. :func:`stream_pieces` (with :func:`prefix_pieces`), for
the others: piece by piece, special tokens found in the text before it is normalized.

This module is part of the encoder, kept apart for length: it reads the names in
:class:`Streamed` and imports nothing of the encoder's module.
"""

from __future__ import annotations

import bisect
import operator
from collections.abc import Iterable, Iterator
from itertools import accumulate
from typing import Protocol

from ..text.pretokenize import PreTokenizer, valid_text


class Streamed(Protocol):
    """What this module reads of an :class:`~bpe_tui.core.tables.encoder.Encoder`."""

    pre: PreTokenizer
    pretokenizer: str
    special_tokens: dict[str, int]

    def words(self, segment: str) -> list[str]: ...


def streams_as_is(encoder: Streamed) -> bool:
    """Whether a stream's text is pre-tokenized as it comes (no normalizer, lowercasing or
    prefix space, no text put in front of pieces: what the tiktoken-style tables have), so that :func:`stream_parts`,
    the fast way, cuts it; the others go piece by piece (:func:`stream_pieces`)."""
    pre = encoder.pre
    return (
        pre.text_normalizer is None and pre.normalizer is None and not pre.lowercase and pre.prefix_space is None
        and not getattr(pre.pattern, "adds_text", False)  # (a pipeline's prefix step: parity's space)
    )


def stream_parts(encoder: Streamed, chunks: Iterable[str]) -> Iterator[list[tuple[str | None, list[str]]]]:
    """A stream of text, cut as it comes into what is decided: per chunk, a list of
    ``(None, pre-tokens)`` and ``(special token, [])``, in order. The same rule as
    :func:`stream_pieces` (everything but the last piece, and but a tail that could begin
    a special token, is final), a chunk at a time: its text is split once, and the
    pre-tokens go to the encoder as a list, not one by one."""
    pending = ""
    for chunk in chunks:
        if not chunk:
            continue
        pending += valid_text(chunk)
        parts, keep = _decided(encoder, pending, final=False)
        pending = pending[keep:]
        if parts:
            yield parts
    if pending:
        parts, _ = _decided(encoder, pending, final=True)
        yield parts


def _decided(encoder: Streamed, text: str, final: bool) -> tuple[list[tuple[str | None, list[str]]], int]:
    """The parts of ``text`` that are decided (all of them when ``final``), and where the
    rest begins."""
    pre = encoder.pre
    segments: list[tuple[int, int, str | None]] = []  # (start, end, special token or None)
    pos = 0
    if pre.special_matcher is not None:
        for m in pre.special_matcher.finditer(text):
            if m.start() > pos:
                segments.append((pos, m.start(), None))
            segments.append((m.start(), m.end(), m.group()))
            pos = m.end()
    if pos < len(text):
        segments.append((pos, len(text), None))
    parts: list[tuple[str | None, list[str]]] = []
    if final:
        for start, end, special in segments:
            parts.append((special, []) if special is not None else (None, encoder.words(text[start:end])))
        return parts, len(text)
    # The last piece (a pre-token or a special token) waits for more text, and so does a
    # tail that could begin a special token: the cut is the earlier of the two.
    split: dict[int, tuple[list[str], list[int]]] = {}
    last = None
    for n in range(len(segments) - 1, -1, -1):
        start, end, special = segments[n]
        if special is not None:
            last = start
            break
        split[n] = _words_at(encoder, text, start, end)
        if split[n][0]:
            last = split[n][1][-1]
            break
    if last is None:  # no piece at all yet: nothing is decided
        return [], 0
    cut = min(last, len(text) - pre.special_prefix_len(text), len(text) - pre.looks_past)
    for n, (start, end, special) in enumerate(segments):
        if special is not None:
            if end > cut:
                return parts, start
            parts.append((special, []))
            continue
        if end <= cut:  # the whole segment is decided
            parts.append((None, split[n][0] if n in split else encoder.words(text[start:end])))
            continue
        words, starts = split[n] if n in split else _words_at(encoder, text, start, end)
        done = bisect.bisect_right(list(map(operator.add, starts, map(len, words))), cut)  # the pieces ending by the cut
        if done:
            parts.append((None, words if done == len(words) else words[:done]))
        if done < len(words):
            return parts, starts[done]
    return parts, cut


def _words_at(encoder: Streamed, text: str, start: int, end: int) -> tuple[list[str], list[int]]:
    """The pre-tokens of ``text[start:end]`` and where each starts in ``text``: from the
    split's lengths where the pieces cover the segment (GPT-style patterns match every
    character), else from the pattern's matches."""
    segment = text[start:end]
    words = encoder.words(segment)
    if sum(map(len, words)) == len(segment):
        starts = list(accumulate(map(len, words[:-1]), initial=start))
        return words, starts
    spans = [(m.start(), m.end()) for m in encoder.pre.pattern.finditer(segment)]
    return [segment[a:b] for a, b in spans], [start + a for a, _ in spans]


def stream_pieces(encoder: Streamed, chunks: Iterable[str]) -> Iterator[tuple[bool, str]]:
    """``(is_special, piece)`` of a stream of text, each as soon as it is decided."""
    raw = PreTokenizer(encoder.pretokenizer, list(encoder.special_tokens), lowercase=False)
    if encoder.pre.text_normalizer is not None:  # sentencepiece's: it streams itself
        chunks = encoder.pre.text_normalizer.stream(valid_text(c) for c in chunks)
    pending = ""
    original = ""  # pending before normalizing: special tokens are found there
    for chunk, lowered in _normalized(encoder.pre, (valid_text(c) for c in chunks if c)):
        pending += lowered
        original += chunk if len(lowered) == len(chunk) else lowered
        spans = list(raw.spans(pending, original))
        # Pieces before the last one are final: the regex decided each of them by looking
        # at characters that are already here. The last piece, and any tail that could be
        # the start of a special token, wait for more text.
        cut = spans[-1][1] if spans else len(pending)
        cut = min(cut, len(pending) - raw.special_prefix_len(original), len(pending) - raw.looks_past)
        ready = [(sp, head + pending[s:e]) for sp, s, e, head in spans if e <= cut]
        if not ready:
            continue
        keep = spans[len(ready)][1] if len(ready) < len(spans) else len(pending)
        ready = [(sp, original[s:e] if sp else piece) for (sp, piece), (_, s, e, _) in zip(ready, spans)]
        pending, original = pending[keep:], original[keep:]
        yield from ready
    if pending:
        for sp, s, e, head in raw.spans(pending, original):
            yield sp, original[s:e] if sp else head + pending[s:e]


def _normalized(pre: PreTokenizer, chunks: Iterable[str]) -> Iterator[tuple[str, str]]:
    """``(text, text as the pre-tokenizer sees it)``, a chunk at a time (lines, for files).
    Lowercasing goes through :func:`lowercase_stream`: ``str.lower`` reads a capital sigma's
    neighbours, which may be in the next chunk."""
    if not pre.lowercase:
        for chunk in chunks:
            yield chunk, pre.normalize(chunk)
        return
    for chunk, lowered in lowercase_stream(chunks):
        yield chunk, pre.normalizer(lowered) if pre.normalizer is not None else lowered


def lowercase_stream(chunks: Iterable[str]) -> Iterator[tuple[str, str]]:
    """``(text, its lowercase)`` of a stream, pieces whose lowercase ``str.lower`` of the whole
    stream would give: their concatenation is the stream's, lowered as one string.

    ``str.lower`` is character by character but for one rule, Unicode's Final_Sigma: a capital
    sigma ``Σ`` becomes final ``ς`` when a cased letter comes before it and none after it
    (case-ignorable characters, such as combining marks and apostrophes, skipped on both
    sides), else ``σ``. So a chunk is held back from its last ``Σ`` while only case-ignorable
    characters follow that sigma (what comes next decides it), and what came before is carried
    as one letter: ``A`` when the text so far ends in a cased letter (ignorable ones skipped).
    Whether a character is cased or case-ignorable is asked of ``str.lower`` itself."""
    before = ""  # "A": the text so far ends in a cased letter, case-ignorable ones skipped
    held = ""
    for chunk in chunks:
        text = held + chunk
        last = text.rfind("Σ")
        cut = last if last >= 0 and _ignorable_only(text[last + 1 :]) else len(text)
        if cut:
            decided, lowered = text[:cut], (before + text).lower()[len(before) :]
            if cut < len(text):  # (a character's lowercase may be longer than it, never a sigma's)
                lowered = lowered[: len(decided.lower())]
            yield decided, lowered
            before = "A" if _ends_cased(before, decided) else ""
        held = text[cut:]
    if held:
        yield held, (before + held).lower()[len(before) :]


def _ends_cased(before: str, text: str) -> bool:
    """Whether ``before + text`` ends in a cased letter, case-ignorable ones skipped: a sigma
    after it would be final. Only the last 64 characters are read, unless all are ignorable."""
    tail = text[-64:]
    if len(text) > 64 and _ignorable_only(tail):
        tail = text
    return (before + tail + "Σ").lower().endswith("ς")


def _ignorable_only(text: str) -> bool:
    """Whether every character of ``text`` is case-ignorable (so a ``Σ`` before it is not
    decided yet): after a cased letter and a sigma, ``str.lower`` writes the sigma final both
    with nothing more and with ``A`` after ``text`` only when ``text`` is skipped whole."""
    return ("AΣ" + text).lower()[1] == "ς" and ("AΣ" + text + "A").lower()[1] == "σ"


def prefix_pieces(encoder: Streamed, pieces: Iterable[tuple[bool, str]]) -> Iterator[tuple[bool, str]]:
    """The pieces of a whole text with the prefix space added where the table's scheme
    puts one: the first piece of a segment gets it and is pre-tokenized again (for the
    sentencepiece-style patterns such tables have, the same as prefixing the segment)."""
    pre = encoder.pre
    if pre.prefix_space is None:
        yield from pieces
        return
    segment_start = text_start = True
    for is_special, piece in pieces:
        if is_special:
            yield True, piece
            segment_start = True
        elif segment_start:
            for word in pre.pattern.findall(pre.prefixed(piece, text_start)):
                yield False, word
            segment_start = False
        else:
            yield False, piece
        text_start = False
