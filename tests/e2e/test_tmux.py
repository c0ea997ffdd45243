"""End to end: the installed ``bpe-tui`` in tmux — step, undo, encode, save, reopen the table."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
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
    """One explorer in a tmux window of ``width`` x ``height`` cells, on a tmux server of its
    own (``-S``), a new one at each start: a session never goes to a server that is shutting
    down (another test's, or this test's after its explorer quit), where tmux fails with
    "server exited unexpectedly". The servers' sockets live in a folder of this object's,
    removed by :meth:`kill` (tmux leaves a socket behind when its server ends)."""

    def __init__(self, cwd: Path, width: int = 120, height: int = 40) -> None:
        self.cwd = cwd
        self.width, self.height = width, height
        self.name = f"bpe-e2e-{uuid.uuid4().hex[:8]}"
        self.sockets = Path(tempfile.mkdtemp(prefix="bpe-tmux-"))
        self.starts = 0
        self.server = self.sockets / "0"
        self.env = dict(os.environ, LANG="C.UTF-8", LC_ALL="C.UTF-8", TERM="xterm-256color")

    def tmux(self, *args: str, check: bool = False) -> subprocess.CompletedProcess:
        """Run one tmux command on this test's own server; its output comes back as text."""
        return subprocess.run(["tmux", "-S", str(self.server), *args], capture_output=True, text=True, check=check, env=self.env)

    def start(self, *args: str) -> None:
        command = " ".join(_quote(a) for a in (str(BIN), *args))
        # (hand the import path over explicitly, should the test run from a source tree)
        path = ["-e", f"PYTHONPATH={os.environ['PYTHONPATH']}"] if os.environ.get("PYTHONPATH") else []
        self.starts += 1
        self.server = self.sockets / str(self.starts)
        self.tmux("new-session", "-d", "-s", self.name, *path, "-x", str(self.width), "-y", str(self.height), "-c", str(self.cwd), command, check=True)

    def keys(self, *keys: str, literal: bool = False) -> None:
        self.tmux("send-keys", "-t", self.name, *(["-l"] if literal else []), *keys, check=True)

    def screen(self) -> str:
        return self.tmux("capture-pane", "-p", "-t", self.name).stdout

    def wait_for(self, text: str, timeout: float = 20.0) -> str:
        deadline = time.monotonic() + timeout
        screen = ""
        while time.monotonic() < deadline:
            screen = self.screen()
            if text in screen:
                return screen
            time.sleep(0.1)
        raise AssertionError(f"{text!r} did not appear within {timeout}s; the screen was:\n{screen}")

    def wait_until(self, condition, what: str, timeout: float = 20.0) -> None:
        """Poll the screen until ``condition(screen)`` holds (the next key depends on it)."""
        deadline = time.monotonic() + timeout
        screen = ""
        while time.monotonic() < deadline:
            screen = self.screen()
            if condition(screen):
                return
            time.sleep(0.1)
        raise AssertionError(f"{what} did not happen within {timeout}s; the screen was:\n{screen}")

    def cursor_row(self) -> str:
        """The screen row the terminal cursor is on (Textual's focused text box)."""
        lines = self.screen().splitlines()
        _, y = self.cursor()
        return lines[y] if y < len(lines) else ""

    def cursor(self) -> tuple[int, int]:
        """Where the terminal cursor is (column, row): Textual puts it at the focused text
        box's cursor."""
        x, y = self.tmux("display-message", "-p", "-t", self.name, "#{cursor_x} #{cursor_y}").stdout.split()
        return int(x), int(y)

    def focus(self, key: str, box: str, timeout: float = 20.0) -> None:
        """Press ``key`` and wait until the cursor is in the text box whose row starts with
        ``box`` (its placeholder), so the next keys are typed there, not taken as commands (on
        a loaded machine keys sent at once can arrive before the focus moves)."""
        self.keys(key)
        self.wait_until(lambda _: self.cursor_row().startswith(box), f"after {key!r} the cursor reaching the box {box!r}", timeout)

    def alive(self) -> bool:
        return self.tmux("has-session", "-t", self.name).returncode == 0

    def kill(self) -> None:
        self.tmux("kill-server")
        shutil.rmtree(self.sockets, ignore_errors=True)


