"""A cache of merge lists rebuilt from rank files, keyed by the file's sha256.

A tiktoken rank file stores no merges: the reader rebuilds them by replaying BPE over every
token (see ``tiktoken_bpe.rebuild_merges``), which is most of the time it takes to open a
200,000-token table. The result depends only on the file's bytes, so it is kept here after
the first time, and the next open reads it back in milliseconds.

The cache lives in ``$BPE_TUI_CACHE``, else ``$XDG_CACHE_HOME/bpe-tui``, else
``~/.cache/bpe-tui``; one file per rank file, written atomically, named by the sha256 and the
version of the replay. A file that cannot be read or written is ignored (the merges are then
rebuilt, as without a cache): it only ever saves time.
"""

from __future__ import annotations

import os
import struct
from array import array

#: Bumped whenever the replay's result could change, so old cache files are not read.
VERSION = 1
MAGIC = b"bpe-tui merges v%d\n" % VERSION


def directory() -> str:
    """Where cache files go (see the module docstring)."""
    if os.environ.get("BPE_TUI_CACHE"):
        return os.environ["BPE_TUI_CACHE"]
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "bpe-tui")


def _path(sha256: str) -> str:
    return os.path.join(directory(), f"tiktoken-{sha256}.v{VERSION}.merges")


def load(sha256: str) -> tuple[list[tuple[int, int, int]], list[int]] | None:
    """``(merges, unreachable ranks)`` cached for this file, or None."""
    try:
        with open(_path(sha256), "rb") as f:
            data = f.read()
    except OSError:
        return None
    if not data.startswith(MAGIC) or len(data) < len(MAGIC) + 8:
        return None
    pos = len(MAGIC)
    (n_merges, n_unreachable) = struct.unpack_from("<II", data, pos)
    pos += 8
    if len(data) != pos + 4 * (3 * n_merges + n_unreachable):
        return None
    numbers = array("I")
    numbers.frombytes(data[pos:])
    if array("I").itemsize != 4:  # pragma: no cover - every platform Python runs on
        return None
    flat = numbers[: 3 * n_merges]
    merges = list(zip(flat[0::3], flat[1::3], flat[2::3]))
    return merges, list(numbers[3 * n_merges :])


def store(sha256: str, merges: list[tuple[int, int, int]], unreachable: list[int]) -> None:
    """Keep ``(merges, unreachable)`` for this file; any failure is ignored."""
    from ...atomic import atomic_write_bytes
    from ...errors import BPEError

    numbers = array("I", [x for merge in merges for x in merge] + list(unreachable))
    data = MAGIC + struct.pack("<II", len(merges), len(unreachable)) + numbers.tobytes()
    try:
        os.makedirs(directory(), exist_ok=True)
        atomic_write_bytes(_path(sha256), data)
    except (OSError, BPEError, OverflowError):
        pass
