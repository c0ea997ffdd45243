"""BoundlessBPE's second state: the documents as runs of whole pre-tokens, where supermerges happen.

BoundlessBPE (:mod:`~bpe_tui.core.engine.variants.boundless`) keeps two states of one corpus.
The trainer's words are the first: each distinct pre-token, split into tokens. This module is
the second: each document as its sequence of pre-tokens, every pre-token **one unit** (its
bytes, whatever the words' state has made of it), and the pairs of adjacent units that may
join into one token (a *supermerge*, ``·of`` + ``·the`` = ``·of·the``).

**Only runs.** A pre-token may join only once it is *unlocked*: a merge made it one whole token
and its text matches the merge pattern. A pre-token the pattern refuses (punctuation, digits,
a line break) never is, so it cuts its document: only runs of two or more adjacent pre-tokens
the pattern takes can ever hold a pair. Those runs are all this state keeps, each distinct
run once with how many times it occurs (counted with the words, from the same text:
:class:`~bpe_tui.core.text.boundless_rules.RunsPattern`), and a run that is a whole document is
marked (it alone can become one token, which matters once: see :meth:`UnitState.merge`).

**Units as characters.** As the trainer's words, each run is a string with one character per
unit (see :mod:`~bpe_tui.core.engine.speed`): an unlocked unit is its token's id, a locked one
a *lock character* of its own pre-token, taken from the top of Unicode downwards, which no pair
counted ever holds. Unlocking a pre-token is ``str.replace`` of its lock character by its token;
a supermerge is ``str.replace`` of the pair by the new token, in C.

**Counting.** A pair counts where both units are unlocked, once per place, except that a run
of one token counts without overlap (``x x x``: one ``(x, x)``), as the reference counts. Every
count is kept up to date: unlocking adds the pairs around each place the pre-token stands,
a supermerge recounts the runs it rewrote; nothing is ever counted again from scratch (but in
check mode, :meth:`UnitState.problem`). The best pair comes from a heap with lazy invalidation,
as the trainer's queue (:mod:`~bpe_tui.core.engine.queue`): ``(-count, *tie-break key, pair)``,
the smallest pair by bytes first among equal counts under the reference's rule, lexical-min.

Everything here is undone exactly, last in first out (:meth:`UnitState.relock`,
:meth:`UnitState.unmerge`), from what each change can tell of itself: a token made by the step
undone stands in the runs only where that step put it.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Mapping, Sequence
from operator import add
from typing import Any

import regex

from ...errors import BPEError
from ...text.boundless_rules import run_units
from ..speed import MAX_TOKEN_ID

__all__ = ["UnitState", "counted_pairs"]

#: Two equal units side by side (their pairs count without overlap: see counted_pairs).
_SIDE_BY_SIDE = regex.compile(r"(.)\1", regex.DOTALL)


def counted_pairs(run: str, free: set[str] | frozenset[str]) -> dict[str, int]:
    """The pairs of ``run`` that count: both units in ``free`` (unlocked), a run of one token
    counted without overlap (``x x x``: one ``(x, x)``)."""
    out: dict[str, int] = {}
    get = out.get
    previous = ""
    for p in map(add, run, run[1:]):
        x, y = p
        if x in free and y in free:
            if x == y and p == previous:
                previous = ""
                continue
            out[p] = get(p, 0) + 1
            previous = p
        else:
            previous = ""
    return out


def _pairs_with(run: str, c: str, free: set[str]) -> list[str]:
    """The counted pairs of ``run`` that hold ``c`` (itself unlocked), once per place: the
    pairs with each unlocked neighbour, and ``(c, c)`` once per two in a row."""
    out: list[str] = []
    n = len(run)
    i = run.find(c)
    while i >= 0:
        j = i + 1
        while j < n and run[j] == c:
            j += 1
        out += [c + c] * ((j - i) // 2)
        if i and run[i - 1] in free:
            out.append(run[i - 1] + c)
        if j < n and run[j] in free:
            out.append(c + run[j])
        i = run.find(c, j)
    return out


class UnitState:
    """The runs of whole pre-tokens of a corpus, their pair counts and token counts (see the
    module docstring).

    runs:       distinct run text -> how many times it occurs (``RunsPattern``'s pieces)
    first_lock: the trainer's id space ends below this (the lock characters come from above)
    """

    def __init__(self, runs: Mapping[str, int], first_lock: int = MAX_TOKEN_ID) -> None:
        #: pre-token text -> its lock character, while no merge has made it a whole token
        self.lock_of: dict[str, str] = {}
        #: lock character -> the runs that hold that pre-token
        self.holders: dict[str, list[int]] = {}
        self.runs: list[str] = []
        self.weights: list[int] = []
        #: the runs that are a whole document
        self.whole: set[int] = set()
        top = first_lock
        lock_of, holders = self.lock_of, self.holders
        for text, weight in runs.items():
            units, whole = run_units(text)
            chars = []
            for u in units:
                c = lock_of.get(u)
                if c is None:
                    c = lock_of[u] = chr(top)
                    holders[c] = []
                    top -= 1
                chars.append(c)
            r = len(self.runs)
            for c in dict.fromkeys(chars):
                holders[c].append(r)
            self.runs.append("".join(chars))
            self.weights.append(weight)
            if whole:
                self.whole.add(r)
        #: the lowest lock character's code point: token ids must stay below it
        self.lowest_lock = top + 1
        #: unit characters that are unlocked tokens
        self.free: set[str] = set()
        #: pair key -> count (counted pairs only, positive counts only)
        self.pair_counts: dict[str, int] = {}
        #: unlocked token id -> the runs that may hold it (its pre-token's, or those its
        #: supermerge rewrote): where a supermerge of it looks
        self.token_runs: dict[int, set[int]] = {}
        #: unlocked token id -> its occurrences as a unit in the corpus (the reference's
        #: superword token counts, which its supermerges print)
        self.token_counts: dict[int, int] = {}
        self.heap: list[tuple] = []
        #: ``make_entry(pair, count)``: the heap entry of a pair (the trainer's queue's, under
        #: the config's tie-break rule: the reference's order is lexical-min's); set by the variant
        self.make_entry: Callable[[str, int], tuple] = lambda p, c: (-c, p)

    def check_room(self, vocab_size: int) -> None:
        """BPEError when the token ids a run to ``vocab_size`` needs would reach the lock characters."""
        if vocab_size >= self.lowest_lock:
            raise BPEError(
                f"BoundlessBPE: {len(self.lock_of):,} distinct pre-tokens that may join leave room for {self.lowest_lock:,} "
                f"token ids, fewer than the vocabulary size {vocab_size:,}"
            )

    # ------------------------------------------------------------------ counts

    def _apply(self, deltas: Mapping[str, int]) -> None:
        """Add pair-count changes; queue every pair whose count rose."""
        pc = self.pair_counts
        heap, entry = self.heap, self.make_entry
        for p, d in deltas.items():
            if not d:
                continue
            after = pc.get(p, 0) + d
            if after:
                pc[p] = after
                if d > 0:
                    heapq.heappush(heap, entry(p, after))
            else:
                del pc[p]

    def best(self, made: Callable[[str], bool]) -> tuple | None:
        """The best valid heap entry (left where it is), skipping and dropping pairs that
        would make a token that exists (``made(pair)``), or None."""
        heap, pc, entry = self.heap, self.pair_counts, self.make_entry
        while heap:
            top = heap[0]
            pair = top[-1]
            count = pc.get(pair, 0)
            if count == 0 or made(pair):
                heapq.heappop(heap)
                continue
            if count != -top[0]:
                heapq.heappop(heap)
                fresh = entry(pair, count)
                if fresh > top:
                    heapq.heappush(heap, fresh)
                continue
            return top
        return None

    def push(self, pair: str) -> None:
        """Queue ``pair`` afresh where it counts (a token it would make was taken back)."""
        count = self.pair_counts.get(pair)
        if count:
            heapq.heappush(self.heap, self.make_entry(pair, count))

    # ------------------------------------------------------------------ unlocking

    def unlock(self, text: str, token: int, count: int) -> bool:
        """Pre-token ``text`` is a whole token now (``token``), and occurs ``count`` times in
        the corpus: its units become that token and count with their unlocked neighbours.
        False when no run holds it (nothing changes)."""
        lock = self.lock_of.get(text)
        if lock is None:
            return False
        c = chr(token)
        self.free.add(c)
        self.token_counts[token] = count
        runs, weights = self.runs, self.weights
        free = self.free
        deltas: dict[str, int] = {}
        get = deltas.get
        self.token_runs[token] = set(self.holders[lock])
        for r in self.holders[lock]:
            run = runs[r].replace(lock, c)
            runs[r] = run
            w = weights[r]
            i = run.find(c)
            if run.find(c, i + 1) < 0:  # (the usual case, inline: one place, its two neighbours)
                if i and (x := run[i - 1]) in free:
                    p = x + c
                    deltas[p] = get(p, 0) + w
                if i + 1 < len(run) and (y := run[i + 1]) in free:
                    p = c + y
                    deltas[p] = get(p, 0) + w
                continue
            for p in _pairs_with(run, c, free):
                deltas[p] = get(p, 0) + w
        self._apply(deltas)
        return True

    def relock(self, text: str, token: int) -> None:
        """Undo :meth:`unlock` of ``text`` as ``token``."""
        lock = self.lock_of[text]
        c = chr(token)
        runs, weights = self.runs, self.weights
        free = self.free
        deltas: dict[str, int] = {}
        get = deltas.get
        for r in self.holders[lock]:
            run = runs[r]
            w = weights[r]
            for p in _pairs_with(run, c, free):
                deltas[p] = get(p, 0) - w
            runs[r] = run.replace(c, lock)
        free.discard(c)
        del self.token_counts[token]
        del self.token_runs[token]
        self._apply(deltas)

    # ------------------------------------------------------------------ supermerges

    def merge(self, pair: str, new: int) -> tuple[list[int], int, bool]:
        """Join every ``pair`` of every run into the token ``new`` (left to right, without
        overlaps). The new token is unlocked unless it joined two equal tokens: that one stays
        locked (the reference's path for it never unlocks it), unless a whole document became
        that one token. Returns ``(runs rewritten, how many joins, whether it is unlocked)``."""
        nc = chr(new)
        runs, weights, free = self.runs, self.weights, self.free
        touched: list[int] = []
        olds: list[str] = []
        joins = 0
        for r in sorted(self.token_runs[ord(pair[0])] & self.token_runs[ord(pair[1])]):
            old = runs[r]
            run = old.replace(pair, nc)
            if run is old:
                continue
            touched.append(r)
            olds.append(old)
            runs[r] = run
            joins += (len(old) - len(run)) * weights[r]
        unlocked = pair[0] != pair[1] or any(r in self.whole and len(runs[r]) == 1 for r in touched)
        if unlocked:
            free.add(nc)
            self._local(pair, nc, touched, olds)
        else:
            self._recount(touched, olds)
        counts = self.token_counts
        a, b = ord(pair[0]), ord(pair[1])
        counts[a] -= joins
        counts[b] -= joins
        counts[new] = joins
        self.token_runs[new] = set(touched)
        return touched, joins, unlocked

    def unmerge(self, pair: str, new: int, touched: Sequence[int], joins: int) -> None:
        """Undo :meth:`merge` of ``pair`` into ``new``, which rewrote the runs ``touched``."""
        nc = chr(new)
        runs = self.runs
        olds = [runs[r] for r in touched]
        for r in touched:
            runs[r] = runs[r].replace(nc, pair)
        self._recount(touched, olds)
        self.free.discard(nc)
        del self.token_runs[new]
        counts = self.token_counts
        del counts[new]
        counts[ord(pair[0])] += joins
        counts[ord(pair[1])] += joins

    def _local(self, pair: str, nc: str, touched: Sequence[int], olds: Sequence[str]) -> None:
        """The pair counts after a supermerge of two different tokens into ``nc`` (unlocked)
        rewrote ``touched`` runs from ``olds``: around each place, ``(x, a)`` becomes ``(x, nc)``
        and ``(b, y)`` becomes ``(nc, y)`` where ``x`` and ``y`` count, as the trainer's
        merge_word does. A run with two equal units side by side before or after (whose pairs
        count without overlap) is recounted whole instead."""
        runs, weights, free = self.runs, self.weights, self.free
        deltas: dict[str, int] = {}
        get = deltas.get
        whole_r, whole_old = [], []
        a, b = pair[0], pair[1]
        double = nc + nc
        for r, old in zip(touched, olds):
            run = runs[r]
            if double in run or _SIDE_BY_SIDE.search(old):
                whole_r.append(r)
                whole_old.append(old)
                continue
            w = weights[r]
            n = len(old)
            i = old.find(pair)
            while i >= 0:
                deltas[pair] = get(pair, 0) - w
                if i and (x := old[i - 1]) in free:
                    p = x + a
                    deltas[p] = get(p, 0) - w
                    p = x + nc
                    deltas[p] = get(p, 0) + w
                if i + 2 < n and (y := old[i + 2]) in free:
                    p = b + y
                    deltas[p] = get(p, 0) - w
                    p = nc + y
                    deltas[p] = get(p, 0) + w
                i = old.find(pair, i + 2)
        self._apply(deltas)
        if whole_r:
            self._recount(whole_r, whole_old)

    def _recount(self, touched: Sequence[int], olds: Sequence[str]) -> None:
        """The pair counts after ``touched`` runs changed from ``olds`` to what they hold now."""
        runs, weights, free = self.runs, self.weights, self.free
        deltas: dict[str, int] = {}
        get = deltas.get
        for r, old in zip(touched, olds):
            w = weights[r]
            for p, k in counted_pairs(old, free).items():
                deltas[p] = get(p, 0) - k * w
            for p, k in counted_pairs(runs[r], free).items():
                deltas[p] = get(p, 0) + k * w
        self._apply(deltas)

    # ------------------------------------------------------------------ check mode

    def problem(self) -> str | None:
        """The first count that disagrees with a recount of every run, in words (None: none)."""
        recount: dict[str, int] = {}
        for r, (run, w) in enumerate(zip(self.runs, self.weights)):
            for p, k in counted_pairs(run, self.free).items():
                recount[p] = recount.get(p, 0) + k * w
                if r not in self.token_runs.get(ord(p[0]), ()):
                    return f"run {r} holds the token {ord(p[0])} but the token -> runs index does not say so"
        if recount != self.pair_counts:
            wrong = next(p for p in set(recount) | set(self.pair_counts) if recount.get(p, 0) != self.pair_counts.get(p, 0))
            return (
                f"the supermerge pair {[ord(c) for c in wrong]} has count {self.pair_counts.get(wrong, 0):,}, "
                f"a recount of the runs finds {recount.get(wrong, 0):,}"
            )
        return None

    def sizes(self) -> dict[str, Any]:
        """How big the state is, for a benchmark's notes."""
        return {"runs": len(self.runs), "units": sum(map(len, self.runs)), "pre-tokens": len(self.lock_of)}
