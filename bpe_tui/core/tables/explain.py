"""Explaining a table: how it merges a word step by step (:meth:`MergeTable.trace`) and how a
token was built from base symbols (:meth:`MergeTable.merge_tree`).

A trace runs the encoder's merge loop with a log (:mod:`~bpe_tui.core.engine.merging`): one
:class:`TraceStep` per merge applied, each able to show the segmentation right after it. A merge
tree walks the merge list back from a token to the bytes or characters it is made of.

This module is part of MergeTable's implementation, kept apart for length: it reads the names
in :class:`Explained` and imports nothing of the table's module.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from ..engine.merging import MergeLog
from ..errors import BPEError
from ..types import Pair, Surface
from .removals import Removals, ReplayLog


class Explained(Protocol):
    """What this module reads of a MergeTable."""

    by_token_rank: bool
    _vocab: dict[int, Surface]
    _creator: dict[int, int]
    _removals: "Removals | None"

    def _merge_list(self) -> list[tuple[int, int, int]]: ...

    def _merged(self, symbols: list, dropout: float = 0.0, rng: Any = None, log: list | None = None) -> list[int]: ...


@dataclass(frozen=True)
class TraceStep:
    """One merge applied while encoding a pre-token (see :meth:`MergeTable.trace`).

    ``symbols`` (the segmentation right after this merge) is worked out when asked, from a
    log shared by the steps of one trace, so a trace of a long piece stays linear in memory.
    """

    #: 0-based position in the merge list (the merge a person reads as rank + 1); -1 when a
    #: table that encodes by token rank joined two parts into a token no listed merge makes.
    rank: int
    pair: Pair | tuple[()]  # (left, right) surfaces; () for a removal
    new_token: Surface  # the token made, or removed
    position: int  # symbol index where the merge happened (-1: everywhere in the word, PickyBPE's replay)
    _log: "MergeLog | _SurfaceLog | None" = field(default=None, repr=False, compare=False)
    _step: int = field(default=0, repr=False, compare=False)
    #: A removal (PickyBPE), after merge ``rank``: what ``new_token`` was split into; () for a merge.
    split: tuple = ()

    @property
    def symbols(self) -> tuple:
        """The segmentation right after this merge (surfaces)."""
        assert self._log is not None, "a TraceStep is made with its trace's log"
        return self._log.symbols_after(self._step)


class _SurfaceLog:
    """A MergeLog whose segmentations are read as surfaces."""

    def __init__(self, log: MergeLog, vocab: Mapping):
        self.log = log
        self.vocab = vocab

    def symbols_after(self, step: int) -> tuple:
        vocab = self.vocab
        return tuple(vocab.get(t, "?") for t in self.log.symbols_after(step))


def trace_steps(table: Explained, symbols: list) -> list[TraceStep]:
    """One TraceStep per merge the table's loop applies to ``symbols`` (a pre-token's), and
    per removal it replays (PickyBPE's)."""
    if table._removals is not None:
        return _replay_steps(table._removals, table._vocab, symbols)
    log: list = []
    table._merged(symbols, log=log)
    merges = table._merge_list()  # for the merge numbers people read
    vocab = table._vocab
    steps = []
    if table.by_token_rank:
        rank_log = MergeLog(symbols, log)
        for k, ((left, right), (_, rank, new, position)) in enumerate(zip(rank_log.pairs(), log)):
            steps.append(TraceStep(table._creator.get(rank, -1), (left, right), new, position, rank_log, k))
        return steps
    shared = _SurfaceLog(MergeLog(symbols, log), vocab)
    for k, (_, rank, new, position) in enumerate(log):
        a, b, _ = merges[rank]
        steps.append(TraceStep(rank, (vocab[a], vocab[b]), vocab[new], position, shared, k))
    return steps


def _replay_steps(removals: Removals, vocab: dict[int, Surface], symbols: list) -> list[TraceStep]:
    """The trace of a table with removals: one TraceStep per event replayed; a removal's
    ``pair`` is empty and its ``split`` the parts (``rank``: the merge it follows)."""
    log = ReplayLog()
    removals.replay(symbols, log)
    shared = _SurfaceLog(log, vocab)  # type: ignore[arg-type]
    steps = []
    for k, (position, what, _) in enumerate(log.events):
        rank, removal = removals.step_of(position)
        if removal:
            parts = tuple(vocab[p] for p in removals.parts[position])
            steps.append(TraceStep(rank, (), vocab[what], -1, shared, k, parts))
        else:
            steps.append(TraceStep(rank, (vocab[what[0]], vocab[what[1]]), vocab[removals.made[position]], -1, shared, k))
    return steps


@dataclass
class MergeNode:
    """How a token was built: a base symbol (rank None) or a merge of two subtrees."""

    id: int
    surface: Surface
    rank: int | None = None
    left: "MergeNode | None" = None
    right: "MergeNode | None" = None

    def leaves(self) -> list:
        """The base symbols under this node, left to right (no recursion: trees run deep)."""
        out = []
        todo: list[MergeNode] = [self]
        while todo:
            node = todo.pop()
            if node.left is None or node.right is None:
                out.append(node.surface)
            else:
                todo += [node.right, node.left]
        return out


def merge_tree(table: Explained, token_id: int) -> MergeNode:
    """How a token was built, down to base symbols (a tree of merges).

    Built without recursion: a token trained on a long word can sit thousands of merges
    deep (each merge adding one symbol), deeper than Python's recursion limit.
    """
    if isinstance(token_id, bool) or not isinstance(token_id, int) or token_id not in table._vocab:
        raise BPEError(f"token id {token_id!r} is not in the vocabulary")
    merges = table._merge_list()
    vocab = table._vocab
    built: dict[int, MergeNode] = {}
    todo = [token_id]
    while todo:
        current = todo[-1]
        if current in built:
            todo.pop()
            continue
        rank = table._creator.get(current)
        if rank is None:
            built[current] = MergeNode(current, vocab[current])
            todo.pop()
            continue
        a, b, _ = merges[rank]
        missing = [t for t in (a, b) if t not in built]
        if missing:
            todo.extend(missing)
            continue
        node = MergeNode(current, vocab[current], rank, built[a], built[b])
        built[current] = node
        todo.pop()
    return built[token_id]
