"""JSON lines: one record a line, compressed or not; each record's text field is a document.

Lines are read from the file's blocks (:func:`~..blocks.raw_blocks`: decompressed when the
file is compressed, a byte range of a plain file for a worker). Blank lines are not records.
Each line is decoded (strictly, or each invalid UTF-8 sequence read as U+FFFD with
``errors="replace"``), parsed, and its text taken from ``options.text_field``
(:func:`~.records.text_of`). A line longer than ``options.max_record`` is bad as soon as it
gets that long: it is never held whole, and skipping it reads on to its end.

Line numbers count from the start of what was read: a worker reading a byte range numbers
from its range's start, and the process adding the ranges up moves them on (``rebased``).
"""

from __future__ import annotations

import json
from collections.abc import Iterator

from ...errors import RecordError
from ..blocks import Progress, check_errors, check_not_binary, decode, raw_blocks
from ..sources import source_name
from .records import Bad, ReadReport, RecordOptions, check_unicode, text_of


def iter_jsonl(
    path: str,
    options: RecordOptions,
    report: ReadReport,
    errors: str = "strict",
    progress: Progress | None = None,
    done: int = 0,
    total: int = 0,
    start: int = 0,
    end: int | None = None,
) -> Iterator[str]:
    """The documents of a JSON lines file, from byte ``start`` (a line start) to ``end``.

    ``report`` counts the records read and the bad ones skipped as it goes, and, once the
    reading is over, the lines read (``report.lines``). A bad record is an error unless
    ``options.skip_bad``; see :mod:`.records`.
    """
    check_errors(errors)
    name = source_name(path)
    number = 0  # the line, counted from ``start``
    longer, advice = options.too_long()
    try:
        for offset, data in _lines(path, start, end, options.max_record, progress, done, total):
            number += 1
            if data is None:
                report.reject(RecordError(name, f"a record {longer} (from byte {offset:,}): {advice}", longer, line=number), options)
                continue
            if not data.strip():
                continue
            line = decode(data, name, offset, errors, number)
            try:
                record = _parse(line)
            except ValueError as exc:  # JSONDecodeError, and a number too long to convert
                said = f"{exc.msg} at character {exc.pos + 1:,}" if isinstance(exc, json.JSONDecodeError) else str(exc)
                hint = " (a JSON lines file holds one JSON object a line)" if start == 0 and number == 1 else ""
                report.reject(RecordError(name, f"not JSON ({said}){hint}", "not JSON", line=number), options)
                continue
            except RecursionError:
                report.reject(RecordError(name, "not JSON (nested too deeply to read)", "not JSON", line=number), options)
                continue
            try:
                text = text_of(record, options)
            except Bad as bad:
                report.reject(RecordError(name, bad.what, bad.reason, line=number), options)
                continue
            if "\\u" in line:  # only an escape can make half a surrogate pair
                try:
                    text = check_unicode(text, errors)
                except ValueError as exc:
                    raise RecordError(name, str(exc), "not Unicode", line=number) from None
            report.records += 1
            yield text
    finally:
        report.lines += number


_DECODER = json.JSONDecoder()


def _parse(line: str) -> object:
    """``json.loads(line)``, without its two regex passes per call (a line is one value,
    maybe with whitespace around it)."""
    start = 0 if line[:1] not in _SPACE else len(line) - len(line.lstrip())
    value, end = _DECODER.raw_decode(line, start)
    if end != len(line) and not line[end:].isspace():
        raise json.JSONDecodeError("Extra data", line, end)
    return value


_SPACE = frozenset(" \t\r\n")


def _lines(
    path: str, start: int, end: int | None, limit: int, progress: Progress | None, done: int, total: int
) -> Iterator[tuple[int, bytes | None]]:
    """``(offset, line)`` for each line of the content from ``start``: the line's bytes without
    its ``\\n``, or None for a line longer than ``limit``, given once it is that long (the
    rest of it is read past, never held)."""
    pending: list[bytes] = []  # the start of a line not ended yet
    size = 0  # its length so far
    too_long = False  # the pending line was given as None already: its bytes are dropped
    offset = start
    first = start == 0
    for block in raw_blocks(path, start, end, progress, done, total):
        if first:
            first = False
            check_not_binary(block, source_name(path))
        lines = block.split(b"\n")
        tail = lines.pop()  # after the block's last line end: the start of a line
        for k, line in enumerate(lines):
            if k == 0 and (pending or too_long):
                length = size + len(line)
                if not too_long:
                    line = b"".join(pending) + line
                    yield offset, (line if length <= limit else None)
                pending, size, too_long = [], 0, False
            else:
                length = len(line)
                yield offset, (line if length <= limit else None)
            offset += length + 1
        size += len(tail)
        if not too_long and tail:
            pending.append(tail)
            if size > limit:
                yield offset, None
                pending, too_long = [], True
    if pending:
        yield offset, b"".join(pending)
