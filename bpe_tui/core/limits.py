"""What a reader holds whole, and how big it may be.

Reading streams: a corpus file is read a block at a time, a line longer than a few MB is
handed on in pieces (:mod:`.text.blocks`), and a compressed file is decompressed a piece at a
time (:mod:`.compression`), so memory stays flat whatever a file holds or expands to. Two
things must be held whole to be read at all:

* a **record** of a dataset: a JSON lines line (it is one JSON value) or a Parquet value;
* a **merge table** file (what is inside it, when it is compressed): a ``tokenizer.json`` is
  one JSON document, and a table is built from all of its lines.

Each has a :class:`Limit`, a constant of the reader, so that a file that is (or expands to)
gigabytes without a line end costs the limit, never the gigabytes: a longer record is a bad
record (skipped under ``--skip-bad-records``), a bigger table file is refused, each in one
line naming the limit and the environment variable that raises it. An environment variable,
because it reaches every reader alike: the command line, the explorer, a notebook, and the
processes that count a corpus (local workers inherit it; the record limit also travels inside
the reading options, :class:`~.text.datasets.records.RecordOptions`, to Dask workers).
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass

from .errors import BPEError

MB = 1 << 20


@dataclass(frozen=True)
class Limit:
    """The most a reader holds of one ``what``: ``default_mb`` MB, or what the environment
    variable ``variable`` says."""

    what: str
    variable: str
    default_mb: int

    def bytes(self) -> int:
        """The limit in force, in bytes (a bad value of the variable: one line saying so)."""
        given = os.environ.get(self.variable, "").strip()
        if not given:
            return self.default_mb * MB
        try:
            mb = float(given)
        except ValueError:
            mb = math.nan
        if not (mb > 0 and math.isfinite(mb)):
            raise BPEError(f"{self.variable}={given!r}: give the most MB {self.what} may hold, a number above 0 (default {self.default_mb})")
        return max(1, int(mb * MB))

    def hint(self, limit: int) -> str:
        """How to raise ``limit`` (bytes), in words: the variable, set to four times as much."""
        return f"{self.variable}={shown_mb(4 * limit)} raises the limit"


def shown_mb(n: int) -> str:
    """``n`` bytes in MB as a person reads it: 64, 0.5."""
    return f"{n / MB:g}"


#: A JSON lines line or a Parquet value (the biggest real documents, whole books, are a few MB).
RECORD = Limit("a record", "BPE_TUI_MAX_RECORD_MB", 64)
#: A merge table file, decompressed (the biggest published tables are a few tens of MB).
TABLE = Limit("a merge table file", "BPE_TUI_MAX_TABLE_MB", 256)
#: One pre-token, the text an encoder merges as a whole (a run with no split point: a pasted
#: line without spaces, a DNA sequence). Merging one costs time and memory in proportion to its
#: length: 10 MB of random letters with GPT-2's table took 7 s and 283 MB more on the compiled
#: core, 85 s and 1.0 GB more in pure Python.
PRETOKEN = Limit("one pre-token", "BPE_TUI_MAX_PRETOKEN_MB", 16)
