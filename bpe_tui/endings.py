"""How a ``bpe-tui`` command ends when Ctrl+C (SIGINT) or SIGTERM comes: one line on stderr
and the conventional exit status (130, 143: see docs/signals.md), never a traceback, nothing
left behind.

This module imports nothing but the standard library, so that :mod:`bpe_tui.launch` can set
the handlers before anything heavy is imported. The rest of the command line uses it through
:mod:`bpe_tui.cli.terminal`: :func:`ending_signals` while a command runs,
:func:`stop_if_interrupted` in its long loops, :class:`Terminated` for SIGTERM.
"""

from __future__ import annotations

import contextlib
import functools
import os
import signal
import sys
from collections.abc import Iterator
from typing import Any


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
    #: How many :func:`ending_signals` blocks are open (only the outermost sets and restores).
    depth = 0
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


@contextlib.contextmanager
def ending_signals(leaving: bool = False) -> Iterator[None]:
    """While the block runs, SIGINT and SIGTERM raise where the command is (see
    :class:`_Interrupt`); the handlers that were there before come back after. A handler set
    by someone else (a test, an embedding program) is left alone, as is any handler outside
    the main thread, which cannot set one. Inside another such block (the command started by
    :func:`main`, which set them first), it changes nothing.

    ``leaving``: the process ends with the block, and from then on both signals are ignored
    instead of the old handlers coming back. ``timeout`` sends its signal to the command and
    then to the command's whole process group, so a second one often comes while the first
    one's exit is under way: it must not raise into the interpreter's last steps
    (multiprocessing's exit handler printed a traceback), nor kill it in its finalization
    (where Python sets a handler of its own back to the default)."""
    import threading

    if _Interrupt.depth:
        _Interrupt.depth += 1
        try:
            yield
        finally:
            _Interrupt.depth -= 1
        return
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
    _Interrupt.depth = 1
    try:
        yield
    finally:
        _Interrupt.depth = 0
        _Interrupt.armed = False
        sys.unraisablehook = hook
        for signum, handler in previous.items():
            signal.signal(signum, signal.SIG_IGN if leaving else handler)


def say_ending(exc: KeyboardInterrupt) -> int:
    """Say on stderr how ``exc`` ended the command (one line); its exit status."""
    line, status = ending(exc)
    print(f"bpe-tui: {line}", file=sys.stderr)
    return status
