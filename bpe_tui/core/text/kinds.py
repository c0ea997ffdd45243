"""What a corpus file holds: plain text, JSON lines or Parquet, compressed or not.

The compression is found by the file's first bytes (:mod:`bpe_tui.core.compression`), never by
its name. What is inside is found by the name without its compression ending: ``.jsonl``,
``.ndjson`` and ``.json`` hold one JSON record a line, ``.parquet`` and ``.pq`` are Parquet;
Parquet is also found by its magic number (``PAR1``) whatever the name says. Anything else is
text. Datasets ship this way (``train-00001.parquet``, ``openwebtext_01.jsonl.zst``); a JSON
file holding one array is not JSON lines, and says so when read (see :mod:`.datasets.jsonl`).

A magic number can be met by chance: a text may start with ``PAR1`` or ``BZh``. A Parquet file
also *ends* with ``PAR1``, and bzip2's magic is ten bytes long (:mod:`bpe_tui.core.compression`),
so a file that has only the start of one is what its name says, or text, and its
:attr:`FileKind.note` says what was assumed (as one for a name that claims a compression the
content does not have): the reader reports it, never refuses the file for it.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..compression import MAGIC, compression_of, named_compression, plain_name

TEXT = "text"
JSONL = "jsonl"
PARQUET = "parquet"

JSONL_ENDINGS = (".jsonl", ".ndjson", ".json")
PARQUET_ENDINGS = (".parquet", ".pq")
#: A Parquet file starts (and ends) with these four bytes.
PARQUET_MAGIC = b"PAR1"


@dataclass(frozen=True)
class FileKind:
    """A corpus file's content (TEXT, JSONL or PARQUET) and its compression (None: plain);
    ``note``: what was assumed where the name and the first bytes disagree (None: nothing)."""

    kind: str
    compression: str | None = None
    note: str | None = None

    @property
    def splittable(self) -> bool:
        """Whether workers can read it in byte ranges: a plain text or JSONL file (a compressed
        stream must be read from its start; Parquet is split by row groups instead)."""
        return self.compression is None and self.kind != PARQUET

    @property
    def records(self) -> bool:
        """Whether it holds records (each one document) rather than running text."""
        return self.kind != TEXT


def kind_from(name: str, head: bytes, tail: bytes = b"") -> FileKind:
    """The kind of a file called ``name`` whose first bytes are ``head`` (:data:`HEAD` of
    them) and last four ``tail`` (asked for when ``head`` starts with ``PAR1``)."""
    inner = plain_name(name).lower()  # (a .gz that holds plain bytes is read as it is, and named as if unpacked)
    parquet_named = inner.endswith(PARQUET_ENDINGS)
    if head.startswith(PARQUET_MAGIC) and (parquet_named or tail == PARQUET_MAGIC):
        return FileKind(PARQUET)
    compression = compression_of(head, name)
    if parquet_named:
        return FileKind(PARQUET, compression)  # (compressed or not Parquet at all: its reader says which)
    kind = JSONL if inner.endswith(JSONL_ENDINGS) else TEXT
    return FileKind(kind, compression, _assumed(name, head, compression, kind))


def _assumed(name: str, head: bytes, compression: str | None, kind: str) -> str | None:
    """What a reader of a file of ``kind`` assumes, in words, where its name or the start of a
    magic number says otherwise; None where nothing is."""
    what = "JSON lines" if kind == JSONL else "text"
    if head.startswith(PARQUET_MAGIC):
        return f"{name}: starts with PAR1 as Parquet files do, but does not end with it: read as {what}"
    if compression is None and head.startswith(MAGIC["bzip2"]):
        return f"{name}: starts with BZh as bzip2 data does, but not with the rest of bzip2's magic number: read as {what}"
    claimed = named_compression(name)
    if claimed is not None and compression is None:
        return f"{name}: named as {claimed}-compressed, but does not start as {claimed} data does: read as it is"
    return None
