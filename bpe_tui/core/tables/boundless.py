"""Encoding with a BoundlessBPE table: the word events inside each pre-token, then supermerges across them.

BoundlessBPE (Schmidt, Reddy, Tanner and Pinter, COLM 2025) learns three kinds of events in one
sequence: *word merges* (ordinary BPE merges inside a pre-token), *deletions* (PickyBPE's: right
after a merge, a token that the merge used up almost everywhere is split back, into its bytes or
into the pair that made it) and *supermerges*: two adjacent pre-tokens that are each one whole
token, and both made of letters (with spaces, underscores and apostrophes), join into one token,
``·of`` + ``·the`` = ``·of·the``. Its tokenizer (the authors' ``FasterRegexInference``) replays
the whole sequence over the text in order, each event once, everywhere it applies.

That replay comes apart into two passes, which is how this module encodes:

1. **Inside each pre-token**, only word merges and deletions apply, so each pre-token is
   worked out on its own (:meth:`BoundlessEvents.word`: by rank as plain BPE where no deletion
   can touch it, else PickyBPE's replay, :mod:`.removals`, without the supermerges) and
   remembered in the pieces cache. It also tells whether and when the pre-token is *one whole
   token*: from the merge that made it (``since``) until a deletion splits that token again, if
   one does (``until``). That is a :data:`Join`.
2. **Across pre-tokens**, the supermerges: among adjacent items that are whole at the moment of
   a supermerge, the earliest supermerge applies first, leftmost first, without overlaps, and
   its result is whole from then on (a supermerge's token can join again: ``·of·the`` +
   ``·world``). Only runs of pre-tokens that some supermerge could cross between are worked on
   (:meth:`Joiner.joined`; :meth:`BoundlessEvents.run`), each run remembered.

Event positions are :mod:`.removals`' (merge ``r``, 0-based, at ``(r + 1) * SLOTS``, the
deletions after merge ``k`` just after it), so that "whole at the moment of a supermerge" is a
comparison of positions. A table is BoundlessBPE's when its ``config["supermerges"]`` lists the
1-based numbers of its merges that are supermerges (an empty list: none yet); its deletions are
``config["removals"]`` as for PickyBPE. What the authors' code does, and where, is told in
docs/variants/boundless.md.

Everything here is Python, the reference. Where the compiled core runs, its ``Supermerges``
does pass 2 and the first pass over a new pre-token in C (:meth:`Joiner.joined`), held to
:meth:`Joiner.joined_python` and :meth:`BoundlessEvents.run` by tests/core/test_merge_core.py.
"""

from __future__ import annotations

import heapq
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from itertools import chain
from typing import Any

from ..engine.merge_core import compiled, pair_merger
from ..engine.merging import CACHE_LIMIT, PieceCache
from ..errors import BPEError
from .removals import SLOTS, Removals, ReplayLog

__all__ = ["BoundlessEvents", "Join", "Joiner", "crossings", "supermerge_numbers"]

#: Where a pre-token is one whole token: ``(token id, since, until)`` in event positions (it is
#: whole after the event at ``since`` and before the one at ``until``); None where it never is
#: one that a supermerge takes.
Join = tuple[int, int, int] | None
#: A position after every event.
NEVER = 1 << 62
#: From this many pre-tokens on, a run is joined with a heap (BoundlessEvents._long_run).
LONG_RUN = 64
#: The Join a pre-token that never joins has in the encoder's cache (its token -1: no pair).
APART = (-1, NEVER, -1)
#: Runs of adjacent pre-tokens a supermerge may cross, in a mask of one byte per boundary.
_LINKS = re.compile(rb"\x01+")


def supermerge_numbers(config: Mapping[str, Any], merges: int, where: str) -> list[int]:
    """The 1-based merge numbers ``config["supermerges"]`` lists, checked (a one-line BPEError)."""
    numbers = config.get("supermerges")
    if not isinstance(numbers, list) or not all(isinstance(n, int) and not isinstance(n, bool) for n in numbers):
        raise BPEError(f"{where}: config.supermerges: expected a list of merge numbers")
    for n in numbers:
        if not 1 <= n <= merges:
            raise BPEError(f"{where}: config.supermerges: merge {n} is not one of the table's {merges:,} merges")
    if len(set(numbers)) != len(numbers):
        raise BPEError(f"{where}: config.supermerges: a merge is listed twice")
    return sorted(numbers)


