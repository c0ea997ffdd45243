"""Parquet: the text column of a Parquet file, read by row group, each row a document.

pyarrow is optional (``pip install 'bpe-tui[parquet]'``) and imported only when a Parquet
file is read; without it, one line names the extra. The column is ``options.text_field``: a
column name, or a dotted path into struct columns (``meta.body``); a missing one is an error
naming the columns that exist, and a column of another type (integers, lists) an error naming
its type. String columns are read as they are, binary ones decoded as UTF-8 (strictly, or
with U+FFFD under ``errors="replace"``). A null value, or a value longer than
``options.max_record`` characters, is a bad record (:mod:`.records`).

A column name two columns share is an error too (which one is meant?). Pages that carry a
checksum (writers add one on request: pyarrow's ``write_page_checksum=True``) are checked
against it as they are read, and a page that fails is a one-line error naming the row group.

Only that column is read, a batch of :data:`BATCH_ROWS` rows at a time, from the row groups
asked for: memory holds one batch and pyarrow's buffers for one row group, whatever the size
of the file. Workers split a file by row groups (:func:`plan_row_groups`); rows are numbered
from 1 at the file's start, whichever worker reads them.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ...compression import compression_of, read_head
from ...errors import BPEError, RecordError
from ..blocks import Progress, check_errors
from ..sources import open_binary, source_name
from .records import ReadReport, RecordOptions

INSTALL_HINT = "pip install 'bpe-tui[parquet]'"
#: Rows converted to Python strings at a time.
BATCH_ROWS = 1024


def require_pyarrow() -> Any:
    """``pyarrow.parquet``, or a one-line BPEError naming the extra to install."""
    try:
        import pyarrow.parquet as pq
    except ImportError:
        raise BPEError(f"reading Parquet needs pyarrow, which is not installed: {INSTALL_HINT}") from None
    return pq


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


class ParquetText:
    """An open Parquet file and its text column (use it as a context manager)."""

    def __init__(self, path: str, options: RecordOptions) -> None:
        pq = require_pyarrow()
        import pyarrow as pa

        self.name = name = source_name(path)
        self.options = options
        raw = open_binary(path)
        self._raw = raw
        try:
            head = read_head(raw)
            raw.seek(0)
        except OSError as exc:
            raw.close()
            raise BPEError(f"{name}: cannot read at byte 0: {exc.strerror or exc}") from None
        packed = compression_of(head, name)
        if packed is not None:
            raw.close()
            raise BPEError(f"{name}: is {packed}-compressed: Parquet compresses inside the file; give it unpacked")
        try:  # (pages that carry a checksum are checked against it: a changed byte is an error, not a changed text)
            self.file = pq.ParquetFile(raw, page_checksum_verification=True)
        except (pa.ArrowException, OSError, ValueError) as exc:
            raw.close()
            raise BPEError(f"{name}: not a Parquet file ({_first_line(exc)})") from None
        try:
            self.rows = [self.file.metadata.row_group(g).num_rows for g in range(self.file.num_row_groups)]
            self.column, self.inner, self.binary = self._text_column(pa)
        except BaseException:
            raw.close()
            raise

    def __enter__(self) -> "ParquetText":
        return self

    def __exit__(self, *exc: object) -> None:
        self._raw.close()

    def _text_column(self, pa: Any) -> tuple[str, tuple[int, ...], bool]:
        """(top-level column, struct field indices below it, whether the values are bytes)."""
        schema = self.file.schema_arrow
        field = self.options.text_field
        names = schema.names
        path: tuple[str, ...] = ()
        if field in names:
            top = field  # (a column whose name holds dots, or none)
        else:
            top, *rest = self.options.path
            path = tuple(rest)
            if top not in names:
                raise BPEError(f"{self.name}: no column {field!r} (its columns: {', '.join(names) or 'none'})")
        if names.count(top) > 1:
            raise BPEError(f"{self.name}: {names.count(top)} columns are named {top!r}: which one holds the text is not clear (rename one)")
        kind = schema.field(top).type
        inner: list[int] = []
        for depth, part in enumerate(path):
            if not pa.types.is_struct(kind):
                above = ".".join([top, *path[:depth]])
                raise BPEError(f"{self.name}: column {above!r} holds {kind} values, not a struct with a field {part!r}")
            index = kind.get_field_index(part)
            if len(kind.get_all_field_indices(part)) > 1:
                above = ".".join([top, *path[:depth]])
                raise BPEError(f"{self.name}: column {above!r} has several fields named {part!r}: which one holds the text is not clear")
            if index < 0:
                above = ".".join([top, *path[:depth]])
                fields = ", ".join(kind.field(i).name for i in range(kind.num_fields))
                raise BPEError(f"{self.name}: no field {part!r} in column {above!r} (its fields: {fields})")
            inner.append(index)
            kind = kind.field(index).type
        if pa.types.is_dictionary(kind):
            kind = kind.value_type
        if pa.types.is_string(kind) or pa.types.is_large_string(kind) or _is(pa, "is_string_view", kind):
            return top, tuple(inner), False
        if pa.types.is_binary(kind) or pa.types.is_large_binary(kind) or _is(pa, "is_binary_view", kind):
            return top, tuple(inner), True
        raise BPEError(f"{self.name}: column {field!r} holds {kind} values, not text")

    def texts(
        self, report: ReadReport, errors: str = "strict", first: int = 0, last: int | None = None,
        progress: Progress | None = None, done: int = 0, size: int = 0, total: int = 0,
    ) -> Iterator[str]:
        """The documents of row groups ``first`` to ``last`` (exclusive; None: all), in order.
        ``progress`` reports ``done`` plus the share of ``size`` (the bytes these row groups
        stand for) read so far."""
        import pyarrow as pa

        check_errors(errors)
        last = len(self.rows) if last is None else last
        groups = list(range(first, last))
        row = sum(self.rows[:first])  # rows before, numbered from the file's start
        rows = sum(self.rows[first:last]) or 1
        read = 0
        name, field, options = self.name, self.options.text_field, self.options
        longer, advice = options.too_long()
        for batch in self._batches(groups, pa):
            values = self._values(batch.column(0), pa)
            for value in values:
                row += 1
                if value is None:
                    report.reject(RecordError(name, f"{field!r} is null", f"{field!r} null", row=row), options)
                    continue
                if isinstance(value, bytes):
                    try:
                        value = value.decode("utf-8")
                    except UnicodeDecodeError as exc:
                        if errors == "strict":
                            raise RecordError(
                                name, f"{field!r} is not valid UTF-8 at byte {exc.start:,} of the value (use --errors replace to read it with U+FFFD substitutes)",
                                "not UTF-8", row=row,
                            ) from None
                        value = value.decode("utf-8", "replace")
                if len(value) > options.max_record:
                    report.reject(RecordError(name, f"{field!r} is {longer}: {advice}", longer, row=row), options)
                    continue
                report.records += 1
                yield value
            read += len(values)
            if progress is not None:
                progress(done + size * read // rows, total)

    def _batches(self, groups: list[int], pa: Any) -> Iterator[Any]:
        """The text column of row groups ``groups``, a batch of BATCH_ROWS rows at a time, read
        one row group after another (so damage is named by the row group that holds it)."""
        for group in groups:
            row = sum(self.rows[:group])
            batches = self.file.iter_batches(batch_size=BATCH_ROWS, row_groups=[group], columns=[self.column], use_threads=False)
            while True:
                try:
                    batch = next(batches, None)
                except (pa.ArrowException, OSError) as exc:
                    raise BPEError(f"{self.name}: damaged Parquet data in row group {group + 1:,} (after row {row:,}): {_first_line(exc)}") from None
                if batch is None:
                    break
                row += batch.num_rows
                yield batch

    def _values(self, column: Any, pa: Any) -> list[Any]:
        """A batch's text values as Python objects (str, or bytes for binary and for a string
        column holding invalid UTF-8: decoded, with row numbers, by the caller)."""
        for index in self.inner:
            column = column.flatten()[index]  # (flatten: a null struct makes its fields null)
        if self.binary:
            return list(column.to_pylist())
        try:
            return list(column.to_pylist())
        except UnicodeDecodeError:  # a string column whose bytes are not UTF-8: say which row
            if pa.types.is_dictionary(column.type):
                column = column.dictionary_decode()
            return list(column.cast(pa.large_binary() if pa.types.is_large_string(column.type) else pa.binary()).to_pylist())


def _is(pa: Any, test: str, kind: Any) -> bool:
    """A pyarrow type test that older pyarrow versions lack (string_view: pyarrow 16)."""
    check = getattr(pa.types, test, None)
    return bool(check(kind)) if check is not None else False


def plan_row_groups(path: str, size: int, target: int | None, options: RecordOptions) -> list[tuple[int, int, int]]:
    """``(first, last, bytes)``: runs of a Parquet file's row groups of about ``target`` bytes
    each (None: one run, the whole file), ``bytes`` the share of the file's ``size`` each
    stands for (by rows; they add up to ``size``). Opening the file here checks it is Parquet
    and holds the text column, before any worker starts."""
    with ParquetText(path, options) as parquet:
        rows = parquet.rows
    total_rows = sum(rows)
    if not rows:
        return [(0, 0, size)]
    runs: list[tuple[int, int]] = []
    first = 0
    taken = 0
    for group, n in enumerate(rows):
        taken += n
        if target is not None and total_rows and size * taken // total_rows >= target and group + 1 < len(rows):
            runs.append((first, group + 1))
            first = group + 1
            taken = 0
    runs.append((first, len(rows)))
    out = []
    given = 0
    for k, (a, b) in enumerate(runs):
        share = size - given if k == len(runs) - 1 else size * sum(rows[a:b]) // max(1, total_rows)
        out.append((a, b, share))
        given += share
    return out
