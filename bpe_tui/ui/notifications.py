"""What the explorer's notifications show: text, never markup, and a file's name or content
in them escaped and on one line.

Every notification passes through ``ExplorerApp.notify`` (a widget's ``notify`` calls the
app's), which hands its text to :func:`shown`: through
:func:`~bpe_tui.core.wording.one_line`, so a corpus named with ``ESC[2J`` cannot clear the
terminal nor a name holding a newline split the message, and never read as markup, so a file
named ``[b]x`` is shown as it is. A notification that lists notes, one a line, builds its
text with :func:`note_lines`: each note escaped on its own, the line breaks between them kept.
"""

from __future__ import annotations

from collections.abc import Iterable

from ..core.wording import one_line


class NoteLines(str):
    """Notification text of several lines, each already escaped (see :func:`note_lines`)."""


def note_lines(notes: Iterable[str]) -> NoteLines:
    """Notes as a bulleted list, one a line, each through one_line."""
    return NoteLines("\n".join("• " + one_line(note) for note in notes))


def shown(text: str) -> str:
    """A notification's text (or title) as it is shown: escaped, one line, unless it is a
    :class:`NoteLines`, whose lines were escaped one by one."""
    return text if isinstance(text, NoteLines) else one_line(text)
