"""Encoding one pre-token: the rank-ordered merge loop, and the cache beside it.

BPE encodes a pre-token by starting from its base symbols and merging, again and again, the
adjacent pair with the *lowest rank*, leftmost on ties, until no adjacent pair has a rank.
:func:`merge` is that loop, the only one in bpe-tui: tables, dropout, traces and the tiktoken
reader's replay all call it. What a rank is comes in two rules, one parameter:

* **by merge list** (``made`` given: Hugging Face, GPT-2 files, minbpe, our own tables): a pair
  ``(left, right)`` of token ids has the rank of the merge that lists it, and merging it makes
  ``made[(left, right)]``.
* **by token rank** (``made`` is None: tiktoken's rule, ``byte_pair_encode`` in its ``lib.rs``):
  the symbols are byte strings, a pair's rank is the rank of the token its concatenation
  ``left + right`` *is*, and that concatenation is the merged symbol. No merge list needed.

The loop works in one of two ways, with the same results:

* a **scan** for short pieces (the few symbols of ordinary words): every round looks at every
  adjacent pair and merges the best (the first of the lowest rank). A piece of n symbols costs
  O(n²), but for short pieces nothing is faster (a plain loop beats building lists in C there).
* a **heap** for long pieces (a pasted line without spaces, a long run of one character), and
  whenever dropout or a trace is asked for: candidate pairs keyed by ``(rank, position)`` over a
  doubly linked list of symbols, as Hugging Face's ``Word::merge_all`` and sentencepiece do. A
  merge touches only its two neighbours, so n symbols cost O(n log n). Entries a merge made stale
  are recognised when popped (their left symbol is gone, or its pair has another rank now).

**Dropout** (BPE-dropout, Provilkov et al. 2020, as Hugging Face's tokenizers apply it): the
candidate merges are tried in order of ``(rank, position)``; each is skipped with probability
``p``; the first one not skipped is applied, and the skipped ones are candidates again in the
next round. With ``p = 0`` this is plain BPE; with ``p = 1`` nothing merges. One random draw
is made per candidate tried, in that order.

**Log** (for traces): with a list given as ``log``, one ``(start, rank, new, position)`` is
appended per merge applied, where ``start`` is the index (in the initial symbols) of the
merged token's first symbol and ``position`` its index in the segmentation at that moment.
:class:`MergeLog` turns such a log into the segmentation after any step, in O(n + k) time,
so a trace of n merges holds O(n) memory, not a copy of the segmentation per step.

**The fast forms** (the encoder's hot path; the tests hold them to :func:`merge` on random
pieces): :func:`merge_pairs` (by merge list) and :func:`merge_bytes` (by token rank, straight
from a pre-token's UTF-8 bytes). The scan above looks at every pair in every round, in Python.
The fast forms keep the rank of each adjacent pair in a list, ``r[i]`` for the pair at ``i``, so
that a round is two calls that run in C, ``min(r)`` (the best rank) and ``r.index(best)`` (its
leftmost place, the tie rule), and a merge changes only the two entries beside the new token
and deletes one; by token rank, the parts are kept as their places in the piece, and a pair's
key is one slice of the piece's bytes (no joining of parts). This is tiktoken's
``byte_pair_encode``, in Python: for the 5-15 byte pieces most words are, a third faster than
the scan. Long pieces go to the heap, as :func:`merge` sends them.

**The cache**: text repeats its words, so an encoder remembers each pre-token's ids in a
:class:`PieceCache`, which forgets everything when it is full. Given the encoder's way of
working out a piece, the cache fills itself: ``map(cache.__getitem__, words)`` looks up every
word held in C, and calls back into Python only for a word not held yet (``__missing__``).
"""

from __future__ import annotations

import heapq
import operator
from array import array
from collections.abc import Callable, Mapping, Sequence
from itertools import repeat
from random import Random

#: Pieces with fewer symbols than this use the scan (faster there); longer ones the heap.
HEAP_FROM = 64

#: Pre-tokens remembered by a :class:`PieceCache` before it is cleared.
CACHE_LIMIT = 200_000

#: Above every rank: what the scan reads for a pair that has none.
_NO_RANK = 1 << 62


