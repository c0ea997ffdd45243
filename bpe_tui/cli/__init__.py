"""The ``bpe-tui`` command line: one module per command family, and a thin ``main``.

``main`` parses and dispatches (every error one line on stderr, exit 2); ``options`` holds the
options the commands share; ``train`` (train, count), ``encoding`` (encode, decode, trace),
``tables`` (inspect, convert), ``analysis`` (compare, audit, eval) and ``explorer`` (the explorer,
open, learn) each add their own subcommands. Commands only call the core, never the other way round.
"""

from .main import main
from .terminal import stderr_progress  # noqa: F401  (tests and callers: bpe_tui.cli.stderr_progress)

__all__ = ["main", "stderr_progress"]
