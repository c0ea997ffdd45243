"""Ctrl+C in the CLI: one line on stderr, exit status 130, no traceback from any process.

A terminal's Ctrl+C sends SIGINT to the whole foreground process group: the CLI and its word
counting workers alike. The test does the same (the CLI runs in its own session, so the signal
reaches nobody else) at a moment it observes rather than guesses: once the worker processes
exist, the parallel count is under way.
"""

from __future__ import annotations

import contextlib
import os
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from bpe_tui.core.text import corpus
from tests.conftest import children_of

pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs Linux /proc to see the worker processes")

DEMO_LINES = [
    "The quick brown fox jumps over the lazy dog.",
    "low lower lowest newer newest wider widest",
    "Ünïcödé wörds, numbers 12345 and punctuation!?",
]


def write_corpus(path: Path, megabytes: int) -> Path:
    line_block = "".join(f"{n} {line}\n" for n in range(2000) for line in DEMO_LINES).encode("utf-8")
    with open(path, "wb") as out:
        for _ in range(megabytes * 1_000_000 // len(line_block) + 1):
            out.write(line_block)
    assert path.stat().st_size >= corpus.PARALLEL_MIN_BYTES
    return path


def start_cli(*args: str, stdin=None, stdout=subprocess.PIPE) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "bpe_tui", *args],
        stdin=stdin,
        stdout=stdout,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # its own process group, as a shell job is
    )


#: How long a test waits for a state it observes, or for the command to end: a bound for a
#: machine at any load (the corpus is written and the command imports beside other work),
#: never a statement about speed.
PATIENCE = 300.0


def wait_until(condition, proc: subprocess.Popen, what: str, seconds: float = PATIENCE) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        if proc.poll() is not None:
            raise AssertionError(f"the CLI ended (status {proc.returncode}) before {what}: {proc.stderr.read()}")
        assert time.monotonic() < deadline, f"no {what} within {seconds} s"
        time.sleep(0.02)


def line_within(proc: subprocess.Popen, seconds: float) -> str:
    """The next line the command writes to stderr, waited for at most ``seconds`` (a command
    that never writes one fails the test instead of hanging it). Read a byte at a time from
    the pipe itself, so nothing after the line is taken from what ``communicate`` reads next."""
    fd = proc.stderr.fileno()
    deadline = time.monotonic() + seconds
    line = b""
    while not line.endswith(b"\n"):
        left = deadline - time.monotonic()
        assert left > 0, f"no whole line on stderr within {seconds} s (so far {line!r})"
        if select.select([fd], [], [], left)[0]:
            byte = os.read(fd, 1)
            if not byte:  # (the command ended without one)
                break
            line += byte
    return line.decode("utf-8")


def interrupt_when(proc: subprocess.Popen, *states) -> None:
    """Wait for each ``(condition, what)`` in turn, then press Ctrl+C; assert the one-line exit."""
    try:
        for condition, what in states:
            wait_until(condition, proc, what)
        os.killpg(proc.pid, signal.SIGINT)  # what Ctrl+C in the terminal does
        _out, err = proc.communicate(timeout=PATIENCE)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130, err
    assert err.splitlines() == ["bpe-tui: interrupted"], err
    assert "Traceback" not in err


@pytest.mark.parametrize("command", ["count", "train"])
def test_ctrl_c_during_a_parallel_count_exits_130_with_one_line(tmp_path, command):
    big = write_corpus(tmp_path / "big.txt", 40)
    out = tmp_path / ("out.tsv" if command == "count" else "out.json")
    proc = start_cli(command, str(big), "-o", str(out), "--workers", "2")
    interrupt_when(proc, (lambda: len(children_of(proc.pid)) >= 2, "worker processes"))
    assert not out.exists()  # nothing half-written
    # and no worker outlives it
    assert children_of(proc.pid) == []


def write_many_words(path: Path, megabytes: int) -> Path:
    """Text of made-up words (seeded): so many distinct words that merging to a big
    vocabulary goes on for a long while, whatever the machine's speed."""
    import random

    rng = random.Random(0)
    letters = "abcdefghijklmnopqrstuvwxyz"
    with open(path, "w", encoding="utf-8") as out:
        written = 0
        while written < megabytes * 1_000_000:
            line = " ".join("".join(rng.choices(letters, k=rng.randint(3, 12))) for _ in range(12)) + "\n"
            out.write(line)
            written += len(line)
    assert path.stat().st_size >= corpus.PARALLEL_MIN_BYTES
    return path


def test_ctrl_c_while_training_exits_130_with_one_line(tmp_path):
    big = write_many_words(tmp_path / "big.txt", 9)
    out = tmp_path / "out.json"
    proc = start_cli("train", str(big), "-o", str(out), "--workers", "2", "--vocab-size", "100000")
    # the workers come and go: then the words are counted and the merging has begun
    interrupt_when(
        proc,
        (lambda: len(children_of(proc.pid)) >= 2, "worker processes"),
        (lambda: children_of(proc.pid) == [], "the end of the counting"),
    )
    assert not out.exists()


