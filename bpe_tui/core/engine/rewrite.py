"""Merging a pair in every word that holds it, and the pair-count changes that makes.

The trainer's words are id strings (one character per token id, see
:mod:`~bpe_tui.core.engine.speed`), so a merge is ``str.replace`` in C; around each
occurrence only two pairs change, and :func:`merge_word` adds just those changes. The trainer
makes every merge with it (and SuperBPE's transition replays the merges over the chunks with
it); a variant that keeps counts of its own (parity-aware BPE: one per language) runs it over
the same words with its own weights.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

__all__ = ["merge_word"]


def merge_word(
    words: list[str], members: Sequence[int], pair: str, new: str, counts: list[int],
    deltas: dict[str, int], index: Mapping[str, dict[int, None]], keep_old: bool = True,
) -> tuple[list[int], list[str], int, dict[int, int]]:
    """Merge every occurrence of ``pair`` into the token ``new`` in each word ``members``
    names (an index into ``words``, rewritten in place): left to right, non-overlapping.

    The pair-count changes each rewrite makes, times the word's count, are added to
    ``deltas`` (pair -> change), and each word is filed in ``index`` (pair -> words holding it)
    under every pair it gains. Around each occurrence of ``(a, b)``, the pair ``(prev, a)``
    becomes ``(prev, new)`` and ``(b, next)`` becomes ``(new, next)``; ``prev`` is the symbol
    before as already rewritten (``new`` itself when two occurrences are adjacent, as in
    ``abab``). The merged pair's own count is not among the changes: it drops to zero
    everywhere, which the trainer sets once. Words and pairs are id strings (see
    :mod:`~bpe_tui.core.engine.speed`); a member that no longer holds the pair is skipped.

    Returns ``(touched, old, tokens saved, occurrences)``: the words rewritten, in order, and
    their segmentations before (only with ``keep_old``); how many tokens the corpus lost; and word -> occurrences of the
    pair where that is not 1 (overlapping ones counted, as pair counts count them).

    This is Hugging Face's ``Word::merge`` (word.rs) with the loop over the words inside:
    in Python a call per word, and a list of ``(pair, ±1)`` built and read back per word, cost
    20-30% of the stepping time, so the changes go straight into the caller's dict and index.
    """
    get = deltas.get
    touched: list[int] = []
    olds: list[str] = []
    saved = 0
    overlapping = pair[0] == pair[1]  # (a, a): occurrences overlap (aaa holds two), merges do not
    # speed: with (a, a), a rare pair, the words' overlapping occurrences are counted up front,
    # which keeps a check for it out of the loop's usual case (one occurrence).
    occurrences: dict[int, int] = {w: _overlapping(words[w], pair) for w in members if pair in words[w]} if overlapping else {}
    for w in members:
        old = words[w]
        word = old.replace(pair, new)  # the merge itself, in C
        if word is old:  # replace hands back the same object when the pair is absent
            continue
        weight = counts[w]
        n = len(old)
        i = old.find(pair)
        if len(word) == n - 1:  # one occurrence, the usual case: both words line up at i
            if i:
                p = old[i - 1 : i + 1]
                deltas[p] = get(p, 0) - weight
                p = word[i - 1 : i + 1]
                deltas[p] = get(p, 0) + weight
                index[p][w] = None
            if i + 2 < n:
                p = old[i + 1 : i + 3]
                deltas[p] = get(p, 0) - weight
                p = word[i : i + 2]
                deltas[p] = get(p, 0) + weight
                index[p][w] = None
            saved += weight
        else:
            merged_here = n - len(word)
            for k in range(merged_here):
                if k:
                    i = old.find(pair, i + 2)
                j = i - k  # where this occurrence's ``new`` stands in the rewritten word
                if j:
                    p = word[j - 1] + pair[0]
                    deltas[p] = get(p, 0) - weight
                    p = word[j - 1 : j + 1]
                    deltas[p] = get(p, 0) + weight
                    index[p][w] = None
                if i + 2 < n:
                    p = old[i + 1 : i + 3]
                    deltas[p] = get(p, 0) - weight
                    p = new + old[i + 2]
                    deltas[p] = get(p, 0) + weight
                    index[p][w] = None
            saved += merged_here * weight
            if not overlapping:
                occurrences[w] = merged_here
        touched.append(w)
        if keep_old:
            olds.append(old)
        words[w] = word
    return touched, olds, saved, occurrences


def _overlapping(word: str, pair: str) -> int:
    """How many times the pair ``(a, a)`` occurs in ``word``, overlapping occurrences counted
    (``aaaa`` holds three ``aa``): what the pair count counts. Each one is two neighbouring
    ``a``, that is an empty piece between two ``a`` when the word is split at them (in C: a
    loop over the word's pairs in Python cost 0.4% of a training run's instructions)."""
    return word.split(pair[0])[1:-1].count("")
