"""The terminal around the commands: text from stdin and argv (one-line errors where it is not
UTF-8), progress bars on stderr, and Ctrl+C and SIGTERM that end a command in one line and are
never lost (the handlers themselves live in :mod:`bpe_tui.endings`; :mod:`bpe_tui.launch` sets
them before anything heavy is imported)."""

from __future__ import annotations

import codecs
import contextlib
import os
import sys

from ..core.errors import BPEError
from ..core.wording import one_line
from ..endings import (  # noqa: F401  (the CLI's commands and tests reach them here)
    ENDINGS,
    Terminated,
    _Interrupt,
    ending,
    ending_signals,
    stop_if_interrupted,
)


def say(message: str) -> None:
    """One line on stderr, ``bpe-tui: message``: an error, a note, a warning, how the command
    ended. Every such line goes out here, through :func:`~bpe_tui.core.wording.one_line`: a
    file's name or content inside it is shown escaped, whichever code put it there."""
    print(f"bpe-tui: {one_line(message)}", file=sys.stderr)


def show(line: str) -> None:
    """A line of a report for people on stdout (a summary naming a file), through
    :func:`~bpe_tui.core.wording.one_line`: the file's name in it is shown escaped, and a
    newline in the name cannot start a line of its own. (A report of several lines escapes
    the names it puts in; what a command outputs as data, ids, decoded text, JSON, is
    printed as it is.)"""
    print(one_line(line))


def stderr_progress(unit: str = "items"):
    """A rich progress bar on stderr that disappears when done (use it as a context manager);
    amounts read as sizes for ``unit="bytes"``, as ``1,234/5,678`` otherwise. A task whose
    unit changes as it goes (train: counting bytes, then merging) says so in its ``unit`` field."""
    from rich.console import Console
    from rich.filesize import decimal
    from rich.progress import (
        BarColumn,
        Progress,
        ProgressColumn,
        TextColumn,
        TimeElapsedColumn,
    )
    from rich.text import Text

    class Amount(ProgressColumn):
        def render(self, task) -> Text:
            done, total = int(task.completed), task.total
            if task.fields.get("unit", unit) == "bytes":
                return Text(decimal(done) + (f"/{decimal(int(total))}" if total else ""), style="progress.download")
            return Text(f"{done:,}" + (f"/{int(total):,}" if total else ""), style="progress.download")

    return Progress(TextColumn("{task.description}"), BarColumn(), Amount(), TimeElapsedColumn(), console=Console(stderr=True), transient=True)


@contextlib.contextmanager
def progress_bar(description: str, quiet: bool, unit: str = "bytes"):
    """A ``progress(done, total)`` callback drawing a bar on stderr (None when stderr is not
    a terminal, or with --quiet); ctrl+c stops the work (exit 130, see :func:`main`)."""
    if not sys.stderr.isatty() or quiet:
        yield None
        return
    with stderr_progress(unit) as bar:
        task = bar.add_task(description, total=None)
        yield lambda done, total: bar.update(task, completed=done, total=total or None)


def counting_label(dask: str | None, records: int = 0) -> str:
    """What the counting progress counts: bytes read here, or blocks counted on Dask; and the
    records (JSON lines, Parquet rows) read so far, once there are any."""
    label = f"counting on dask {dask} (blocks)" if dask else "counting words (bytes)"
    return f"{label}, {records:,} records" if records else label


def explorer_ended(status: int) -> int:
    """The explorer's exit status, said in one line when SIGINT or SIGTERM ended it (the
    explorer itself gives the terminal back first, then returns 128 + the signal's number:
    see ``ExplorerApp.on_load``)."""
    for line, code in ENDINGS.values():
        if status == code:
            say(line)
    return status


def read_stdin_text() -> str:
    """All of stdin as UTF-8 text (one-line error naming the byte where it is not)."""
    data = sys.stdin.buffer.read()
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise BPEError(f"stdin: not valid UTF-8 at byte {exc.start}") from None


def iter_stdin_text(block: int = 1 << 16):
    """stdin as UTF-8 text in pieces, decoded incrementally (memory stays flat)."""

    decoder = codecs.getincrementaldecoder("utf-8")()
    done = 0
    while True:
        data = sys.stdin.buffer.read(block)
        try:
            text = decoder.decode(data, final=not data)
        except UnicodeDecodeError as exc:
            raise BPEError(f"stdin: not valid UTF-8 at byte {done + exc.start}") from None
        done += len(data)
        if text:
            yield text
        if not data:
            return


def argv_text(text: str, what: str) -> str:
    """A command-line argument as text: bytes that are not UTF-8 are a one-line error."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raw = os.fsencode(text)
        try:
            raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise BPEError(f"{what}: not valid UTF-8 at byte {exc.start}") from None
    return text
