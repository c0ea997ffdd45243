"""End to end: the installed ``bpe-tui`` in tmux with ``--superwords-after``: step across
SuperBPE's transition and back, at 120x40 and 80x24, and save the table."""

from __future__ import annotations

import pytest

import bpe_tui
from bpe_tui.core.engine.superwords import is_superword
from bpe_tui.core.engine.variants.superbpe import SuperBPE

SUPERWORD_MARK = SuperBPE.token_mark

from .test_tmux import Tmux, pytestmark, save_default  # noqa: F401 (pytestmark: the same skips)

TEXT = "by the way, in the middle of the night!! by the way, in the middle of it 123\nby the way he said\n" * 20


@pytest.mark.parametrize("size", [(120, 40), (80, 24)], ids=["120x40", "80x24"])
def test_step_across_the_transition_and_back(tmp_path, size):
    corpus = tmp_path / "ways.txt"
    corpus.write_text(TEXT, encoding="utf-8")
    tmux = Tmux(tmp_path, *size)
    try:
        tmux.start(str(corpus), "--superwords-after", "12", "--vocab-size", "320")
        tmux.wait_for("step 0/64")
        tmux.wait_for("superwords after merge 12")  # the history's head (the status line may leave the rules out)
        screen = tmux.wait_for(" words─")
        tmux.keys("N")
        tmux.wait_for("step 10/64")
        tmux.keys("n")
        screen = tmux.wait_for("step 11/64")
        assert " words─" in screen and " chunks─" not in screen
        tmux.keys("n")
        screen = tmux.wait_for("step 12/64")
        screen = tmux.wait_for(" chunks─")
        assert "from here on, pairs may span spaces" in screen
        tmux.keys("N")
        screen = tmux.wait_for("step 22/64")
        trainer = bpe_tui.Trainer.from_text(TEXT, bpe_tui.TrainerConfig(superwords_after=12, vocab_size=320))
        trainer.goto(22)
        assert any(is_superword(e.new_token) for e in trainer.history[12:])
        assert any("→" in line and SUPERWORD_MARK in line for line in screen.splitlines()), screen  # a history row's mark
        # back across the transition: words again
        for _ in range(11):
            tmux.keys("b")
        screen = tmux.wait_for("step 11/64")
        screen = tmux.wait_for(" words─")
        assert "from here on" not in screen
        tmux.keys("N")
        tmux.wait_for("step 21/64")
        saved = tmp_path / "ways-21.json"
        save_default(tmux, saved)
        trainer.goto(21)
        table = bpe_tui.load(str(saved))
        assert table.merges == trainer.table.merges and table.pretokenizer == trainer.table.pretokenizer
    finally:
        tmux.kill()
