"""From files to word counts: the only pass over the raw corpus text.

BPE trains on *distinct* words with their counts, never on the raw text, so a corpus is read
once, streamed in blocks, and reduced to ``{pre-token: count}`` in order of first appearance
(the order the first-seen tie-break needs).

The corpus is read line by line, each line with its newline, as Hugging Face's trainer reads
files: special tokens are cut out of each line, then the pre-tokenizer runs on the pieces. (A
pre-tokenizer regex never sees across a line break; for GPT-2's regex that only matters where
spaces stand right before a newline.)

Inputs may be files, directories (every text file below, in sorted order), or ``-`` (stdin).
Word-count files hold one ``word<TAB>count`` per line; inside the word, ``\\t``, ``\\n``,
``\\r`` and ``\\\\`` stand for a tab, newline, carriage return and backslash, so pre-tokens that
contain whitespace survive the trip.
"""

from __future__ import annotations

import os
import sys
from collections import Counter
from collections.abc import Callable, Iterable, Iterator

from .config import TrainerConfig
from .errors import BPEError
from .pretokenize import PreTokenizer

BLOCK = 1 << 20  # bytes read at a time
SNIFF = 8192  # bytes looked at to tell text from binary

Progress = Callable[[int, int], None]


def pretokenizer_for(config: TrainerConfig) -> PreTokenizer:
    """The PreTokenizer a config describes."""
    return PreTokenizer(config.pretokenizer, config.special_tokens, config.lowercase)


def count_lines(lines: Iterable[str], pre: PreTokenizer, counts: Counter | None = None) -> Counter:
    """Add the pre-tokens of each line to ``counts`` (a Counter keeps first-appearance order)."""
    counts = Counter() if counts is None else counts
    words = pre.words
    for line in lines:
        counts.update(words(line))
    return counts


def split_lines(text: str) -> Iterator[str]:
    """Lines of ``text``, each with its ``\\n`` (only ``\\n`` ends a line)."""
    start = 0
    while True:
        end = text.find("\n", start)
        if end < 0:
            if start < len(text):
                yield text[start:]
            return
        yield text[start : end + 1]
        start = end + 1


def count_text(text: str, config: TrainerConfig) -> dict[str, int]:
    """Word counts of a string, read line by line like a file."""
    return dict(count_lines(split_lines(text), pretokenizer_for(config)))


# ---------------------------------------------------------------------- finding files


def expand_sources(paths: Iterable[str]) -> list[str]:
    """Files to read: each path as given, directories expanded to their text files.

    Raises BPEError for a missing path or a directory without text files.
    """
    out: list[str] = []
    for path in paths:
        if path == "-":
            out.append(path)
            continue
        if os.path.isdir(path):
            found = []
            for root, dirs, files in os.walk(path):
                dirs[:] = sorted(d for d in dirs if not d.startswith("."))
                for name in sorted(files):
                    full = os.path.join(root, name)
                    if not name.startswith(".") and os.path.isfile(full) and not _looks_binary(full):
                        found.append(full)
            if not found:
                raise BPEError(f"{path}: directory holds no text files")
            out.extend(found)
        elif os.path.exists(path):
            if not os.path.isfile(path):
                raise BPEError(f"{path}: not a regular file")
            out.append(path)
        else:
            raise BPEError(f"{path}: no such file or directory")
    return out


def _looks_binary(path: str) -> bool:
    try:
        with open(path, "rb") as f:
            return b"\0" in f.read(SNIFF)
    except OSError:
        return True


def corpus_name(paths: list[str]) -> str:
    """A short name for status lines: the file name, or 'a.txt +2'."""
    if not paths:
        return "corpus"
    first = "stdin" if paths[0] == "-" else os.path.basename(os.path.normpath(paths[0]))
    return first if len(paths) == 1 else f"{first} +{len(paths) - 1}"


# ---------------------------------------------------------------------- reading text


def iter_file_lines(path: str, errors: str = "strict", progress: Progress | None = None, done: int = 0, total: int = 0) -> Iterator[str]:
    """Stream the lines of a UTF-8 file (or stdin for ``-``) in blocks.

    A NUL byte in the first block means a binary file (BPEError). Invalid UTF-8 raises a
    BPEError naming the byte offset, unless ``errors="replace"``.
    """
    if errors not in ("strict", "replace"):
        raise BPEError(f"unknown --errors value {errors!r}; choose strict or replace")
    try:
        stream = sys.stdin.buffer if path == "-" else open(path, "rb")
    except OSError as exc:
        raise BPEError(f"{path}: cannot open: {exc.strerror}") from None
    name = "stdin" if path == "-" else path
    offset = 0
    carry = b""
    first = True
    try:
        while True:
            block = stream.read(BLOCK)
            if first:
                first = False
                nul = block.find(b"\0", 0, SNIFF)
                if nul >= 0:
                    raise BPEError(f"{name}: looks like a binary file (NUL byte at byte {nul}); give a text corpus")
            if not block:
                data, carry = carry, b""
            else:
                data = carry + block
                cut = data.rfind(b"\n") + 1
                if cut == 0 and len(data) < 64 * BLOCK:
                    carry = data
                    continue
                if cut == 0:
                    cut = _utf8_safe_cut(data)
                data, carry = data[:cut], data[cut:]
            if not data:
                break
            try:
                text = data.decode("utf-8")
            except UnicodeDecodeError as exc:
                if errors == "strict":
                    raise BPEError(
                        f"{name}: not valid UTF-8 at byte {offset + exc.start} "
                        f"(use --errors replace to read it with U+FFFD substitutes)"
                    ) from None
                text = data.decode("utf-8", "replace")
            offset += len(data)
            yield from split_lines(text)
            if progress is not None:
                progress(done + offset, total)
            if not block:
                break
    finally:
        if stream is not sys.stdin.buffer:
            stream.close()


def _utf8_safe_cut(data: bytes) -> int:
    """A cut point that does not split a UTF-8 sequence (for very long lines)."""
    cut = len(data)
    for back in range(1, 4):
        if cut - back >= 0 and (data[cut - back] & 0xC0) == 0xC0:
            return cut - back
    return cut


def count_files(paths: Iterable[str], config: TrainerConfig, errors: str = "strict", progress: Progress | None = None) -> dict[str, int]:
    """Word counts of files, directories and stdin, streamed; see the module docstring."""
    sources = expand_sources(paths)
    total = sum(os.path.getsize(p) for p in sources if p != "-")
    pre = pretokenizer_for(config)
    counts: Counter = Counter()
    done = 0
    for path in sources:
        count_lines(iter_file_lines(path, errors, progress, done, total), pre, counts)
        if path != "-":
            done += os.path.getsize(path)
    if not counts:
        raise BPEError(f"{corpus_name(sources)}: the corpus is empty (no words found)")
    return dict(counts)


# ---------------------------------------------------------------------- count files

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


def read_count_files(paths: Iterable[str]) -> dict[str, int]:
    """Word counts from ``word<TAB>count`` files (counts of repeated words add up)."""
    counts: dict[str, int] = {}
    sources = expand_sources(paths)
    for path in sources:
        for lineno, line in enumerate(iter_file_lines(path), start=1):
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
        raise BPEError(f"{corpus_name(sources)}: the count file is empty (no words found)")
    return counts


def write_count_file(counts: dict[str, int], path: str) -> None:
    """Write ``word<TAB>count`` lines atomically, in first-appearance order.

    The order is kept because the first-seen tie-break depends on it.
    """
    from .atomic import atomic_write_text

    lines = [f"{escape_word(w)}\t{c}\n" for w, c in counts.items()]
    atomic_write_text(path, "".join(lines))
