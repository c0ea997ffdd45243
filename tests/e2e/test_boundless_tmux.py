"""End to end: the installed ``bpe-tui`` in tmux training BoundlessBPE (``--preset
boundless``) on the demo corpus, at 120x40 and 80x24: go to merge 96, step into the first
supermerge (·in + ·the) and read its row and its why line, undo across it, go on past it,
and save: the native file records the supermerges and deletions, and encodes as the
trainer's table."""

from __future__ import annotations

import json

import pytest

import bpe_tui

from ..conftest import CORPORA
from .test_tmux import Tmux, pytestmark, save_default  # noqa: F401 (pytestmark: the same skips)


@pytest.mark.parametrize("size", [(120, 40), (80, 24)], ids=["120x40", "80x24"])
def test_step_a_supermerge_and_back(tmp_path, size):
    (tmp_path / "demo.txt").write_text((CORPORA / "demo.txt").read_text(encoding="utf-8"), encoding="utf-8")
    tmux = Tmux(tmp_path, *size)
    try:
        tmux.start("demo.txt", "--preset", "boundless", "--vocab-size", "500")
        tmux.wait_for("step 0/244", timeout=60)
        tmux.wait_for("supermerge, - deletion)")  # the history's head names the marks
        tmux.keys("g")
        tmux.wait_for("go to step")
        tmux.keys("96", literal=True)
        tmux.keys("Enter")
        tmux.wait_for("step 96/244")
        tmux.keys("space")
        screen = tmux.wait_for("step 97/244")
        assert any("97 ⁀ ·in" in line and "·the" in line for line in screen.splitlines()), screen  # the row, its mark
        screen = tmux.wait_for("merge 97: [⁀] a supermerge")  # the why line (wrapped at 80x24)
        assert "·in + ·the: both" in " ".join(screen.split()) or "·in +" in screen
        tmux.keys("b")
        screen = tmux.wait_for("step 96/244")
        assert "1 undone" in screen
        tmux.keys("g")
        tmux.wait_for("go to step")
        tmux.keys("120", literal=True)
        tmux.keys("Enter")
        tmux.wait_for("step 120/244")
        tmux.wait_for("3 supermerges")
        saved = tmp_path / "demo-120.json"
        save_default(tmux, saved)
        data = json.loads(saved.read_text(encoding="utf-8"))
        assert data["config"]["supermerges"] == [97, 103, 119] and data["config"]["removals"][0][0] == 91
        table = bpe_tui.load(str(saved))
        trainer = bpe_tui.Trainer.from_files([str(tmp_path / "demo.txt")], bpe_tui.TrainerConfig(preset="boundless", vocab_size=500))
        trainer.goto(120)
        text = "once upon a time in the middle of the night"
        assert table.encode(text) == trainer.table.encode(text)
    finally:
        tmux.kill()
