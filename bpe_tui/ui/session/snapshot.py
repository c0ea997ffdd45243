"""What the panes are shown after a training move: a :class:`Snapshot` of the trainer, taken
where it is safe to read (the session's lock held), so the UI thread never reads the trainer
while a worker steps it; parity-aware BPE's part of it is a :class:`ParityView`."""

from __future__ import annotations

from dataclasses import dataclass, field

from ...core.engine.events import TransitionEvent
from ...core.engine.trainer import MergeEvent

__all__ = ["ParityView", "Snapshot"]


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
    #: SuperBPE: whether the corpus is chunks now, and the transition made (None: not yet).
    superwords: bool = False
    transition: TransitionEvent | None = None
    forbidden: int = 0  # present pairs the constraints forbid (not in top_pairs)
    forbidden_by: dict = field(default_factory=dict)  # what forbids them -> how many (Trainer.forbidden_by)
    #: The pair chosen by hand that the next step replays (undone, then not yet redone) and
    #: its count now; None: the next step goes by the rules (the first of ``top_pairs``).
    planned: tuple | None = None
    planned_count: int = 0
    #: The pair the rules merge next when the variant chooses otherwise than the whole
    #: corpus's leader (parity-aware BPE: the turn's language's pair), and its count now.
    next_pair: tuple | None = None
    next_count: int = 0
    #: Parity-aware BPE: every language's measure over the merges, whose turn it is next.
    parity: ParityView | None = None


@dataclass(frozen=True)
class ParityView:
    """What the panes show of parity-aware BPE (see core/engine/variants/parity.py)."""

    languages: tuple[str, ...]
    #: Every language's measure before the first merge and after each merge since (its
    #: development text's tokens; in the ratio form, its compression over its target).
    history: list[tuple]
    ratio_form: bool
    #: The language whose turn is next (None in the hybrid's global merges, or when none may).
    next_language: str | None

    @property
    def measure(self) -> str:
        """What the measure is, in a few words (a chart's title, which plotext leaves out
        when it is wider than the chart: the Stats tab at 80x24)."""
        return "compression/target" if self.ratio_form else "dev tokens"
