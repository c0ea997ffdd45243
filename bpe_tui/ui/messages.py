"""Messages the panes and workers send; the screens and the App route them (panes never call
each other). Each is a small dataclass named for what happened, in the past tense."""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

from textual.message import Message

from ..core.tables.table import MergeTable
from .session.sessions import Session
from .session.snapshot import Snapshot

#: Seconds of work between two messages from a worker (training batches, reading progress):
#: a few screen updates per second, never one per merge or per block.
BATCH_SECONDS = 0.08
#: The most of a long run's time the UI thread may take showing its progress (see runner.py).
UI_SHARE = 0.12


@dataclass
class TokenSelected(Message):
    """A token was picked somewhere (history, corpus chip, encode box, search).

    ``show`` asks to bring the token detail into view (an explicit choice, not a hover).
    """

    token_id: int
    show: bool = False


@dataclass
class PairSelected(Message):
    """A pair was chosen in the pair table (None clears the corpus filter)."""

    pair: tuple | None


@dataclass
class StepChosen(Message):
    """A history row was chosen: go to just after merge ``step`` (explore) or cut there (inspect)."""

    step: int


@dataclass
class EncodeChanged(Message):
    """The encode box's text or its table changed (the inspect pair table follows it).

    ``pairs``: the text's adjacent token pairs (:func:`~bpe_tui.ui.panes.pairs.text_pairs`), when
    the encoding counted them already (inspect), so a long text is not encoded twice.
    """

    text: str
    pairs: Counter | None = None


@dataclass
class Progressed(Message):
    """A batch of training work was done by a worker (one message per ~80 ms, not per merge).

    ``shown`` is set by whoever shows it (or drops it): the worker posts the next one only
    then, so at most one waits in the screen's queue and keys never queue up behind a backlog.
    """

    snapshot: Snapshot
    done: int
    total: int | None
    shown: threading.Event = field(default_factory=threading.Event)

    def can_replace(self, message: Message) -> bool:
        # Textual asks the message it took whether the next one in the queue supersedes it,
        # and drops it (``self``) if so: its worker need not wait for it to be shown.
        if isinstance(message, Progressed):
            self.shown.set()
            return True
        return False


@dataclass
class Played(Message):
    """Auto-play made one merge; ``stopped`` says why it stopped after it (None: it goes on)."""

    stopped: str | None = None


@dataclass
class LoadProgressed(Message):
    """Bytes of the corpus read so far, or with ``dask`` blocks counted on that cluster, and
    the records (JSON lines, Parquet rows) read so far (posted at most every ~80 ms)."""

    done: int
    total: int
    dask: str | None = None
    records: int = 0

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, LoadProgressed)


@dataclass
class SessionOpened(Message):
    """A corpus or table finished loading in a worker (or retraining under new rules made a
    new session: ``encode`` is the text and dropout its encode box keeps)."""

    session: Session
    encode: tuple[str, float] | None = None


@dataclass
class WorkDone(Message):
    """A training worker finished (or was cancelled) after ``done`` merges / undos."""

    what: str
    done: int
    cancelled: bool
    error: str | None = None


@dataclass
class CompareLoaded(Message):
    """The second table of a comparison finished loading in a worker."""

    table: MergeTable
    path: str


@dataclass
class LoadFailed(Message):
    """Opening a corpus or table failed; ``message`` says what and where, in one line.

    ``compare``: it was table B of a comparison (the current session is untouched).
    ``replacing``: the corpus is not valid UTF-8; calling this reads it again (in the worker,
    as before) with each invalid byte read as U+FFFD, as ``--errors replace`` does.
    """

    message: str
    compare: bool = False
    replacing: Callable[[], object] | None = None


@dataclass
class LoadCancelled(Message):
    """Escape stopped the reading of a corpus; nothing was loaded."""


@dataclass
class MergesProgressed(Message):
    """The merge list of a rank file is being built in a worker: ``done`` of ``total`` tokens
    replayed (posted at most every ~80 ms)."""

    done: int
    total: int

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, MergesProgressed)


@dataclass
class MergesBuilt(Message):
    """The merge list of the inspected table was built (or read from the cache) in a worker:
    the panes that need it fill in."""

    table: MergeTable


@dataclass
class MergesCancelled(Message):
    """Escape stopped the building of the merge list (or, with ``error``, it failed: what and
    where, in one line); nothing was kept."""

    error: str | None = None


class RetrainProgressed(Message):
    """Retraining under new rules got ``done`` of ``total`` further (``what``: counting the
    corpus again, in bytes, or merging, in merges)."""

    def __init__(self, what: str, done: int, total: int) -> None:
        super().__init__()
        self.what = what
        self.done = done
        self.total = total

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, RetrainProgressed)


class Retrained(Message):
    """Retraining under new rules ended: ``session`` is the new one (None: the old session
    stays, cancelled or failed); ``note`` says where the merges first differ, or why not."""

    def __init__(self, session: Session | None, note: str) -> None:
        super().__init__()
        self.session = session
        self.note = note
