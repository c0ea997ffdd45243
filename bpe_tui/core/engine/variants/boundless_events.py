"""What BoundlessBPE's steps say of themselves: why a supermerge or a word merge was chosen
(a merge event's ``reason``), and a deletion (in the merge event's ``after``). The variant is
:mod:`~bpe_tui.core.engine.variants.boundless`."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..tiebreak import show
from .seam import MergedElsewhere

__all__ = ["DeletionEvent", "Supermerge", "WordMerge"]


@dataclass(frozen=True)
class Supermerge(MergedElsewhere):
    """Why a supermerge was chosen (a merge event's ``reason``): two whole pre-tokens stood
    side by side ``count`` times, at least as often as the best pair inside a pre-token.

    Attributes:
        left: The first pre-token's token.
        right: The second's.
        count: How many times they stand side by side, both whole (without overlap).
        left_count: How many times the first stands as a unit in the documents.
        right_count: The same for the second.
        rival: The best pair inside a pre-token then (None: none), and its count.
        unlocked: Whether the new token may join again (not when it joined two equal tokens).
    """

    left: bytes
    right: bytes
    count: int
    left_count: int
    right_count: int
    rival: tuple[tuple[bytes, bytes], int] | None = None
    unlocked: bool = True

    kind = "supermerge"

    def __str__(self) -> str:
        pair = f"{show(self.left)} + {show(self.right)}"
        text = f"a supermerge: {pair}: both whole tokens, {self.count:,} times side by side"
        if self.rival is None:
            return text + " (no pair inside a pre-token is left)"
        (a, b), n = self.rival
        tie = "as often as" if n == self.count else "more often than"
        return text + f", {tie} the best pair inside a pre-token, {show(a)} + {show(b)} ({n:,})" + ("; ties go to the supermerge" if n == self.count else "")


@dataclass(frozen=True)
class WordMerge:
    """Why an ordinary merge was chosen (a merge event's ``reason``): its count beat the best
    supermerge's (None: there was none), and the counts its deletion rule read."""

    count: int
    left_count: int
    right_count: int
    rival: tuple[tuple[bytes, bytes], int] | None = None

    kind = "word merge"

    def __str__(self) -> str:
        if self.rival is None:
            return "the most frequent pair inside a pre-token"
        (a, b), n = self.rival
        return f"the most frequent pair inside a pre-token, more often than the best supermerge, {show(a)} + {show(b)} ({n:,})"


@dataclass(frozen=True)
class DeletionEvent:
    """A token BoundlessBPE deleted right after merge ``step`` (in the merge event's ``after``).

    Attributes:
        step: The merge after which it was deleted.
        token: The token deleted (its id stays taken: it is never made again).
        token_id: Its id.
        parts: What each of its remaining occurrences was split into.
        part_ids: Their ids.
        inside: The token merge ``step`` made.
        ios: The merge's count over the token's own count before the merge.
        threshold: τ, which ``ios`` reached.
        freq: Its occurrences left on their own after the merge (what was split).
        merged: The merge's count.
        words_touched: The words where it was split.
        total_tokens: The corpus's length after the deletion.
        vocab_size: The vocabulary's size after it (deleted tokens count, as the reference counts).
    """

    step: int
    token: bytes
    token_id: int
    parts: tuple
    part_ids: tuple[int, ...]
    inside: bytes
    ios: float
    threshold: float
    freq: int
    merged: int
    words_touched: tuple[int, ...] = field(repr=False)
    total_tokens: int
    vocab_size: int

    @property
    def explanation(self) -> str:
        """One sentence: why the token went, and what it became."""
        token, inside = show(self.token), show(self.inside)
        parts = " + ".join(show(p) for p in self.parts)
        if not self.freq:
            rest = f"none is left on its own (it would split into {parts})"
        else:
            rest = f"the {self.freq:,} left {'is' if self.freq == 1 else 'are'} split into {parts}"
        return (
            f"deleted {token}: IoS {self.ios:.3g} >= {self.threshold:g}: {self.merged:,} of its {self.merged + self.freq:,} "
            f"occurrences went into {inside}; {rest}"
        )
