"""How counts are written for people, in one place: ``plural(1, "token")`` is "1 token",
``plural(12345, "merge")`` is "12,345 merges" (thousands separated, as everywhere else), and
merges are numbered from 1 (``merge_number``)."""

from __future__ import annotations


def plural(n: int, noun: str, nouns: str | None = None) -> str:
    """``n`` and the noun, singular for exactly one: "1 token", "0 tokens", "2 children"
    (``nouns`` for a plural that is not ``noun`` + "s")."""
    return f"{n:,} {noun if n == 1 else (nouns or noun + 's')}"


def merge_number(rank: int) -> int:
    """The number a person reads for the merge at 0-based ``rank``: merges count from 1.

    The library's ranks are indices (``TraceStep.rank``, ``MergeTable.rank_of``: the first
    merge is rank 0); every label on screen and in the CLI says "merge N" with N from here.
    """
    return rank + 1
