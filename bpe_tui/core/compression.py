"""Compressed files read as streams: gzip, bzip2, xz and Zstandard.

Corpora and tables are shipped compressed (a Wikipedia dump as ``.bz2``, a crawl as
``.jsonl.gz``, CLIP's merges as ``bpe_simple_vocab_16e6.txt.gz``). Every reader of this
package opens its files through :func:`open_stream`, so a compressed file reads like its
plain form wherever a file is read.

What a file *is* is decided by its first bytes (the format's magic number), never by its
name alone: a ``.txt`` that holds gzip data is decompressed, and a ``.gz`` that holds plain
text is read as it is. bzip2's magic is checked whole (``BZh``, the block size, then the
marker that starts a block or ends the stream: ten bytes), so a text that merely starts with
``BZh`` is text. The name matters only for ``.zst`` files when the optional ``zstandard``
package is missing, to say which extra to install.

Three promises hold for every compression, whatever the file holds:

* **one line**: whatever a decompressor raises on damaged data (zlib's ``zlib.error``, an
  ``OSError``, an ``EOFError`` for a stream cut short, ``LZMAError``, ``ZstdError``), reading
  raises one :class:`~.errors.BPEError` naming the file, the compression and how many
  decompressed bytes were read before it (:class:`_Checked`, the one place this happens);
* **bounded memory**: a read hands back at most :data:`PIECE` bytes, and no decompressor is
  asked for more at once, so a file that expands a thousandfold (a "decompression bomb")
  costs the memory of a piece, never of what it expands to (Zstandard and xz are fed
  :data:`FEED` compressed bytes at a time: see :class:`_Members`);
* **the formats as specified**: several gzip members, bzip2 streams, xz streams or Zstandard
  frames one after another read as one, and xz's stream padding (null bytes, four at a
  time, between and after streams) is allowed.

gzip, bzip2 and xz come with Python; Zstandard needs ``zstandard`` (``pip install
'bpe-tui[zstd]'``), and without it a Zstandard file is one clear error naming the extra.
"""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import os
import sys
from typing import Any, BinaryIO

from .errors import BPEError

#: name -> the magic number its files start with (bzip2's first three bytes only: see
#: :data:`BZIP2_MARKERS`).
MAGIC: dict[str, bytes] = {
    "gzip": b"\x1f\x8b",
    "bzip2": b"BZh",
    "xz": b"\xfd7zXZ\x00",
    "zstd": b"\x28\xb5\x2f\xfd",
}
#: What follows ``BZh`` and the block size digit in a bzip2 file: the start of a block (the
#: digits of pi) or, for an empty stream, its end (those of the square root of pi).
BZIP2_MARKERS = (b"\x31\x41\x59\x26\x53\x59", b"\x17\x72\x45\x38\x50\x90")
#: Bytes of a file's start that decide its compression (bzip2's whole magic is ten).
HEAD = 10
#: name -> the file name endings people give it.
EXTENSIONS: dict[str, tuple[str, ...]] = {
    "gzip": (".gz", ".gzip"),
    "bzip2": (".bz2",),
    "xz": (".xz",),
    "zstd": (".zst", ".zstd"),
}
#: The optional extra that brings zstandard.
ZSTD_EXTRA = "pip install 'bpe-tui[zstd]'"
#: Decompressed bytes asked of a decompressor at a time: the most one read holds, and how
#: precisely an error says where the damage is.
PIECE = 1 << 16
#: Compressed bytes read from the file at a time (for Zstandard and xz, fed on in FEEDs).
SOURCE_READ = 1 << 16
#: Compressed bytes handed to a Zstandard or xz decompressor at a time. Neither can be told
#: to stop early, and a few bytes can stand for a lot: a Zstandard block of four bytes (a run
#: of one byte) stands for 128 KiB, so 128 bytes stand for 4 MiB at most; xz's densest
#: stream, a run of one byte, is about 7,000 to one (under 1 MiB from 128 bytes). Text
#: compresses 3-10x, so this costs little: measured on 26 MB of Python source, 0.8 s of CPU
#: per GB for Zstandard and 4 s for xz (whose own decompression takes 11 s), against about
#: a minute to count a GB.
FEED = 128

try:  # pragma: no cover - depends on the optional extra
    import zstandard as _zstd
except ImportError:  # pragma: no cover
    _zstd = None  # type: ignore[assignment]


