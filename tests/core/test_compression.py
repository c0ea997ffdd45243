"""Compressed streams: every compression is found by its magic number, whatever the name says."""

from __future__ import annotations

import bz2
import gzip
import io
import lzma

import pytest

from bpe_tui.core import compression
from bpe_tui.core.compression import compression_of, named_compression, open_file, open_stream, plain_name
from bpe_tui.core.errors import BPEError

TEXT = ("the quick brown fox\nжёлтый 日本語 🦊\n" * 200).encode("utf-8")


def _zstd(data: bytes) -> bytes:
    zstandard = pytest.importorskip("zstandard", reason="the zstd extra is not installed")
    return zstandard.ZstdCompressor().compress(data)


COMPRESSORS = {"gzip": gzip.compress, "bzip2": bz2.compress, "xz": lzma.compress, "zstd": _zstd}


@pytest.mark.parametrize("kind", sorted(COMPRESSORS))
def test_each_compression_reads_back_whatever_the_name(tmp_path, kind):
    packed = COMPRESSORS[kind](TEXT)
    for name in ("corpus.txt", f"corpus.txt{compression.EXTENSIONS[kind][0]}", "corpus.gz"):
        path = tmp_path / name
        path.write_bytes(packed)
        stream, found = open_file(str(path))
        with stream:
            assert found == kind and stream.read() == TEXT


def test_plain_bytes_come_back_whole_even_named_gz(tmp_path):
    path = tmp_path / "lies.gz"
    path.write_bytes(TEXT)
    stream, found = open_file(str(path))
    with stream:
        assert found is None and stream.read() == TEXT


class Trickle(io.RawIOBase):
    """A pipe that hands over one byte per read."""

    def __init__(self, data: bytes) -> None:
        self.data = data

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        if not self.data:
            return 0
        buffer[0] = self.data[0]
        self.data = self.data[1:]
        return 1


@pytest.mark.parametrize("data", [gzip.compress(TEXT, mtime=0), TEXT, b"", b"\x1f"])
def test_a_pipe_that_trickles_is_read_whole(data):
    stream, found = open_stream(Trickle(data), "stdin")  # type: ignore[arg-type]
    assert stream.read() == (TEXT if found else data)


def test_names():
    assert named_compression("a/B.JSONL.GZ") == "gzip" and named_compression("a.txt") is None
    assert plain_name("shard.jsonl.zst") == "shard.jsonl" and plain_name("a.txt") == "a.txt"
    assert compression_of(b"BZh91AY&SY") == "bzip2" and compression_of(b"hello") is None
    assert compression_of(bz2.compress(b"")) == "bzip2"  # (an empty stream: its end marker follows at once)
    assert compression_of(b"BZh91AY") is None and compression_of(b"BZh is text") is None  # (only the start of the magic)


@pytest.mark.parametrize("cut", [3, 4, 7], ids=["BZh", "BZh9", "BZh9-and-part-of-its-marker"])
def test_a_bz2_file_cut_inside_its_magic_is_damaged_not_text(tmp_path, cut, capsys):
    """A .bz2 file cut inside bzip2's ten-byte magic (issue 42: cut to its 4-byte header) was
    read as text and counted (exit 0): a file named .bz2 that ends there is bzip2 cut short.
    A file of another name that starts so stays text (with its note)."""
    from bpe_tui.cli import main

    head = bz2.compress(TEXT)[:cut]
    path = tmp_path / "corpus.txt.bz2"
    path.write_bytes(head)
    assert compression_of(head, str(path)) == "bzip2" and compression_of(head) is None
    assert main(["count", str(path), "-o", str(tmp_path / "c.tsv")]) == 2
    err = capsys.readouterr().err
    assert err == f"bpe-tui: error: {path}: damaged bzip2 data after 0 decompressed bytes: the file ends before the compressed stream does (truncated?)\n"
    assert not (tmp_path / "c.tsv").exists()
    text = tmp_path / "corpus.txt"
    text.write_bytes(head)
    assert compression_of(head, str(text)) is None
    assert compression_of(b"BZh9 is a word", str(path)) is None  # (longer than the magic: not cut there)


@pytest.mark.parametrize("kind", sorted(COMPRESSORS))
def test_a_truncated_stream_is_one_error_line(tmp_path, kind):
    path = tmp_path / "cut"
    path.write_bytes(COMPRESSORS[kind](TEXT)[:-20])
    stream, found = open_file(str(path))
    with pytest.raises(BPEError) as caught, stream:
        stream.read()
    message = str(caught.value)
    assert found == kind and message.startswith(f"{path}: damaged {kind} data after ") and "\n" not in message


def test_zstd_without_the_package_names_the_extra(tmp_path, monkeypatch):
    path = tmp_path / "a.zst"
    path.write_bytes(compression.MAGIC["zstd"] + b"\0" * 20)
    monkeypatch.setattr(compression, "_zstd", None)
    with pytest.raises(BPEError, match=r"a\.zst: is Zstandard-compressed.*bpe-tui\[zstd\]"):
        open_file(str(path))
