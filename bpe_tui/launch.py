"""Where a ``bpe-tui`` process starts: Ctrl+C and SIGTERM are answered from its first instant.

The ``bpe-tui`` command (and ``python -m bpe_tui``) starts in :func:`main`, which sets the
handlers for SIGINT and SIGTERM (:mod:`bpe_tui.endings`, standard library only) before the
engine, the formats and the explorer are imported, a second or more on a busy machine. A
signal at any moment then ends the command with one line on stderr and 130 or 143.
"""

from __future__ import annotations

from collections.abc import Sequence

from .endings import ending_signals, say_ending


def main(argv: Sequence[str] | None = None) -> int:
    """The ``bpe-tui`` command: the signal handlers first, then the imports and the command
    (:func:`bpe_tui.cli.main`). When it returns, the process is leaving: a signal from then
    on is ignored (see :func:`ending_signals`)."""
    with ending_signals(leaving=True):
        try:
            from .cli.main import main as command

            return command(argv)
        except KeyboardInterrupt as exc:  # during the imports, or on the command's way out
            return say_ending(exc)
