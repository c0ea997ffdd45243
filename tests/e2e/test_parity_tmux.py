"""End to end: the installed ``bpe-tui`` in tmux on the parallel texts, one language each, with
``--language``, ``--dev`` and ``--parity window``: step, see which language chose, the chart
of every language's development text, undo, and save the table, at 120x40 and 80x24."""

from __future__ import annotations

import time

import pytest

import bpe_tui
from bpe_tui import Trainer, TrainerConfig
from tests.conftest import CORPORA

from .test_tmux import Tmux, pytestmark  # noqa: F401 (the same skips)

LANGUAGES = ("en", "de", "ru", "el", "hi", "zh")


@pytest.mark.parametrize("size", [(120, 40), (80, 24)], ids=["120x40", "80x24"])
def test_step_parity_aware_bpe_and_save(tmp_path, size):
    files = {lang: str(CORPORA / "parallel" / f"{lang}.txt") for lang in LANGUAGES}
    args = []
    for lang, path in files.items():
        args += ["--language", f"{lang}={path}", "--dev", f"{lang}={path}"]
    tmux = Tmux(tmp_path, *size)
    try:
        tmux.start(*args, "--parity", "window", "--merges", "300")
        tmux.wait_for("step 0/300")
        tmux.wait_for("hi's turn")  # Hindi's development text needs the most tokens
        tmux.keys("Space")
        screen = tmux.wait_for("step 1/300")
        assert "hi chose it" in screen.replace("\n", " ") or " hi " in screen
        tmux.keys("N")
        tmux.wait_for("step 11/300")
        tmux.keys("2")  # the Stats tab: every language's development text over merges
        tmux.wait_for("dev tokens")
        tmux.keys("b")
        tmux.wait_for("step 10/300")
        tmux.keys("s")
        tmux.wait_for("Save the merge table")
        tmux.keys("Enter")  # the default name, in the working directory
        deadline = time.monotonic() + 10
        while not list(tmp_path.glob("*.json")) and time.monotonic() < deadline:
            time.sleep(0.1)
        found = list(tmp_path.glob("*.json"))
        assert len(found) == 1, (found, tmux.screen())
        table = bpe_tui.load(str(found[0]))
        trainer = Trainer.from_languages(files, dev=files, config=TrainerConfig(preset="parity", parity="window", merges=300))
        trainer.goto(10)
        assert table.merges == trainer.table.merges
        assert table.config["parity_aware"]["languages"] == list(LANGUAGES)
    finally:
        tmux.kill()
