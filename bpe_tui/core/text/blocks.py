"""Reading a corpus file's bytes: opened (stdin, an fsspec URL or a local file), decompressed
when its first bytes say so (:mod:`bpe_tui.core.compression`), read in blocks, cut at line ends
and decoded; and a plain file cut into byte ranges that start at line starts, for workers.

What comes out is text in pieces that each end at a line end (or at the end of the input):
what :class:`~.corpus.WordCounter` counts line by line and the evaluation encodes. The JSON
lines reader (:mod:`.datasets.jsonl`) reads its lines from the same blocks.

A compressed file is a stream: it is read from its start, whole (byte ranges are planned only
inside plain files); byte offsets in messages count its decompressed content, and progress
counts the compressed bytes read (what the file's size is made of).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from typing import AnyStr, BinaryIO

from ..compression import compression_of, open_stream, read_head
from ..errors import BPEError, NotUTF8
from .sources import SNIFF, open_binary, source_name

BLOCK = 1 << 20  # bytes read at a time
#: A line longer than this many blocks is handed on in pieces (memory stays flat on a corpus
#: that is one long line), each cut at a word boundary (see :func:`_word_safe_cut`).
LONG_LINE = 4

Progress = Callable[[int, int], None]


def raw_blocks(
    path: str, start: int = 0, end: int | None = None, progress: Progress | None = None, done: int = 0, total: int = 0
) -> Iterator[bytes]:
    """The content of a corpus file from byte ``start`` to ``end`` (None: its end), in reads
    that end at multiples of BLOCK from the content's start (so a range is read in exactly the
    pieces a whole-file read would cut it into), decompressed if the file is compressed (then
    read whole: ``start`` must be 0 and ``end`` is not looked at).

    After each read, ``progress(done + bytes of the file read so far, total)``. A file that
    cannot be opened or read, or a damaged compressed stream, is a one-line BPEError.
    """
    name = source_name(path)
    raw = open_binary(path)
    stream = raw
    kind = None
    try:
        if path == "-":
            stream, kind = open_stream(raw, name)
        else:
            try:
                kind = compression_of(read_head(raw), name)
            except OSError as exc:
                raise BPEError(f"{name}: cannot read at byte 0: {exc.strerror or exc}") from None
            if kind is not None:
                if start:
                    raise BPEError(f"{name}: a {kind} stream cannot be read from byte {start}: it is read whole")
                raw.seek(0)
                stream, _ = open_stream(raw, name)
            else:
                raw.seek(start)
        pos = start  # of the content
        while True:
            size = BLOCK - pos % BLOCK
            if end is not None and kind is None:
                size = min(size, end - pos)
                if size <= 0:
                    return
            try:  # (a compressed stream says what is wrong itself: core.compression)
                block = stream.read(size)
            except OSError as exc:  # EIO, /proc/self/mem: the open worked, the read did not
                raise BPEError(f"{name}: cannot read at byte {pos}: {exc.strerror or exc}") from None
            if not block:
                return
            pos += len(block)
            yield block
            if progress is not None:
                progress(done + _read_so_far(raw, kind, pos - start), total)
    finally:
        if stream is not raw:
            stream.close()
        if raw is not sys.stdin.buffer:
            raw.close()


def _read_so_far(raw: BinaryIO, kind: str | None, content: int) -> int:
    """Bytes of the file itself read: the content's for a plain file, else the compressed
    file's position (stdin has none: its content then)."""
    if kind is None:
        return content
    try:
        return raw.tell()
    except (OSError, ValueError):
        return content


def iter_file_lines(path: str, errors: str = "strict", progress: Progress | None = None, done: int = 0, total: int = 0) -> Iterator[str]:
    """Stream the lines of a UTF-8 file (or stdin for ``-``) in blocks.

    A NUL byte in the first block means a binary file (BPEError). Invalid UTF-8 raises a
    BPEError naming the byte offset, unless ``errors="replace"``.
    """
    for text in iter_text_blocks(path, errors, progress, done, total):
        yield from split_lines(text)


def check_errors(errors: str) -> None:
    """``errors`` is strict or replace (a one-line error otherwise)."""
    if errors not in ("strict", "replace"):
        raise BPEError(f"unknown --errors value {errors!r}; choose strict or replace")


