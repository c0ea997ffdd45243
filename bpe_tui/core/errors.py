"""The one exception type the library raises for bad input.

Every message is a single line that says what is wrong and where (file, line, byte or key),
so the CLI can print it as it is and the explorer can show it as a notification.

Two kinds say *where* as numbers a caller may need: :class:`NotUTF8` (the byte; the explorer
offers to read the file again with substitutes) and :class:`RecordError` (a bad record of a
JSONL or Parquet file). A JSONL line number found by a worker that read only part of a file
counts from the start of that part; the process that adds the parts up in order knows how
many lines came before and moves it with ``rebased``.
"""

from __future__ import annotations


class BPEError(Exception):
    """Bad input: an unreadable corpus, a malformed merge table, an invalid option."""


def one_line(exc: BaseException) -> str:
    """Another library's exception as one line for a message: its type and the first line
    of what it says (a traceback's last line, without the traceback)."""
    text = str(exc).strip()
    return f"{type(exc).__name__}: {text.splitlines()[0]}" if text else type(exc).__name__


class NotUTF8(BPEError):
    """A corpus file that is not valid UTF-8, read strictly: which file (``name``) and at
    which byte (of its decompressed content); ``line``: the JSONL line, when the bytes were
    inside a record. The CLI says to read it with ``--errors replace``; the explorer offers to."""

    def __init__(self, name: str, byte: int, line: int | None = None, within: str | None = None) -> None:
        super().__init__(name, byte, line, within)  # (the arguments: it pickles back from a counting process)
        self.name = name
        self.byte = byte
        self.line = line
        #: What the file is to the command, said first (``language de``), or None.
        self.within = within

    def __str__(self) -> str:
        where = self.name if self.line is None else f"{self.name}:{self.line:,}"
        said = f"{where}: not valid UTF-8 at byte {self.byte} (use --errors replace to read it with U+FFFD substitutes)"
        return f"{self.within}: {said}" if self.within is not None else said

    def rebased(self, lines_before: int) -> "NotUTF8":
        """The same error with its line counted from the file's start (see the module docstring)."""
        return self if self.line is None else NotUTF8(self.name, self.byte, self.line + lines_before, self.within)

    def inside(self, within: str) -> "NotUTF8":
        """The same error, saying first what the file is to the command (``language de``)."""
        return NotUTF8(self.name, self.byte, self.line, within)


class AlreadyExists(BPEError):
    """A file or folder that is there already, where the caller asked not to replace one:
    ``save(..., overwrite=False)`` in Python, no ``--force`` on the command line."""

    def __init__(self, name: str) -> None:
        super().__init__(name)
        self.name = name

    def __str__(self) -> str:
        return f"{self.name}: already exists (--force on the command line, overwrite=True in Python, replaces it)"


class RecordError(BPEError):
    """A record of a dataset file that gives no text: not JSON, no such field, not a string,
    too long. ``line``: the JSONL line (1-based); ``row``: the Parquet row (1-based); ``what``:
    what is wrong, in words; ``reason``: the same in a few words, for counting skipped records
    by kind ("no field 'text'", "not JSON")."""

    def __init__(self, name: str, what: str, reason: str, line: int | None = None, row: int | None = None) -> None:
        super().__init__(name, what, reason, line, row)
        self.name = name
        self.what = what
        self.reason = reason
        self.line = line
        self.row = row

    def __str__(self) -> str:
        if self.line is not None:
            return f"{self.name}:{self.line:,}: {self.what}"
        if self.row is not None:
            return f"{self.name}: row {self.row:,}: {self.what}"
        return f"{self.name}: {self.what}"

    def rebased(self, lines_before: int) -> "RecordError":
        """The same error with its line counted from the file's start (see the module docstring)."""
        if self.line is None:
            return self
        return RecordError(self.name, self.what, self.reason, self.line + lines_before, self.row)


class DisallowedSpecial(BPEError, ValueError):
    """Text holds a special token's text where it is not allowed (tiktoken's
    ``disallowed_special``; a ValueError, as tiktoken raises): which token (``token``) and at
    which character of the text (``offset``, 0-based)."""

    def __init__(self, token: str, offset: int) -> None:
        super().__init__(token, offset)
        self.token = token
        self.offset = offset

    def __str__(self) -> str:
        return (
            f"the text holds the special token {self.token!r} at character {self.offset + 1} (offset {self.offset}), which is disallowed: "
            "allow it (allowed_special) to encode it as that token, or disallow nothing (disallowed_special=(), "
            "or encode_ordinary) to encode it as text"
        )


class TokenIdError(BPEError, KeyError):
    """A token id the table does not have (a KeyError too, as tiktoken raises)."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


class UndecodableToken(BPEError, ValueError):
    """``decode(ids, errors="strict")`` met bytes that are not UTF-8: the first id whose bytes
    do not decode (``token_id``), its 0-based ``position`` in the ids, and its ``data``."""

    def __init__(self, token_id: int, position: int, data: bytes) -> None:
        super().__init__(token_id, position, data)
        self.token_id = token_id
        self.position = position
        self.data = data

    def __str__(self) -> str:
        return (
            f"token id {self.token_id} (position {self.position + 1}) does not decode: its bytes {self.data!r} "
            "are not valid UTF-8 there (errors='replace' writes U+FFFD instead)"
        )


class VariantError(BPEError):
    """A BPE variant failed: a module or class that cannot be loaded, an option it does not
    have, a hook that raised, or (in check mode) a step that left the training state
    inconsistent. One line, naming the variant and what went wrong; the trainer stays usable."""
