"""Parity-aware BPE's bookkeeping per language: a queue of pairs for each language, and the
development texts measured in tokens as merges apply to them
(:mod:`~bpe_tui.core.engine.variants.parity` uses both)."""

from __future__ import annotations

import heapq
from typing import Any

from ...text.languages import LanguageCorpora
from ..rewrite import merge_word
from ..speed import pair_index, pairs_of

__all__ = ["NOWHERE", "DevTexts", "LanguageQueue", "Nowhere"]


class Nowhere(dict):
    """An index that files nothing (merge_word files each word under the pairs it gains; the
    variant's copies of the words are not kept)."""

    def __missing__(self, pair: str) -> dict:
        return {}


NOWHERE = Nowhere()


class LanguageQueue:
    """One language's pairs, best first: a heap of queue entries shaped as the trainer's,
    ``(-count, *tie-break key, pair)``, with lazy invalidation (an entry is trusted when its
    count is the language's count now; a pair whose count rises is pushed again)."""

    def __init__(self, counts: dict[str, int], entry: Any):
        self.counts = counts
        self.entry = entry
        self.heap = [entry(p, c) for p, c in counts.items()]
        heapq.heapify(self.heap)

    def push(self, pair: str, count: int) -> None:
        heapq.heappush(self.heap, self.entry(pair, count))

    def take(self, k: int) -> list:
        """The best ``k`` valid entries (distinct pairs), taken off the heap."""
        heap, counts, entry = self.heap, self.counts, self.entry
        out: list = []
        while heap and len(out) < k:
            e = heapq.heappop(heap)
            pair = e[-1]
            count = counts.get(pair, 0)
            if not count:
                continue
            fresh = entry(pair, count)
            if fresh != e:
                if fresh > e:  # worse since queued: where it belongs now
                    heapq.heappush(heap, fresh)
                continue  # (better: a fresher entry was pushed when the count rose)
            if out and out[-1] == e:
                continue
            out.append(e)
        return out

    def peek(self, k: int) -> list:
        out = self.take(k)
        for e in out:
            heapq.heappush(self.heap, e)
        return out


class DevTexts:
    """The development texts' words (id strings, as the trainer's words) with each one's
    count per language, a pair -> words index, and each language's length in tokens."""

    def __init__(self, corpora: LanguageCorpora, to_ids: Any):
        assert corpora.dev is not None
        union: dict[str, list[tuple[int, int]]] = {}
        for lang, counts in enumerate(corpora.dev):
            for word, count in counts.items():
                union.setdefault(word, []).append((lang, count))
        self.words = [to_ids(word) for word in union]
        self.langs = [tuple(v) for v in union.values()]
        self.ones = [1] * len(self.words)  # (merge_word's weights: the changes are not used)
        _, self.where, _ = pair_index(self.words, self.ones)
        self.lengths = [0] * len(corpora.languages)
        for word, langs in zip(self.words, self.langs):
            for lang, count in langs:
                self.lengths[lang] += len(word) * count

    def merge(self, pair: str, new: str) -> tuple[list[int], list[str], list[int]]:
        """Apply a merge (as the trainer does, :func:`~bpe_tui.core.engine.rewrite.merge_word`);
        return the words rewritten, their old segmentations, and each language's tokens saved."""
        touched, olds, _, _ = merge_word(self.words, sorted(self.where.pop(pair, ())), pair, new, self.ones, {}, self.where)
        saved = [0] * len(self.lengths)
        for w, old in zip(touched, olds):
            k = len(old) - len(self.words[w])
            for lang, count in self.langs[w]:
                saved[lang] += k * count
        return touched, olds, saved

    def unmerge(self, touched: list[int], olds: list[str]) -> None:
        for w, old in zip(touched, olds):
            self.words[w] = old
            for p in pairs_of(old):
                self.where[p][w] = None