def iter_text_blocks(
    path: str,
    errors: str = "strict",
    progress: Progress | None = None,
    done: int = 0,
    total: int = 0,
    start: int = 0,
    end: int | None = None,
) -> Iterator[str]:
    """Stream a UTF-8 file (or stdin) as decoded blocks that each end at a line end.

    ``start`` (the start of a line) and ``end`` (just after a line end, or the file size)
    select a byte range of a plain file (see :func:`raw_blocks`: a compressed one is read
    whole). A line longer than LONG_LINE blocks is cut at a word boundary, where a whole-file
    read cuts it too. Progress reports ``done`` + bytes read so far, of ``total``.
    """
    check_errors(errors)
    name = source_name(path)
    offset = start  # of the content, where ``carry`` starts
    carry = b""
    first = start == 0
    for block in raw_blocks(path, start, end, progress, done, total):
        if first:
            first = False
            check_not_binary(block, name)
        data = carry + block
        cut = data.rfind(b"\n") + 1
        if cut == 0:
            if len(data) < LONG_LINE * BLOCK:
                carry = data
                continue
            cut = _word_safe_cut(data)
        data, carry = data[:cut], data[cut:]
        yield decode(data, name, offset, errors)
        offset += len(data)
    if carry:
        yield decode(carry, name, offset, errors)


def check_not_binary(head: bytes, name: str) -> None:
    """A NUL byte in a file's first bytes (decompressed) means it is not text: one line."""
    nul = head.find(b"\0", 0, SNIFF)
    if nul >= 0:
        raise BPEError(f"{name}: looks like a binary file (NUL byte at byte {nul}); give a text corpus")


def decode(data: bytes, name: str, offset: int, errors: str, line: int | None = None) -> str:
    """UTF-8 bytes that start at byte ``offset`` of ``name`` as text: strictly (NotUTF8 names
    the byte, and the JSONL ``line`` if given) or with U+FFFD for each invalid sequence."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        if errors == "strict":
            raise NotUTF8(name, offset + exc.start, line) from None
        return data.decode("utf-8", "replace")


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


def document_pieces(text: str) -> Iterator[str]:
    """A document (a record's text, an item of an iterable) in pieces of about BLOCK
    characters that end at line ends, a line longer than LONG_LINE blocks cut at a word
    boundary: counted piece by piece, they give the document's words (memory stays flat on a
    big document, as on a big file)."""
    if len(text) <= LONG_LINE * BLOCK:
        yield text
        return
    pos = 0
    while len(text) - pos > BLOCK:
        window = text[pos : pos + LONG_LINE * BLOCK]
        cut = window.rfind("\n", 0, BLOCK) + 1 or window.rfind("\n") + 1
        if cut == 0:
            cut = _word_safe_cut(window)
        yield window[:cut]
        pos += cut
    yield text[pos:]


_SPACES = {bytes: (b" ", b"\t", b"\r", b"\x0b", b"\x0c"), str: (" ", "\t", "\r", "\x0b", "\x0c")}


def _word_safe_cut(data: AnyStr) -> int:
    """A cut point inside a very long line that does not cut a pre-token in two: just before
    a single space that follows a non-space (GPT-2-style patterns start a word with its
    space, whitespace splitting drops it), else where UTF-8 allows (bytes) or anywhere."""
    space, end = (b" ", b"") if isinstance(data, bytes) else (" ", "")
    spaces = _SPACES[type(data)]
    pos = len(data)
    floor = max(0, len(data) - 4 * BLOCK)
    while True:
        pos = data.rfind(space, floor, pos)
        if pos <= 0:
            return _utf8_safe_cut(data) if isinstance(data, bytes) else len(data)
        if data[pos - 1 : pos] not in spaces and data[pos + 1 : pos + 2] not in (space, end):
            return pos


def _utf8_safe_cut(data: bytes) -> int:
    """A cut point that does not split a UTF-8 sequence (for very long lines)."""
    cut = len(data)
    for back in range(1, 4):
        if cut - back >= 0 and (data[cut - back] & 0xC0) == 0xC0:
            return cut - back
    return cut


def plan_ranges(path: str, size: int, target: int) -> list[tuple[int, int]]:
    """Cut a plain file into byte ranges of about ``target`` bytes, each starting at a line start."""
    cuts = [0]
    if size > target:
        with open_binary(path) as f:
            for guess in range(target, size, target):
                if guess <= cuts[-1]:
                    continue
                f.seek(guess - 1)
                pos = guess - 1
                while True:  # the first line end at or after guess - 1
                    piece = f.read(1 << 16)
                    if not piece:
                        pos = size
                        break
                    nl = piece.find(b"\n")
                    if nl >= 0:
                        pos += nl + 1
                        break
                    pos += len(piece)
                if pos >= size:
                    break
                if pos > cuts[-1]:
                    cuts.append(pos)
    cuts.append(size)
    return [(a, b) for a, b in zip(cuts, cuts[1:]) if b > a]
