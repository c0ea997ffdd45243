"""How things are written for people, in one place: ``plural(1, "token")`` is "1 token",
``plural(12345, "merge")`` is "12,345 merges" (thousands separated, as everywhere else),
merges are numbered from 1 (``merge_number``), and a file's name or content in a message is
one line of printable characters (``one_line``)."""

from __future__ import annotations

#: The escapes of the control characters people know by sight.
_NAMED_ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def plural(n: int, noun: str, nouns: str | None = None) -> str:
    """``n`` and the noun, singular for exactly one: "1 token", "0 tokens", "2 children"
    (``nouns`` for a plural that is not ``noun`` + "s")."""
    return f"{n:,} {noun if n == 1 else (nouns or noun + 's')}"


def merge_number(rank: int) -> int:
    """The number a person reads for the merge at 0-based ``rank``: merges count from 1.

    The library's ranks are indices (``TraceStep.rank``, ``MergeTable.rank_of``: the first
    merge is rank 0); every label on screen and in the CLI says "merge N" with N from here.
    """
    return rank + 1


def one_line(text: str) -> str:
    """``text`` as a message shows it: every character that is not printable written as its
    escape (``\\x1b``, ``\\n``, ``\\t``, ``\\u202e``, ``\\udcff`` for a byte of a file name that
    is not UTF-8), the rest as it is.

    A file's name and its content reach messages (errors, notes, notifications, pages)
    unchecked: raw, ``ESC[2J`` would clear the screen, an OSC sequence retitle the terminal, a
    newline break the message's one line. The CLI's stderr, the explorer's notifications and
    the server's pages pass every message through here on its way out (see
    ``bpe_tui.cli.terminal.say``, ``ExplorerApp.notify``). Printable text, backslashes
    included, is left alone and no escape holds a character that is not printable, so text
    that went through once goes through again unchanged: an escape is never doubled.
    """
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else _NAMED_ESCAPES.get(c) or _escape(c) for c in text)


def _escape(c: str) -> str:
    code = ord(c)
    if code < 0x100:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"
