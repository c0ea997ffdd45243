"""MinWords: BPE that merges only the pairs several words share.

A BPE variant written outside bpe-tui, against its public seam alone (``bpe_tui.Variant``);
the docs page "Write your own variant" builds it from an empty file.

The idea. Plain BPE merges the most frequent pair, each word's occurrences counted. A pair can
be frequent because one word is: a name said on every page, a word a text repeats. Its merge
spends a place in the vocabulary on a piece of that one word. MinWords merges the most
frequent pair *that occurs in at least ``min_words`` distinct words*; a pair fewer words hold
waits until it is the most frequent of those that qualify, or for ever. A threshold on how
many word types hold a pair, not on how often it occurs: a choice a paper on how a vocabulary
is spent could propose.
"""

from __future__ import annotations

from bpe_tui import Bench, Choice, Option, Variant


def at_least_one(n: int) -> str | None:
    """What is wrong with a ``min_words`` value, if anything."""
    return None if n >= 1 else f"must be 1 or more, not {n}"


class MinWords(Variant):
    """The most frequent pair among those that occur in ``min_words`` distinct words or more."""

    name = "min-words"
    title = "MinWords (an example: merge only pairs several words share)"
    options = (
        Option("min_words", int, 2, check=at_least_one, help="merge only pairs that occur in at least N distinct words"),
    )

    def __init__(self, min_words: int = 2) -> None:
        self.min_words = min_words

    def describe(self) -> str:
        return f"min-words {self.min_words}"

    def summary(self, bench: Bench) -> list[str]:
        """What ``bpe-tui train`` prints after training: how often the threshold decided."""
        passed = sum(1 for event in bench.history if "did not" in str(event.reason))
        return [f"min-words {self.min_words}: {passed:,} of {len(bench.history):,} merges passed over a more frequent pair"]

    # ------------------------------------------------------------------ which pair

    def words_holding(self, bench: Bench, pair: str) -> int:
        """In how many distinct words ``pair`` (a pair key) occurs now, counted up to
        ``min_words`` (no need to count further)."""
        state = bench.state
        held = 0
        for w in state.where.get(pair, ()):  # (a superset: check each word)
            if pair in state.words[w]:
                held += 1
                if held == self.min_words:
                    break
        return held

    def best(self, bench: Bench) -> tuple[tuple | None, list[tuple]]:
        """The first queue entry whose pair enough words hold (None: none), and the entries
        before it, which fewer words hold. The queue is read in its order, a few entries at a
        time, and left as it was."""
        k = 16
        while True:
            entries = bench.queue.peek(k)
            for i, entry in enumerate(entries):
                if self.words_holding(bench, entry[-1]) >= self.min_words:
                    return entry, entries[:i]
            if len(entries) < k:  # the whole queue read
                return None, entries
            k *= 4

    def why_none(self) -> str:
        return f"every pair left occurs in fewer than {self.min_words} distinct words: min-words stops here"

    @staticmethod
    def shown(bench: Bench, pair: str) -> str:
        """A pair key as people read it: ``t + he`` (bytes decoded, spaces as ·)."""
        parts = []
        for ch in pair:
            surface = bench.state.surfaces[ord(ch)]
            text = surface.decode("utf-8", "replace") if isinstance(surface, bytes) else surface
            parts.append(text.replace(" ", "·"))
        return " + ".join(parts)

    # ------------------------------------------------------------------ the seam

    def choose(self, bench: Bench, respect_target: bool):
        entry, skipped = self.best(bench)
        if entry is None and skipped:
            return self.why_none()
        stop = bench.stop_reason_for(entry, respect_target)
        if stop is not None:
            return stop
        assert entry is not None
        if skipped:
            first = skipped[0]
            held = self.words_holding(bench, first[-1])
            why = (f"it occurs in {self.min_words} distinct words or more; {len(skipped):,} more frequent "
                   f"pair{'s' if len(skipped) > 1 else ''} did not, the first {self.shown(bench, first[-1])} "
                   f"({-first[0]:,} times, in {held} word{'s' if held != 1 else ''})")
        else:
            why = f"the most frequent pair, and it occurs in {self.min_words} distinct words or more"
        return Choice(entry[-1], -entry[0], reason=why)

    def peek(self, bench: Bench):
        return self.best(bench)[0]

    def stop_reason(self, bench: Bench, respect_target: bool):
        entry, skipped = self.best(bench)
        if entry is None and skipped:
            return self.why_none()
        return bench.stop_reason_for(entry, respect_target)
