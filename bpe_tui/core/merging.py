"""The BPE merge loop for one pre-token: the lowest-ranked adjacent pair first, leftmost on ties.

Two implementations give the same answer:

* :func:`merge_simple`, the loop everyone writes: scan all adjacent pairs, merge the best,
  repeat. Each round costs a scan, so a pre-token of n symbols costs O(n²); for the short
  pieces of ordinary text (a few symbols) nothing is faster.
* :func:`merge_heap`, for long pieces (a pasted line without spaces, a long run of one
  character): a heap of candidate pairs keyed by ``(rank, position)`` over a doubly linked
  list of symbols, as Hugging Face's ``word.rs`` and sentencepiece do. A merge touches only
  its two neighbours, so n symbols cost O(n log n). Heap entries that a merge made stale
  are recognised when popped (their left symbol is gone, or its pair has another rank now)
  and dropped.

Both take the pair ranks as a function ``pair_rank(left, right) -> (rank, new) or None``, so
the same code serves ids (the MergeTable) and byte strings (the tiktoken reader's replay).

**Dropout** (BPE-dropout, Provilkov et al. 2020, as Hugging Face's tokenizers apply it): the
candidate merges are tried in order of ``(rank, position)``; each is skipped with probability
``p``; the first one not skipped is applied, and the skipped ones are candidates again in the
next round. With ``p = 0`` this is plain BPE; with ``p = 1`` nothing merges. One random draw
is made per candidate tried, in that order, so both implementations draw the same numbers.

**Log**: with a list given as ``log``, one ``(start, rank, new, position)`` is appended per
merge applied, where ``start`` is the index (in the initial symbols) of the merged token's
first symbol and ``position`` its index in the segmentation at that moment.
:class:`MergeLog` turns such a log into the segmentation after any step, in O(n + k) time,
so a trace of n merges holds O(n) memory, not a copy of the segmentation per step.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Sequence

#: Pieces with fewer symbols than this use the simple loop (faster there); longer ones the heap.
HEAP_FROM = 64

PairRank = Callable[[object, object], "tuple[int, object] | None"]


def merge(symbols: list, pair_rank: PairRank, stop_at: int = 1, p: float = 0.0, rng=None, log: list | None = None) -> list:
    """Merge ``symbols`` by rank (see the module docstring); picks the implementation."""
    if len(symbols) < HEAP_FROM:
        return merge_simple(symbols, pair_rank, stop_at, p, rng, log)
    return merge_heap(symbols, pair_rank, stop_at, p, rng, log)


def merge_simple(symbols: list, pair_rank: PairRank, stop_at: int = 1, p: float = 0.0, rng=None, log: list | None = None) -> list:
    """The O(n²) reference loop: every round looks at every adjacent pair."""
    symbols = list(symbols)
    starts = list(range(len(symbols))) if log is not None else None
    while len(symbols) > stop_at:
        candidates = []
        for i in range(len(symbols) - 1):
            hit = pair_rank(symbols[i], symbols[i + 1])
            if hit is not None:
                candidates.append((hit[0], i, hit[1]))
        if not candidates:
            break
        candidates.sort(key=lambda c: (c[0], c[1]))
        chosen = None
        for candidate in candidates:
            if p > 0 and rng.random() < p:
                continue
            chosen = candidate
            break
        if chosen is None:
            break
        rank, i, new = chosen
        symbols[i : i + 2] = [new]
        if log is not None:
            log.append((starts[i], rank, new, i))
            del starts[i + 1]
    return symbols


def merge_heap(symbols: Sequence, pair_rank: PairRank, stop_at: int = 1, p: float = 0.0, rng=None, log: list | None = None) -> list:
    """The O(n log n) loop: a heap of ``(rank, start)`` over a linked list of symbols."""
    n = len(symbols)
    value = list(symbols)
    nxt = list(range(1, n + 1))  # n means "no next symbol"
    prv = list(range(-1, n - 1))
    alive = [True] * n
    count = n
    heap: list = []
    for i in range(n - 1):
        hit = pair_rank(value[i], value[i + 1])
        if hit is not None:
            heap.append((hit[0], i))
    heapq.heapify(heap)
    fenwick = _Fenwick(n) if log is not None else None
    skipped: list = []
    while heap and count > stop_at:
        rank, i = heapq.heappop(heap)
        if not alive[i] or nxt[i] >= n:
            continue
        j = nxt[i]
        hit = pair_rank(value[i], value[j])
        if hit is None or hit[0] != rank:
            continue  # stale: the pair at i changed since this entry was pushed
        if p > 0 and rng.random() < p:
            skipped.append((rank, i))
            continue
        for entry in skipped:
            heapq.heappush(heap, entry)
        skipped.clear()
        new = hit[1]
        value[i] = new
        alive[j] = False
        nxt[i] = nxt[j]
        if nxt[j] < n:
            prv[nxt[j]] = i
        count -= 1
        if log is not None:
            fenwick.add(j, -1)
            log.append((i, rank, new, fenwick.prefix(i)))
        left = prv[i]
        if left >= 0:
            hit = pair_rank(value[left], new)
            if hit is not None:
                heapq.heappush(heap, (hit[0], left))
        if nxt[i] < n:
            hit = pair_rank(new, value[nxt[i]])
            if hit is not None:
                heapq.heappush(heap, (hit[0], i))
    out = []
    i = 0 if n else n
    while i < n:
        out.append(value[i])
        i = nxt[i]
    return out


class _Fenwick:
    """Counts of live symbols by initial index, for "how many symbols are left of this one"."""

    def __init__(self, n: int):
        self.tree = [0] * (n + 1)
        for i in range(1, n + 1):  # every symbol starts alive: build in O(n)
            self.tree[i] += 1
            parent = i + (i & -i)
            if parent <= n:
                self.tree[parent] += self.tree[i]

    def add(self, i: int, delta: int) -> None:
        i += 1
        while i < len(self.tree):
            self.tree[i] += delta
            i += i & -i

    def prefix(self, i: int) -> int:
        """Live symbols with an initial index below ``i``."""
        total = 0
        while i > 0:
            total += self.tree[i]
            i -= i & -i
        return total


class MergeLog:
    """The merges applied to one piece, replayable: the segmentation after any step.

    Holds the initial symbols and one ``(start, new)`` per merge: O(n) memory for a piece of
    n symbols, however many merges it took. Immutable once built.
    """

    def __init__(self, initial: Sequence, log: Sequence[tuple]):
        self.initial = tuple(initial)
        self.merges = tuple((start, new) for start, _, new, _ in log)

    def symbols_after(self, step: int) -> tuple:
        """The segmentation after merge ``step`` (0-based) has been applied."""
        n = len(self.initial)
        value = list(self.initial)
        nxt = list(range(1, n + 1))
        for start, new in self.merges[: step + 1]:
            value[start] = new
            nxt[start] = nxt[nxt[start]]
        out = []
        i = 0
        while i < n:
            out.append(value[i])
            i = nxt[i]
        return tuple(out)
