"""The parts a corpus is read in: what each file holds, how it is cut for workers, and how a
part is read as text.

A *part* is what one worker reads: a byte range of a plain text or JSON lines file (starting
at a line start: :func:`~.blocks.plan_ranges`), a whole compressed file (a stream is read
from its start), a run of a Parquet file's row groups, or stdin (read by the process that
plans). Read, a part gives text in pieces that each end at a line end or at a document's end
(:func:`read_part`): a text file's blocks, or the documents of its records; that is what the
word counter takes. Local worker processes (:mod:`.corpus`) and Dask workers
(:mod:`.distributed`) get the same parts, and their results are added up in part order, so
the counts come out the same, in the same order, as one process reading everything.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass

from ..compression import read_head
from ..errors import BPEError
from .blocks import Progress, iter_text_blocks, plan_ranges
from .datasets.jsonl import iter_jsonl
from .datasets.parquet import ParquetText, plan_row_groups
from .datasets.records import ReadReport, RecordOptions
from .kinds import JSONL, PARQUET, PARQUET_MAGIC, TEXT, FileKind, kind_from
from .sources import open_binary


@dataclass(frozen=True)
class Part:
    """One part of the corpus: ``path`` holding ``kind``, from ``start`` to ``end`` (bytes of
    a plain file, row groups of a Parquet file; ``end`` None: to the end), standing for
    ``size`` bytes of the file (for progress)."""

    path: str
    kind: FileKind
    start: int = 0
    end: int | None = None
    size: int = 0


def file_kind(path: str) -> FileKind:
    """What ``path`` holds (see :mod:`.kinds`), from its name, its first bytes and, when
    they start as Parquet's do, its last four; stdin is text."""
    if path == "-":
        return FileKind(TEXT)
    with open_binary(path) as f:
        try:
            head = read_head(f)
            tail = b""
            if head.startswith(PARQUET_MAGIC):
                f.seek(-len(PARQUET_MAGIC), os.SEEK_END)
                tail = f.read(len(PARQUET_MAGIC))
        except OSError as exc:
            raise BPEError(f"{path}: cannot read: {exc.strerror or exc}") from None
    return kind_from(os.path.basename(path), head, tail)


def plan_parts(
    sources: list[str], sizes: dict[str, int], target: int | None, options: RecordOptions, notes: list[str] | None = None
) -> list[Part]:
    """The parts of the corpus, in reading order: each file whole (``target`` None), or cut
    into parts of about ``target`` bytes where it can be (plain files by line-aligned byte
    ranges, Parquet by row groups; compressed files stay whole). A Parquet file is opened
    here, so a file that is not Parquet, or has no such column, fails before any work.
    ``notes``, if given, gets what was assumed about a file (:attr:`~.kinds.FileKind.note`)."""
    parts: list[Part] = []
    for path in sources:
        kind = file_kind(path)
        if kind.note is not None and notes is not None:
            notes.append(kind.note)
        size = sizes.get(path, 0)
        if kind.kind == PARQUET:
            parts.extend(Part(path, kind, a, b, share) for a, b, share in plan_row_groups(path, size, target, options))
        elif path == "-" or target is None or not kind.splittable:
            parts.append(Part(path, kind, size=size))
        else:
            parts.extend(Part(path, kind, a, b, b - a) for a, b in plan_ranges(path, size, target) or [(0, 0)])
    return parts


def read_part(
    part: Part,
    errors: str,
    options: RecordOptions,
    report: ReadReport,
    progress: Progress | None = None,
    done: int = 0,
    total: int = 0,
) -> Iterator[str]:
    """A part as text pieces that end at line ends or documents' ends (see the module docstring);
    ``report`` counts records, bad ones skipped and, after a JSON lines part, its lines."""
    kind = part.kind.kind
    if kind == JSONL:
        yield from iter_jsonl(part.path, options, report, errors, progress, done, total, part.start, part.end)
    elif kind == PARQUET:
        with ParquetText(part.path, options) as parquet:
            yield from parquet.texts(report, errors, part.start, part.end, progress, done, part.size, total)
    else:
        yield from iter_text_blocks(part.path, errors, progress, done, total, part.start, part.end)


def preview_text(paths: list[str], chars: int, options: RecordOptions | None = None) -> str | None:
    """The start of the first corpus file that has any text: about ``chars`` characters of its
    text, or of its first documents (one a line), read leniently (U+FFFD for bad bytes, bad
    records passed over). None when nothing can be read."""
    from .sources import expand_sources

    lenient = RecordOptions(options.text_field if options else "text", skip_bad=True)
    try:
        sources = [p for p in expand_sources(paths) if p != "-"]
    except BPEError:
        return None
    for path in sources:
        out: list[str] = []
        size = 0
        try:
            kind = file_kind(path)
            for text in read_part(Part(path, kind), "replace", lenient, ReadReport()):
                if kind.records and not text.endswith("\n"):
                    text += "\n"
                out.append(text[: chars - size])
                size += len(out[-1])
                if size >= chars:
                    break
        except (BPEError, OSError):
            pass
        if size:
            return "".join(out)
    return None


__all__ = ["Part", "file_kind", "plan_parts", "preview_text", "read_part"]
