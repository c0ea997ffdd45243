"""The terminal's cell widths, taught to rich: a spacing mark takes a cell.

Textual lays every line out in cells measured by rich (``rich.cells.cell_len``), and the
terminal then draws the characters by its own measure. Where the two disagree, everything
after the character on that line slides: the history's count column read ``→ ा  10`` for a
count of 100. :mod:`bpe_tui.core.look` draws tokens so that no character's width is in doubt,
except one kind a reader cannot do without: the *spacing* combining marks (Unicode category
Mc), the vowel signs of Devanagari, Bengali, Tamil, Thai's neighbours, Myanmar and every
other Brahmic script (``ि`` in ``हि``). rich's tables (from the ``wcwidth`` project) give them
no cell; glibc's ``wcwidth`` gives them one, and so do the terminals built on it or on the
same rule (tmux, xterm, VTE, Konsole, xterm.js in the served page): ``हि`` takes two cells
there. :func:`agree_with_the_terminal` teaches rich that count, so Textual's layout, its
SVG screenshots and the terminal agree; tests/e2e/test_scripts_tmux.py reads the result back
from tmux.

It changes rich's width table for the whole process, once, when the explorer's package is
imported (:mod:`bpe_tui.ui`), before anything is drawn.

Pictures too: rich's SVG export places each run of text at its cell but stretches it over as
many cells as it has *characters* (``textLength``), so a Hindi run (marks are characters
with no cell) was drawn wider than its background and a Chinese one squeezed into half its
cells. :func:`svg_in_cells` sets each run's length to its cells; the App's screenshots (the
``P`` key, the snapshot tests, the docs' pictures) go through it.
"""

from __future__ import annotations

import html
import re
import unicodedata
from functools import cache
from typing import Any

import rich.cells

_TAUGHT = "_bpe_tui_spacing_marks"


def spacing_mark_width(code: int) -> int | None:
    """The cells the terminal gives a spacing mark (1; 2 for the few East Asian wide ones),
    None for any other character."""
    ch = chr(code)
    if unicodedata.category(ch) != "Mc":
        return None
    return 2 if unicodedata.east_asian_width(ch) in "WF" else 1


def _with_spacing_marks(table: Any) -> Any:
    """rich's ``CellTable`` with every spacing mark's width set to the terminal's."""
    widths: list[tuple[int, int, int]] = []
    for start, end, width in table.widths:
        if width != 0:
            widths.append((start, end, width))
            continue
        run = start
        for code in range(start, end + 1):
            marked = spacing_mark_width(code)
            if marked is None:
                continue
            if run < code:
                widths.append((run, code - 1, 0))
            widths.append((code, code, marked))
            run = code + 1
        if run <= end:
            widths.append((run, end, 0))
    return table._replace(widths=widths)


def agree_with_the_terminal() -> None:
    """Make rich (and so Textual) count spacing marks as the terminal draws them. Idempotent."""
    if getattr(rich.cells, _TAUGHT, False):
        return
    load = rich.cells.load_cell_table

    @cache
    def load_taught(unicode_version: str = "auto") -> Any:
        return _with_spacing_marks(load(unicode_version))

    rich.cells.load_cell_table = load_taught
    setattr(rich.cells, _TAUGHT, True)
    rich.cells.get_character_cell_size.cache_clear()
    rich.cells.cached_cell_len.cache_clear()


_TEXT_RUN = re.compile(r'(<text [^>]*?textLength=")([0-9.]+)("[^>]*>)([^<]*)(</text>)')


def svg_in_cells(svg: str) -> str:
    """rich's SVG with every run of text as long as the cells it takes (not its characters)."""

    def fix(m: re.Match) -> str:
        text = html.unescape(m.group(4))
        if not text or "\n" in text or rich.cells.cell_len(text) == len(text):
            return m.group(0)  # (a line's end; a run of one-cell characters)
        cell = float(m.group(2)) / len(text)
        length = format(round(cell * rich.cells.cell_len(text), 4), "g")
        return f"{m.group(1)}{length}{m.group(3)}{m.group(4)}{m.group(5)}"

    return _TEXT_RUN.sub(fix, svg)