def compression_of(head: bytes, name: str | None = None) -> str | None:
    """The compression whose magic number ``head`` (a file's first :data:`HEAD` bytes)
    starts with, or None. ``name``, the file's: a file named ``.bz2`` that ends inside
    bzip2's ten-byte magic (``BZh9`` and no more) is bzip2 cut short, and its reading then
    says so, rather than text that happens to start with ``BZh``."""
    for kind, magic in MAGIC.items():
        if head.startswith(magic):
            if kind == "bzip2" and not (head[3:4] in b"123456789" and head[4:HEAD] in BZIP2_MARKERS):
                if name is not None and named_compression(name) == "bzip2" and _cut_bzip2_magic(head):
                    return kind
                continue  # ("BZh" and then anything else: text that starts so)
            return kind
    return None


def _cut_bzip2_magic(head: bytes) -> bool:
    """Whether ``head`` is the start of bzip2's magic and the file ends there."""
    if len(head) >= HEAD or not head.startswith(MAGIC["bzip2"]):
        return False
    level, marker = head[3:4], head[4:]
    return (level == b"" or level in b"123456789") and any(m.startswith(marker) for m in BZIP2_MARKERS)


def named_compression(path: str) -> str | None:
    """The compression a file name claims (``corpus.jsonl.gz`` -> gzip), or None."""
    lower = path.lower()
    for name, endings in EXTENSIONS.items():
        if lower.endswith(endings):
            return name
    return None


def plain_name(path: str) -> str:
    """The name without its compression ending (``a.jsonl.gz`` -> ``a.jsonl``): what the
    decompressed content is, for choosing a reader by extension."""
    name = named_compression(path)
    if name is None:
        return path
    lower = path.lower()
    ending = next(e for e in EXTENSIONS[name] if lower.endswith(e))
    return path[: -len(ending)]


def read_head(raw: BinaryIO) -> bytes:
    """The first :data:`HEAD` bytes of ``raw`` (fewer if it is shorter): a pipe may hand
    over fewer bytes than asked, so it is asked again."""
    head = b""
    while len(head) < HEAD:
        more = raw.read(HEAD - len(head))
        if not more:
            break
        head += more
    return head


def open_stream(raw: BinaryIO, name: str) -> tuple[BinaryIO, str | None]:
    """``raw`` decompressed if its first bytes say it is compressed, with the compression's
    name (None: plain, and the stream comes back readable from its first byte).

    ``raw`` need not be seekable (stdin, a URL): its first bytes are peeked through a buffer.
    ``name`` (the file as the user gave it) goes into every error: a damaged stream, a file
    that cannot be read, Zstandard without its package.
    """
    head = read_head(raw)
    buffered: BinaryIO = io.BufferedReader(_Replayed(head, raw, name))
    kind = compression_of(head, name)
    if kind is None:
        return buffered, None
    if kind == "zstd" and _zstd is None:
        raise BPEError(f"{name}: is Zstandard-compressed; reading it needs the zstandard package: {ZSTD_EXTRA}")
    return io.BufferedReader(_Checked(_decompressing(kind, buffered), name, kind), PIECE), kind


def _decompressing(kind: str, source: BinaryIO) -> BinaryIO:
    """A reader of ``source`` decompressed as ``kind`` (its errors unchecked: see _Checked)."""
    if kind == "gzip":
        return gzip.GzipFile(fileobj=source, mode="rb")  # type: ignore[return-value]
    if kind == "bzip2":
        return bz2.BZ2File(source, "rb")  # type: ignore[return-value]
    return _Members(source, kind)  # type: ignore[return-value]


class _Checked(io.RawIOBase):
    """A decompressing reader whose every failure is one BPEError (see the module docstring):
    at most PIECE bytes a read, counted, so the error says how far the reading got."""

    def __init__(self, inner: BinaryIO, name: str, kind: str) -> None:
        self._inner = inner
        self._name = name
        self._kind = kind
        self._offset = 0  # decompressed bytes handed on

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:  # a writable buffer (bytearray, memoryview)
        view = memoryview(buffer).cast("B")
        try:
            data = self._inner.read(min(len(view), PIECE))
        except (BPEError, MemoryError):
            raise
        except Exception as exc:  # whatever the decompressor raises (see the module docstring)
            raise read_error(self._name, self._kind, exc, self._offset) from None
        view[: len(data)] = data
        self._offset += len(data)
        return len(data)

    def close(self) -> None:
        self._inner.close()
        super().close()


