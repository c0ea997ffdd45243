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

from ...compression import READ_ERRORS, compression_of, open_file, plain_name, read_error
from ...errors import BPEError

#: How much of a compressed file detection decompresses (the sniffers read 64 KiB at most).
HEAD = 1 << 16


@contextmanager
def decompressed(path: str, kind: str, limit: int | None = None) -> Iterator[str]:
    """A temporary plain copy of the compressed file ``path`` (removed afterwards): all of it,
    or its first ``limit`` bytes. A damaged stream is a one-line BPEError naming ``path``,
    except while reading a head, which keeps what could be read (detection decides on that;
    reading the whole file then says what is wrong)."""
    with tempfile.TemporaryDirectory(prefix="bpe-tui-") as tmp:
        plain = os.path.join(tmp, os.path.basename(plain_name(path)) or "table")
        stream, _ = open_file(path)
        copied = 0
        try:
            with stream, open(plain, "wb") as out:
                while limit is None or copied < limit:
                    chunk = stream.read(1 << 16 if limit is None else min(1 << 16, limit - copied))
                    if not chunk:
                        break
                    out.write(chunk)
                    copied += len(chunk)
        except BPEError:
            raise
        except READ_ERRORS as exc:
            if limit is None or not copied:
                raise read_error(path, kind, exc, copied) from None
        yield plain


def size_note(path: str, kind: str, plain: str) -> str:
    """The note a table read from a compressed file carries."""
    return f"{kind}-compressed: read decompressed ({os.path.getsize(path):,} -> {os.path.getsize(plain):,} bytes)"


def shown(message: str, plain: str, path: str) -> str:
    """A reader's message about the temporary copy, naming the file as given instead."""
    return message.replace(plain, path)
