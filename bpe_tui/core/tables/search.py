"""Searching a table's tokens by their text (:meth:`MergeTable.search`).

The tokens' texts are worked out once per table into a :class:`SearchIndex`: one string with a
line per token, shortest readable text first, so that ``str.find`` (in C) walks them and a
search stops as soon as it has found enough. The first search of a 200,000-token table takes a
second or two (building the index); the next ones milliseconds.

This module is part of MergeTable's implementation, kept apart for length: it reads the names
in :class:`Searched` and imports nothing of the table's module.
"""

from __future__ import annotations

import bisect
import itertools
from collections.abc import Callable, Iterator
from typing import Protocol

from ..engine.units import text_of, visible
from ..types import Surface


class Searched(Protocol):
    """What this module reads of a MergeTable."""

    _vocab: dict[int, Surface]

    def token_id(self, surface: Surface) -> int | None: ...

    def display(self, token_id: int) -> str: ...


class SearchIndex:
    """Every token's readable text and raw text, lowercased and joined by NUL, a line per
    token, shortest readable text first (``haystack``); the lines' starts; their token ids."""

    def __init__(self, vocab: dict[int, Surface], end_of_word: str | None):
        rows = []
        for token_id, surface in vocab.items():
            raw = text_of(surface)
            text = visible(surface, end_of_word)
            rows.append((len(text), token_id, text.lower() + "\x00" + raw.lower().replace("\n", "\x00")))
        rows.sort()
        lines = [line for _, _, line in rows]
        self.starts = list(itertools.accumulate((len(line) + 1 for line in lines[:-1]), initial=0))
        self.haystack = "\n".join(lines)
        self.ids = [token_id for _, token_id, _ in rows]

    def matches(self, q: str) -> Iterator[int]:
        """Line numbers of the index holding ``q``, in order, found by ``str.find`` in C."""
        haystack, starts = self.haystack, self.starts
        pos = haystack.find(q)
        while pos >= 0:
            k = bisect.bisect_right(starts, pos) - 1
            yield k
            pos = haystack.find(q, starts[k + 1]) if k + 1 < len(starts) else -1


def search(table: Searched, index: SearchIndex, query: str, limit: int = 200, cancelled: Callable[[], bool] | None = None) -> list[int]:
    """Token ids whose readable text contains ``query`` (see :meth:`MergeTable.search`)."""
    vocab = table._vocab
    hits: list[int] = []
    if query.strip().isdigit() and int(query) in vocab:
        hits.append(int(query))
    for surface in (query, query.encode("utf-8")):
        found = table.token_id(surface)
        if found is not None and found not in hits:
            hits.append(found)
    q = query.lower()
    if not q:
        return hits[:limit]
    ids = index.ids
    if "\n" in q or "\x00" in q:  # the index has no line breaks inside a line: look token by token
        matches: Iterator[int] = (k for k, t in enumerate(ids) if q in text_of(vocab[t]).lower())
    else:
        matches = index.matches(q)
    for n, k in enumerate(matches):
        if n % 256 == 0 and cancelled is not None and cancelled():
            return []
        if ids[k] not in hits:
            hits.append(ids[k])
            if len(hits) >= limit:
                break
    by_id = hits[:1] if query.strip().isdigit() and int(query) in vocab else []
    exact = [t for t in hits if t not in by_id and table.display(t) == query]
    return (by_id + exact + [t for t in hits if t not in by_id and t not in exact])[:limit]
