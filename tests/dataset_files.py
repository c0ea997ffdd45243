"""Datasets made at test time, the way they are shipped: text compressed four ways, JSON lines
(plain or compressed, flat or nested), Parquet shards. Each writer returns the path written.

The texts are the documents: a record per text, the text in the field ``field`` (a dotted path
writes nested objects, ``meta.body`` -> ``{"meta": {"body": ...}}``).
"""

from __future__ import annotations

import bz2
import gzip
import json
import lzma
from pathlib import Path

from tests.conftest import TINYSHAKESPEARE, need


def zstd(data: bytes) -> bytes:
    import zstandard

    return zstandard.ZstdCompressor().compress(data)


COMPRESS = {"": lambda b: b, ".gz": gzip.compress, ".bz2": bz2.compress, ".xz": lzma.compress, ".zst": zstd}


def write_bytes(path: Path, data: bytes) -> Path:
    """``data`` at ``path``, compressed as the name's last ending says (.gz .bz2 .xz .zst)."""
    ending = next((e for e in COMPRESS if e and path.name.endswith(e)), "")
    path.write_bytes(COMPRESS[ending](data))
    return path


def record(text: str, field: str = "text", **extra) -> dict:
    """A JSON record holding ``text`` at the (dotted) ``field``, beside ``extra`` fields."""
    *outer, last = field.split(".")
    inner: dict = {last: text}
    for name in reversed(outer):
        inner = {name: inner}
    return {**extra, **inner}


def write_jsonl(path: Path, texts, field: str = "text") -> Path:
    """One record a line (``id`` first, then the text), compressed as the name says."""
    lines = (json.dumps(record(t, field, id=i), ensure_ascii=i % 2 == 0) + "\n" for i, t in enumerate(texts))
    return write_bytes(path, "".join(lines).encode("utf-8"))


def write_parquet(path: Path, texts, column: str = "text", row_group_size: int = 5000) -> Path:
    """A Parquet file with an ``id`` column and the texts (a dotted column: a struct)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    texts = list(texts)
    *outer, last = column.split(".")
    values = pa.array(texts, pa.string())
    columns = {"id": pa.array(range(len(texts)), pa.int64())}
    if outer:
        inner = pa.StructArray.from_arrays([values, pa.array([len(t) for t in texts])], names=[last, "chars"])
        for name in reversed(outer[1:]):
            inner = pa.StructArray.from_arrays([inner], names=[name])
        columns[outer[0]] = inner
    else:
        columns[last] = values
    pq.write_table(pa.table(columns), path, row_group_size=row_group_size)
    return path


def lines_of(text: str) -> list[str]:
    """A text's lines as bpe-tui and tokenizers read files: each with its ``\n``, and only
    ``\n`` ends a line (``str.splitlines`` would also cut at ``\r``, ``\x0c``, ``\x85`` ...)."""
    *whole, last = text.split("\n")
    return [line + "\n" for line in whole] + ([last] if last else [])


def tinyshakespeare_lines() -> list[str]:
    """tinyshakespeare's lines, each with its newline (skips without ../shared)."""
    return lines_of(need(TINYSHAKESPEARE).read_text(encoding="utf-8"))


def ten_mb_records() -> list[str]:
    """About 10 MB of varied documents made from tinyshakespeare: its speeches (paragraphs),
    over and over, each pass numbering them differently so that words keep changing; some end
    with a newline and some do not, some are empty."""
    speeches = need(TINYSHAKESPEARE).read_text(encoding="utf-8").split("\n\n")
    out: list[str] = []
    size = 0
    rounds = 0
    while size < 10_000_000:
        rounds += 1
        for k, speech in enumerate(speeches):
            text = f"[{rounds}.{k}] {speech}" + ("\n" if k % 3 == 0 else "")
            out.append(text if k % 97 else "")
            size += len(text)
    return out
