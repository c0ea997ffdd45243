"""SIGTERM and SIGINT against every kind of command, as a shell, a service manager or a person
sends them: one line on stderr, the conventional exit status (143, 130), no traceback, no
temporary file, no worker left, and the output a previous run wrote exactly as it was.

Each signal is sent at a moment the test observes (the worker processes exist, the counting
is over, the command has spent so much CPU time on its work), never at a guessed time. A
command that ends before the signal lands is also a right answer, with its output complete.
(test_cli_interrupt.py holds the first Ctrl+C cases; this module adds SIGTERM, a previous
output, the explorer on a terminal, and the commands that read tables.)
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import bpe_tui
from tests.conftest import SHARED, children_of, need
from tests.core.test_cli_interrupt import write_corpus, write_many_words

pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs Linux /proc to watch the processes")

ENDINGS = {signal.SIGINT: (130, "bpe-tui: interrupted"), signal.SIGTERM: (143, "bpe-tui: terminated")}
BOTH = [signal.SIGTERM, signal.SIGINT]
#: How long a test waits for a state it observes, or for a process to go: a bound for a
#: machine at any load, never a statement about speed.
PATIENCE = 300.0


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process so far (from /proc)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return 0.0
    fields = stat[stat.rindex(")") + 2 :].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def alive(pid: int) -> bool:
    """Is ``pid`` a process that has not ended (a zombie has)?"""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat[stat.rindex(")") + 2] != "Z"


def start(*args: str, stdin=None) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "bpe_tui", *args], stdin=stdin, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        text=True, start_new_session=True,
    )


def wait_for(condition, proc: subprocess.Popen, what: str) -> bool:
    """Wait until ``condition()``; False if the command ended first (a right answer too)."""
    deadline = time.monotonic() + PATIENCE
    while not condition():
        if proc.poll() is not None:
            return False
        assert time.monotonic() < deadline, f"no {what} within {PATIENCE:.0f} s"
        time.sleep(0.02)
    return True


def snapshot(folder: Path) -> dict[str, bytes]:
    """Every file under ``folder`` (hidden ones too: a temporary file would show here)."""
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def signal_and_check(
    proc: subprocess.Popen, signum: int, workers: list[int], before: dict, folder: Path, finished=None,
) -> None:
    """Send ``signum``; then: one line, the status, no traceback, no worker alive, and the
    outputs in ``folder`` as they were (or, for a command that had ended, complete).
    ``finished(after)``: whether ``after`` is the command's whole output, for a signal that may
    land after the output was put in place (while the summary is printed): then the new
    output, whole, is a right answer too."""
    ended_first = proc.poll() is not None
    if not ended_first:
        os.kill(proc.pid, signum)
    try:
        _, err = proc.communicate(timeout=PATIENCE)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert "Traceback" not in err, err
    deadline = time.monotonic() + PATIENCE
    while any(map(alive, workers)) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(map(alive, workers)), "a worker outlived the command"
    after = snapshot(folder)
    assert not [name for name in after if ".bpe-tui-" in name], f"a temporary file was left: {sorted(after)}"
    if proc.returncode == 0:  # it finished before the signal landed: its output is whole
        assert ended_first or err == "", err
        return
    status, line = ENDINGS[signum]
    assert (proc.returncode, err.splitlines()) == (status, [line]), err
    assert after == before or (finished is not None and finished(after)), "the previous output changed"


def signal_with_workers(proc: subprocess.Popen, signum: int, before: dict, folder: Path) -> None:
    """Once the command's two worker processes are there, the signal and the checks."""
    workers: list[int] = []

    def working() -> bool:
        workers[:] = children_of(proc.pid)
        return len(workers) >= 2

    wait_for(working, proc, "worker processes")
    signal_and_check(proc, signum, workers, before, folder)


@pytest.fixture(scope="module")
def big_corpus(tmp_path_factory) -> Path:
    return write_corpus(tmp_path_factory.mktemp("signals") / "big.txt", 12)


@pytest.fixture(scope="module")
def many_words(tmp_path_factory) -> Path:
    return write_many_words(tmp_path_factory.mktemp("signals") / "words.txt", 9)


@pytest.fixture(scope="module")
def small_table(tmp_path_factory) -> str:
    path = tmp_path_factory.mktemp("signals") / "t.json"
    bpe_tui.save(bpe_tui.train(bpe_tui.demo_corpus_path(), preset="gpt2", merges=200), str(path))
    return str(path)


def previous_output(folder: Path, name: str) -> dict[str, bytes]:
    """A previous run's output in ``folder`` (the command gets --force over it)."""
    folder.mkdir(exist_ok=True)
    (folder / name).write_text("what an earlier run wrote\n")
    return snapshot(folder)


@pytest.mark.parametrize("signum", BOTH, ids=["SIGTERM", "SIGINT"])
@pytest.mark.parametrize("command", ["count", "train"])
def test_a_signal_while_workers_count(tmp_path, big_corpus, command, signum):
    """The issue's case: SIGTERM into a --workers 2 count ended in a worker's BrokenPipeError
    traceback (the parent died at once, its workers wrote into a closed pipe)."""
    out = tmp_path / "out"
    before = previous_output(out, "result")
    proc = start(command, str(big_corpus), "-o", str(out / "result"), "--workers", "2", "--force")
    signal_with_workers(proc, signum, before, out)


