"""The history's rows: which merge, or which event after a merge, each row shows.

A merge has one row. A BPE variant's events right after a merge (PickyBPE's removals and
restores; a saved table's removals in inspect mode) each have a row of their own under it, with
the merge's number, so row ``i`` is no longer merge ``i``: :func:`row_starts` lays the rows out
from how many events follow each merge, :func:`row_place` finds a row's merge and event.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass

from ...core.engine.trainer import MergeEvent
from ...core.look import look

__all__ = ["HistoryRow", "TableRemoval", "row_place", "row_starts"]


@dataclass
class HistoryRow:
    """One row of the history: a merge, or (``after``) what a variant did right after one."""

    step: int  # the merge number (1-based: table.merge_number of the rank)
    left: object
    right: object
    new: object
    new_id: int
    count: int | None
    future: bool  # undone, but still re-appliable (shown dimmed)
    ties: int = 0  # how many other pairs had the same count when it merged (0: no tie decided it)
    manual: bool = False  # chosen by hand, not the leader
    event: MergeEvent | None = None  # explore mode: the merge as it happened
    dropped: bool = False  # left the table at SuperBPE's transition (its pair never occurs in the chunks)
    #: What the variant did right after merge ``step`` (PickyBPE's RemovalEvent or
    #: RestoreEvent), shown as a row of its own under the merge's; None: the merge's row.
    after: object | None = None
    language: str | None = None  # a variant of languages: the language that chose it
    #: merged in units the variant keeps itself (BoundlessBPE's supermerge: two whole
    #: pre-tokens joined), not inside the words
    joined: bool = False


def row_starts(extras: list[int]) -> list[int]:
    """The history row of each merge when merge ``i`` has ``extras[i]`` rows of its own under
    it (a variant's events after it), and, last, the number of rows."""
    starts, at = [], 0
    for extra in extras:
        starts.append(at)
        at += 1 + extra
    starts.append(at)
    return starts


def row_place(starts: list[int], index: int) -> tuple[int, int] | None:
    """``(merge, sub)`` of history row ``index`` under :func:`row_starts`: the merge's own row
    (sub -1) or its sub-th row after it; None past the end."""
    if not 0 <= index < starts[-1]:
        return None
    merge = bisect.bisect_right(starts, index) - 1
    return merge, index - starts[merge] - 1


@dataclass(frozen=True)
class TableRemoval:
    """A removal a saved table records (PickyBPE's), as the history shows it in inspect mode."""

    step: int
    token: bytes | str
    token_id: int
    parts: tuple

    @property
    def explanation(self) -> str:
        parts = " + ".join(look(p) for p in self.parts)
        return f"removed {look(self.token)} (PickyBPE): split into {parts}; encoding replays the removal here, after this merge"
