"""End to end: the real ``bpe-tui learn`` in tmux at 80x24, as a learner goes through the first stops."""

from __future__ import annotations

import re
import shutil
import sys
import time

import pytest

from tests.e2e.test_tmux import BIN, Tmux, wait_exit

pytestmark = [
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed (.ci/run installs it)"),
    pytest.mark.skipif(not BIN.exists(), reason=f"the bpe-tui console script is not installed next to {sys.executable}"),
]


@pytest.fixture
def tmux(tmp_path):
    session = Tmux(tmp_path, 80, 24)  # the smallest terminal the explorer supports
    yield session
    session.kill()


def pair_row(screen: str, left: str, right: str) -> int:
    """The row number (1-based) the pair table shows ``(left, right)`` on."""
    for line in screen.splitlines():
        right_pane = line.split("▏")[-1]
        m = re.match(rf"\s*▶?(\d+)\s+{re.escape(left)}\s+{re.escape(right)}\s+\d", right_pane)
        if m:
            return int(m.group(1))
    raise AssertionError(f"({left}, {right}) is not in the pair table:\n{screen}")


def choose(tmux: Tmux, screen: str, left: str, right: str) -> None:
    """Move the pair table's cursor from the top to ``(left, right)`` and press enter."""
    tmux.keys(*["Up"] * 8)
    tmux.keys(*["Down"] * (pair_row(screen, left, right) - 1), "Enter")


def test_learn_first_stops_answered_as_a_learner(tmux):
    tmux.start("learn")
    screen = tmux.wait_for("Tour 1/10 · Pairs, counted")
    assert "Which pair merges first?" in screen
    assert "▶1" not in screen  # the pair table does not give the answer away
    choose(tmux, screen, "l", "o")
    screen = tmux.wait_for("✓ Right: merge 1 is (l, o), 10 times.")
    assert "step 1" in screen and "l + o → lo" in screen  # the explorer made the merge

    tmux.keys("]")
    screen = tmux.wait_for("Tour 2/10 · Watch a word become one token")
    assert "step 2" in screen
    tmux.keys("1")  # a wrong answer
    screen = tmux.wait_for("✗ Not 1: the answer is 3) 7.")

    tmux.keys("]")
    screen = tmux.wait_for("Tour 3/10 · A tutorial's wrong turn")
    assert "step 4" in screen and "merge 5 is (e, s)" in screen
    choose(tmux, screen, "s", "t")  # (s, t): it ties, and loses
    screen = tmux.wait_for("✗ Not (s, t) (3 times): merge 5 is (lowe, s), 3 times.")
    assert "Why: merged lowe + s into lowes" in screen

    tmux.keys("[")
    tmux.wait_for("Tour 2/10")
    tmux.keys("q")
    deadline = time.monotonic() + 10
    while "Tour 2/10" in tmux.screen() and time.monotonic() < deadline:
        time.sleep(0.1)
    screen = tmux.screen()
    assert "Tour " not in screen and "▶1" in screen  # the tour is gone, the explorer stays
    tmux.keys("C-q")  # the tour's merges are not saved: it asks first
    tmux.wait_for("are not saved", timeout=10)
    tmux.keys("y")
    wait_exit(tmux)
