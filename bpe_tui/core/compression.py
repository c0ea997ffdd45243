"""Compressed files read as streams: gzip, bzip2, xz and Zstandard.

Corpora and tables are shipped compressed (a Wikipedia dump as ``.bz2``, a crawl as
``.jsonl.gz``, CLIP's merges as ``bpe_simple_vocab_16e6.txt.gz``). Every reader of this
package opens its files through :func:`open_stream`, so a compressed file reads like its
plain form wherever a file is read.

What a file *is* is decided by its first bytes (the format's magic number), never by its
name alone: a ``.txt`` that holds gzip data is decompressed, and a ``.gz`` that holds plain
text is read as it is. The name matters only for ``.zst`` files when the optional
``zstandard`` package is missing, to say which extra to install.

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

#: name -> the magic number its files start with.
MAGIC: dict[str, bytes] = {
    "gzip": b"\x1f\x8b",
    "bzip2": b"BZh",
    "xz": b"\xfd7zXZ\x00",
    "zstd": b"\x28\xb5\x2f\xfd",
}
#: name -> the file name endings people give it.
EXTENSIONS: dict[str, tuple[str, ...]] = {
    "gzip": (".gz", ".gzip"),
    "bzip2": (".bz2",),
    "xz": (".xz",),
    "zstd": (".zst", ".zstd"),
}
#: The optional extra that brings zstandard.
ZSTD_EXTRA = "pip install 'bpe-tui[zstd]'"

#: What reading a damaged compressed stream raises, beyond OSError (which gzip's BadGzipFile
#: and bz2's "Invalid data stream" are): a truncated gzip or bzip2 stream is an EOFError, a
#: damaged xz stream an LZMAError; zstandard's ZstdError is an OSError subclass... or not,
#: by version, so it is added when the package is there.
READ_ERRORS: tuple[type[BaseException], ...] = (OSError, EOFError, lzma.LZMAError)
try:  # pragma: no cover - depends on the optional extra
    import zstandard as _zstd

    READ_ERRORS = (*READ_ERRORS, _zstd.ZstdError)
except ImportError:  # pragma: no cover
    _zstd = None  # type: ignore[assignment]


def compression_of(head: bytes) -> str | None:
    """The compression whose magic number ``head`` (a file's first bytes) starts with, or None."""
    for name, magic in MAGIC.items():
        if head.startswith(magic):
            return name
    return None


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


def open_stream(raw: BinaryIO, name: str) -> tuple[BinaryIO, str | None]:
    """``raw`` decompressed if its first bytes say it is compressed, with the compression's
    name (None: plain, and the stream comes back readable from its first byte).

    ``raw`` need not be seekable (stdin, a URL): its first bytes are peeked through a buffer.
    ``name`` (the file as the user gave it) goes into the error when Zstandard is missing.
    """
    head = b""
    while len(head) < 8:  # a pipe may hand over fewer bytes than asked
        more = raw.read(8 - len(head))
        if not more:
            break
        head += more
    buffered: BinaryIO = io.BufferedReader(_Replayed(head, raw))
    kind = compression_of(head)
    if kind is None:
        return buffered, None
    if kind == "gzip":
        return gzip.GzipFile(fileobj=buffered, mode="rb"), kind  # type: ignore[return-value]
    if kind == "bzip2":
        return bz2.BZ2File(buffered, "rb"), kind  # type: ignore[return-value]
    if kind == "xz":
        return lzma.LZMAFile(buffered, "rb"), kind  # type: ignore[return-value]
    if _zstd is None:
        raise BPEError(f"{name}: is Zstandard-compressed; reading it needs the zstandard package: {ZSTD_EXTRA}")
    return io.BufferedReader(_ZstdFrames(buffered)), kind


#: Compressed bytes handed to a Zstandard decompressor at a time. Its output per call is not
#: bounded, so the input is: text compresses 3-10x, so a call makes tens of KB.
ZSTD_READ = 8 << 10


class _ZstdFrames(io.RawIOBase):
    """Zstandard frames one after another, decompressed. A stream that ends inside a frame
    raises EOFError, as gzip, bzip2 and xz do (zstandard's own stream reader hands back what
    it has and stops, silently: a truncated download would read as a shorter corpus)."""

    def __init__(self, source: BinaryIO) -> None:
        self._source = source
        self._out = b""
        self._pos = 0
        self._next_frame()

    def _next_frame(self) -> None:
        assert _zstd is not None
        self._frame = _zstd.ZstdDecompressor().decompressobj()
        self._inside = False  # bytes of the current frame were fed, and it has not ended

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:  # a writable buffer (bytearray, memoryview)
        view = memoryview(buffer).cast("B")
        while self._pos >= len(self._out):
            data = self._source.read(ZSTD_READ)
            if not data:
                if self._inside:
                    raise EOFError("the stream ends inside a Zstandard frame")
                return 0
            self._out, self._pos = self._feed(data), 0
        n = min(len(view), len(self._out) - self._pos)
        view[:n] = self._out[self._pos : self._pos + n]
        self._pos += n
        return n

    def _feed(self, data: bytes) -> bytes:
        out = []
        while data:
            self._inside = True
            out.append(self._frame.decompress(data))
            if not self._frame.eof:
                break
            data = self._frame.unused_data  # the next frame's first bytes, if any
            self._next_frame()
        return b"".join(out)

    def close(self) -> None:
        self._source.close()
        super().close()


class _Replayed(io.RawIOBase):
    """A stream whose first bytes were already read to look at them: they come first again."""

    def __init__(self, head: bytes, rest: BinaryIO) -> None:
        self._head = head
        self._rest = rest

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:  # a writable buffer (bytearray, memoryview)
        view = memoryview(buffer).cast("B")
        if self._head:
            n = min(len(view), len(self._head))
            view[:n] = self._head[:n]
            self._head = self._head[n:]
            return n
        data = self._rest.read(len(view))
        view[: len(data)] = data
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
            return compression_of(f.read(8))
    except OSError:
        return None


def read_error(name: str, kind: str, exc: BaseException, offset: int) -> BPEError:
    """One line for a damaged compressed stream: the file, the compression, how far the
    decompressed text had been read, and what the decompressor said."""
    said = str(exc) or type(exc).__name__
    if isinstance(exc, EOFError):
        said = "the file ends before the compressed stream does (truncated?)"
    return BPEError(f"{name}: damaged {kind} data after {offset:,} decompressed bytes: {said}")
