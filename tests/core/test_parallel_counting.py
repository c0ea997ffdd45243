"""Parallel word counting started from any thread, with any sys.stderr, and stopped at once.

The explorer counts in a thread worker while Textual has replaced sys.stderr with an object
whose fileno() is -1; multiprocessing used to fail there with "bad value(s) in fds_to_keep".
"""

from __future__ import annotations

import io
import multiprocessing
import sys
import threading
import time

import pytest

from bpe_tui import TrainerConfig
from bpe_tui.core.text import corpus
from bpe_tui.core.text.corpus import count_files

LINES = ["The quick brown fox jumps over the lazy dog.", "low lower lowest newer newest", "naïve café, 12345!"]


class NoRealStderr(io.StringIO):
    """What Textual puts in sys.stderr while an app runs: no usable file descriptor."""

    def fileno(self) -> int:
        return -1


@pytest.fixture
def corpus_file(tmp_path, monkeypatch):
    monkeypatch.setattr(corpus, "MIN_RANGE", 1000)  # many ranges from a small file
    path = tmp_path / "c.txt"
    path.write_text("".join(f"{n} {line}\n" for n in range(3000) for line in LINES), encoding="utf-8")
    return path


def in_thread(function):
    """Run ``function`` in a new thread with Textual's kind of sys.stderr; its result or error."""
    out: dict = {}

    def run():
        saved = sys.stderr
        sys.stderr = NoRealStderr()
        try:
            out["value"] = function()
        except BaseException as exc:  # handed to the test
            out["error"] = exc
        finally:
            sys.stderr = saved

    thread = threading.Thread(target=run)
    thread.start()
    thread.join()
    return out


def test_counting_from_a_thread_with_a_stderr_without_fileno(corpus_file):
    cfg = TrainerConfig(preset="gpt2")
    seen = []
    out = in_thread(lambda: count_files([str(corpus_file)], cfg, workers=2, progress=lambda d, t: seen.append((d, t))))
    assert "error" not in out, out.get("error")
    assert out["value"] == count_files([str(corpus_file)], cfg, workers=1)
    size = corpus_file.stat().st_size
    assert seen and seen[-1] == (size, size)
    assert [d for d, _ in seen] == sorted(d for d, _ in seen)
    assert multiprocessing.active_children() == []


def test_a_progress_callback_that_raises_stops_the_workers(corpus_file):
    class Cancelled(Exception):
        pass

    calls = []

    def progress(done, total):
        calls.append(done)
        raise Cancelled()

    out = in_thread(lambda: count_files([str(corpus_file)], TrainerConfig(preset="gpt2"), workers=2, progress=progress))
    assert isinstance(out.get("error"), Cancelled)
    assert len(calls) == 1  # the first report ended it
    assert multiprocessing.active_children() == []


def test_a_pool_whose_terminate_hangs_still_lets_the_caller_go(corpus_file, monkeypatch):
    """Pool.terminate once waited minutes for its own task-handler thread after an error in a
    worker: ending_pool gives it STOP_SECONDS in a daemon thread, then kills the workers and
    lets the error through."""
    from multiprocessing.pool import TERMINATE, Pool

    stuck = threading.Event()

    def hanging_terminate(self):
        """What the real one does first (no more workers are started), then the hang."""
        self._state = self._worker_handler._state = TERMINATE
        self._change_notifier.put(None)
        stuck.wait()

    monkeypatch.setattr(Pool, "terminate", hanging_terminate)
    monkeypatch.setattr(corpus, "STOP_SECONDS", 0.2)

    class Cancelled(Exception):
        pass

    def progress(done, total):
        raise Cancelled()

    out = in_thread(lambda: count_files([str(corpus_file)], TrainerConfig(preset="gpt2"), workers=2, progress=progress))
    stuck.set()
    assert isinstance(out.get("error"), Cancelled)  # the caller went on while terminate still hung
    deadline = time.monotonic() + 30  # the killed workers are reaped: a bound, not a speed claim
    while multiprocessing.active_children() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert multiprocessing.active_children() == []
