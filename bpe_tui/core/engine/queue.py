"""The pair queue: every pair of the corpus, best first, by count and the tie-break rule.

Plain BPE merges the most frequent pair, ties broken by a rule (see
:mod:`~bpe_tui.core.engine.tiebreak`). Scanning every pair at every step would cost as much
as the corpus has pairs; instead the queue is a heap of *entries* ``(-count, *tie-break key,
pair key)``, so that the best pair is the smallest entry. ``entry[0]`` is minus the pair's
count and ``entry[-1]`` its key, the two token ids as a two-character string
(:func:`~bpe_tui.core.engine.speed.key_of`).

Counts change at every merge, and the heap is never searched: a pair whose count rose is
pushed again (:meth:`TrainingState.apply_changes
<bpe_tui.core.engine.state.TrainingState.apply_changes>` does it), and an entry whose count
is no longer the pair's is *stale*: it is dropped or pushed where it belongs when it reaches
the top ("lazy invalidation", :meth:`PairQueue.pop`). Pairs a constraint forbids are skipped
there too. Valid entries taken off by a look ahead (:meth:`PairQueue.peek`) wait in a short
sorted ``front`` and come out before anything in the heap that is greater.

A variant that chooses by the corpus's order uses :meth:`~PairQueue.pop`,
:meth:`~PairQueue.peek` and :meth:`~PairQueue.put_back`; one that keeps the rule's keys
(PickyBPE's order) queues a pair again after its key moved (:meth:`~PairQueue.push`), or
everything (:meth:`~PairQueue.requeue_all`); one with an order of its own (parity-aware BPE:
a queue per language) makes entries of the same shape with :attr:`~PairQueue.make_entry`.
"""

from __future__ import annotations

import heapq
from collections import deque
from typing import Any, Protocol

from .tiebreak import TieBreakRule

__all__ = ["PairQueue", "Counted"]


class Counted(Protocol):
    """What the queue reads of the training state (:class:`~bpe_tui.core.engine.state.TrainingState`)."""

    pair_counts: dict[str, int]
    constrained: bool
    queue: "PairQueue | None"

    def forbids(self, pair: str) -> int: ...

    def first_occurrence(self, pair: str) -> tuple[int, int]: ...


class PairQueue:
    """The corpus's pairs, best first under ``rule`` (see the module docstring)."""

    __slots__ = ("state", "rule", "make_entry", "keys_move", "heap", "front")

    def __init__(self, state: Counted, rule: TieBreakRule) -> None:
        self.state = state
        self.heap: list[tuple] = []
        self.front: deque[tuple] = deque()
        self.set_rule(rule)
        state.queue = self
        self.requeue_all()

    def set_rule(self, rule: TieBreakRule) -> None:
        """Order by ``rule`` from now on (its keys for the tokens there are); the entries
        queued keep their old keys until :meth:`requeue_all`."""
        self.rule = rule
        #: ``make_entry(pair, count)``: the entry of a pair with that count now
        self.make_entry: Any = rule.entry_function(self.state.first_occurrence)
        # The rule's moving_keys, read at every pop: kept here because CPython 3.11 does not
        # specialize reading a class attribute through an instance (self.rule.moving_keys).
        self.keys_move: bool = rule.moving_keys

    def requeue_all(self) -> None:
        """Build the queue afresh from the pair counts (at the start, and when the tie-break
        keys of queued entries may be stale)."""
        entry = self.make_entry
        self.heap = [entry(p, c) for p, c in self.state.pair_counts.items()]
        heapq.heapify(self.heap)
        self.front.clear()

    def push(self, pair: str) -> None:
        """Queue ``pair`` afresh, when it occurs (a variant moved its tie-break key)."""
        count = self.state.pair_counts.get(pair)
        if count:
            heapq.heappush(self.heap, self.make_entry(pair, count))

    def put_back(self, entry: tuple) -> None:
        """Return an entry taken by :meth:`pop` and not merged to the head of the queue."""
        self.front.appendleft(entry)

    def pop(self, k: int = 1) -> list[tuple]:
        """Take the best ``k`` up-to-date entries (distinct pairs), best first (fewer when the
        queue runs out), re-queueing or dropping stale ones on the way.

        The queue is the heap plus a short sorted ``front`` of entries a peek took off (and
        that were no greater than anything in the heap then); the smaller head goes first.
        A step pops one entry, then peeks at the ties behind it: one call each (speed: this
        setup once per peek, not once per entry).
        """
        heap = self.heap
        front = self.front
        state = self.state
        pc = state.pair_counts
        make = self.make_entry
        heappop = heapq.heappop
        heappush = heapq.heappush
        # Only first-seen keys move while a pair's count stays put (see tiebreak.py); under
        # the other rules an entry whose count is current is exactly the entry we would build.
        fixed_keys = not self.keys_move
        forbids = state.forbids if state.constrained else None
        taken: list = []
        if k < 1:
            return taken
        while True:  # (how many are taken is checked only when one is taken)
            if front:
                if heap and heap[0] < front[0]:
                    entry = heappop(heap)
                else:
                    entry = front.popleft()
            elif heap:
                entry = heappop(heap)
            else:
                return taken
            pair = entry[-1]
            count = pc.get(pair, 0)
            if count == 0:
                continue
            if forbids is not None and forbids(pair):
                continue  # a constraint forbids it: never merged (forbidden_pair_count counts it)
            if count != -entry[0] or not fixed_keys:  # the usual case skips this: nothing moved since queued
                fresh = make(pair, count)
                if fresh != entry:
                    if fresh > entry:  # got worse since queued: queue it where it belongs now
                        heappush(heap, fresh)
                    continue  # else: it got better (undo); a fresher entry was queued then, drop this one
            # Valid: its count and key are current, so a valid copy of the same pair equals it,
            # and entries come out in order: a second copy comes right after the first.
            if taken and taken[-1] == entry:
                continue
            taken.append(entry)
            if len(taken) == k:
                return taken

    def peek(self, k: int = 1) -> list[tuple]:
        """The best ``k`` valid entries, distinct pairs, leaving the queue as it was."""
        taken = self.pop(k)
        # They came out smallest first and no greater than anything left: put them in front.
        self.front.extendleft(reversed(taken))
        return taken
