"""Messages the panes and workers send; the App routes them (panes never call each other)."""

from __future__ import annotations

from textual.message import Message

from .session import Session, Snapshot

#: Seconds of work between two messages from a worker (training batches, reading progress):
#: a few screen updates per second, never one per merge or per block.
BATCH_SECONDS = 0.08


class TokenSelected(Message):
    """A token was picked somewhere (history, corpus chip, encode box, search).

    ``show`` asks to bring the token detail into view (an explicit choice, not a hover).
    """

    def __init__(self, token_id: int, show: bool = False) -> None:
        super().__init__()
        self.token_id = token_id
        self.show = show


class PairSelected(Message):
    """A pair was chosen in the pair table (None clears the corpus filter)."""

    def __init__(self, pair: tuple | None) -> None:
        super().__init__()
        self.pair = pair


class StepChosen(Message):
    """A history row was chosen: go to just after merge ``step`` (explore) or cut there (inspect)."""

    def __init__(self, step: int) -> None:
        super().__init__()
        self.step = step


class EncodeChanged(Message):
    """The encode box's text or its table changed (the inspect pair table follows it).

    ``pairs``: the text's adjacent token pairs (:func:`~bpe_tui.ui.pairs.text_pairs`), when
    the encoding counted them already (inspect mode), so a long text is not encoded twice.
    """

    def __init__(self, text: str, pairs=None) -> None:
        super().__init__()
        self.text = text
        self.pairs = pairs


class Progressed(Message):
    """A batch of training work was done by a worker (one message per ~80 ms, not per merge)."""

    def __init__(self, snapshot: Snapshot, done: int, total: int | None) -> None:
        super().__init__()
        self.snapshot = snapshot
        self.done = done
        self.total = total

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, Progressed)


class Played(Message):
    """Auto-play made one merge; ``stopped`` says why it stopped after it (None: it goes on)."""

    def __init__(self, stopped: str | None = None) -> None:
        super().__init__()
        self.stopped = stopped


class LoadProgress(Message):
    """Bytes of the corpus read so far, or with ``dask`` blocks counted on that cluster
    (posted at most every ~80 ms)."""

    def __init__(self, done: int, total: int, dask: str | None = None) -> None:
        super().__init__()
        self.done = done
        self.total = total
        self.dask = dask

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, LoadProgress)


class SessionReady(Message):
    """A corpus or table finished loading in a worker."""

    def __init__(self, session: Session) -> None:
        super().__init__()
        self.session = session


class WorkDone(Message):
    """A training worker finished (or was cancelled) after ``done`` merges / undos."""

    def __init__(self, what: str, done: int, cancelled: bool, error: str | None = None) -> None:
        super().__init__()
        self.what = what
        self.done = done
        self.cancelled = cancelled
        self.error = error


class CompareReady(Message):
    """The second table of a comparison finished loading in a worker."""

    def __init__(self, table, path: str) -> None:
        super().__init__()
        self.table = table
        self.path = path


class LoadFailed(Message):
    """Opening a corpus or table failed; ``message`` says what and where, in one line.

    ``compare``: it was table B of a comparison (the current session is untouched).
    """

    def __init__(self, message: str, compare: bool = False) -> None:
        super().__init__()
        self.message = message
        self.compare = compare


class LoadCancelled(Message):
    """Escape stopped the reading of a corpus; nothing was loaded."""


class RetrainProgress(Message):
    """Retraining under new rules got ``done`` of ``total`` further (``what``: counting the
    corpus again, in bytes, or merging, in merges)."""

    def __init__(self, what: str, done: int, total: int) -> None:
        super().__init__()
        self.what = what
        self.done = done
        self.total = total

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, RetrainProgress)


class Retrained(Message):
    """Retraining under new rules ended: ``session`` is the new one (None: the old session
    stays, cancelled or failed); ``note`` says where the merges first differ, or why not."""

    def __init__(self, session: Session | None, note: str) -> None:
        super().__init__()
        self.session = session
        self.note = note