def merge(
    symbols: Sequence,
    ranks: Mapping,
    made: Mapping | None = None,
    *,
    stop_at: int = 1,
    dropout: float = 0.0,
    rng: Random | None = None,
    log: list | None = None,
) -> list:
    """Merge ``symbols`` by rank until no adjacent pair has one, or ``stop_at`` symbols are left.

    ``ranks`` maps a pair's key to its rank: ``(left, right)`` when ``made`` (pair -> merged
    symbol) is given, else ``left + right`` (tiktoken's rule; see the module docstring).
    ``dropout`` (with ``rng``) skips candidates; ``log`` records each merge applied.
    """
    if dropout or log is not None or len(symbols) >= HEAP_FROM:
        return _heap(symbols, ranks, made, stop_at, dropout, rng, log)
    symbols = list(symbols)
    get = ranks.get
    joined = made is None
    made = made or {}  # (read only when not joined)
    while len(symbols) > stop_at:
        best = _NO_RANK
        best_i = 0
        left = symbols[0]
        for i in range(1, len(symbols)):
            right = symbols[i]
            rank = get(left + right if joined else (left, right), _NO_RANK)
            if rank < best:
                best = rank
                best_i = i
            left = right
        if best == _NO_RANK:
            break
        left, right = symbols[best_i - 1], symbols[best_i]
        symbols[best_i - 1 : best_i + 1] = (left + right if joined else made[left, right],)
    return symbols


def _heap(
    symbols: Sequence,
    ranks: Mapping,
    made: Mapping | None,
    stop_at: int,
    p: float,
    rng: Random | None,
    log: list | None,
) -> list:
    """The O(n log n) way: a heap of ``(rank, start)`` over a linked list of symbols."""
    n = len(symbols)
    value = list(symbols)
    # (arrays, not lists: a long pre-token's links cost 8 bytes a symbol, not an int object each)
    nxt = array("q", range(1, n + 1))  # n means "no next symbol"
    prv = array("q", range(-1, n - 1))
    alive = bytearray(b"\x01") * n
    count = n
    joined = made is None
    made = made or {}  # (read only when not joined)
    get = ranks.get
    # (a pair's key is written out at each lookup, not asked of a helper: this loop runs once
    # per symbol of a whole text for tables without a pre-tokenizer)
    heap: list = []
    for i in range(n - 1):
        a, b = value[i], value[i + 1]
        rank = get(a + b if joined else (a, b))
        if rank is not None:
            heap.append((rank, i))
    heapq.heapify(heap)
    fenwick = _Fenwick(n) if log is not None else None
    skipped: list = []
    while heap and count > stop_at:
        rank, i = heapq.heappop(heap)
        if not alive[i] or nxt[i] >= n:
            continue
        j = nxt[i]
        a, b = value[i], value[j]
        pair = a + b if joined else (a, b)
        if get(pair) != rank:
            continue  # stale: the pair at i changed since this entry was pushed
        if p > 0 and rng is not None and rng.random() < p:
            skipped.append((rank, i))
            continue
        for entry in skipped:
            heapq.heappush(heap, entry)
        skipped.clear()
        new = pair if joined else made[pair]
        value[i] = new
        alive[j] = False
        nxt[i] = nxt[j]
        if nxt[j] < n:
            prv[nxt[j]] = i
        count -= 1
        if log is not None and fenwick is not None:
            fenwick.add(j, -1)
            log.append((i, rank, new, fenwick.prefix(i)))
        left = prv[i]
        if left >= 0:
            a = value[left]
            found = get(a + new if joined else (a, new))
            if found is not None:
                heapq.heappush(heap, (found, left))
        if nxt[i] < n:
            b = value[nxt[i]]
            found = get(new + b if joined else (new, b))
            if found is not None:
                heapq.heappush(heap, (found, i))
    out = []
    i = 0
    while i < n:
        out.append(value[i])
        i = nxt[i]
    return out


#: In the index :func:`merge_pairs` reads, a merge is ``rank << NEW_ID_BITS | new_id``.
NEW_ID_BITS = 32
_NEW_ID_MASK = (1 << NEW_ID_BITS) - 1


class _MadeBy:
    """``made[pair]`` read from a :func:`pair_merges` index (for the heap, which reads only
    ``made[pair]`` of its ``made``: this is a Mapping to it, not to mypy)."""

    def __init__(self, merges: Mapping[tuple[int, int], int]):
        self.merges = merges

    def __getitem__(self, pair: tuple[int, int]) -> int:
        return self.merges[pair] & _NEW_ID_MASK


