"""What a corpus file holds: plain text, JSON lines or Parquet, compressed or not.

The compression is found by the file's first bytes (:mod:`bpe_tui.core.compression`), never by
its name. What is inside is found by the name without its compression ending: ``.jsonl``,
``.ndjson`` and ``.json`` hold one JSON record a line, ``.parquet`` and ``.pq`` are Parquet;
Parquet is also found by its magic number (``PAR1``) whatever the name says. Anything else is
text. Datasets ship this way (``train-00001.parquet``, ``openwebtext_01.jsonl.zst``); a JSON
file holding one array is not JSON lines, and says so when read (see :mod:`.datasets.jsonl`).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..compression import compression_of, plain_name

TEXT = "text"
JSONL = "jsonl"
PARQUET = "parquet"

JSONL_ENDINGS = (".jsonl", ".ndjson", ".json")
PARQUET_ENDINGS = (".parquet", ".pq")
#: A Parquet file starts (and ends) with these four bytes.
PARQUET_MAGIC = b"PAR1"
#: Bytes of a file's start that decide its kind (the longest magic number is xz's six).
HEAD = 8


@dataclass(frozen=True)
class FileKind:
    """A corpus file's content (TEXT, JSONL or PARQUET) and its compression (None: plain)."""

    kind: str
    compression: str | None = None

    @property
    def splittable(self) -> bool:
        """Whether workers can read it in byte ranges: a plain text or JSONL file (a compressed
        stream must be read from its start; Parquet is split by row groups instead)."""
        return self.compression is None and self.kind != PARQUET

    @property
    def records(self) -> bool:
        """Whether it holds records (each one document) rather than running text."""
        return self.kind != TEXT


def kind_from(name: str, head: bytes) -> FileKind:
    """The kind of a file called ``name`` whose first bytes are ``head`` (``-``: stdin, text)."""
    if head.startswith(PARQUET_MAGIC):
        return FileKind(PARQUET)
    compression = compression_of(head)
    inner = plain_name(name).lower()  # (a .gz that holds plain bytes is read as it is, and named as if unpacked)
    if inner.endswith(PARQUET_ENDINGS):
        return FileKind(PARQUET, compression)  # (compressed or not Parquet at all: its reader says which)
    if inner.endswith(JSONL_ENDINGS):
        return FileKind(JSONL, compression)
    return FileKind(TEXT, compression)
