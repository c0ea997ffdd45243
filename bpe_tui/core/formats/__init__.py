"""Merge-table file formats: one module per format, each with ``read`` and (most) ``write``.

``load(path)`` detects the format from the content (not only the file name) and returns a
:class:`~bpe_tui.core.table.MergeTable` whose ``source_format`` names what it found.
``save(table, path, format)`` writes atomically.

A format module provides:

* ``NAME``: the format name used by ``save(..., format=NAME)`` and ``--format``;
* ``sniff(path) -> bool``: does this path hold this format? (cheap, content-based);
* ``read(path) -> MergeTable``;
* optionally ``write(table, path, **options)``.

To add a format, write its module and list it in ``FORMATS`` (detection order matters: the
most specific sniffers first).
"""

from __future__ import annotations

import os
import stat

from ..errors import BPEError
from . import gpt2, hf, minbpe, native, sentencepiece_bpe, subword_nmt, tiktoken_bpe

#: Every known format module, in detection order.
FORMATS = [native, hf, gpt2, minbpe, sentencepiece_bpe, tiktoken_bpe, subword_nmt]


def readers() -> dict:
    return {m.NAME: m for m in FORMATS}


def writers() -> dict:
    return {m.NAME: m for m in FORMATS if hasattr(m, "write")}


def check_readable(path: str) -> None:
    """A table path must be a regular file or a directory (gpt2, sentencepiece dirs): opening
    a FIFO would block forever, and a device may never end."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise BPEError(f"{path}: no such file or directory") from None
    except OSError as exc:
        raise BPEError(f"{path}: cannot read: {exc.strerror}") from None
    if not (stat.S_ISREG(st.st_mode) or stat.S_ISDIR(st.st_mode)):
        raise BPEError(f"{path}: not a regular file (a merge table is a file or a directory)")


def detect(path: str):
    """The format module that can read ``path``; BPEError if none can."""
    path = os.fspath(path)
    check_readable(path)
    for module in FORMATS:
        try:
            if module.sniff(path):
                return module
        except OSError:
            continue
    raise BPEError(
        f"{path}: not a merge table this tool can read (known formats: {', '.join(readers())})"
    )


def load(path: str | os.PathLike, format: str | None = None):
    """Read a merge table, detecting its format unless ``format`` is given.

    Anything wrong with the file is a one-line BPEError naming it; a reader's own checks name
    the line or JSON path, and anything they did not foresee is still reported, not raised.
    """
    path = os.fspath(path)
    if format is None:
        module = detect(path)
    else:
        module = readers().get(format)
        if module is None:
            raise BPEError(f"unknown table format {format!r}; choose one of {', '.join(readers())}")
        check_readable(path)
    try:
        return module.read(path)
    except BPEError as exc:
        message = str(exc)
        raise (exc if path in message or os.path.basename(path) in message else BPEError(f"{path}: {message}")) from None
    except UnicodeDecodeError as exc:
        raise BPEError(f"{path}: not valid UTF-8 at byte {exc.start}") from None
    except OSError as exc:
        raise BPEError(f"{path}: cannot read: {exc.strerror or exc}") from None
    except (TypeError, ValueError, KeyError, IndexError, AttributeError, RecursionError) as exc:
        # A well-formed file with a shape the reader did not check: still one line.
        raise BPEError(f"{path}: not a valid {module.NAME} table ({type(exc).__name__}: {str(exc)[:80]})") from None


#: Formats that hold byte-level tables only, and chars-mode tables only.
BYTES_ONLY = ("gpt2", "tiktoken", "minbpe")
CHARS_ONLY = ("subword-nmt",)
#: Formats written as a directory of files rather than one file.
DIRECTORY_FORMATS = ("gpt2",)


def check_save(path: str | os.PathLike, format: str, units: str | None = None, overwrite: bool = True, **options) -> None:
    """Everything that would stop ``save`` that can be known before there is a table: the
    format and its options, the units it holds, and the target path. The CLI asks this before
    a long training run; ``save`` checks again when it writes."""
    from ..atomic import resolve_target

    path = os.fspath(path)
    module = writers().get(format)
    if module is None:
        raise BPEError(f"unknown output format {format!r}; choose one of {', '.join(writers())}")
    if options.get("legacy_merges") and format != "hf":
        raise BPEError(f"--legacy-merges applies to the hf format, not {format}")
    if units == "chars" and format in BYTES_ONLY:
        raise BPEError(f"the {format} format holds byte-level tables only, and this table is chars (use native or hf)")
    if units == "bytes" and format in CHARS_ONLY:
        raise BPEError(f"the {format} format holds chars-mode tables only, and this table is bytes (use native or hf)")
    resolve_target(path, overwrite, kind="directory" if format in DIRECTORY_FORMATS else "file")


def save(table, path: str | os.PathLike, format: str = "native", overwrite: bool = True, **options) -> None:
    """Write ``table`` to ``path`` in ``format`` (atomically). ``overwrite=False`` refuses a
    target that exists at the moment of writing. A symlink is written through; a target that
    is not a regular file (a FIFO, a device) is refused."""
    path = os.fspath(path)
    check_save(path, format, table.units, overwrite, **options)
    writers()[format].write(table, path, overwrite=overwrite, **options)
