"""The terminal around the commands: text from stdin and argv (one-line errors where it is not
UTF-8), progress bars on stderr, and Ctrl+C and SIGTERM that end a command in one line and are
never lost."""

from __future__ import annotations

import codecs
import contextlib
import functools
import os
import signal
import sys
from typing import Any

from ..core.errors import BPEError
from ..core.wording import one_line


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


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised where the command is, as Ctrl+C raises KeyboardInterrupt: it unwinds
    the same way (pools terminated, temporary files removed, see :func:`ending_signals`)."""


#: How the command ends after each signal: the line on stderr, and the conventional exit
#: status (128 + the signal's number).
ENDINGS = {signal.SIGINT: ("interrupted", 128 + signal.SIGINT), signal.SIGTERM: ("terminated", 128 + signal.SIGTERM)}


class _Interrupt:
    """Ctrl+C (SIGINT) and SIGTERM in the CLI: KeyboardInterrupt (or :class:`Terminated`) at
    once, and remembered.

    Python swallows an exception raised inside a finalizer or ``__del__`` (it prints
    "Exception ignored in ..." and goes on), and a signal can land just while a worker pool
    is being cleaned up. :meth:`unraisable` (``sys.unraisablehook`` while a command runs)
    keeps that quiet and sends the signal again a moment later, when the finalizer is over;
    the long loops also ask :func:`stop_if_interrupted`. Only one signal raises at a time
    (``armed``): a second one, while the first one's exception unwinds the command
    (terminating a pool, removing a temporary file), must not cut that short."""

    seen: int | None = None  # the first signal that came
    armed = False
    #: How long after a swallowed signal it is sent again.
    AGAIN_SECONDS = 0.05

    @classmethod
    def handler(cls, signum: int, frame) -> None:
        if cls.seen is None:
            cls.seen = signum
        if cls.armed:
            cls.armed = False
            raise Terminated() if signum == signal.SIGTERM else KeyboardInterrupt

    @classmethod
    def unraisable(cls, info: Any, previous: Any) -> None:
        """An exception Python could not raise (see the class docstring): a signal's is sent
        again, in silence; any other goes to ``previous``, the hook that was there."""
        if isinstance(info.exc_value, KeyboardInterrupt) and cls.seen is not None:
            import threading

            cls.armed = True
            again = threading.Timer(cls.AGAIN_SECONDS, os.kill, (os.getpid(), cls.seen))
            again.daemon = True
            again.start()
            return
        previous(info)


def stop_if_interrupted() -> None:
    """Raise KeyboardInterrupt (Terminated) if a signal came and was swallowed somewhere."""
    if _Interrupt.seen is not None:
        raise Terminated() if _Interrupt.seen == signal.SIGTERM else KeyboardInterrupt


def ending(exc: KeyboardInterrupt) -> tuple[str, int]:
    """The line and the exit status for a command ended by ``exc``."""
    return ENDINGS[signal.SIGTERM if isinstance(exc, Terminated) else signal.SIGINT]


def explorer_ended(status: int) -> int:
    """The explorer's exit status, said in one line when SIGINT or SIGTERM ended it (the
    explorer itself gives the terminal back first, then returns 128 + the signal's number:
    see ``ExplorerApp.on_load``)."""
    for line, code in ENDINGS.values():
        if status == code:
            say(line)
    return status


@contextlib.contextmanager
def ending_signals():
    """While the block runs, SIGINT and SIGTERM raise where the command is (see
    :class:`_Interrupt`); the handlers that were there before come back after. A handler set
    by someone else (a test, an embedding program) is left alone, as is any handler outside
    the main thread, which cannot set one."""
    import threading

    previous: dict[signal.Signals, Any] = {}
    _Interrupt.seen = None
    if threading.current_thread() is threading.main_thread():
        for signum, default in ((signal.SIGINT, signal.default_int_handler), (signal.SIGTERM, signal.SIG_DFL)):
            if signal.getsignal(signum) is default:
                previous[signum] = signal.signal(signum, _Interrupt.handler)
    hook = sys.unraisablehook
    if previous:
        sys.unraisablehook = functools.partial(_Interrupt.unraisable, previous=hook)
    _Interrupt.armed = True
    try:
        yield
    finally:
        _Interrupt.armed = False
        sys.unraisablehook = hook
        for signum, handler in previous.items():
            signal.signal(signum, handler)


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
