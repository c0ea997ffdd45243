"""Encoding with a table whose training removed tokens (PickyBPE): its events, replayed in order.

A plain BPE table encodes a word by merging, again and again, the adjacent pair of lowest rank;
that gives what replaying the merge list in order would. PickyBPE's training also *removes*
tokens: right after merge k it may split a token back into its parts everywhere. A table of
such a run is a list of events, merges and removals interleaved, and its tokenizer replays
them in that order (the reference's ``picky_tokenize.py``, ``_encode_word_by_events``): from the
word's characters, repeatedly take the earliest event, not before the last one applied, that
applies to the word now (a merge of a pair it holds, a removal of a token it holds), and apply
it everywhere in the word (a merge left to right, without overlaps). A removed token that a
later merge made again is made again here too; a token removed for good never comes out.

How a table records them: ``config["removals"]`` lists ``[k, token id, [part ids]]``, each
right after merge ``k`` (1-based) in the order they happened; the merges are the table's merge
list. :class:`Removals` indexes both for the replay. Tokens removed for good (the last event
about them is a removal) stay in the table's vocabulary with their ids, so that merges and
removals can name them, but the table counts and lists only the others
(:attr:`Removals.absent`), and encoding never gives them.

Alongside, :func:`renumbered` gives the table the reference's own numbering, the one its
``picky_tokenize.py --return_type int`` prints: the tokens in the vocabulary at the end, in id
order, numbered from 0 without gaps, then the tokens removed for good. Saving a table with
removals writes it so.
"""

from __future__ import annotations

import bisect
from collections.abc import Mapping, Sequence
from typing import Any

from ..engine import merge_core
from ..errors import BPEError

__all__ = ["Removals", "ReplayLog", "renumbered"]

#: Event positions: merge of rank r is at (r + 1) * SLOTS, the j-th removal after merge k at
#: k * SLOTS + 1 + j (a merge is followed by two removals at most: its two parts).
SLOTS = 4


class Removals:
    """The removals of a table, with its merge list, indexed for encoding.

    ``entries``: ``[k, token, [parts]]`` (checked: ``k`` a merge of the list, the token and
    its parts in ``vocab``, the parts spelling the token); ``where`` names the table in errors.
    """

    def __init__(self, entries: Sequence[Any], merges: Sequence[tuple[int, int, int]], vocab: Mapping[int, Any], where: str = "table"):
        self.entries: list[tuple[int, int, tuple[int, ...]]] = []
        if not isinstance(entries, list):
            raise BPEError(f"{where}: config.removals: expected a list of [merge, token id, [part ids]]")
        after: dict[int, int] = {}
        #: pair -> positions of the merges of it; position -> the token it makes
        self.merge_at: dict[tuple[int, int], list[int]] = {}
        self.made: dict[int, int] = {}
        for rank, (a, b, new) in enumerate(merges):
            pos = (rank + 1) * SLOTS
            self.merge_at.setdefault((a, b), []).append(pos)
            self.made[pos] = new
        #: token -> positions of its removals; position -> what it splits into
        self.split_at: dict[int, list[int]] = {}
        self.parts: dict[int, tuple[int, ...]] = {}
        last: dict[int, int] = {}  # token -> position of the last event about it
        for rank, (_, _, new) in enumerate(merges):
            last[new] = (rank + 1) * SLOTS
        for n, entry in enumerate(entries):
            k, token, parts = _checked(entry, n, len(merges), vocab, where)
            j = after.get(k, 0)
            if j + 1 >= SLOTS:
                raise BPEError(f"{where}: config.removals[{n}]: more than {SLOTS - 1} removals after merge {k}")
            if self.entries and k < self.entries[-1][0]:
                raise BPEError(f"{where}: config.removals[{n}]: after merge {k}, but the removal before it comes after merge {self.entries[-1][0]} (they are listed in order)")
            after[k] = j + 1
            pos = k * SLOTS + 1 + j
            self.split_at.setdefault(token, []).append(pos)
            self.parts[pos] = parts
            last[token] = max(last.get(token, -1), pos)
            self.entries.append((k, token, parts))
        #: tokens removed for good: the last event about them is a removal
        self.absent: frozenset[int] = frozenset(t for t, positions in self.split_at.items() if last[t] == positions[-1])
        # The compiled core (None: the Python path; read now, as every table does) and its
        # Replayer, made at the first replay: a subclass may still change the indices above.
        self._compiled = merge_core.compiled()
        self._replayer: Any = None

    def to_config(self) -> list[list]:
        """The entries as a table's config holds them."""
        return [[k, t, list(parts)] for k, t, parts in self.entries]

    def truncated(self, k: int) -> list[list]:
        """The entries of a table cut after merge ``k``."""
        return [[m, t, list(parts)] for m, t, parts in self.entries if m <= k]

    def replay(self, symbols: list[int], log: "ReplayLog | None" = None) -> list[int]:
        """``symbols`` (base ids) with the table's events replayed, as the reference does:
        :meth:`replay_python`, done by the compiled core where it runs (its ``Replayer``,
        built at the first replay from the indices above, the same steps in C)."""
        if self._replayer is None:
            core = self._compiled
            if core is None:
                return self.replay_python(symbols, log)
            self._replayer = core.Replayer(self.merge_at, self.made, self.split_at, self.parts)
        if log is None:
            return self._replayer.replay(symbols)
        ids, events = self._replayer.replay(symbols, True)
        log.events += events
        return ids

    def replay_python(self, symbols: list[int], log: "ReplayLog | None" = None) -> list[int]:
        """:meth:`replay` in Python, the reference: repeatedly the earliest event at or after
        the last one applied that applies to the word now, applied everywhere in it."""
        word = list(symbols)
        merge_at, split_at = self.merge_at, self.split_at
        last = -1
        while True:
            best: tuple[int, Any] | None = None
            for pair in zip(word, word[1:]):
                positions = merge_at.get(pair)
                if positions is not None:
                    i = bisect.bisect_left(positions, last)
                    if i < len(positions) and (best is None or positions[i] < best[0]):
                        best = (positions[i], pair)
            for token in set(word):
                positions = split_at.get(token)
                if positions is not None:
                    i = bisect.bisect_left(positions, last)
                    if i < len(positions) and (best is None or positions[i] < best[0]):
                        best = (positions[i], token)
            if best is None:
                return word
            last, what = best
            if isinstance(what, tuple):
                word = _merged(word, what, self.made[last])
            else:
                word = _split(word, what, self.parts[last])
            if log is not None:
                log.add(last, what, word)

    def step_of(self, position: int) -> tuple[int, bool]:
        """``(rank, is a removal)`` of an event position: a merge's rank, or, for a removal,
        the rank of the merge it follows."""
        k, slot = divmod(position, SLOTS)
        return (k - 1, slot != 0)


