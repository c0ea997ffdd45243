"""What the trainer refuses in a corpus before it counts a pair: the checks every corpus it
is given goes through (the words it is built with, and SuperBPE's chunks).

Counts must be positive whole numbers (an empty word is dropped); the text must be Unicode (a
lone surrogate cannot be written to a table or read back); an end-of-word marker must be
neither a base symbol nor text the corpus holds, or it would decode as a space, or collide
with a byte.
"""

from __future__ import annotations

from collections.abc import Mapping

from ..errors import BPEError

__all__ = ["check_text", "checked_counts"]


def checked_counts(word_counts: Mapping[str, int]) -> tuple[list[str], list[int]]:
    """The words and their counts as two lists, empty words dropped; counts must be >= 1."""
    counts = list(word_counts.values())
    if "" not in word_counts and set(map(type, counts)) <= {int} and (not counts or min(counts) >= 1):
        return list(word_counts), counts  # the usual case, checked in C
    words, counts = [], []
    for word, count in word_counts.items():
        if not word:
            continue
        if not isinstance(count, int) or count < 1:
            raise BPEError(f"word {word!r} has count {count!r}; counts must be positive integers")
        words.append(word)
        counts.append(count)
    return words, counts


def check_text(words: list[str], config, name: str) -> None:
    """Refuse what would train a table that cannot be written or read back: text with lone
    surrogates (not Unicode), and an end-of-word marker that is a base symbol or occurs in
    the corpus (it would decode as a space, or collide with a byte)."""
    joined = "\n".join(words)
    try:
        joined.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise BPEError(
            f"{name}: the text holds a lone surrogate (U+{ord(joined[exc.start]):04X}), which is not valid "
            "Unicode; decode input with errors='replace'"
        ) from None
    eow = config.end_of_word
    if eow is None:
        return
    if config.units == "bytes" and len(eow.encode("utf-8")) == 1:
        raise BPEError(f"end-of-word marker {eow!r} is a single byte, the same as a base symbol; choose a longer one such as '</w>'")
    if eow in joined:
        raise BPEError(f"{name}: the end-of-word marker {eow!r} occurs in the corpus; choose another marker (or none)")
