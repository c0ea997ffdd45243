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

from ..errors import BPEError
from . import gpt2, hf, minbpe, native, sentencepiece_bpe, subword_nmt, tiktoken_bpe

#: Every known format module, in detection order.
FORMATS = [native, hf, gpt2, minbpe, sentencepiece_bpe, tiktoken_bpe, subword_nmt]


def readers() -> dict:
    return {m.NAME: m for m in FORMATS}


def writers() -> dict:
    return {m.NAME: m for m in FORMATS if hasattr(m, "write")}


def detect(path: str):
    """The format module that can read ``path``; BPEError if none can."""
    if not os.path.exists(path):
        raise BPEError(f"{path}: no such file or directory")
    for module in FORMATS:
        try:
            if module.sniff(path):
                return module
        except OSError:
            continue
    raise BPEError(
        f"{path}: not a merge table this tool can read (known formats: {', '.join(readers())})"
    )


def load(path: str, format: str | None = None):
    """Read a merge table, detecting its format unless ``format`` is given."""
    if format is None:
        module = detect(path)
    else:
        module = readers().get(format)
        if module is None:
            raise BPEError(f"unknown table format {format!r}; choose one of {', '.join(readers())}")
        if not os.path.exists(path):
            raise BPEError(f"{path}: no such file or directory")
    try:
        return module.read(path)
    except BPEError:
        raise
    except UnicodeDecodeError as exc:
        raise BPEError(f"{path}: not valid UTF-8 at byte {exc.start}") from None
    except OSError as exc:
        raise BPEError(f"{path}: cannot read: {exc.strerror}") from None


def save(table, path: str, format: str = "native", **options) -> None:
    """Write ``table`` to ``path`` in ``format`` (atomically)."""
    module = writers().get(format)
    if module is None:
        raise BPEError(f"unknown output format {format!r}; choose one of {', '.join(writers())}")
    module.write(table, path, **options)
