"""What the panes are shown after a training move: a :class:`Snapshot` of the trainer, taken
where it is safe to read (the session's lock held), so the UI thread never reads the trainer
while a worker steps it; a variant's own measure is a :class:`~bpe_tui.core.engine.registry.Series`."""

from __future__ import annotations

from dataclasses import dataclass, field

from ...core.engine.events import TransitionEvent
from ...core.engine.registry import Series
from ...core.engine.trainer import MergeEvent

__all__ = ["Snapshot"]


@dataclass
class Snapshot:
    """What the panes need after a training move, computed where the trainer is safe to read."""

    step: int = 0
    target: int | None = None
    vocab_size: int = 0
    total_tokens: int = 0
    initial_tokens: int = 0
    corpus_chars: int = 0
    finished: bool = False
    stop_reason: str | None = None
    top_pairs: list = field(default_factory=list)
    leader_ties: int = 0
    last_event: MergeEvent | None = None
    timeline_len: int = 0
    segmentations: dict = field(default_factory=dict)
    #: The same words' frequencies and texts (what the corpus pane shows while busy: the
    #: trainer may switch from words to chunks meanwhile, SuperBPE).
    frequencies: dict = field(default_factory=dict)
    texts: dict = field(default_factory=dict)
    #: Whether a variant cut the corpus anew (SuperBPE's chunks), and that transition (None: not yet).
    recut: bool = False
    transition: TransitionEvent | None = None
    forbidden: int = 0  # present pairs the constraints forbid (not in top_pairs)
    forbidden_by: dict = field(default_factory=dict)  # what forbids them -> how many (Trainer.forbidden_by)
    #: The pair chosen by hand that the next step replays (undone, then not yet redone) and
    #: its count now; None: the next step goes by the rules (the first of ``top_pairs``).
    planned: tuple | None = None
    planned_count: int = 0
    #: The pair the rules merge next when the variant chooses otherwise than the whole
    #: corpus's leader, its count now, and why (the variant's ``next_pick`` and ``turn``).
    next_pair: tuple | None = None
    next_count: int = 0
    turn: str | None = None
    #: The measure the variant follows over the merges (its ``series``), or None.
    series: Series | None = None
