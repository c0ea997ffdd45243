"""``--plot FILE``: a chart of :mod:`bpe_tui.charts` written headless, as SVG or as text.

The figure is textual-plotext's ``Plot`` (plotext's figure without global state), built at
a fixed size without any App: ``.txt`` gets plotext's text with the colours taken out, and a
caption below; ``.svg`` gets the same text in plotext's colours, recorded by rich's Console
and exported as SVG (rich is the terminal library the command line already uses). Written
atomically, through symlinks, never over a non-regular file (:mod:`bpe_tui.core.atomic`).

Why here and not in ``core``: ``core`` never draws; and not in ``ui``: the command line must
not start the explorer to draw a chart. The charts themselves (what is drawn) live in
:mod:`bpe_tui.charts`, shared with the explorer.
"""

from __future__ import annotations

import io
import os
from typing import Any, Callable, Sequence

from ..charts.figure import Palette
from ..core.atomic import atomic_write_text, resolve_target
from ..core.errors import BPEError
from .terminal import say, show

#: The headless figure's size, in terminal cells.
WIDTH = 100
HEIGHT = 28
#: What ``--plot`` can write, by file name ending.
KINDS = (".svg", ".txt")


def check_plot_path(path: str) -> None:
    """Fail early (before the work) on a path ``--plot`` cannot write."""
    if os.path.splitext(path)[1].lower() not in KINDS:
        raise BPEError(f"{path}: --plot writes {' or '.join(KINDS)} files (name the file so)")
    resolve_target(path)


def write_plot(
    path: str, paint: Callable[[Any, Palette], None], caption: Sequence[str] = (), title: str = "bpe-tui", height: int = HEIGHT
) -> None:
    """Draw ``paint`` headless, ``height`` rows tall, and write it to ``path`` (.svg or .txt),
    ``caption`` lines below."""
    from rich.console import Console
    from rich.text import Text
    from textual_plotext.plot import Plot

    check_plot_path(path)
    plt = Plot()
    paint(plt, Palette())
    plt.plotsize(WIDTH, height)
    plt.theme("clear")
    built = plt.build()
    if path.lower().endswith(".txt"):
        lines = [line.rstrip() for line in plt.uncolorize(built).splitlines()]
        atomic_write_text(path, "\n".join([*lines, *caption]) + "\n")
        return
    console = Console(record=True, width=WIDTH, file=io.StringIO(), force_terminal=True, color_system="truecolor")
    console.print(Text.from_ansi(built), soft_wrap=True)
    for line in caption:
        console.print(Text(line), soft_wrap=True)
    atomic_write_text(path, console.export_svg(title=title))


def say_plot_written(path: str, machine_readable: bool) -> None:
    """The last line of a command that wrote ``--plot FILE``, as ``train`` ends with the table
    it wrote: on stdout after the report, or on stderr when stdout is JSON for a program."""
    if machine_readable:
        say(f"wrote {path} (chart)")
    else:
        show(f"wrote {path} (chart)")
