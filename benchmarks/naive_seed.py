"""The seeds' BPE trainer, as the tutorials write it: the baseline of the naive-vs-ours row.

This is the training loop of the CS336 study notes in ../shared/seeds (004: ``BPEEncoder``'s
``get_pair_frequencies``, ``merge_pair`` and ``train``), kept as written except for what it
takes to compare its merges with ours:

* it starts from our word counts (GPT-2 regex pre-tokens) instead of ``text.split()``;
* tokens are ``bytes`` objects and a merge's new token is the concatenation, so the tie-break
  "lexicographically largest pair" compares bytes (the notes' ``pair_sort_key`` compares
  ``chr(byte)`` with names like ``"merge_257"``, which is not the rule they describe);
* the prints are gone (they would dominate the time).

Everything else, the full recount with an index loop and the word-by-word rebuild with a
``while`` loop after every merge, is the seeds' algorithm. bpe_tui.core.teaching.educational is the same
algorithm written tighter (``zip`` instead of indexing); the benchmark reports both.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping


def get_pair_frequencies(word_freq: dict[tuple[bytes, ...], int]) -> dict[tuple[bytes, bytes], int]:
    """Count frequency of all adjacent token pairs across all words."""
    pair_freq: dict = defaultdict(int)
    for word, freq in word_freq.items():
        for i in range(len(word) - 1):
            pair = (word[i], word[i + 1])
            pair_freq[pair] += freq
    return dict(pair_freq)


def merge_pair(word_freq: dict[tuple[bytes, ...], int], pair_to_merge: tuple[bytes, bytes], new_token: bytes) -> dict:
    """Merge the specified pair in all words where it appears."""
    new_word_freq = {}
    for word, freq in word_freq.items():
        new_word = []
        i = 0
        while i < len(word):
            if i < len(word) - 1 and word[i] == pair_to_merge[0] and word[i + 1] == pair_to_merge[1]:
                new_word.append(new_token)
                i += 2
            else:
                new_word.append(word[i])
                i += 1
        new_word_freq[tuple(new_word)] = freq
    return new_word_freq


def train(word_counts: Mapping[str, int], num_merges: int) -> list[tuple[tuple[bytes, bytes], int]]:
    """``num_merges`` merges as ``((left, right), count)``; ties go to the greatest pair."""
    word_freq = {tuple(bytes([b]) for b in word.encode("utf-8")): freq for word, freq in word_counts.items()}
    merges = []
    for _ in range(num_merges):
        pair_freq = get_pair_frequencies(word_freq)
        if not pair_freq:
            break
        max_freq = max(pair_freq.values())
        most_frequent_pairs = [pair for pair, freq in pair_freq.items() if freq == max_freq]
        best_pair = max(most_frequent_pairs)
        word_freq = merge_pair(word_freq, best_pair, best_pair[0] + best_pair[1])
        merges.append((best_pair, max_freq))
    return merges