class _Members(io.RawIOBase):
    """Zstandard frames or xz streams one after another, decompressed a FEED of compressed
    bytes at a time (so one read makes a bounded amount of output: see :data:`FEED`); xz's
    stream padding is passed over. A file that ends inside a frame or stream raises EOFError,
    as gzip and bzip2 do (zstandard's own stream reader hands back what it has and stops,
    silently: a truncated download would read as a shorter corpus)."""

    def __init__(self, source: BinaryIO, kind: str) -> None:
        self._source = source
        self._kind = kind
        self._pending = b""  # compressed bytes read and not fed yet, from _at
        self._at = 0
        self._out = b""  # decompressed bytes not handed on yet, from _pos
        self._pos = 0
        self._member: Any = None  # the decompressor of the frame or stream under way; None between them
        self._padding = 0  # xz: null bytes since the last stream ended

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:  # a writable buffer (bytearray, memoryview)
        view = memoryview(buffer).cast("B")
        while self._pos >= len(self._out):
            if self._at >= len(self._pending):
                self._pending, self._at = self._source.read(SOURCE_READ), 0
                if not self._pending:
                    self._ended()
                    return 0
            data = self._pending[self._at : self._at + FEED]
            self._at += len(data)
            self._out, self._pos = self._feed(data), 0
        n = min(len(view), len(self._out) - self._pos)
        view[:n] = self._out[self._pos : self._pos + n]
        self._pos += n
        return n

    def _feed(self, data: bytes) -> bytes:
        out = []
        while data:
            if self._member is None:
                if self._kind == "xz":
                    rest = data.lstrip(b"\0")
                    self._padding += len(data) - len(rest)
                    data = rest
                    if not data:
                        break
                    self._check_padding()
                self._member = self._new_member()
            out.append(self._member.decompress(data))
            if not self._member.eof:
                break
            data = self._member.unused_data  # the next member's first bytes, if any
            self._member = None
        return b"".join(out)

    def _new_member(self) -> Any:
        if self._kind == "xz":
            return lzma.LZMADecompressor(lzma.FORMAT_XZ)
        assert _zstd is not None
        return _zstd.ZstdDecompressor().decompressobj()

    def _check_padding(self) -> None:
        if self._padding % 4:
            raise ValueError(f"{self._padding} null bytes after an xz stream: stream padding comes in fours")
        self._padding = 0

    def _ended(self) -> None:
        if self._member is not None:
            frame = "a Zstandard frame" if self._kind == "zstd" else "an xz stream"
            raise EOFError(f"the stream ends inside {frame}")
        self._check_padding()

    def close(self) -> None:
        self._source.close()
        super().close()


class _Replayed(io.RawIOBase):
    """A stream whose first bytes were already read to look at them: they come first again.
    A read that fails is one BPEError naming the file and the byte."""

    def __init__(self, head: bytes, rest: BinaryIO, name: str) -> None:
        self._head = head
        self._rest = rest
        self._name = name
        self._offset = len(head)  # of the file, where the next read of ``rest`` starts

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:  # a writable buffer (bytearray, memoryview)
        view = memoryview(buffer).cast("B")
        if self._head:
            n = min(len(view), len(self._head))
            view[:n] = self._head[:n]
            self._head = self._head[n:]
            return n
        try:
            data = self._rest.read(len(view))
        except OSError as exc:  # EIO, a network file gone: the open worked, the read did not
            raise BPEError(f"{self._name}: cannot read at byte {self._offset:,}: {exc.strerror or exc}") from None
        view[: len(data)] = data
        self._offset += len(data)
        return len(data)

    def close(self) -> None:
        if self._rest is not sys.stdin.buffer:  # stdin stays open for whoever reads it next
            self._rest.close()
        super().close()


def open_file(path: str) -> tuple[BinaryIO, str | None]:
    """A local file's bytes, decompressed when it is compressed (see :func:`open_stream`)."""
    return open_stream(open(path, "rb"), path)


def file_compression(path: str) -> str | None:
    """The compression of a regular file (``gzip`` ...), by its magic number; None otherwise
    (also for a file that cannot be read: its reader says why)."""
    if not os.path.isfile(path):
        return None
    try:
        with open(path, "rb") as f:
            return compression_of(f.read(HEAD), path)
    except OSError:
        return None


def read_error(name: str, kind: str, exc: BaseException, offset: int) -> BPEError:
    """One line for a damaged compressed stream: the file, the compression, how far the
    decompressed text had been read, and what the decompressor said."""
    said = " ".join(str(exc).split()) or type(exc).__name__
    if isinstance(exc, EOFError):
        said = "the file ends before the compressed stream does (truncated?)"
    return BPEError(f"{name}: damaged {kind} data after {offset:,} decompressed bytes: {said}")
