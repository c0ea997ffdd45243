"""Finding the corpus: which files a list of paths means, and how to name them to a person.

A path may be a file, ``-`` (stdin), a glob (``shards/*.parquet``, expanded in sorted order) or a
directory (every corpus file below it, in sorted order, hidden files left out). A corpus file
is text, compressed or not, or Parquet (see :mod:`.kinds`); other binary files in a directory
are left out. The names are for status lines and error messages.
"""

from __future__ import annotations

import glob
import os
from collections.abc import Iterable

from ..compression import READ_ERRORS, compression_of, open_file
from ..errors import BPEError
from .kinds import PARQUET_MAGIC

SNIFF = 8192  # bytes looked at to tell text from binary


def expand_sources(paths: Iterable[str]) -> list[str]:
    """Files to read: each path as given, globs and directories expanded to their corpus files.

    Raises BPEError for a missing path, a glob that matches nothing, or a directory without
    corpus files.
    """
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]  # one path, not a list of one-character paths
    out: list[str] = []
    for path in map(os.fspath, paths):
        if path == "-":
            out.append(path)
        elif not os.path.exists(path) and glob.has_magic(path):
            found = sorted(glob.glob(path))
            if not found:
                raise BPEError(f"{path}: no file matches")
            out.extend(expand_sources(found))
        elif os.path.isdir(path):
            found = []
            for root, dirs, files in os.walk(path):
                dirs[:] = sorted(d for d in dirs if not d.startswith("."))
                for name in sorted(files):
                    full = os.path.join(root, name)
                    if not name.startswith(".") and os.path.isfile(full) and _is_corpus_file(full):
                        found.append(full)
            if not found:
                raise BPEError(f"{path}: directory holds no text files")
            out.extend(found)
        elif os.path.exists(path):
            if not os.path.isfile(path):
                raise BPEError(f"{path}: not a regular file")
            out.append(path)
        else:
            raise BPEError(f"{path}: no such file or directory")
    return out


def _is_corpus_file(path: str) -> bool:
    """Whether a file in a directory belongs to the corpus: Parquet, or text once decompressed
    (no NUL byte in its first bytes). A file that cannot be opened is left out; a damaged
    compressed one is kept (reading it says what is wrong)."""
    try:
        with open(path, "rb") as f:
            head = f.read(SNIFF)
    except OSError:
        return False
    if head.startswith(PARQUET_MAGIC):
        return True
    if compression_of(head) is None:
        return b"\0" not in head
    try:
        stream, _ = open_file(path)
        with stream:
            return b"\0" not in stream.read(SNIFF)
    except BPEError:  # Zstandard without its package: reading it says so
        return True
    except READ_ERRORS:  # a damaged stream: reading it says where
        return True


def source_name(path: str) -> str:
    """A corpus file as messages name it (``-`` is stdin)."""
    return "stdin" if path == "-" else path


def corpus_name(paths: list[str]) -> str:
    """A short name for status lines: the file name, or 'a.txt +2'."""
    if not paths:
        return "corpus"
    first = "stdin" if paths[0] == "-" else os.path.basename(os.path.normpath(paths[0]))
    return first if len(paths) == 1 else f"{first} +{len(paths) - 1}"


def corpus_where(paths: list[str]) -> str:
    """Where, for an error message: the paths as the user gave them ('a/b.txt', 'a/b.txt and c.txt')."""
    named = [source_name(p) for p in paths] or ["corpus"]
    return named[0] if len(named) == 1 else ", ".join(named[:-1]) + " and " + named[-1]