def crossings(merges: Sequence[tuple[int, int, int]], supermerges: Iterable[int], surface: Callable[[int], Any]) -> dict[int, tuple[int, ...]]:
    """Where each supermerge's token crosses pre-token boundaries: token id -> the offsets
    (in its bytes) of every boundary inside it (``·of·the``: (3,); ``·of·the·king``: (3, 7)).
    ``merges``: the table's ``(left, right, new)``; ``supermerges``: the 1-based numbers of
    those that are supermerges; ``surface``: a token's bytes by id."""
    out: dict[int, tuple[int, ...]] = {}
    for number in sorted(supermerges):
        a, b, new = merges[number - 1]
        cut = len(surface(a))
        out[new] = out.get(a, ()) + (cut,) + tuple(cut + x for x in out.get(b, ()))
    return out


class BoundlessEvents(Removals):
    """A BoundlessBPE table's events, indexed for encoding: the word merges and deletions
    (:class:`Removals`, without the supermerges) and the supermerges (``super_pairs``).

    ``supermerges``: the 1-based numbers of the merges that are supermerges (see
    :func:`supermerge_numbers`).
    """

    def __init__(
        self, entries: Sequence[Any], merges: Sequence[tuple[int, int, int]], vocab: Mapping[int, Any],
        where: str, supermerges: Sequence[int],
    ):
        super().__init__(entries, merges, vocab, where)
        #: (left, right) -> (position, the token it makes) of each supermerge
        self.super_pairs: dict[tuple[int, int], tuple[int, int]] = {}
        self.super_at = frozenset(number * SLOTS for number in supermerges)
        for number in supermerges:
            a, b, new = merges[number - 1]
            pos = number * SLOTS
            self.merge_at[(a, b)].remove(pos)  # (a supermerge never applies inside a pre-token)
            if not self.merge_at[(a, b)]:
                del self.merge_at[(a, b)]
            self.super_pairs.setdefault((a, b), (pos, new))
        #: the 1-based numbers of the supermerges
        self.supermerges: list[int] = list(supermerges)
        #: the tokens a supermerge takes, on either side
        self.joining: frozenset[int] = frozenset(chain.from_iterable(self.super_pairs))
        # Where a supermerge may ever cross between two whole pre-tokens: a supermerge (a, b)
        # joins something ending in a's last pre-token to something starting with b's first.
        first: dict[int, int] = {}
        last: dict[int, int] = {}
        for number in self.supermerges:
            a, b, new = merges[number - 1]
            first[new], last[new] = first.get(a, a), last.get(b, b)
        #: (last pre-token's token on the left, first one's on the right) of every supermerge
        self.crossing: frozenset[tuple[int, int]] = frozenset((last.get(a, a), first.get(b, b)) for a, b in self.super_pairs)
        # The fast path of a pre-token (see word): the word merges by rank, where the made
        # token -> its position, and the tokens whose making took a deleted token at some step.
        word_ranks: dict[tuple[int, int], int] = {}
        made_by: dict[tuple[int, int], int] = {}
        self.made_at: dict[int, int] = {}
        tainted: set[int] = set()
        for rank, (a, b, new) in enumerate(merges):
            pos = (rank + 1) * SLOTS
            if pos in self.super_at:
                continue
            word_ranks.setdefault((a, b), rank)
            made_by.setdefault((a, b), new)
            self.made_at.setdefault(new, pos)
            if new in self.split_at or a in tainted or b in tainted:
                tainted.add(new)
        #: the word merges' index, (pair -> rank, pair -> the token it makes): the merge list
        #: without the supermerges, as :func:`~bpe_tui.core.engine.merging.pair_merges` reads it
        self.word_index = (word_ranks, made_by)
        self._merge_words = pair_merger(word_ranks, made_by)
        #: the tokens whose making took a token some deletion splits (see :meth:`word`)
        self.tainted = frozenset(tainted)

    # ------------------------------------------------------------------ one pre-token

    def word(self, symbols: list[int]) -> tuple[tuple[int, ...], Join]:
        """A pre-token's ids (its base ids with the word events replayed) and its :data:`Join`.

        Fast path: merged by rank as plain BPE (:func:`~bpe_tui.core.engine.merging.merge_pairs`),
        which is the replay itself when no token made on the way was ever deleted (every token
        made on the way is in the merge tree of a token it ends with: none is "tainted")."""
        merged = self._merge_words(symbols)
        if self.tainted.isdisjoint(merged):
            if len(merged) != 1 or merged[0] not in self.joining:
                return tuple(merged), None
            return tuple(merged), (merged[0], self.made_at.get(merged[0], -1), NEVER)
        log = ReplayLog()
        ids = tuple(self.replay(symbols, log))
        if not self.super_pairs:
            return ids, None
        since, token = (-1, symbols[0]) if len(symbols) == 1 else (None, None)
        until = NEVER
        for position, _, after in log.events:
            if since is None:
                if len(after) == 1:
                    since, token = position, after[0]
            else:  # the first event after it was whole: a deletion of its token
                until = position
                break
        if since is None or token not in self.joining:
            return ids, None
        return ids, (token, since, until)

    # ------------------------------------------------------------------ across pre-tokens

    def run(self, joins: list[Join]) -> list[tuple[int, int | None]]:
        """The supermerges over a run of pre-tokens that each are whole at some point: per item
        left, ``(its first pre-token, None)`` for one no supermerge took (it keeps its own ids),
        ``(its first pre-token, token id)`` for a supermerge's token. Repeatedly the adjacent
        pair whose supermerge comes first (leftmost on ties) and whose items are both whole at
        that moment joins, as in :func:`~bpe_tui.core.engine.merging.merge_pairs` (a long run:
        with a heap, :meth:`_long_run`)."""
        if len(joins) >= LONG_RUN:
            return self._long_run(joins)
        token, since, until = _columns(joins)
        first = list(range(len(joins)))
        merged: list[int | None] = [None] * len(joins)
        get = self.super_pairs.get

        def when(i: int) -> int:  # the position at which items i and i + 1 join, or NEVER
            found = get((token[i], token[i + 1]))
            if found is None:
                return NEVER
            pos = found[0]
            return pos if since[i] < pos < until[i] and since[i + 1] < pos < until[i + 1] else NEVER

        r = [when(i) for i in range(len(token) - 1)]
        best = min(r)
        while best != NEVER:
            i = r.index(best)
            token[i] = merged[i] = get((token[i], token[i + 1]))[1]  # type: ignore[index]
            since[i], until[i] = best, NEVER
            for column in (token, since, until, first, merged):
                del column[i + 1]
            del r[i]
            if i:
                r[i - 1] = when(i - 1)
            if i < len(r):
                r[i] = when(i)
            best = min(r, default=NEVER)
        return list(zip(first, merged))

    def _long_run(self, joins: list[Join]) -> list[tuple[int, int | None]]:
        """:meth:`run` with a heap of the adjacent pairs by position (then by place: leftmost
        first), for a run so long that finding the first pair again and again would cost."""
        n = len(joins)
        token, since, until = _columns(joins)
        merged: list[int | None] = [None] * n
        nxt = list(range(1, n + 1))
        prev = list(range(-1, n - 1))
        pairs = self.super_pairs
        heap = [(found[0], i) for i in range(n - 1) if (found := pairs.get((token[i], token[i + 1]))) is not None]
        heapq.heapify(heap)

        def push(i: int) -> None:  # the pair of i and the item now on its right, if it is a supermerge
            j = nxt[i]
            if j < n and (found := pairs.get((token[i], token[j]))) is not None:
                heapq.heappush(heap, (found[0], i))

        while heap:
            pos, i = heapq.heappop(heap)
            j = nxt[i]
            if j >= n or token[i] < 0:
                continue  # (i was taken by a merge on its left, or has nothing on its right now)
            found = pairs.get((token[i], token[j]))
            if found is None or found[0] != pos:
                continue  # (i or j changed since this entry was pushed)
            if not (since[i] < pos < until[i] and since[j] < pos < until[j]):
                continue  # not both whole at that moment: this supermerge never applies here
            token[i] = merged[i] = found[1]
            since[i], until[i] = pos, NEVER
            token[j] = -1
            nxt[i] = nxt[j]
            if nxt[i] < n:
                prev[nxt[i]] = i
            push(i)
            if prev[i] >= 0:
                push(prev[i])
        out = []
        i = 0
        while i < n:
            out.append((i, merged[i]))
            i = nxt[i]
        return out