#: The empty encode box's row (its placeholder), where e puts the cursor.
ENCODE_BOX = "type text to encode"


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


def save_default(tmux: Tmux, saved: Path, timeout: float = 10) -> None:
    """Press s and enter (the default name, in the working directory); wait for ``saved``."""
    tmux.keys("s")
    tmux.wait_for("Save the merge table")
    tmux.keys("Enter")
    deadline = time.monotonic() + timeout
    while not saved.exists() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert saved.exists(), tmux.screen()


def test_explore_step_undo_encode_save_and_reopen(tmux, tmp_path):
    tmux.start()  # no arguments: the demo corpus, gpt2 preset, target 1000
    tmux.wait_for("step 0/744")
    tmux.keys("Space")
    tmux.wait_for("step 1/744")
    tmux.keys("N")
    tmux.wait_for("step 11/744")
    tmux.keys("b")
    screen = tmux.wait_for("step 10/744")
    assert "10 merges, 1 undone (enter: redo)" in screen
    tmux.focus("e", ENCODE_BOX)
    table = bpe_tui.Trainer.from_files([bpe_tui.demo_corpus_path()], bpe_tui.TrainerConfig(preset="gpt2", vocab_size=1000))
    table.goto(10)
    n = len(table.table.encode("the lowest"))
    tmux.keys("the lowest", literal=True)
    screen = tmux.wait_for(f"{n} tokens · ", timeout=10)
    assert "trace of “·lowest”" in screen
    tmux.keys("Escape")
    time.sleep(0.2)
    saved = tmp_path / "demo-10.json"
    save_default(tmux, saved)
    assert bpe_tui.load(str(saved)).merges == table.table.merges
    tmux.keys("C-q")
    wait_exit(tmux)

    tmux.start("open", str(saved))
    screen = tmux.wait_for("format native")
    assert "10 merges" in screen
    tmux.focus("e", ENCODE_BOX)
    tmux.keys("the lowest", literal=True)
    screen = tmux.wait_for(f"{n} tokens · ")
    assert "trace of “·lowest”" in screen
    tmux.keys("Escape")
    time.sleep(0.2)
    tmux.keys("C-q")
    wait_exit(tmux)


def test_keys_typed_as_soon_as_the_first_screen_shows_reach_the_encode_box(tmux):
    """Issue 42: e pressed the moment the first status line shows and zebra typed at once
    (no wait for the corpus, nor for the cursor) put zebra in the encode box; they used to
    be lost on the loading screen or run as z, b, r and a (zoom, undo, run, the audit)."""
    tmux.start()  # the demo corpus: the first screen shows while it is read
    tmux.wait_until(lambda screen: screen.strip() != "", "the first screen", timeout=60)
    tmux.keys("e")
    tmux.keys("zebra", literal=True)
    screen = tmux.wait_for("trace of “zebra”", timeout=60)
    assert "step 0/744" in screen  # no merge made, none undone, no run
    assert "Corpus —" in screen and "Pairs —" in screen  # no pane maximized
    assert "Audit" not in screen
    tmux.keys("C-q")
    wait_exit(tmux)


# ---------------------------------------------------------------------- real work (issue 10)

SHARED = Path(__file__).resolve().parents[2].parent / "shared"
TINYSHAKESPEARE = SHARED / "corpora" / "tinyshakespeare.txt"


def go_to(tmux: Tmux, k: int, label: str, timeout: float = 120.0) -> str:
    """Press g, type k, enter; wait until the status line shows ``label`` (e.g. "step 2,500/")."""
    tmux.keys("g")
    tmux.wait_for("go to step")
    tmux.keys(str(k), literal=True)
    tmux.keys("Enter")
    return tmux.wait_for(label, timeout=timeout)


