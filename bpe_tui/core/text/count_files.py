"""Word-count files: the counted corpus saved, to train again without reading the text.

One ``word<TAB>count`` per line, in order of first appearance (the first-seen tie-break depends
on it). Inside the word, ``\\t``, ``\\n``, ``\\r`` and ``\\\\`` stand for a tab, newline,
carriage return and backslash, so pre-tokens that contain whitespace survive the trip.
"""

from __future__ import annotations

import os
from collections.abc import Iterable

from ..errors import BPEError
from .blocks import Progress, iter_file_lines
from .sources import corpus_where, expand_sources

_ESCAPES = {"\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r"}


_UNESCAPES = {"\\": "\\", "t": "\t", "n": "\n", "r": "\r"}


def escape_word(word: str) -> str:
    """Write a pre-token for a count file (tab, newline, CR and backslash escaped)."""
    return "".join(_ESCAPES.get(c, c) for c in word)


def unescape_word(text: str, where: str) -> str:
    """Read a count-file word back; ``where`` names the file and line for errors."""
    if "\\" not in text:
        return text
    out = []
    i = 0
    while i < len(text):
        c = text[i]
        if c == "\\":
            nxt = text[i + 1 : i + 2]
            if nxt not in _UNESCAPES:
                raise BPEError(f"{where}: unknown escape \\{nxt} in word (use \\t \\n \\r or \\\\)")
            out.append(_UNESCAPES[nxt])
            i += 2
        else:
            out.append(c)
            i += 1
    return "".join(out)


def read_count_files(paths: Iterable[str], progress: Progress | None = None) -> dict[str, int]:
    """Word counts from ``word<TAB>count`` files (counts of repeated words add up)."""
    counts: dict[str, int] = {}
    sources = expand_sources(paths)
    total = sum(os.path.getsize(p) for p in sources if p != "-")
    done = 0
    for path in sources:
        lines = iter_file_lines(path, progress=progress, done=done, total=total)
        if path != "-":
            done += os.path.getsize(path)
        for lineno, line in enumerate(lines, start=1):
            line = line.rstrip("\n").rstrip("\r") if line.endswith("\n") else line
            if not line:
                continue
            word, tab, number = line.rpartition("\t")
            where = f"{'stdin' if path == '-' else path}:{lineno}"
            if not tab or not word:
                raise BPEError(f"{where}: expected 'word<TAB>count', got {line[:40]!r}")
            try:
                n = int(number)
            except ValueError:
                raise BPEError(f"{where}: count {number[:20]!r} is not a whole number") from None
            if n < 1:
                raise BPEError(f"{where}: count {n} must be positive")
            word = unescape_word(word, where)
            counts[word] = counts.get(word, 0) + n
    if not counts:
        raise BPEError(f"{corpus_where(sources)}: the count file is empty (no words found)")
    return counts


def write_count_file(counts: dict[str, int], path: str, overwrite: bool = True) -> None:
    """Write ``word<TAB>count`` lines atomically, in first-appearance order (``overwrite=False``:
    only if ``path`` does not exist when the file is written).

    The order is kept because the first-seen tie-break depends on it.
    """
    from ..atomic import atomic_write_text

    lines = [f"{escape_word(w)}\t{c}\n" for w, c in counts.items()]
    atomic_write_text(path, "".join(lines), overwrite)
