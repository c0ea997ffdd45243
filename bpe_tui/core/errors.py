"""The one exception type the library raises for bad input.

Every message is a single line that says what is wrong and where (file, line, byte or key),
so the CLI can print it as it is and the explorer can show it as a notification.
"""


class BPEError(Exception):
    """Bad input: an unreadable corpus, a malformed merge table, an invalid option."""


class NotUTF8(BPEError):
    """A corpus file that is not valid UTF-8, read strictly: which file (``name``) and at
    which byte. The CLI says to read it with ``--errors replace``; the explorer offers to."""

    def __init__(self, name: str, byte: int) -> None:
        super().__init__(name, byte)  # (the arguments: it pickles back from a counting process)
        self.name = name
        self.byte = byte

    def __str__(self) -> str:
        return f"{self.name}: not valid UTF-8 at byte {self.byte} (use --errors replace to read it with U+FFFD substitutes)"


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