class ReplayLog:
    """What a replay did, for traces: per event applied, its position, what it applied to
    (a pair, or a token removed) and the segmentation after it."""

    def __init__(self) -> None:
        self.events: list[tuple[int, Any, tuple[int, ...]]] = []

    def add(self, position: int, what: Any, word: list[int]) -> None:
        self.events.append((position, what, tuple(word)))

    def symbols_after(self, step: int) -> tuple[int, ...]:
        return self.events[step][2]


def _merged(word: list[int], pair: tuple[int, int], new: int) -> list[int]:
    """Every occurrence of ``pair`` merged, left to right, without overlaps."""
    a, b = pair
    out: list[int] = []
    i, n = 0, len(word)
    while i < n:
        if i + 1 < n and word[i] == a and word[i + 1] == b:
            out.append(new)
            i += 2
        else:
            out.append(word[i])
            i += 1
    return out


def _split(word: list[int], token: int, parts: tuple[int, ...]) -> list[int]:
    out: list[int] = []
    for t in word:
        if t == token:
            out += parts
        else:
            out.append(t)
    return out


def _checked(entry: Any, n: int, merges: int, vocab: Mapping[int, Any], where: str) -> tuple[int, int, tuple[int, ...]]:
    """One ``[k, token, [parts]]`` entry, checked (a one-line BPEError naming it otherwise)."""
    at = f"{where}: config.removals[{n}]"
    if not isinstance(entry, (list, tuple)) or len(entry) != 3 or not isinstance(entry[2], (list, tuple)):
        raise BPEError(f"{at}: expected [merge, token id, [part ids]]")
    k, token, parts = entry[0], entry[1], tuple(entry[2])
    for value in (k, token, *parts):
        if not isinstance(value, int) or isinstance(value, bool):
            raise BPEError(f"{at}: {value!r} is not a whole number")
    if not 1 <= k <= merges:
        raise BPEError(f"{at}: merge {k} is not one of the table's {merges:,} merges")
    if len(parts) < 2:
        raise BPEError(f"{at}: a removed token splits into two parts or more, not {len(parts)}")
    for t in (token, *parts):
        if t not in vocab:
            raise BPEError(f"{at}: token id {t} is not in the vocabulary")
    spelled = vocab[parts[0]]
    for p in parts[1:]:
        spelled = spelled + vocab[p]
    if spelled != vocab[token]:
        raise BPEError(f"{at}: the parts spell {spelled!r}, not the token {vocab[token]!r}")
    return k, token, parts


def renumbered(vocab: Mapping[int, Any], absent: frozenset[int]) -> dict[int, int]:
    """old id -> new id in the reference's numbering: the tokens in the vocabulary, in id
    order, from 0 without gaps; then the tokens removed for good, in id order."""
    kept = sorted(i for i in vocab if i not in absent)
    gone = sorted(i for i in vocab if i in absent)
    return {old: new for new, old in enumerate(kept + gone)}
