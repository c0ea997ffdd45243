"""Save what you see: the current screen as an SVG picture, next to the corpus or the table.

The picture is Textual's own screenshot (:meth:`App.export_screenshot`: the screen's text,
colours and box drawing as SVG, charts included), written atomically and never over an
existing file: a second picture of the same place gets ``-2``, ``-3``, ... A corpus or a
table the session was not read from a file (a trainer handed over in Python), or one bpe-tui
ships (the demo corpus, the tour's examples: inside the installed package), puts the picture
in the current directory.
"""

from __future__ import annotations

import os
from typing import Any

from ..core.atomic import atomic_write_text
from ..core.errors import BPEError
from ..core.shipped import DATA
from .session.sessions import ExploreSession, InspectSession, Session

#: Pictures of one place before giving up on a free name.
MAX_TRIES = 1000


def picture_place(session: Session | None) -> tuple[str, str]:
    """(directory, name stem) for a picture of ``session``: beside the first corpus file or
    the table (a table directory, such as GPT-2's: beside the directory), named after it.
    The path is taken as given (a symlink's directory, not its target's)."""
    source: str | None = None
    if isinstance(session, ExploreSession) and session.paths:
        source = session.paths[0]
    elif isinstance(session, InspectSession):
        source = session.source or session.full_table.source
    if not source:
        return os.getcwd(), session.name if session is not None else "bpe-tui"
    source = os.path.abspath(os.path.expanduser(source)).rstrip(os.sep)
    stem = os.path.basename(source)
    if os.path.isfile(source):
        stem = os.path.splitext(stem)[0]
    if _shipped(source):
        return os.getcwd(), stem
    return os.path.dirname(source), stem


def _shipped(path: str) -> bool:
    """True for a text inside the package's data folder (never written into)."""
    data = os.path.realpath(DATA)
    return os.path.commonpath([data, os.path.realpath(path)]) == data


def picture_name(session: Session | None, screen: Any) -> str:
    """What the picture shows: ``tinyshakespeare-explore-step120``, ``gpt2-evaluate``."""
    _, stem = picture_place(session)
    kind = getattr(screen, "KIND", None) or type(screen).__name__.lower()
    step = f"-step{session.step}" if session is not None and kind in ("explore", "inspect") else ""
    return f"{stem}-{kind}{step}"


def save_picture(app: Any) -> str:
    """Write the current screen of ``app`` as SVG beside its corpus or table; the path written.
    Raises BPEError or OSError when it cannot be written."""
    session = app.session
    directory, _ = picture_place(session)
    name = picture_name(session, app.screen)
    svg = app.export_screenshot(title=name)
    for n in range(1, MAX_TRIES + 1):
        path = os.path.join(directory, f"{name}.svg" if n == 1 else f"{name}-{n}.svg")
        if os.path.lexists(path):
            continue
        try:
            atomic_write_text(path, svg, overwrite=False)
        except BPEError:
            if os.path.lexists(path):  # taken meanwhile: the next number
                continue
            raise
        return path
    raise BPEError(f"{directory}: {MAX_TRIES} pictures named {name} already")
