"""The one exception type the library raises for bad input.

Every message is a single line that says what is wrong and where (file, line, byte or key),
so the CLI can print it as it is and the explorer can show it as a notification.
"""


class BPEError(Exception):
    """Bad input: an unreadable corpus, a malformed merge table, an invalid option."""
