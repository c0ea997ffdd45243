"""BPE training the way the tutorials write it: recount every pair, every step.

This module is for reading and for checking. It implements exactly the same rules as
:class:`~bpe_tui.core.trainer.Trainer` (units, end-of-word marker, overlapping pair counts,
left-to-right non-overlapping merges, the four tie-break rules), in the most direct way:
after each merge it recounts all pairs from scratch. That makes it slow — O(corpus) per
merge — and obviously right, which is why the tests compare the fast trainer against it and
the benchmarks use it as the baseline.
"""

from __future__ import annotations

from collections.abc import Mapping

from .config import TrainerConfig
from .types import Surface
from .units import bytes_to_unicode


def initial_words(word_counts: Mapping[str, int], config: TrainerConfig) -> list[tuple[list, int]]:
    """Each word as a list of base symbols (bytes or characters, plus the end marker)."""
    out = []
    for word, count in word_counts.items():
        symbols: list[Surface]
        if config.units == "bytes":
            symbols = [bytes([b]) for b in word.encode("utf-8")]
            if config.end_of_word is not None:
                symbols.append(config.end_of_word.encode("utf-8"))
        else:
            symbols = list(word)
            if config.end_of_word is not None:
                symbols.append(config.end_of_word)
        out.append((symbols, count))
    return out


def count_pairs(words: list[tuple[list, int]]) -> dict[tuple, int]:
    """Every adjacent pair, weighted by word count, in first-seen order (dicts keep order)."""
    counts: dict[tuple, int] = {}
    for symbols, count in words:
        for pair in zip(symbols, symbols[1:]):
            counts[pair] = counts.get(pair, 0) + count
    return counts


def merge_word(symbols: list, pair: tuple) -> list:
    """Replace every occurrence of ``pair``, scanning left to right, without overlaps."""
    left, right = pair
    out = []
    i = 0
    while i < len(symbols):
        if i + 1 < len(symbols) and symbols[i] == left and symbols[i + 1] == right:
            out.append(left + right)
            i += 2
        else:
            out.append(symbols[i])
            i += 1
    return out


def as_bytes(surface) -> bytes:
    return surface if isinstance(surface, bytes) else surface.encode("utf-8")


def hf_alphabet_rank(surface, units: str) -> str:
    """The string Hugging Face sorts its alphabet by (bytes go through GPT-2's map)."""
    if units == "bytes" and len(surface) == 1:
        return bytes_to_unicode()[surface[0]]
    return surface if isinstance(surface, str) else surface.decode("utf-8", "replace")


def best_pair(counts: dict[tuple, int], rule: str, hf_ids: dict) -> tuple:
    """The pair to merge: the highest count, ties broken by ``rule``."""
    top = max(counts.values())
    tied = [p for p, c in counts.items() if c == top]  # in first-seen order
    if rule == "first-seen":
        return tied[0]
    if rule == "lexical-min":
        return min(tied, key=lambda p: (as_bytes(p[0]), as_bytes(p[1])))
    if rule == "lexical-max":
        return max(tied, key=lambda p: (as_bytes(p[0]), as_bytes(p[1])))
    return min(tied, key=lambda p: (hf_ids[p[0]], hf_ids[p[1]]))


def train_naive(word_counts: Mapping[str, int], config: TrainerConfig, num_merges: int) -> list[tuple[tuple, int]]:
    """Up to ``num_merges`` merges as ``((left, right), count)``, recounting every step."""
    words = initial_words(word_counts, config)
    # Hugging Face ids: the alphabet sorted by code point, then merged tokens as created.
    alphabet = sorted({s for symbols, _ in words for s in symbols}, key=lambda s: hf_alphabet_rank(s, config.units))
    hf_ids = {s: i for i, s in enumerate(alphabet)}
    merges = []
    for _ in range(num_merges):
        counts = count_pairs(words)
        limit = getattr(config, "max_token_length", None)
        if limit is not None:  # pairs that would make a token longer than the limit never merge
            counts = {p: c for p, c in counts.items() if len(p[0]) + len(p[1]) <= limit}
        if not counts or max(counts.values()) < config.min_frequency:
            break
        pair = best_pair(counts, config.tie_break, hf_ids)
        merges.append((pair, counts[pair]))
        hf_ids.setdefault(pair[0] + pair[1], len(hf_ids))
        words = [(merge_word(symbols, pair), count) for symbols, count in words]
    return merges
