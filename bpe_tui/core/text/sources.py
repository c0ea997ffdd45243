"""Finding the corpus: which files a list of paths means, how to open them, and how to name
them to a person.

A path may be a file, ``-`` (stdin), a glob (``shards/*.parquet``, expanded in sorted order), a
directory (every corpus file below it, in sorted order, hidden files left out) or an fsspec URL
(``s3://bucket/corpus/``, ``file://...``: a file, a glob or a directory there, read through
fsspec and the filesystem's package, s3fs for S3). A corpus file is text, compressed or not,
or Parquet (see :mod:`.kinds`). A file in a directory that is none of these (a binary file, a
compressed Parquet file) is left out, and named: ``notes`` gets one line saying which and why.
The names are for status lines and error messages.
"""

from __future__ import annotations

import glob
import os
import sys
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import BinaryIO

from ..compression import compression_of, open_file
from ..errors import BPEError, one_line
from ..wording import plural
from .kinds import PARQUET_MAGIC

SNIFF = 8192  # bytes looked at to tell text from binary
#: Files left out of a directory named in its note (the rest are counted).
NAMED = 3


def expand_sources(paths: Iterable[str], notes: list[str] | None = None) -> list[str]:
    """Files to read: each path as given, globs, directories and URLs expanded to their files.

    Raises BPEError for a missing path, a glob that matches nothing, a directory without
    corpus files, or a URL that cannot be listed. ``notes``, if given, gets a line for each
    directory that holds files left out (see the module docstring).
    """
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]  # one path, not a list of one-character paths
    out: list[str] = []
    for path in map(os.fspath, paths):
        if path == "-":
            out.append(path)
        elif "://" in path:
            out.extend(_expand_url(path))
        elif not os.path.exists(path) and glob.has_magic(path):
            found = sorted(glob.glob(path))
            if not found:
                raise BPEError(f"{path}: no file matches")
            out.extend(expand_sources(found, notes))
        elif os.path.isdir(path):
            out.extend(_directory(path, notes))
        elif os.path.exists(path):
            if not os.path.isfile(path):
                raise BPEError(f"{path}: not a regular file")
            out.append(path)
        else:
            raise BPEError(f"{path}: no such file or directory")
    return out


def _directory(path: str, notes: list[str] | None) -> list[str]:
    """The corpus files below ``path``, in sorted order; the others named in ``notes``.

    A linked folder is read like any other (corpora/parallel links to the package's copy of
    the parallel texts), each real folder once. A link up the tree, to a folder that holds
    the one it sits in (``..``, the corpus folder itself, ``/``), is skipped: followed, it
    read the files beside and above the folder given, or went round in a loop. Each link
    skipped is named in ``notes``, as is a folder met a second time through another link."""
    found: list[str] = []
    left_out: list[str] = []
    skipped: list[str] = []
    seen = {os.path.realpath(path): "."}  # each real folder read, and where it was met first
    for root, dirs, files in os.walk(path, followlinks=True):
        kept = []
        here = os.path.realpath(root)
        for d in sorted(d for d in dirs if not d.startswith(".")):
            full = os.path.join(root, d)
            real = os.path.realpath(full)
            shown = os.path.relpath(full, path)
            if _holds(real, here):
                target = os.readlink(full) if os.path.islink(full) else real
                skipped.append(f"{shown} (a link to {target}, a folder that holds it)")
            elif real in seen:
                skipped.append(f"{shown} (the same folder as {seen[real]}, read once)")
            else:
                seen[real] = shown
                kept.append(d)
        dirs[:] = kept
        for name in sorted(files):
            full = os.path.join(root, name)
            if name.startswith(".") or not os.path.isfile(full):
                continue
            why = _not_corpus(full)
            if why is None:
                found.append(full)
            else:
                left_out.append(f"{os.path.relpath(full, path)} ({why})")
    if skipped and notes is not None:
        notes.append(f"{path}: skipped {plural(len(skipped), 'linked folder')}: {_first_few(skipped)}")
    if not found:
        raise BPEError(f"{path}: directory holds no text files" + (f": {_first_few(left_out)}" if left_out else ""))
    if left_out and notes is not None:
        notes.append(f"{path}: left out {plural(len(left_out), 'file')} the readers cannot take: {_first_few(left_out)}")
    return found