def pair_merges(ranks: Mapping[tuple[int, int], int], made: Mapping[tuple[int, int], int]) -> dict[tuple[int, int], int]:
    """The index :func:`merge_pairs` reads: pair -> ``rank << NEW_ID_BITS | new_id``, one
    number that orders by rank and says what the merge makes (built in C)."""
    keys = list(ranks)
    return dict(zip(keys, map(operator.or_, map(operator.lshift, ranks.values(), repeat(NEW_ID_BITS)), map(made.__getitem__, keys))))


def merge_pairs(ids: list[int], merges: Mapping[tuple[int, int], int]) -> list[int]:
    """:func:`merge` by merge list, the fast form (see the module docstring): the ids a
    pre-token's base ids merge into. ``merges`` is :func:`pair_merges`'s index, so that the
    rank list holds what each merge makes too (a merge costs no second lookup). ``ids`` is
    changed in place and returned."""
    if len(ids) < 2:
        return ids
    if len(ids) >= HEAP_FROM:  # (the heap orders by the index's numbers: by rank, as it should)
        return _heap(ids, merges, _MadeBy(merges), 1, 0.0, None, None)  # type: ignore[arg-type]
    get = merges.get
    r = list(map(get, zip(ids, ids[1:]), repeat(_NO_RANK)))  # r[i]: the merge of (ids[i], ids[i + 1])
    best = min(r)
    mask = _NEW_ID_MASK
    while best != _NO_RANK:
        i = r.index(best)  # the leftmost of the lowest rank
        ids[i] = new = best & mask
        del ids[i + 1]
        del r[i]
        if i:
            r[i - 1] = get((ids[i - 1], new), _NO_RANK)
        if i < len(r):
            r[i] = get((new, ids[i + 1]), _NO_RANK)
        if not r:
            break
        best = min(r)
    return ids


#: Each byte as a one-byte string (by token rank, a piece's first symbols).
_BYTES = [bytes([b]) for b in range(256)]


def merge_bytes(piece: bytes, ranks: Mapping[bytes, int]) -> list[int]:
    """:func:`merge` by token rank, the fast form (see the module docstring): the ranks of the
    parts ``piece`` (a pre-token's UTF-8 bytes) merges into, which are their token ids."""
    n = len(piece)
    if n >= HEAP_FROM:
        return list(map(ranks.__getitem__, _heap(list(map(_BYTES.__getitem__, piece)), ranks, None, 1, 0.0, None, None)))
    if n < 2:
        return [ranks[piece]] if n else []
    get = ranks.get
    starts = list(range(n + 1))  # part k is piece[starts[k]:starts[k + 1]]
    r = [get(piece[i : i + 2], _NO_RANK) for i in range(n - 1)]  # r[k]: the rank of parts k and k + 1 joined
    best = min(r)
    while best != _NO_RANK:
        i = r.index(best)
        del starts[i + 1]
        del r[i]
        if i:
            r[i - 1] = get(piece[starts[i - 1] : starts[i + 1]], _NO_RANK)
        if i < len(r):
            r[i] = get(piece[starts[i] : starts[i + 2]], _NO_RANK)
        if not r:
            break
        best = min(r)
    return [ranks[piece[a:b]] for a, b in zip(starts, starts[1:])]


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

    def pairs(self) -> list[tuple]:
        """The ``(left, right)`` symbols each merge joined, in order (one pass, O(n + k))."""
        n = len(self.initial)
        value = list(self.initial)
        nxt = list(range(1, n + 1))
        out = []
        for start, new in self.merges:
            out.append((value[start], value[nxt[start]]))
            value[start] = new
            nxt[start] = nxt[nxt[start]]
        return out

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


class PieceCache(dict):
    """Pre-token -> its ids, forgotten all at once when ``limit`` pre-tokens are held.

    Clearing is cheaper than keeping an LRU order on the hot path, and a text's common words
    come back into the cache within a few lines. Read it as a dict (``cache.get(word)``); with
    ``compute`` (a pre-token -> its ids), ``cache[word]`` works a word not held out, and keeps it.
    """

    def __init__(self, limit: int = CACHE_LIMIT, compute: Callable[[str], tuple[int, ...]] | None = None):
        super().__init__()
        self.limit = limit
        self.compute = compute

    def remember(self, piece: str, ids: tuple[int, ...]) -> tuple[int, ...]:
        if len(self) >= self.limit:
            self.clear()
        self[piece] = ids
        return ids

    def __missing__(self, piece: str) -> tuple[int, ...]:
        if self.compute is None:
            raise KeyError(piece)
        return self.remember(piece, self.compute(piece))