@pytest.mark.parametrize("signum", BOTH, ids=["SIGTERM", "SIGINT"])
@pytest.mark.parametrize("fmt", ["native", "gpt2"])
def test_a_signal_while_merging_leaves_the_previous_table(tmp_path, many_words, fmt, signum):
    """After the counting, while merging: a file, or a folder (the gpt2 format), untouched."""
    out = tmp_path / "out"
    out.mkdir()
    target = out / ("table" if fmt == "gpt2" else "table.json")
    if fmt == "gpt2":
        bpe_tui.save(bpe_tui.train(bpe_tui.demo_corpus_path(), preset="gpt2", merges=20), str(target), format="gpt2")
    else:
        target.write_text("{}\n")
    before = snapshot(out)
    proc = start("train", str(many_words), "-o", str(target), "--format", fmt, "--force", "--workers", "2", "--vocab-size", "100000")
    seen: list[int] = []

    def counted() -> bool:  # the workers came and went: the words are counted, the merging runs
        kids = children_of(proc.pid)
        seen.extend(k for k in kids if k not in seen)
        return bool(seen) and kids == []

    wait_for(counted, proc, "the end of the counting")
    signal_and_check(proc, signum, seen, before, out)


@pytest.mark.parametrize("signum", BOTH, ids=["SIGTERM", "SIGINT"])
@pytest.mark.parametrize("command", ["eval", "audit"])
def test_a_signal_while_workers_encode(tmp_path, big_corpus, small_table, command, signum):
    out = tmp_path / "out"
    before = previous_output(out, "plot.txt")
    args = ["--corpus", str(big_corpus), "--workers", "2", "--plot", str(out / "plot.txt")]
    signal_with_workers(start(command, small_table, *args), signum, before, out)


def test_sigterm_while_encoding_stdin(tmp_path, small_table):
    """encode streams stdin: SIGTERM while it waits for more."""
    proc = start("encode", "-t", small_table, "--ids", stdin=subprocess.PIPE)
    # a pipe holds 64 KB: once 1.7 MB are written, the CLI is reading (and stdin stays open)
    proc.stdin.write("low lower lowest " * 100_000)
    proc.stdin.flush()
    signal_and_check(proc, signal.SIGTERM, [], snapshot(tmp_path), tmp_path)


@pytest.mark.parametrize("moment", [0.5, 1.0, 2.0])
def test_sigterm_while_converting_a_big_table(tmp_path, moment):
    """Reading o200k, building its merges, writing it: at whatever moment SIGTERM lands, the
    previous file stays as it was, or the command has written the new one whole."""
    source = need(SHARED / "tables" / "o200k" / "o200k_base.tiktoken")
    out = tmp_path / "out"
    before = previous_output(out, "o200k.json")
    proc = start("convert", str(source), str(out / "o200k.json"), "--to", "hf", "--force")
    wait_for(lambda: cpu_seconds(proc.pid) > moment, proc, f"{moment} s of work")

    def whole(after: dict) -> bool:
        return list(after) == ["o200k.json"] and bpe_tui.load(str(out / "o200k.json")).encode(" I'") == [357, 6]

    signal_and_check(proc, signal.SIGTERM, [], before, out, finished=whole)
    if proc.returncode == 0:
        assert whole(snapshot(out))


@pytest.mark.parametrize("signum", BOTH, ids=["SIGTERM", "SIGINT"])
def test_the_explorer_on_a_terminal_ends_in_one_line(signum):
    """The explorer in a terminal (a pseudo-terminal here): the screen is given back (the
    alternate screen left) before the one line, and the status is the signal's."""
    import pty
    import select

    pid, fd = pty.fork()
    if pid == 0:  # the child: the explorer on the demo corpus, 80x24
        os.environ.update(TERM="xterm-256color", COLUMNS="80", LINES="24")
        os.execv(sys.executable, [sys.executable, "-m", "bpe_tui"])
    output = b""

    def read_for(seconds: float, until: bytes | None = None) -> None:
        nonlocal output
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline and (until is None or until not in output):
            ready, _, _ = select.select([fd], [], [], 0.1)
            if ready:
                try:
                    chunk = os.read(fd, 65536)
                except OSError:  # the child closed the terminal
                    return
                if not chunk:
                    return
                output += chunk

    try:
        read_for(PATIENCE, until=b"Pairs")  # the explorer is drawn
        assert b"Pairs" in output, output[-500:]
        os.kill(pid, signum)
        read_for(PATIENCE)
        _, status = os.waitpid(pid, 0)
    finally:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        os.close(fd)
    code, line = ENDINGS[signum]
    assert os.waitstatus_to_exitcode(status) == code
    after_screen = output.rsplit(b"\x1b[?1049l", 1)  # what was written after leaving the alternate screen
    assert len(after_screen) == 2, "the alternate screen was not left"
    text = re.sub(r"\x1b\[[?0-9;]*[a-zA-Z]", "", after_screen[1].decode())  # (cursor and mouse modes reset)
    assert text.strip().splitlines() == [line]
    assert b"Traceback" not in output
