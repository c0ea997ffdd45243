"""End to end: the installed ``bpe-tui`` in tmux with a variant of one's own
(``--variant examples.min_words:MinWords``, examples/ beside the corpus as a reader has it), at
120x40 and 80x24: the status line names it, go to merge 13 (where it passes over ``·a + nd``,
which one word holds), read the why line, step and undo, save, and Evaluate it beside plain
BPE."""

from __future__ import annotations

import json

import pytest

from ..conftest import CORPORA, REPO
from .test_tmux import Tmux, pytestmark, save_default  # noqa: F401 (pytestmark: the same skips)


@pytest.mark.parametrize("size", [(120, 40), (80, 24)], ids=["120x40", "80x24"])
def test_step_a_variant_of_ones_own(tmp_path, size):
    (tmp_path / "examples").symlink_to(REPO / "examples", target_is_directory=True)
    (tmp_path / "demo.txt").write_text((CORPORA / "demo.txt").read_text(encoding="utf-8"), encoding="utf-8")
    tmux = Tmux(tmp_path, *size)
    try:
        tmux.start("demo.txt", "--variant", "examples.min_words:MinWords", "--variant-option", "min_words=5")
        tmux.wait_for("variant examples.min_words:MinWords", timeout=60)
        tmux.keys("g")
        tmux.wait_for("go to step")
        tmux.keys("13", literal=True)
        tmux.keys("Enter")
        tmux.wait_for("step 13/")
        tmux.wait_for("merge 13: it occurs in 5 distinct words")  # the why line (wrapped at 80x24)
        tmux.keys("space")
        screen = tmux.wait_for("step 14/")
        assert "i  + t  → it" in screen or "i + t" in screen
        tmux.keys("b")
        tmux.wait_for("step 13/")
        saved = tmp_path / "demo-13.json"
        save_default(tmux, saved)
        data = json.loads(saved.read_text(encoding="utf-8"))
        assert data["variant"].startswith("made by the variant min-words (examples.min_words:MinWords) with min_words=5")
        tmux.keys("v")
        tmux.wait_for("vs plain", timeout=60)
        tmux.wait_for("plain BPE", timeout=60)
    finally:
        tmux.kill()
