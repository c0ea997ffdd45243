"""Compressed table files (gzip, bzip2, xz, Zstandard), read as their plain form.

Tables ship compressed too: CLIP's merges are ``bpe_simple_vocab_16e6.txt.gz``, and a
``tokenizer.json.gz`` or ``cl100k_base.tiktoken.xz`` opens like the file inside. What a file
is, is decided by its first bytes (:mod:`bpe_tui.core.compression`), never by its name alone.

The format readers take a path, so a compressed table is decompressed into a temporary file
that keeps the plain name (``vocab.txt.gz`` -> ``vocab.txt``; a reader may look at the
extension) and is read from there: for detection only its first :data:`HEAD` bytes (a
compressed *corpus* of gigabytes is told apart from a table without reading it all), then,
once a format has claimed it, the whole of it. Messages name the file as it was given.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager

from ...compression import open_file, plain_name
from ...errors import BPEError
from ...limits import TABLE, shown_mb

#: How much of a compressed file detection decompresses (the sniffers read 64 KiB at most).
HEAD = 1 << 16


@contextmanager
def decompressed(path: str, kind: str, limit: int | None = None) -> Iterator[str]:
    """A temporary plain copy of the compressed file ``path`` (removed afterwards): all of it,
    or its first ``limit`` bytes. A damaged stream is a one-line BPEError naming ``path``,
    except while reading a head, which keeps what could be read (detection decides on that;
    reading the whole file then says what is wrong). All of it is at most the table limit
    (:data:`~bpe_tui.core.limits.TABLE`): a file that expands to more is refused, in one line,
    once that much is copied (a table is read whole; what it expands to is never held)."""
    most = TABLE.bytes() if limit is None else limit
    with tempfile.TemporaryDirectory(prefix="bpe-tui-") as tmp:
        plain = os.path.join(tmp, os.path.basename(plain_name(path)) or "table")
        stream, _ = open_file(path)
        copied = 0
        try:
            with stream, open(plain, "wb") as out:
                while copied < most:
                    chunk = stream.read(min(1 << 16, most - copied))
                    if not chunk:
                        break
                    out.write(chunk)
                    copied += len(chunk)
                else:  # as much as may be read: is there more?
                    if limit is None and stream.read(1):
                        raise too_big(path, kind, most)
        except BPEError:
            if limit is None or not copied:
                raise
        yield plain


def too_big(path: str, kind: str | None, limit: int) -> BPEError:
    """The one line for a table file over the limit (``kind``: its compression, None: plain)."""
    size = f"more than {shown_mb(limit)} MB" + (f" once {kind}-decompressed" if kind else "")
    return BPEError(f"{path}: {size}, and a merge table is read whole ({TABLE.hint(limit)})")


def check_size(path: str) -> None:
    """A plain table file over the limit is refused before it is read (see :func:`too_big`)."""
    limit = TABLE.bytes()
    if os.path.isfile(path) and os.path.getsize(path) > limit:
        raise too_big(path, None, limit)

def size_note(path: str, kind: str, plain: str) -> str:
    """The note a table read from a compressed file carries."""
    return f"{kind}-compressed: read decompressed ({os.path.getsize(path):,} -> {os.path.getsize(plain):,} bytes)"


def shown(message: str, plain: str, path: str) -> str:
    """A reader's message about the temporary copy, naming the file as given instead."""
    return message.replace(plain, path)
