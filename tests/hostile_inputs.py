"""Hostile inputs for the readers, made at test time (issue 33): damaged compressed streams,
valid files that look like something else, Parquet files gone wrong, decompression bombs and
folders holding files no reader takes.

Every file is small on disk: a bomb is tens of KB that expand to hundreds of MB. The CLI sweep
(tests/core/test_sweep_readers.py) and the explorer's (tests/ui/test_hostile_open.py) read
the same files.
"""

from __future__ import annotations

import bz2
import gzip
import lzma
import pathlib
import random
import zlib

MB = 1 << 20
#: The text inside the good files.
TEXT = ("the lowest newest widest the low lower\n" * 200).encode()
#: Compressed bytes of each format's header kept before the garbage body (gzip's fixed 10,
#: bzip2's "BZh9" and block marker, xz's 12-byte stream header, zstd's frame header).
HEADERS = {"gzip": 10, "bzip2": 10, "xz": 12, "zstd": 6}
ENDINGS = {"gzip": ".gz", "bzip2": ".bz2", "xz": ".xz", "zstd": ".zst"}


def zstd_compress(data: bytes) -> bytes:
    import zstandard

    return zstandard.ZstdCompressor().compress(data)


PACK = {"gzip": lambda d: gzip.compress(d, mtime=0), "bzip2": bz2.compress, "xz": lzma.compress, "zstd": zstd_compress}


def garbage(n: int = 4000, seed: int = 33) -> bytes:
    rng = random.Random(seed)
    return bytes(rng.randrange(256) for _ in range(n))


def damaged(path: pathlib.Path, kind: str, data: bytes = TEXT) -> pathlib.Path:
    """A ``kind`` stream whose header is valid and whose body is random bytes."""
    path.write_bytes(PACK[kind](data)[: HEADERS[kind]] + garbage())
    return path


def tiktoken_lines(n: int = 2000) -> bytes:
    """``n`` lines of a valid rank file: the 256 bytes, then two-byte tokens."""
    import base64

    tokens = [bytes([b]) for b in range(256)] + [bytes([a, b]) for a in range(97, 123) for b in range(97, 123)]
    tokens += [bytes([a, b, c]) for a in range(97, 123) for b in range(97, 123) for c in range(97, 100)]
    return b"".join(base64.b64encode(t) + b" %d\n" % rank for rank, t in enumerate(tokens[:n]))


def clip_merges() -> bytes:
    return b'"bpe_simple_vocab_16e6.txt#version: 0.2\n' + b"i n\nt h\na n\nr e\n" * 10


def two_text_columns(path: pathlib.Path) -> pathlib.Path:
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pa.Table.from_arrays([pa.array(["a b c"] * 10), pa.array(["d e f"] * 10)], names=["text", "text"])
    pq.write_table(table, path)
    return path


def checksummed(path: pathlib.Path, flip: bool) -> pathlib.Path:
    """A Parquet file of 2,000 rows in 4 row groups with page checksums; ``flip``: one bit
    changed inside the text of row group 2 (its dictionary page)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    texts = [f"document {i}: the quick brown fox jumps over the lazy dog" for i in range(2000)]
    pq.write_table(pa.table({"id": list(range(2000)), "text": texts}), path, row_group_size=500, write_page_checksum=True, compression="none")
    if flip:
        chunk = pq.ParquetFile(path).metadata.row_group(1).column(1)
        start = chunk.dictionary_page_offset or chunk.data_page_offset
        data = bytearray(path.read_bytes())
        data[start + chunk.total_compressed_size // 2] ^= 1
        path.write_bytes(bytes(data))
    return path


def zstd_run(path: pathlib.Path, parts: list[tuple[bytes, int]]) -> pathlib.Path:
    """A .zst of each ``(chunk, n)`` written ``n`` times, compressed as it goes."""
    import zstandard

    with open(path, "wb") as f, zstandard.ZstdCompressor().stream_writer(f) as out:
        for chunk, n in parts:
            for _ in range(n):
                out.write(chunk)
    return path


def run_of(kind: str, path: pathlib.Path, byte: bytes, megabytes: int, before: bytes = b"") -> pathlib.Path:
    """A ``kind`` stream of ``before`` then ``megabytes`` MB of ``byte`` (no line end): a bomb."""
    block = byte * MB
    if kind == "zstd":
        return zstd_run(path, [(before, 1), (block, megabytes)])
    if kind == "gzip":
        packer = zlib.compressobj(9, zlib.DEFLATED, 31)
        compress, flush = packer.compress, packer.flush
    elif kind == "bzip2":
        packer2 = bz2.BZ2Compressor()
        compress, flush = packer2.compress, packer2.flush
    else:
        packer3 = lzma.LZMACompressor()
        compress, flush = packer3.compress, packer3.flush
    with open(path, "wb") as f:
        f.write(compress(before))
        for _ in range(megabytes):
            f.write(compress(block))
        f.write(flush())
    return path


def make_all(d: pathlib.Path) -> pathlib.Path:
    """Every hostile input of the sweep, in ``d`` (made once)."""
    if (d / "done").exists():
        return d
    (d / "good.txt").write_bytes(TEXT)
    for kind in PACK:
        damaged(d / f"dam.txt{ENDINGS[kind]}", kind)
    damaged(d / "dam.jsonl.gz", "gzip", b'{"text": "a record"}\n' * 300)
    (d / "folder").mkdir()
    (d / "folder" / "a.txt").write_bytes(TEXT)
    damaged(d / "folder" / "b.txt.gz", "gzip")
    damaged(d / "dam.tiktoken.gz", "gzip", tiktoken_lines())
    (d / "clip").mkdir()
    damaged(d / "clip" / "bpe_simple_vocab_16e6.txt.gz", "gzip", clip_merges())
    (d / "padded.txt.xz").write_bytes(lzma.compress(TEXT) + b"\0" * 8)
    (d / "bzh.txt").write_bytes(b"BZh is how this line starts, and it is text\n" + TEXT)
    (d / "par1.txt").write_bytes(b"PAR1 is a text line too\n" + TEXT)
    two_text_columns(d / "two.parquet")
    checksummed(d / "sums.parquet", flip=False)
    checksummed(d / "flip.parquet", flip=True)
    (d / "mixed").mkdir()
    (d / "mixed" / "a.txt").write_bytes(TEXT)
    (d / "mixed" / "b.parquet.gz").write_bytes(gzip.compress((d / "two.parquet").read_bytes()))
    (d / "done").write_text("")
    return d