def _holds(folder: str, other: str) -> bool:
    """Whether real path ``folder`` is ``other`` or one of the folders above it."""
    return other == folder or other.startswith(folder.rstrip(os.sep) + os.sep)


def _first_few(items: list[str]) -> str:
    """The first NAMED items, and how many more."""
    return ", ".join(items[:NAMED]) + (f" and {len(items) - NAMED:,} more" if len(items) > NAMED else "")


def _not_corpus(path: str) -> str | None:
    """Why a file in a directory is not part of the corpus (None: it is): Parquet and text
    (once decompressed: no NUL byte in its first bytes) are. A damaged compressed file is
    kept (reading it says what is wrong), and so is one whose compression needs a package."""
    try:
        with open(path, "rb") as f:
            head = f.read(SNIFF)
    except OSError as exc:
        return f"cannot be opened: {exc.strerror or exc}"
    if head.startswith(PARQUET_MAGIC):
        return None
    kind = compression_of(head, path)
    if kind is not None:
        try:
            stream, _ = open_file(path)
            with stream:
                head = stream.read(SNIFF)
        except BPEError:  # damaged, or Zstandard without its package: reading it says so
            return None
        if head.startswith(PARQUET_MAGIC):
            return f"{kind}-compressed Parquet: Parquet compresses inside the file; give it unpacked"
    nul = head.find(b"\0")
    if nul >= 0:
        return f"{kind + '-compressed ' if kind else ''}binary: a NUL byte at byte {nul:,}"
    return None


# ---------------------------------------------------------------------- URLs


@contextmanager
def url_errors(url: str) -> Iterator[None]:
    """Whatever fsspec or a filesystem package raises while listing, sizing or opening
    ``url``, as one BPEError that says it is a read and names the URL (a missing package: which
    one to install)."""
    try:
        yield
    except BPEError:
        raise
    except ImportError as exc:
        raise BPEError(_missing_package(url, exc)) from None
    except FileNotFoundError:
        raise BPEError(f"{url}: no such file or directory") from None
    except Exception as exc:  # refused, unreachable, forbidden: aiohttp's, botocore's ... errors
        raise BPEError(f"{url}: cannot read ({one_line(exc)})") from None


def _missing_package(url: str, exc: ImportError) -> str:
    """What a URL whose filesystem is not installed needs, in one line."""
    from fsspec.registry import known_implementations

    protocol = url.split("://", 1)[0]
    package = known_implementations.get(protocol, {}).get("class", "").split(".")[0]
    if package and package != "fsspec":
        return f"{url}: reading {protocol}:// URLs needs the {package} package, which is not installed: pip install {package}"
    return f"{url}: cannot read {protocol}:// URLs here ({one_line(exc)})"


def _expand_url(url: str) -> list[str]:
    """The files an fsspec URL names (a file, a glob, or a directory, walked in sorted order),
    as URLs with the same protocol. Unlike a local directory's files, they are not sniffed for
    binary content here (that would read every file from this machine): a binary file is met
    by whoever reads it, as a one-line error."""
    import fsspec

    files: list[str] = []
    with url_errors(url):
        fs, _, found = fsspec.core.get_fs_token_paths(url)
        for p in sorted(found):
            if fs.isdir(p):
                below = sorted(fs.find(p))  # every file below, hidden ones (any part starting with ".") left out
                files.extend(f for f in below if not any(part.startswith(".") for part in f[len(p) :].split("/")))
            elif fs.exists(p):
                files.append(p)
    if not files:
        raise BPEError(f"{url}: no such file or directory")
    return [fs.unstrip_protocol(f) for f in files]


def open_binary(path: str) -> BinaryIO:
    """The bytes of ``path``: stdin for ``-``, an fsspec URL through fsspec (a dependency of
    dask; only URLs need it), else the local file. One that cannot be opened is a one-line
    BPEError."""
    if path == "-":
        return sys.stdin.buffer
    if "://" in path:
        import fsspec

        with url_errors(path):
            stream: BinaryIO = fsspec.open(path, "rb").open()
        return stream
    try:
        return open(path, "rb")
    except OSError as exc:
        raise BPEError(f"{path}: cannot open: {exc.strerror or exc}") from None


def url_size(url: str) -> int:
    """The size of the file an fsspec URL names."""
    import fsspec

    with url_errors(url):
        fs, inner = fsspec.core.url_to_fs(url)
        return int(fs.size(inner))


# ---------------------------------------------------------------------- names


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
