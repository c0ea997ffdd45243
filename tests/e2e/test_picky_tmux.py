"""End to end: the installed ``bpe-tui`` in tmux with ``--preset picky --picky 0.9`` on
tinyshakespeare, at 120x40 and 80x24: go to the first removal (after merge 254, ``hat``),
read its row and why, undo across it, and save the table (the authors' numbering)."""

from __future__ import annotations

import pytest

import bpe_tui
from bpe_tui.ui.widgets.render import REMOVED_MARK

from ..conftest import TINYSHAKESPEARE, need
from .test_tmux import Tmux, pytestmark, save_default  # noqa: F401 (pytestmark: the same skips)

CONFIG = dict(preset="picky", picky=0.9, vocab_size=2000, max_token_length=32)  # (32: the explorer's default)


@pytest.mark.parametrize("size", [(120, 40), (80, 24)], ids=["120x40", "80x24"])
def test_step_picky_across_a_removal_and_back(tmp_path, size):
    corpus = need(TINYSHAKESPEARE)
    tmux = Tmux(tmp_path, *size)
    try:
        tmux.start(str(corpus), "--preset", "picky", "--picky", "0.9", "--vocab-size", "2000")
        tmux.wait_for("step 0 ", timeout=60)  # (no /target: removals make it unknown in advance)
        tmux.wait_for("PickyBPE τ 0.9")
        tmux.keys("g")
        tmux.wait_for("go to step")
        tmux.keys("254", literal=True)
        tmux.keys("Enter")
        screen = tmux.wait_for("step 254 ", timeout=60)
        tmux.wait_for(f"after merge 254: [{REMOVED_MARK}] removed hat: IoS")  # (the why line, wrapped at 80x24)
        screen = tmux.wait_for(f" 254 {REMOVED_MARK} hat")  # (the list follows its cursor a frame after the why line came)
        assert "0.93 > 0.9" in screen
        rows = [line for line in screen.splitlines() if f" 254 {REMOVED_MARK} hat" in line]
        assert rows and "ha+t" in rows[0] and rows[0].rstrip().endswith("36"), screen
        tmux.keys("b")
        screen = tmux.wait_for("step 253 ")
        assert "removed hat" not in screen or "·" in screen
        tmux.keys("space")
        tmux.wait_for("step 254 ")
        saved = tmp_path / "tinyshakespeare-254.json"
        save_default(tmux, saved)
        trainer = bpe_tui.Trainer.from_files(str(corpus), bpe_tui.TrainerConfig(**CONFIG))
        trainer.goto(254)
        table = bpe_tui.load(str(saved))
        assert table.removals and len(table) == trainer.vocab_size
        assert table.encode("That hath a hat") == trainer.table.renumbered().encode("That hath a hat")
    finally:
        tmux.kill()
