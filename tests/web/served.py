"""``bpe-tui serve`` started for a test or a benchmark, and nothing it started left behind.

The server runs in a session of its own (a signal the test sends reaches nobody else); each
explorer it starts is a process group of its own (see bpe_tui/cli/webserver.py), so the cleanup
kills the server's children's groups as well as the server, whatever the test did.
"""

from __future__ import annotations

import contextlib
import os
import re
import selectors
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field

from tests.conftest import children_of


@dataclass
class Served:
    proc: subprocess.Popen
    url: str  # http://localhost:PORT
    banner: str  # the line it printed when it answered
    seen: set[int] = field(default_factory=set)  # every explorer explorers() has seen

    @property
    def port(self) -> int:
        return int(self.url.rsplit(":", 1)[1])

    def explorers(self) -> list[int]:
        """The explorer processes running now (the server's children)."""
        now = children_of(self.proc.pid)
        self.seen.update(now)
        return now


def read_line(stream, seconds: float) -> str:
    """The next line of a child's pipe, or AssertionError after ``seconds``."""
    with selectors.DefaultSelector() as sel:
        sel.register(stream, selectors.EVENT_READ)
        if not sel.select(seconds):
            raise AssertionError(f"no line within {seconds}s")
    return stream.readline()


def alive(pid: int) -> bool:
    """Is process ``pid`` running (not gone, not a zombie waiting for its parent)?"""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def _leads_an_explorer(pid: int) -> bool:
    """Is ``pid`` alive, a bpe_tui process, and the leader of its own process group?"""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            ours = b"bpe_tui" in f.read()
        return ours and alive(pid) and os.getpgid(pid) == pid
    except OSError:
        return False


def wait_until(condition, what: str, seconds: float = 60.0) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"{what}: not within {seconds}s")
        time.sleep(0.05)


@contextlib.contextmanager
def serving(*args: str, seconds: float = 60.0) -> Iterator[Served]:
    """``bpe-tui serve --port 0 ARGS`` until the block ends; yields once it answers."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "bpe_tui", "serve", "--port", "0", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    served = None
    try:
        line = read_line(proc.stdout, seconds)
        found = re.search(r"http://\S+:\d+", line)
        assert found, f"serve printed {line!r}, then: {proc.stderr.read() if proc.poll() is not None else ''}"
        served = Served(proc, found.group(0), line)
        yield served
    finally:
        left = set(children_of(proc.pid)) | (served.seen if served else set())
        for pid in left:
            if _leads_an_explorer(pid):  # still one of ours (a pid is not reused while its group lives)
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.killpg(pid, signal.SIGKILL)
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(30)
        proc.stdout.close()
        proc.stderr.close()