def test_ctrl_c_while_encoding_stdin_exits_130_with_one_line(tmp_path):
    import bpe_tui

    table = tmp_path / "t.json"
    bpe_tui.save(bpe_tui.train(bpe_tui.demo_corpus_path(), preset="gpt2", merges=50), str(table))
    # encode --ids streams its ids while it reads: nobody reads them here, so they go nowhere
    # (a pipe would fill, the CLI would wait on it, and so would this test's writes)
    proc = start_cli("encode", "-t", str(table), "--ids", stdin=subprocess.PIPE, stdout=subprocess.DEVNULL)
    # A pipe holds 64 KB: once 4 MB have been written, the CLI is reading its input (it has
    # loaded the table); the pipe stays open, so it waits for more when Ctrl+C comes.
    block = "".join(f"{n} {line}\n" for n in range(100) for line in DEMO_LINES)
    for _ in range(4_000_000 // len(block)):
        proc.stdin.write(block)
    proc.stdin.flush()
    interrupt_when(proc)


def test_a_ctrl_c_python_swallowed_still_stops_training(tmp_path, monkeypatch, capsys):
    """Ctrl+C can land while a worker pool is being cleaned up, inside a finalizer, where
    Python prints "Exception ignored" and goes on. The CLI remembers it and stops at the next
    check of its training loop: one line, exit 130, nothing written."""
    import bpe_tui
    from bpe_tui import cli
    from bpe_tui.cli.terminal import _Interrupt

    real_run = bpe_tui.Trainer.run

    def run_and_swallow(self, max_steps=None):
        for event in real_run(self, max_steps):
            if event.step == 10:
                _Interrupt.seen = signal.SIGINT  # the handler ran; its KeyboardInterrupt went nowhere
            yield event

    monkeypatch.setattr(bpe_tui.Trainer, "run", run_and_swallow)
    out = tmp_path / "out.json"
    assert cli.main(["train", bpe_tui.demo_corpus_path(), "-o", str(out), "--merges", "500"]) == 130
    assert capsys.readouterr().err == "bpe-tui: interrupted\n"
    assert not out.exists()


def test_a_signal_python_swallowed_in_a_finalizer_is_sent_again(capsys):
    """SIGTERM landing inside a finalizer (a pool's, while it is collected): Python would print
    "Exception ignored in ..." and go on. The CLI keeps quiet and sends the signal again a
    moment later, where it ends the command."""
    from bpe_tui.cli.terminal import Terminated, ending_signals

    if signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL:
        pytest.skip("the test runner handles SIGTERM itself here")

    class Collected:
        def __del__(self):
            os.kill(os.getpid(), signal.SIGTERM)  # lands here, in the finalizer
            time.sleep(0.001)

    with pytest.raises(Terminated), ending_signals():
        Collected()  # collected at once: its __del__ runs
        time.sleep(5)  # the signal sent again ends this wait
    assert "Exception ignored" not in capsys.readouterr().err
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL  # and the handlers are given back


#: A ``sitecustomize`` that sends the process a signal while it imports the engine: the moment
#: of the first second (Python up, the command's handlers set, bpe_tui's modules loading) is
#: observed, not guessed. Before the handlers were set ahead of the imports, this printed a
#: KeyboardInterrupt traceback (SIGINT) or died without a word (SIGTERM).
SIGNAL_WHILE_IMPORTING = """
import importlib.abc, os, signal, sys

class SignalOnImport(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name == {module!r}:
            sys.meta_path.remove(self)
            os.kill(os.getpid(), {signum})
        return None

sys.meta_path.insert(0, SignalOnImport())
"""


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
@pytest.mark.parametrize("module", ["bpe_tui.core.engine.trainer", "bpe_tui.cli.main"])
def test_a_signal_while_the_command_imports_is_one_line(tmp_path, signum, module):
    """Ctrl+C or SIGTERM in the command's first second, while it imports: one line and 130
    or 143, as at any later moment (the installed ``bpe-tui`` command, as a person runs it)."""
    command = Path(sys.executable).parent / "bpe-tui"
    if not command.exists():
        pytest.skip(f"the bpe-tui console script is not installed next to {sys.executable}")
    hooks = tmp_path / "hooks"
    hooks.mkdir()
    (hooks / "sitecustomize.py").write_text(SIGNAL_WHILE_IMPORTING.format(module=module, signum=int(signum)))
    corpus = tmp_path / "c.txt"
    corpus.write_text("low lower lowest\n")
    env = dict(os.environ, PYTHONPATH=str(hooks))
    done = subprocess.run([str(command), "count", str(corpus), "-o", str(tmp_path / "out.tsv")], capture_output=True, text=True, env=env, timeout=300)
    line, status = {signal.SIGINT: ("interrupted", 130), signal.SIGTERM: ("terminated", 143)}[signum]
    assert (done.returncode, done.stderr) == (status, f"bpe-tui: {line}\n")
    assert not (tmp_path / "out.tsv").exists()


def blocked_reading_a_pipe(pid: int) -> bool:
    """Whether process ``pid`` sleeps in the kernel reading a pipe (its stdin, here)."""
    try:
        return "pipe_read" in Path(f"/proc/{pid}/wchan").read_text()
    except OSError:
        return False


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_a_second_signal_while_the_command_leaves_changes_nothing(tmp_path, signum):
    """``timeout -s INT 2 bpe-tui ...`` sends the signal to the command, then to its whole
    process group: the second one comes while the command is leaving. It once raised a
    KeyboardInterrupt traceback out of multiprocessing's exit handler. Here the second signal
    is sent once the first one's line is out, where the command is on its way out."""
    out = tmp_path / "out.json"
    proc = start_cli("train", "-", "-o", str(out), stdin=subprocess.PIPE)
    try:
        wait_until(lambda: blocked_reading_a_pipe(proc.pid), proc, "the command waiting for its stdin")
        os.kill(proc.pid, signum)
        first = line_within(proc, PATIENCE)
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signum)
        _out, rest = proc.communicate(timeout=PATIENCE)
    finally:
        if proc.poll() is None:
            proc.kill()
    line, status = {signal.SIGINT: ("interrupted", 130), signal.SIGTERM: ("terminated", 143)}[signum]
    assert (proc.returncode, first + rest) == (status, f"bpe-tui: {line}\n")
    assert not out.exists()
