"""Decoding: token ids back to text (:meth:`MergeTable.decode`).

Bytes tables join their tokens' bytes and decode them as UTF-8 (with Python's and tiktoken's
``errors`` handlers for bytes that are not UTF-8); chars tables join their tokens' text, the
end-of-word marker read as a space, a continuing prefix taken off, runs of byte-fallback
tokens (``<0xE6><0x97><0xA5>``) decoded back to their characters. A table whose encoding puts
a space in front of the text takes it off again, as its own decoder does.

This module is part of MergeTable's implementation, kept apart for length: it reads the names
in :class:`Decodable` and imports nothing of the table's module.
"""

from __future__ import annotations

import bisect
import itertools
from collections.abc import Sequence
from typing import Any, Protocol

from ..errors import BPEError, TokenIdError, UndecodableToken
from ..types import UNK_ID, Surface
from .encoder import Encoder

#: What ``decode(errors=...)`` takes: Python's error handlers for bytes that are not UTF-8.
DECODE_ERRORS = ("replace", "strict", "ignore", "backslashreplace")


class Decodable(Protocol):
    """What decoding reads of a MergeTable."""

    units: str
    end_of_word: str | None
    word_start: str | None
    continuing_prefix: str | None
    unk_id: int
    _vocab: dict[int, Surface]
    _encoder: Encoder
    _special_surfaces: dict[int, str]

    @property
    def emits_unknown(self) -> bool: ...

    def _no_such_id(self, token_id: object, position: int | None = None) -> TokenIdError: ...


def decode(table: Decodable, ids: list[int], errors: str = "replace") -> str:
    """The text of ``ids`` (see :meth:`MergeTable.decode`)."""
    if errors not in DECODE_ERRORS:
        raise BPEError(f"errors must be one of {', '.join(DECODE_ERRORS)}, not {errors!r}")
    text = _joined(table, ids, errors)
    if table._encoder.strips_prefix and ids and ids[0] not in table._special_surfaces and text.startswith(" "):
        return text[1:]
    return text


def _joined(table: Decodable, ids: list[int], errors: str) -> str:
    vocab = table._vocab
    parts: list[Any] = []  # bytes in a bytes table, str in a chars table
    unknown = table.emits_unknown
    unk_surface = table._encoder.options.unk_surface
    for k, i in enumerate(ids):
        if type(i) is not int:  # True is 1 to Python, not to a reader of token ids
            raise BPEError(f"token id {i!r} (position {k + 1}) is not an integer")
        if i == UNK_ID and unknown:
            parts.append(b"\xef\xbf\xbd" if table.units == "bytes" else "\ufffd")
            continue
        if i == table.unk_id and unk_surface is not None:
            parts.append(unk_surface)  # sentencepiece decodes <unk> as " ⁇ "
            continue
        try:
            parts.append(vocab[i])
        except KeyError:
            raise table._no_such_id(i, k) from None
    if table.units == "bytes":
        if table.end_of_word:  # as in chars mode: the marker reads as a space (CLIP decodes so)
            marker = table.end_of_word.encode("utf-8")
            parts = [part.replace(marker, b" ") for part in parts]
        return decoded(ids, parts, errors)
    byte_values = table._encoder.byte_token_values
    if byte_values:
        parts = _join_byte_tokens(ids, parts, byte_values, errors)
    prefix = table.continuing_prefix
    if prefix is not None:  # a piece that continues a word loses its prefix
        parts = [p[len(prefix) :] if p.startswith(prefix) and len(p) > len(prefix) else p for p in parts]
    text = "".join(parts)
    if table.end_of_word:
        text = text.replace(table.end_of_word, " ")
    if table.word_start is not None:
        text = text.replace(table.word_start, " ")
    return text


def _join_byte_tokens(ids: list[int], parts: list[str], byte_values: dict[int, int], errors: str = "replace") -> list[str]:
    """Runs of byte-fallback tokens (``<0xE6><0x97><0xA5>``) decoded back to text as UTF-8,
    each invalid byte as U+FFFD (Hugging Face's ByteFallback decoder) under ``errors``
    "replace" (see :func:`decoded`)."""
    out: list[str] = []
    run: list[int] = []  # positions in ids of the byte tokens in a row
    for k, (token_id, part) in enumerate(zip(ids, parts)):
        if token_id in byte_values:
            run.append(k)
            continue
        if run:
            out.append(decoded([ids[j] for j in run], [bytes([byte_values[ids[j]]]) for j in run], errors, run[0]))
            run.clear()
        out.append(part)
    if run:
        out.append(decoded([ids[j] for j in run], [bytes([byte_values[ids[j]]]) for j in run], errors, run[0]))
    return out


def decoded(ids: Sequence[int], parts: Sequence[bytes], errors: str, first: int = 0) -> str:
    """The tokens' bytes joined and decoded as UTF-8 under ``errors``; with "strict", a bad
    sequence is :class:`~bpe_tui.core.errors.UndecodableToken` naming the id that holds its
    first byte (``first``: the position of ``ids[0]`` in the whole list)."""
    data = b"".join(parts)
    try:
        return data.decode("utf-8", errors)
    except UnicodeDecodeError as exc:
        ends = list(itertools.accumulate(map(len, parts)))
        k = bisect.bisect_right(ends, exc.start)
        raise UndecodableToken(ids[k], first + k, parts[k]) from None
