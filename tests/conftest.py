"""Shared test helpers: where the repository's corpora and the read-only ../shared data live."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
CORPORA = REPO / "corpora"
SHARED = REPO.parent / "shared"
GPT2_DIR = SHARED / "tables" / "gpt2"
TINYSHAKESPEARE = SHARED / "corpora" / "tinyshakespeare.txt"
TAYLORSWIFT = SHARED / "corpora" / "taylorswift.txt"


def rank_file(path: Path, tokens: list[bytes]) -> str:
    """Write a small tiktoken rank file: the 256 single bytes, then ``tokens`` in rank order.

    Such a file holds no merges: the table read from it builds its merge list when asked
    (``MergeTable.build_merges``), as o200k's does, in a moment instead of seconds."""
    import base64

    lines = [f"{base64.b64encode(bytes([i])).decode()} {i}" for i in range(256)]
    for rank, token in enumerate(dict.fromkeys(tokens), start=256):
        lines.append(f"{base64.b64encode(token).decode()} {rank}")
    path.write_text("\n".join(lines) + "\n")
    return str(path)


def children_of(pid: int) -> list[int]:
    """Process ids whose parent is ``pid`` (read from /proc)."""
    out = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2 :].split()
        if int(fields[1]) == pid:
            out.append(int(entry))
    return out


def need(path: Path) -> Path:
    """Skip the calling test (with the reason) when a ../shared file is absent."""
    if not path.exists():
        pytest.skip(f"{path} is absent (../shared data is not part of a fresh clone)")
    return path


@pytest.fixture(autouse=True, scope="session")
def _merges_cache_of_our_own(tmp_path_factory):
    """The rank-file merges cache goes to a directory of the test run, not ~/.cache."""
    import os

    previous = os.environ.get("BPE_TUI_CACHE")
    os.environ["BPE_TUI_CACHE"] = str(tmp_path_factory.mktemp("bpe-tui-cache"))
    yield
    if previous is None:
        os.environ.pop("BPE_TUI_CACHE", None)
    else:
        os.environ["BPE_TUI_CACHE"] = previous


def pytest_configure(config):
    """A run started in the background of a script (``cmd &``, ``nohup``) inherits SIGINT
    ignored, and passes it on to every command a test starts (a process keeps an ignored
    signal ignored, as it should: bpe-tui does too). The tests of Ctrl+C then waited for a
    line that never came. The suite gives its commands a terminal's SIGINT: Python's own
    handler here, so a command started from here (or from an xdist worker) begins with the
    default, and Python's KeyboardInterrupt in a Python one."""
    if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)


def pytest_collection_modifyitems(config, items):
    """The end-to-end tests drive the real bpe-tui in tmux and wait for the screen to change:
    they cannot share the machine's two cores with a parallel run, so they are marked
    ``serial`` and run after it, one at a time (see the README's test command)."""
    for item in items:
        if "e2e" in item.path.parts:
            item.add_marker(pytest.mark.serial)


def pytest_xdist_auto_num_workers(config):
    """``-n auto``: one test process more than there are CPUs. A Pilot test spends part of its
    time waiting for the screen to settle, so with one process per CPU the CPUs sit idle a
    fifth of the run; on this 2-CPU machine a fresh clone's parallel part took 5:52 with 2
    processes and 5:02 with 3 (with ``--dist worksteal``, which also shortens the tail)."""
    return (os.cpu_count() or 1) + 1
