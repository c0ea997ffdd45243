"""The cells Textual lays a token out in are the cells the terminal draws it in.

Textual measures with rich; tmux (and xterm, VTE, xterm.js) with glibc's ``wcwidth``. For
every character Unicode has assigned, the token of that one character, drawn by the one rule
(:func:`bpe_tui.core.look.look`), takes as many cells by rich's count (as the explorer
teaches it, :mod:`bpe_tui.ui.widths`) as by tmux's (:func:`tests.terminal_cells.cells`, the
model tests/e2e/test_scripts_tmux.py checks against tmux itself)."""

from __future__ import annotations

import sys
import unicodedata

import pytest
from rich.cells import cell_len

import bpe_tui.ui  # noqa: F401 (teaches rich the terminal's widths)
from bpe_tui.core.look import look
from bpe_tui.ui.widths import spacing_mark_width
from tests.terminal_cells import cells, glibc

pytestmark = pytest.mark.skipif(not glibc(), reason="the terminal model is glibc's wcwidth (tmux on Linux)")


def test_every_character_alone_takes_the_cells_the_terminal_gives_it():
    wrong = []
    for code in range(sys.maxunicode + 1):
        ch = chr(code)
        if unicodedata.category(ch) in ("Cn", "Cs", "Co"):
            continue
        for surface in (ch, " " + ch, "a" + ch):  # alone, after a space, on a base
            drawn = look(surface)
            if cell_len(drawn) != len(cells(drawn)):
                wrong.append((f"U+{code:04X}", drawn, cell_len(drawn), len(cells(drawn))))
    assert not wrong, f"{len(wrong)} drawn forms measured differently, e.g. {wrong[:10]}"


def test_a_spacing_mark_takes_a_cell():
    assert cell_len("ा") == 1 and cell_len("हि") == 2 and cell_len("नमस्ते") == 4
    assert cell_len("\u302e") == 2  # an East Asian wide one: two
    assert spacing_mark_width(ord("ि")) == 1 and spacing_mark_width(ord("्")) is None  # (a virama is no spacing mark)
    assert cell_len("्") == 0 and cell_len("中") == 2 and cell_len("a") == 1


def test_a_picture_places_each_run_of_text_in_its_cells():
    from bpe_tui.ui.widths import svg_in_cells

    run = '<text class="t" x="0" y="20" textLength="{}" clip-path="url(#l)">{}</text>'
    svg = run.format(36.6, "日本語") + run.format(36.6, "·है") + run.format(36.6, "abc") + run.format(12.2, "\n")
    assert svg_in_cells(svg) == run.format(73.2, "日本語") + run.format(24.4, "·है") + run.format(36.6, "abc") + run.format(12.2, "\n")
