"""Records as documents: which field of a record holds its text, what makes a record bad, and
what reading met (records read, bad ones skipped).

``text_field`` is a field name (default ``text``) or a dotted path into nested objects
(``meta.body``; a number indexes a list, ``messages.0.content``); a key that itself holds dots
(``"meta.body": ...``) is found first, as it is.

A record is *bad* when it gives no text: a line that is not JSON, a record without the field,
a value that is not a string (a number, null, a list), a record longer than
``RecordOptions.max_record`` (records are held whole to be read: see :mod:`bpe_tui.core.limits`,
64 MB unless ``BPE_TUI_MAX_RECORD_MB`` says otherwise). By default the first bad record is a one-line error naming the file and
the line (JSONL) or row (Parquet), and the fields the record does have. With ``skip_bad`` each
is skipped and counted by reason, and :meth:`ReadReport.summary` says how many at the end,
with the first few. Text that is not valid Unicode (invalid UTF-8 bytes, a ``\\ud800`` escape
that pairs with nothing) is not a bad record but a matter for ``errors``, as in a text file:
strict stops, replace reads each bad sequence as U+FFFD.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from ...errors import BPEError, RecordError
from ...limits import RECORD, shown_mb
from ...wording import plural

#: Skipped records named in the summary.
EXAMPLES = 3
#: A ``\uD800``-``\uDFFF`` that JSON decoding left alone: half a pair, not a character.
LONE_SURROGATE = re.compile("[\ud800-\udfff]")


@dataclass(frozen=True)
class RecordOptions:
    """How records become documents: the field holding the text, whether bad records are
    skipped (else the first one is an error), and the longest record read (bytes of a JSON
    lines line, characters of a Parquet value: the record limit in force where the options
    were made, so workers elsewhere keep it)."""

    text_field: str = "text"
    skip_bad: bool = False
    max_record: int = field(default_factory=RECORD.bytes)

    def __post_init__(self) -> None:
        if not isinstance(self.text_field, str) or not self.text_field.strip(". "):
            raise BPEError(f"--text-field {self.text_field!r}: give a field name (a dotted path for a nested field: meta.body)")
        if "" in self.text_field.split("."):
            raise BPEError(f"--text-field {self.text_field!r}: an empty name between dots")

    @property
    def path(self) -> tuple[str, ...]:
        """The field's path: its names (and list indices) from the record down."""
        return tuple(self.text_field.split("."))

    def too_long(self) -> tuple[str, str]:
        """A record over the limit in words: ("longer than 64 MB", what to do about it)."""
        return f"longer than {shown_mb(self.max_record)} MB", f"records are read whole; split it, or {RECORD.hint(self.max_record)}"


def describe_value(value: Any) -> str:
    """A JSON value's kind in words: 'a number', 'null', 'a list' ..."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


def field_names(record: dict[str, Any], limit: int = 8) -> str:
    """The names of a record's fields, for a message ('id, meta, url')."""
    names = [str(k) for k in record]
    shown = ", ".join(names[:limit]) + (f" … ({len(names)} in all)" if len(names) > limit else "")
    return shown or "none"


def text_of(record: Any, options: RecordOptions) -> str:
    """The text ``options.text_field`` names in a decoded JSON record; :class:`Bad` says why
    there is none."""
    name = options.text_field
    if not isinstance(record, dict):
        raise Bad(f"{describe_value(record)}, not an object with a {name!r} field (JSON lines: one object a line)", "not an object")
    if name in record:
        value = record[name]
    else:
        value = record
        for depth, part in enumerate(options.path):
            if isinstance(value, dict) and part in value:
                value = value[part]
            elif isinstance(value, list) and part.isdigit() and int(part) < len(value):
                value = value[int(part)]
            else:
                above = ".".join(options.path[:depth])
                if depth == 0:
                    raise Bad(f"no field {name!r} (its fields: {field_names(record)})", f"without {name!r}")
                if isinstance(value, dict):
                    raise Bad(f"no field {part!r} in {above!r} (its fields: {field_names(value)})", f"without {name!r}")
                if isinstance(value, list):
                    raise Bad(f"{above!r} is a list of {len(value)}: no item {part!r}", f"without {name!r}")
                raise Bad(f"{above!r} is {describe_value(value)}, not an object with a field {part!r}", f"without {name!r}")
    if not isinstance(value, str):
        raise Bad(f"field {name!r} is {describe_value(value)}, not text", f"{name!r} not a string")
    return value


class Bad(ValueError):
    """A record that gives no text: ``what`` in words, ``reason`` in a few (for counting)."""

    def __init__(self, what: str, reason: str) -> None:
        super().__init__(what, reason)
        self.what = what
        self.reason = reason


def check_unicode(text: str, errors: str) -> str:
    """Text decoded from JSON, with each lone surrogate (``\\ud800`` pairing with nothing) read
    as U+FFFD under ``errors="replace"``; strictly, one is a ValueError naming it."""
    found = LONE_SURROGATE.search(text)
    if found is None:
        return text
    if errors == "replace":
        return LONE_SURROGATE.sub("\ufffd", text)
    raise ValueError(
        f"the text holds \\u{ord(found.group()):04x} at character {found.start():,}, half of a surrogate pair: not valid Unicode "
        "(use --errors replace to read it as U+FFFD)"
    )


@dataclass
class ReadReport:
    """What reading a corpus met besides its words: documents read from records (JSONL lines,
    Parquet rows, items of an iterable), bad records skipped (by reason, the first few named),
    and the JSONL lines read (so that a later part's line numbers can count on from them)."""

    records: int = 0
    skipped: int = 0
    reasons: dict[str, int] = field(default_factory=dict)
    examples: list[RecordError] = field(default_factory=list)
    lines: int = 0
    #: What reading assumed or left out, one line each (a file whose first bytes look like
    #: Parquet's but are text; files of a directory that are not corpus files).
    notes: list[str] = field(default_factory=list)

    def reject(self, error: RecordError, options: RecordOptions) -> None:
        """A bad record: skipped and counted with ``skip_bad``, else raised."""
        if not options.skip_bad:
            raise error
        self.skipped += 1
        self.reasons[error.reason] = self.reasons.get(error.reason, 0) + 1
        if len(self.examples) < EXAMPLES:
            self.examples.append(error)

    def add(self, other: "ReadReport", lines_before: int = 0) -> None:
        """Add the report of the next part of the corpus (read in order); its line numbers
        counted from ``lines_before`` lines into its file."""
        self.records += other.records
        self.skipped += other.skipped
        for reason, n in other.reasons.items():
            self.reasons[reason] = self.reasons.get(reason, 0) + n
        room = EXAMPLES - len(self.examples)
        self.examples += [e.rebased(lines_before) for e in other.examples[:room]]
        self.notes += [note for note in other.notes if note not in self.notes]

    def summary(self) -> str | None:
        """One line on the bad records skipped (None: none were)."""
        if not self.skipped:
            return None
        reasons = ", ".join(f"{n:,} {reason}" for reason, n in sorted(self.reasons.items(), key=lambda kv: -kv[1]))
        first = "; ".join(str(e) for e in self.examples)
        total = self.records + self.skipped
        return f"skipped {plural(self.skipped, 'bad record')} of {total:,} ({reasons}): {first}"

    def said(self) -> list[str]:
        """Everything a person should hear about the reading, one line each: what was assumed
        or left out, then the bad records skipped."""
        skipped = self.summary()
        return self.notes + ([skipped] if skipped else [])
