"""Plain BPE: merge the most frequent pair; nothing happens after a merge.

Sennrich et al. (2016) took Gage's 1994 compression algorithm and ran it inside words: count
every adjacent pair of symbols in the corpus (each word weighted by its frequency), merge the
most frequent pair everywhere into one new symbol, and repeat. Every tool since (GPT-2's,
sentencepiece's, Hugging Face's, tiktoken's trainers) makes this same choice at every step;
they differ only in which pair wins when several share the highest count, which is the
config's tie-break rule (:mod:`~bpe_tui.core.engine.tiebreak`).

In the trainer this is one look at its priority queue, whose entries are ordered by
``(-count, tie-break key)``: the first valid entry is the pair to merge. The entries right
behind it at the same count are the pairs it tied with, which the merge event lists and its
explanation compares it with. After the merge, plain BPE does nothing more
(``acts_after_merge`` is False), so the seam costs it one method call per step.
"""

from __future__ import annotations

from ..events import TIES_LISTED
from ..speed import surface_pairs
from .seam import Bench, ChoiceTuple, Variant

__all__ = ["PlainBPE"]


class PlainBPE(Variant):
    """The most frequent pair, ties broken by the config's rule."""

    name = "plain"

    def choose(self, bench: Bench, respect_target: bool) -> ChoiceTuple | str:
        queue = bench.queue
        best = queue.pop()  # one pop: the stop check and the merge share it
        entry = best[0] if best else None
        reason = bench.stop_reason_for(entry, respect_target)
        if reason is not None:
            if entry is not None:
                queue.put_back(entry)  # not merged: back to the head of the queue
            return reason
        assert entry is not None  # (no entry to merge is a stop reason)
        count = -entry[0]
        # (plain tuples, the fields of a Choice: see ChoiceTuple)
        # Ties: how many other pairs share this count (the pair itself is counted in the
        # histogram), and the first few of them by name. They are exactly the next valid
        # entries, so peek no further than needed.
        tie_count = bench.state.count_hist[count] - 1
        if not tie_count:
            return (entry[-1], count, 0, (), entry, None, None)
        listed = tie_count if tie_count < TIES_LISTED else TIES_LISTED
        tied = queue.peek(listed)
        # Valid entries come out in order and a valid copy of an entry equals it, so a
        # second valid copy of this pair's entry (rare) would come first: skip it.
        if tied and tied[0] == entry:
            tied = queue.peek(listed + 1)[1:]
        if tied and tied[-1][0] != entry[0]:  # pairs a constraint forbids are counted, never queued
            tied = [e for e in tied if e[0] == entry[0]]
        return (entry[-1], count, tie_count, surface_pairs(bench.state.surfaces, tied), entry, tied[0] if tied else None, None)

    def plain_words(self, bench: Bench) -> dict[str, int] | None:
        """None: plain BPE is what the others are measured against."""
        return None if type(self) is PlainBPE else super().plain_words(bench)

    def next_pick(self, bench: Bench) -> tuple | None:
        """None: plain BPE's pick is the leader (and so are its subclasses', which keep its choice)."""
        return None

    def peek(self, bench: Bench) -> tuple | None:
        best = bench.queue.peek(1)
        return best[0] if best else None