def test_tinyshakespeare_run_rewind_jump_encode_save_reopen(tmux, tmp_path):
    if not TINYSHAKESPEARE.is_file():
        pytest.skip(f"{TINYSHAKESPEARE} is absent (the shared data directory is not here)")
    tmux.start(str(TINYSHAKESPEARE), "--vocab-size", "10000")
    tmux.wait_for("step 0/9,744", timeout=60)
    go_to(tmux, 5000, "step 5,000/9,744")
    go_to(tmux, 0, "step 0/9,744")  # the rewind that used to kill the app
    go_to(tmux, 2500, "step 2,500/9,744")
    # the history's heading follows in the same refresh or the next frame
    screen = tmux.wait_for("2,500 merges, 2,500 undone (enter: redo)", timeout=30)
    assert "step 2,500/9,744" in screen
    # enter on a history row ten rows further down: an undone merge, re-applied
    tmux.keys("Tab", "Tab", "Tab")  # pairs table -> the explanation under it -> tabs -> history
    time.sleep(0.3)
    tmux.keys(*["Down"] * 10)
    time.sleep(0.3)
    tmux.keys("Enter")
    tmux.wait_for("step 2,510/9,744", timeout=60)
    go_to(tmux, 100, "step 100/9,744")
    assert tmux.alive()
    # the encode box, at step 100
    trainer = bpe_tui.Trainer.from_files([str(TINYSHAKESPEARE)], bpe_tui.TrainerConfig(preset="gpt2", vocab_size=10000))
    trainer.goto(100)
    n = len(trainer.table.encode("To be, or not to be"))
    tmux.focus("e", ENCODE_BOX)
    tmux.keys("To be, or not to be", literal=True)
    tmux.wait_for(f"{n} tokens · ", timeout=20)
    tmux.keys("Escape")
    time.sleep(0.3)
    saved = tmp_path / "tinyshakespeare-100.json"
    save_default(tmux, saved, timeout=20)
    assert bpe_tui.load(str(saved)).merges == trainer.table.merges
    tmux.keys("C-q")
    wait_exit(tmux)
    tmux.start("open", str(saved))
    screen = tmux.wait_for("format native")
    assert "100 merges" in screen
    tmux.keys("C-q")
    wait_exit(tmux)


def test_big_corpus_opens_with_default_workers_and_escape_cancels_a_run(tmux, tmp_path):
    if not TINYSHAKESPEARE.is_file():
        pytest.skip(f"{TINYSHAKESPEARE} is absent (the shared data directory is not here)")
    big = tmp_path / "big.txt"
    data = TINYSHAKESPEARE.read_bytes()
    with open(big, "wb") as out:
        while out.tell() < 9_000_000:
            out.write(data)
    tmux.start(str(big), "--vocab-size", "20000")
    screen = tmux.wait_for("step 0/19,744", timeout=120)
    assert "could not open" not in screen
    assert "Corpus — 15,057 of 15,057 words" in screen  # the corpus pane fills: the words show
    assert "·the" in screen
    tmux.keys("r")
    tmux.wait_for("run to target", timeout=30)
    tmux.keys("Escape")
    screen = tmux.wait_for("kept what was done", timeout=60)
    assert tmux.alive()
    assert "step 19,744/19,744" not in screen
    tmux.keys("C-q")  # the merges of the cancelled run are not saved: it asks first
    tmux.wait_for("are not saved", timeout=10)
    tmux.keys("y")
    wait_exit(tmux)


