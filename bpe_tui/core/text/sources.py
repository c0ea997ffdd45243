"""Finding the corpus: which files a list of paths means, and how to name them to a person.

A path may be a file, ``-`` (stdin) or a directory (every text file below it, in sorted order,
hidden files and binary files left out). The names are for status lines and error messages.
"""

from __future__ import annotations

import os
from collections.abc import Iterable

from ..errors import BPEError

SNIFF = 8192  # bytes looked at to tell text from binary


def expand_sources(paths: Iterable[str]) -> list[str]:
    """Files to read: each path as given, directories expanded to their text files.

    Raises BPEError for a missing path or a directory without text files.
    """
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]  # one path, not a list of one-character paths
    out: list[str] = []
    for path in map(os.fspath, paths):
        if path == "-":
            out.append(path)
            continue
        if os.path.isdir(path):
            found = []
            for root, dirs, files in os.walk(path):
                dirs[:] = sorted(d for d in dirs if not d.startswith("."))
                for name in sorted(files):
                    full = os.path.join(root, name)
                    if not name.startswith(".") and os.path.isfile(full) and not _looks_binary(full):
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


def _looks_binary(path: str) -> bool:
    try:
        with open(path, "rb") as f:
            return b"\0" in f.read(SNIFF)
    except OSError:
        return True


def corpus_name(paths: list[str]) -> str:
    """A short name for status lines: the file name, or 'a.txt +2'."""
    if not paths:
        return "corpus"
    first = "stdin" if paths[0] == "-" else os.path.basename(os.path.normpath(paths[0]))
    return first if len(paths) == 1 else f"{first} +{len(paths) - 1}"


def corpus_where(paths: list[str]) -> str:
    """Where, for an error message: the paths as the user gave them ('a/b.txt', 'a/b.txt and c.txt')."""
    named = ["stdin" if p == "-" else p for p in paths] or ["corpus"]
    return named[0] if len(named) == 1 else ", ".join(named[:-1]) + " and " + named[-1]
