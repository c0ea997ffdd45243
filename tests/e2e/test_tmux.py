"""End to end: the installed ``bpe-tui`` in tmux — step, undo, encode, save, reopen the table."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

import bpe_tui

BIN = Path(sys.executable).parent / "bpe-tui"

pytestmark = [
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed (.ci/run installs it)"),
    pytest.mark.skipif(not BIN.exists(), reason=f"the bpe-tui console script is not installed next to {sys.executable}"),
]


class Tmux:
    def __init__(self, cwd: Path) -> None:
        self.cwd = cwd
        self.name = f"bpe-e2e-{uuid.uuid4().hex[:8]}"
        self.env = dict(os.environ, LANG="C.UTF-8", LC_ALL="C.UTF-8", TERM="xterm-256color")

    def start(self, *args: str) -> None:
        command = " ".join(_quote(a) for a in (str(BIN), *args))
        subprocess.run(
            ["tmux", "new-session", "-d", "-s", self.name, "-x", "120", "-y", "40", "-c", str(self.cwd), command],
            check=True,
            env=self.env,
        )

    def keys(self, *keys: str, literal: bool = False) -> None:
        subprocess.run(["tmux", "send-keys", "-t", self.name, *(["-l"] if literal else []), *keys], check=True)

    def screen(self) -> str:
        out = subprocess.run(["tmux", "capture-pane", "-p", "-t", self.name], capture_output=True, text=True)
        return out.stdout

    def wait_for(self, text: str, timeout: float = 20.0) -> str:
        deadline = time.monotonic() + timeout
        screen = ""
        while time.monotonic() < deadline:
            screen = self.screen()
            if text in screen:
                return screen
            time.sleep(0.1)
        raise AssertionError(f"{text!r} did not appear within {timeout}s; the screen was:\n{screen}")

    def alive(self) -> bool:
        return subprocess.run(["tmux", "has-session", "-t", self.name], capture_output=True).returncode == 0

    def kill(self) -> None:
        subprocess.run(["tmux", "kill-session", "-t", self.name], capture_output=True)


def _quote(arg: str) -> str:
    return "'" + arg.replace("'", "'\\''") + "'"


@pytest.fixture
def tmux(tmp_path):
    session = Tmux(tmp_path)
    yield session
    session.kill()


def wait_exit(tmux: Tmux, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while tmux.alive() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not tmux.alive(), "bpe-tui did not quit"


def test_explore_step_undo_encode_save_and_reopen(tmux, tmp_path):
    tmux.start()  # no arguments: the demo corpus, gpt2 preset, target 1000
    tmux.wait_for("step 0/744")
    tmux.keys("Space")
    tmux.wait_for("step 1/744")
    tmux.keys("N")
    tmux.wait_for("step 11/744")
    tmux.keys("b")
    screen = tmux.wait_for("step 10/744")
    assert "(+1 undone" in screen
    tmux.keys("e")
    time.sleep(0.2)
    table = bpe_tui.Trainer.from_files([bpe_tui.demo_corpus_path()], bpe_tui.TrainerConfig(preset="gpt2", vocab_size=1000))
    table.goto(10)
    n = len(table.table.encode("the lowest"))
    tmux.keys("the lowest", literal=True)
    screen = tmux.wait_for(f"{n} tokens · ", timeout=10)
    assert "trace of “·lowest”" in screen
    tmux.keys("Escape")
    time.sleep(0.2)
    tmux.keys("s")
    tmux.wait_for("Save the merge table")
    tmux.keys("Enter")  # the default name: demo-10.json in the working directory
    saved = tmp_path / "demo-10.json"
    deadline = time.monotonic() + 10
    while not saved.exists() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert saved.exists(), tmux.screen()
    assert bpe_tui.load(str(saved)).merges == table.table.merges
    tmux.keys("C-q")
    wait_exit(tmux)

    tmux.start("open", str(saved))
    screen = tmux.wait_for("format native")
    assert "10 merges" in screen
    tmux.keys("e")
    time.sleep(0.2)
    tmux.keys("the lowest", literal=True)
    screen = tmux.wait_for(f"{n} tokens · ")
    assert "trace of “·lowest”" in screen
    tmux.keys("Escape")
    time.sleep(0.2)
    tmux.keys("C-q")
    wait_exit(tmux)
