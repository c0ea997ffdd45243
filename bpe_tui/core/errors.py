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
