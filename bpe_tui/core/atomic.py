"""Atomic writes: a file is either its old self or completely new, never half-written.

Write to a temporary file in the same directory, flush it to disk, then ``os.replace`` it
over the target (atomic on POSIX and Windows). If anything fails, the temporary file is
removed and the old file is untouched.
"""

from __future__ import annotations

import os
import tempfile

from .errors import BPEError


def atomic_write_bytes(path: str, data: bytes) -> None:
    """Write ``data`` to ``path`` atomically; BPEError (one line) if that is impossible."""
    directory = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(directory):
        raise BPEError(f"{path}: cannot write: directory {directory} does not exist")
    try:
        fd, tmp = tempfile.mkstemp(prefix=".bpe-tui-", suffix=".tmp", dir=directory)
    except OSError as exc:
        raise BPEError(f"{path}: cannot write: {exc.strerror}") from None
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except OSError as exc:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise BPEError(f"{path}: cannot write: {exc.strerror}") from None
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def atomic_write_text(path: str, text: str) -> None:
    """Write UTF-8 text to ``path`` atomically."""
    atomic_write_bytes(path, text.encode("utf-8"))
