"""Many texts at once: :meth:`MergeTable.encode_batch` in worker processes.

Encoding is pure Python, so threads (tiktoken's ``encode_batch`` uses 8) would take turns on
one interpreter; processes run side by side. The texts are cut into contiguous runs of about
equal size (a few per worker, so a slow one does not hold the rest up), each worker gets the
table once (forked, or pickled as what builds it: see ``MergeTable.__reduce__``) and sends back
each run's ids as one flat list with the texts' lengths (pickled in one piece: a list per text
costs more, arrays more still); the parent cuts them apart, in order. A small batch is encoded in this
process: starting workers costs more than it saves below :data:`PARALLEL_MIN_CHARS`
characters. The workers leave Ctrl+C to the parent, which stops them on its way out.

This module is part of MergeTable's implementation, kept apart for length; it imports nothing
of the table's module (the table is handed in).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from itertools import accumulate
from typing import Any, Protocol

from ..errors import BPEError
from ..text.corpus import worker_pool

#: Characters in all below which ``workers=None`` encodes in this process.
PARALLEL_MIN_CHARS = 1 << 20
#: Runs of texts per worker: enough that the runs even out, few enough that each is worth a message.
RUNS_PER_WORKER = 4


class Encoder(Protocol):
    """What this module asks of a MergeTable."""

    def encode(self, text: str) -> list[int]: ...

    def _recognising(self, specials: frozenset[str]) -> Any: ...


def resolve_workers(workers: int | None, total_chars: int, texts: int) -> int:
    """How many processes encode a batch: ``workers`` (at most one per text), or, for None,
    one per CPU when the batch holds :data:`PARALLEL_MIN_CHARS` characters or more, else 1."""
    if workers is None:
        workers = (os.cpu_count() or 1) if total_chars >= PARALLEL_MIN_CHARS else 1
    elif isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise BPEError(f"workers must be a whole number, 1 or more, not {workers!r}")
    return max(1, min(workers, texts))


def runs(texts: Sequence[str], count: int) -> list[tuple[int, int]]:
    """``count`` or fewer contiguous ``(start, end)`` runs of ``texts`` with about the same
    number of characters each (every text in exactly one run, in order)."""
    total = sum(map(len, texts)) or 1
    target = total / count
    out: list[tuple[int, int]] = []
    start = 0
    size = 0
    for k, text in enumerate(texts):
        size += len(text) + 1
        if size >= target and len(out) < count - 1:
            out.append((start, k + 1))
            start, size = k + 1, 0
    if start < len(texts):
        out.append((start, len(texts)))
    return out


def encode_batch(table: Encoder, recognised: frozenset[str], texts: Sequence[str], workers: int | None) -> list[list[int]]:
    """Each text's ids, in order (``recognised``: the special tokens recognised in them)."""
    texts = list(texts)
    bad = next((k for k, t in enumerate(texts) if not isinstance(t, str)), None)
    if bad is not None:
        raise BPEError(f"text {bad + 1} of the batch is not a str: {type(texts[bad]).__name__}")
    n = resolve_workers(workers, sum(map(len, texts)), len(texts))
    if n == 1:
        view = table._recognising(recognised)
        return [view.encode(t) for t in texts]
    parts = runs(texts, n * RUNS_PER_WORKER)
    with worker_pool(n, _init_worker, (table, recognised)) as pool:
        done = pool.map(_encode_run, [texts[a:b] for a, b in parts], chunksize=1)
    out: list[list[int]] = []
    for flat, lengths in done:
        start = 0
        for end in accumulate(lengths):
            out.append(flat[start:end])
            start = end
    return out


_TABLE: Any = None  # in a worker: the table (the view that recognises the batch's specials)


def _init_worker(table: Encoder, recognised: frozenset[str]) -> None:
    """In a new worker: keep the table."""
    global _TABLE
    _TABLE = table._recognising(recognised)


def _encode_run(texts: list[str]) -> tuple[list[int], list[int]]:
    """In a worker: the ids of a run of texts, all in one list, and each text's count."""
    encode = _TABLE.encode
    flat: list[int] = []
    lengths: list[int] = []
    for text in texts:
        ids = encode(text)
        flat += ids
        lengths.append(len(ids))
    return flat, lengths