def _columns(joins: list[Join]) -> tuple[list[int], list[int], list[int]]:
    """A run's tokens, sinces and untils, as three lists (every Join of a run is a tuple)."""
    token, since, until = map(list, zip(*joins))
    return token, since, until


class Joiner:
    """A table encoder's BoundlessBPE pass (see the module docstring): its pre-tokens' Joins,
    remembered beside the pieces cache, and the supermerges over a text's pre-tokens.

    ``base_ids``: a pre-token's base ids (the encoder's); ``word_merger``: where the compiled
    core runs, a ``Merger`` of the word merges that goes from a pre-token's bytes to its
    merged ids (the encoder's ``NewPieces.word_merger``), or None."""

    def __init__(self, events: BoundlessEvents, cache: PieceCache, base_ids: Callable[[str], list[int]], word_merger: Any = None):
        self.events = events
        self._pieces = cache
        self._ids_of = cache.__getitem__
        self._base_ids = base_ids
        #: pre-token -> its Join, APART for one that never joins (filled with the pieces cache
        #: by :meth:`work_out`)
        self.joins = PieceCache(compute=lambda word: events.word(base_ids(word))[1] or APART)
        self._join_of = self.joins.__getitem__
        #: pre-token -> the token of its Join (-1: it never joins), for the pass over a text
        self.tokens = PieceCache(compute=lambda word: self._join_of(word)[0])
        self._token_of = self.tokens.__getitem__
        #: a run of pre-tokens that may join -> per pre-token, what it gives (see :meth:`joined`)
        self.runs: dict[tuple[str, ...], tuple[tuple[int, ...], ...]] = {}
        core = compiled()
        #: the compiled core's supermerges (None: the Python path runs), whose ``join_words``
        #: is :meth:`joined_python`'s twin. Given the encoder's compiled ``word_merger`` (its
        #: word merges, bytes to ids), it also works out a pre-token none of whose tokens a
        #: deletion touches (:meth:`BoundlessEvents.word`'s fast path) without coming here.
        self.compiled = None if core is None else core.Supermerges(
            events.super_pairs, events.crossing, LONG_RUN, word_merger, events.tainted, events.joining, events.made_at,
        )

    def work_out(self, word: str) -> tuple[int, ...]:
        """A pre-token's ids for the pieces cache (its Join is remembered on the way)."""
        ids, join = self.events.word(self._base_ids(word))
        join = join or APART
        self.joins.remember(word, join)
        self.tokens.remember(word, join[0])  # type: ignore[arg-type]
        return ids

    def joined(self, words: Sequence[str]) -> list[int]:
        """The ids of a text's pre-tokens ``words`` (no special token among them), supermerges
        applied: :meth:`joined_python`, done by the compiled core where it runs (the same
        lookups, :meth:`BoundlessEvents.run`'s scan and a new pre-token's word merges, in C;
        a run of :data:`LONG_RUN` pre-tokens or more is still worked out here, and a
        pre-token whose making a deletion touched goes through :meth:`BoundlessEvents.word`,
        whose replay the core's ``Replayer`` does)."""
        if self.compiled is None:
            return self.joined_python(words)
        return self.compiled.join_words(words, self._pieces, self.tokens, self.joins, self.runs, CACHE_LIMIT, self._run)

    def joined_python(self, words: Sequence[str]) -> list[int]:
        """:meth:`joined` in Python, the reference: each pre-token's ids from the pieces cache,
        then each run of pre-tokens that a supermerge may cross between (``crossing``) replaced
        by what it joins into (remembered per run: a text's runs repeat). Only the runs cost
        Python steps."""
        ids = list(map(self._ids_of, words))  # (first: a pre-token worked out now has its Join remembered)
        tokens = list(map(self._token_of, words))
        links = bytes(map(self.events.crossing.__contains__, zip(tokens, tokens[1:])))
        if b"\x01" in links:
            runs = self.runs
            for link in _LINKS.finditer(links):
                start, end = link.start(), link.end() + 1
                key = tuple(words[start:end])
                found = runs.get(key)
                if found is None:
                    if len(runs) >= CACHE_LIMIT:
                        runs.clear()
                    found = runs[key] = self._run(key, ids[start:end])
                ids[start:end] = found
        return list(chain.from_iterable(ids))

    def _run(self, words: tuple[str, ...], ids: list[tuple[int, ...]]) -> tuple[tuple[int, ...], ...]:
        """A run's pre-tokens joined: per pre-token, its own ids (no supermerge took it), the
        token a supermerge made (the first of those it took) or nothing (the others)."""
        joins = list(map(self._join_of, words))
        if len(joins) == 2:  # (most runs: one pair, one supermerge or none)
            (a, since_a, until_a), (b, since_b, until_b) = joins
            found = self.events.super_pairs.get((a, b))
            if found is not None and since_a < found[0] < until_a and since_b < found[0] < until_b:
                return ((found[1],), ())
            return tuple(ids)
        out: list[tuple[int, ...]] = [()] * len(words)
        for item, merged in self.events.run(joins):
            out[item] = ids[item] if merged is None else (merged,)
        return tuple(out)

    def blocks(self, parts: Iterable[list[tuple[str | None, list[str]]]], special_ids: Mapping[str, int]) -> Iterator[list[int]]:
        """The ids of a stream cut into decided parts (``streaming.stream_parts``), a list at a
        time: the pre-tokens after the last one that no supermerge takes wait for more text."""
        pending: list[str] = []
        for part in parts:
            ids: list[int] = []
            for special, words in part:
                if special is not None:
                    ids += self.joined(pending)
                    pending = []
                    ids.append(special_ids[special])
                    continue
                pending += words
                cut = len(pending)
                while cut and self._token_of(pending[cut - 1]) >= 0:
                    cut -= 1
                if cut:
                    ids += self.joined(pending[:cut])
                    del pending[:cut]
            yield ids
        if pending:
            yield self.joined(pending)