def test_settings_dialog_retrains_under_another_tie_break(tmux):
    """, opens the rules; a new tie-break retrains to the same step and says where the merges part."""
    court = str(Path(__file__).resolve().parents[2] / "corpora" / "court.txt")
    tmux.start(court, "--preset", "classic")
    tmux.wait_for("step 0/")
    tmux.keys("Space")
    tmux.keys("Space")
    tmux.wait_for("step 2/")
    tmux.keys(",")
    tmux.wait_for("Switch the training rules")
    tmux.keys("Enter")  # open the tie-break list (first-seen is chosen)
    tmux.wait_for("lexical-max")
    tmux.keys("Down")
    tmux.keys("Enter")  # lexical-min
    tmux.wait_until(lambda screen: "lexical-max" not in screen, "the tie-break list closing")
    tmux.keys("Tab")  # to the min frequency box; enter there submits
    tmux.wait_until(lambda _: "min frequency" in tmux.cursor_row(), "the cursor reaching the min frequency box")
    tmux.keys("Enter")
    tmux.wait_for("not saved")  # the two merges made are not saved: retraining asks first
    tmux.keys("y")
    screen = tmux.wait_for("retrained under the new rules")
    assert "lexical-min" in screen and "step 2/" in screen
    expect = bpe_tui.Trainer.from_files([court], bpe_tui.TrainerConfig(preset="classic", tie_break="lexical-min"))
    expect.goto(2)
    first = expect.history[0].pair
    assert first != ("t", "h")  # first-seen's winner; lexical-min picks another of the four tied pairs
    tmux.wait_for(f"from merge 1 on: ({first[0]}, {first[1]}) instead of (t, h)")
    tmux.keys("C-q")
    tmux.wait_for("not saved")
    tmux.keys("y")
    wait_exit(tmux)


def test_m_merges_the_selected_pair_by_hand_on_the_demo_corpus(tmux, tmp_path):
    tmux.start()  # the demo corpus; the pair table has the focus
    tmux.wait_for("step 0/744")
    tmux.keys("Down")
    tmux.keys("Down")
    tmux.keys("m")
    tmux.wait_for("step 1/744")
    tmux.wait_for("chosen by")  # the trainer's explanation, under the pair table (wrapped where it fits)
    expect = bpe_tui.Trainer.from_files([bpe_tui.demo_corpus_path()], bpe_tui.TrainerConfig(preset="gpt2", vocab_size=1000))
    third = expect.top_pairs(3)[2][0]
    event = expect.step(pair=third)
    from bpe_tui.ui.widgets.render import label

    tmux.wait_for(f"→ {label(event.new_token)}")  # the third pair of the table was merged, not the leader
    tmux.wait_for("●   1 h ")  # the history's mark for a merge chosen by hand, in its column
    # undo, then step: the hand choice is replayed; save and reopen keeps the mark
    tmux.keys("b")
    tmux.wait_for("step 0/744")
    tmux.keys("Space")
    tmux.wait_for("step 1/744")
    tmux.wait_for("●   1 h ")
    saved = tmp_path / "demo-1.json"
    save_default(tmux, saved)
    assert bpe_tui.load(str(saved)).manual_ranks == frozenset({0})
    tmux.keys("C-q")
    wait_exit(tmux)


def test_explorer_from_a_table_numbers_on(tmux, tmp_path):
    corpora = Path(__file__).resolve().parents[2] / "corpora"
    table = tmp_path / "court-3.json"
    bpe_tui.save(bpe_tui.train(str(corpora / "court.txt"), preset="classic", merges=3), str(table))
    tmux.start(str(corpora / "cat_sat.txt"), "--from", str(table), "--merges", "10")
    screen = tmux.wait_for("next (merge 4)")
    assert "step 3/10" in screen
    tmux.keys("Space")
    tmux.wait_for("step 4/10")
    tmux.wait_for("1 new merge · merges 1–3 are court-3.json's")
    tmux.keys("b")
    tmux.wait_for("step 3/10")
    tmux.keys("b")
    tmux.wait_for("already at step 3")
    tmux.keys("C-q")
    wait_exit(tmux)
