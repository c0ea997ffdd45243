"""What a trainer answers: the questions the explorer, the CLI and a notebook ask it.

The trainer (:mod:`~bpe_tui.core.engine.trainer`) steps, undoes and jumps; this base class
of it answers, without changing anything: where training stands (``steps_done``,
``vocab_size``, ``total_tokens``), the corpus (``segmentation``, ``words_containing``,
``word_text``), the pairs (``top_pairs``, ``pair_count``, the forbidden ones and why), why a
step would stop now (``finished``, ``stop_reason_for``, ``target_steps``), the table so far
(``merge_list``, ``table``) and, for tests, a recount from scratch. Everything is read from
the trainer's :class:`~bpe_tui.core.engine.state.TrainingState` and
:class:`~bpe_tui.core.engine.queue.PairQueue`; nothing here is on the stepping loop's path.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..errors import BPEError
from ..wording import plural
from .config import TrainerConfig
from .events import MergeEvent, TransitionEvent
from .queue import PairQueue
from .speed import key_of, surface_pair
from .state import TrainingState
from .superwords import stage2_pretokenizer
from .variants import Variant
from .verify import guarded

if TYPE_CHECKING:
    from ..tables.table import MergeTable

__all__ = ["Questions"]


def _kept(items: list, dropped: frozenset[int]) -> list:
    """``items`` (one per merge, in rank order) without those of the ``dropped`` ranks."""
    return [x for r, x in enumerate(items) if r not in dropped] if dropped else items


class Questions:
    """The trainer's questions (see the module docstring); :class:`~bpe_tui.core.engine.trainer.Trainer` is one."""

    __slots__ = ("stop_reason",)
    #: Why the last step (or a look at ``finished``) found training over, or None.
    stop_reason: str | None
    # (set by the Trainer: declared for the type checker)
    config: TrainerConfig
    name: str
    first_step: int
    state: TrainingState
    queue: PairQueue
    _history: list[MergeEvent]
    _plan: dict[int, tuple[int, int]]
    _variant: Variant

    # ------------------------------------------------------------------ the corpus's cut (SuperBPE's transition)

    @property
    def transition(self) -> TransitionEvent | None:
        """The corpus's re-cut, once a variant made it and while the trainer stands past it
        (SuperBPE's transition to chunks); None otherwise."""
        return self.state.transition

    @property
    def initial_total_tokens(self) -> int:
        """The corpus's length in tokens before any merge (the chunks', past a transition)."""
        return self.state.initial_total_tokens

    @property
    def corpus_chars(self) -> int:
        """The corpus's length in base units of its words' text (characters)."""
        return self.state.corpus_chars

    @property
    def pretokenizer(self) -> str:
        """The pre-tokenizer in force now: SuperBPE's stage-2 rule once the trainer is past
        its transition, else the config's."""
        return stage2_pretokenizer(self.config) if self.in_superword_stage else self.config.pretokenizer

    @property
    def in_superword_stage(self) -> bool:
        """Whether the corpus is SuperBPE's chunks now (merges may span spaces)."""
        return self.state.transition is not None

    @property
    def dropped_merges(self) -> tuple[int, ...]:
        """The steps (1-based ranks among all merges made, a start table's first) of the merges
        dropped at the transition because their pair never occurred in the chunks
        (``superwords_drop_unused``): they stay in the history, not in the table."""
        return tuple(sorted(r + 1 for r in self.state.dropped[0]))

    def corpus_counts(self) -> tuple[dict[str, int], dict[str, int] | None]:
        """``(word counts, chunk counts)`` as the trainer was built with them (order of first
        appearance), wherever it stands: enough to build the same trainer again under other
        rules (chunk counts None without a transition ahead of the start)."""
        return self._variant.corpus_counts(self)

    # ------------------------------------------------------------------ questions

    @property
    def steps_done(self) -> int:
        """How many merges the table has now (the current step k), inherited ones included."""
        return self.first_step + len(self._history)

    @property
    def vocab_size(self) -> int:
        """Base alphabet + special tokens + distinct merged tokens, right now."""
        return self.state.vocab_size

    @property
    def total_tokens(self) -> int:
        """Corpus length in tokens right now (special tokens not counted)."""
        return self.state.total_tokens

    @property
    def history(self) -> list[MergeEvent]:
        """The MergeEvent of every merge so far, in order (not the merges of a start table)."""
        return list(self._history)

    @property
    def word_count(self) -> int:
        """Number of distinct words (pre-tokens) in the corpus."""
        return len(self.state.word_text)

    @property
    def base_size(self) -> int:
        """Number of base symbols (256 in bytes mode, plus the end-of-word marker if any)."""
        return self.state.base_count

    def surface(self, token_id: int):
        """The surface (bytes or str) of a token id."""
        surface = self.state.surfaces[token_id]
        if surface is None:
            raise IndexError(f"no token has id {token_id}")
        return surface

    def vocab(self) -> dict[int, bytes | str]:
        """id -> surface for every token right now (special tokens included)."""
        st = self.state
        gone, removed = st.dropped[1], st.removed
        return {i: s for i, s in enumerate(st.surfaces) if s is not None and i not in gone and i not in removed}

    def word_text(self, index: int) -> str:
        """The pre-token string of word ``index`` (words are numbered by first appearance)."""
        return self.state.word_text[self._word_number(index)]

    def word_frequency(self, index: int) -> int:
        """How often word ``index`` occurs in the corpus."""
        return self.state.counts[self._word_number(index)]

    def words_by_frequency(self, limit: int | None = None) -> list[int]:
        """Word indices, most frequent first (ties: first appearance first)."""
        st = self.state
        if st.by_frequency is None:  # counts never change, so sort once
            counts = st.counts
            st.by_frequency = sorted(range(len(counts)), key=lambda w: -counts[w])
        order = st.by_frequency
        return list(order) if limit is None else order[:limit]

    def segmentation(self, word: str | int) -> list:
        """The current symbols (surfaces) of a word, given as its text or its index."""
        st = self.state
        if isinstance(word, str):
            if st.word_index is None:
                st.word_index = {w: i for i, w in enumerate(st.word_text)}
            if word not in st.word_index:
                spaced = f" (a word is a pre-token: {' ' + word!r} is one)" if " " + word in st.word_index else ""
                raise KeyError(f"{word!r} is not a word of this corpus{spaced}")
            word = st.word_index[word]
        return [st.surfaces[ord(ch)] for ch in st.words[self._word_number(word)]]

    def _word_number(self, index) -> int:
        """``index`` checked as a word number: no negative numbers counting from the end."""
        words = self.state.words
        if isinstance(index, bool) or not isinstance(index, int) or not 0 <= index < len(words):
            raise BPEError(f"word {index!r} does not exist: words are numbered 0 to {len(words) - 1}")
        return index

    def segmentation_ids(self, index: int) -> tuple[int, ...]:
        """The current symbol ids of word ``index``."""
        return tuple(map(ord, self.state.words[self._word_number(index)]))

    def pair_count(self, pair: tuple) -> int:
        """The current count of a pair given as surfaces."""
        key = self._pair_key(pair)
        return self.state.pair_counts.get(key, 0) if key else 0

    def words_containing(self, pair: tuple, limit: int | None = None) -> list[int]:
        """Indices of the words whose current segmentation contains ``pair`` (surfaces)."""
        key = self._pair_key(pair)
        if not key:
            return []
        out = []
        words = self.state.words
        for w in sorted(self.state.where.get(key, ())):
            if key in words[w]:
                out.append(w)
                if limit is not None and len(out) >= limit:
                    break
        return out

    def _pair_key(self, pair: tuple) -> str | None:
        """The internal key of a pair given as surfaces (None if either is not a token)."""
        left, right = pair
        to_id = self.state.surface_to_id
        a = to_id.get(left)
        b = to_id.get(right)
        return key_of(a, b) if a is not None and b is not None else None

    def _surface_kind_error(self, pair: Sequence[object]) -> str | None:
        """What is wrong with the kind of a pair's parts (str for bytes, bytes for str), if it is."""
        byte_level = self.config.units == "bytes"
        if all(isinstance(p, bytes if byte_level else str) for p in pair):
            return None
        if byte_level:
            example = tuple(p.encode("utf-8") if isinstance(p, str) else p for p in pair)
            return f"this trainer is byte-level: a pair's parts are bytes, as in step(pair={example!r})"
        example = tuple(p.decode("utf-8", "replace") if isinstance(p, bytes) else p for p in pair)
        return f"this trainer works on characters: a pair's parts are str, as in step(pair={example!r})"

    def top_pairs(self, k: int = 10) -> list[tuple[tuple, int]]:
        """The current best ``k`` pairs as ``((left, right), count)``, in tie-break order;
        only pairs the constraints allow (:meth:`forbidden_pair_count` counts the others).

        The first one is the pair the next :meth:`step` will merge (unless a stop condition
        intervenes, or the step replays a pair chosen by hand: :meth:`planned_pair`).
        """
        s = self.state.surfaces
        return [(surface_pair(s, e[-1]), -e[0]) for e in self.queue.peek(k)]

    def forbidden_pair_count(self) -> int:
        """How many pairs present now the constraints forbid (``max_token_length``: the merged
        token would be too long; ``no_merge_across``: it would mix characters of the class
        with others). They are never merged and :meth:`top_pairs` does not list them."""
        return self.state.forbidden

    def forbidden_by(self) -> dict[str, int]:
        """The pairs present that the constraints forbid (:meth:`forbidden_pair_count`), by
        the constraint that forbids them, named short enough for a caption -> how many pairs
        (a pair is counted under the first it breaks, in the order :meth:`forbidden_reason`
        checks; that method says why in full): ``{"<UNK> (coverage)": 5}`` under
        PickyBPE's setup, ``tokens over max_token_length 32``, ``no_merge_across \\d``,
        ``SuperBPE's stage-2 limits``. Empty when none is forbidden."""
        return self.state.forbidden_by()

    def forbidden_reason(self, pair: tuple) -> str | None:
        """Why the constraints forbid merging ``pair`` (surfaces), or None if they allow it."""
        key = self._pair_key(pair)
        return self.state.forbidden_reason(key) if key is not None else None

    def pair_count_histogram(self) -> dict[int, int]:
        """``count -> number of distinct pairs with that count`` right now."""
        return dict(self.state.count_hist)

    def pairs_with_count(self, count: int) -> int:
        """How many distinct pairs occur exactly ``count`` times right now."""
        return self.state.count_hist.get(count, 0)

    @property
    def special_tokens(self) -> dict[str, int]:
        return dict(self.state.special_ids)

    @property
    def removed(self) -> frozenset[int]:
        """The ids of the tokens the variant took out of the vocabulary (PickyBPE's removals)."""
        return frozenset(self.state.removed)

    @property
    def variant(self) -> Variant:
        """The BPE variant this trainer runs (see :mod:`~bpe_tui.core.engine.variants`)."""
        return self._variant

    # ------------------------------------------------------------------ stopping

    @property
    def finished(self) -> bool:
        """True when :meth:`step` would return None (target reached or nothing left).

        When it is, :attr:`stop_reason` says why.
        """
        reason = self._stop_check(respect_target=True)
        if reason is not None:
            self.stop_reason = reason
        return reason is not None

    def _stop_check(self, respect_target: bool) -> str | None:
        if self._plan.get(self.steps_done + 1) is not None:  # a hand choice is replayed next
            return self._target_reason() if respect_target else None
        return guarded(self._variant, "stop_reason", self, respect_target)  # the seam: worded as choose would

    def stop_reason_for(self, best: tuple | None, respect_target: bool) -> str | None:
        """Why training cannot take ``best``, the best queue entry (None: the queue is
        empty), if it cannot: the trainer's own reasons, in its order. What the corpus has run
        out of comes first: a trainer with nothing left to merge says so even where it also
        stands at (or beyond) its target."""
        return self._queue_reason(best) or (self._target_reason() if respect_target else None)

    def _target_reason(self) -> str | None:
        """Whether the configured target stops training: "reached" at it, "beyond" past it
        (where a goto went on)."""
        cfg = self.config
        # speed: steps_done and vocab_size read without their properties (a property read is a
        # call), and each only when its target is set: this runs at every step
        if cfg.merges is not None and (done := self.first_step + len(self._history)) >= cfg.merges:
            if done == cfg.merges:
                return f"reached {cfg.merges} merges"
            return f"beyond the target of {cfg.merges} merges (at step {done:,})"
        if cfg.vocab_size is not None:
            st = self.state
            if (size := len(st.surfaces) - st.holes) >= cfg.vocab_size:
                if size == cfg.vocab_size:
                    return f"reached vocabulary size {cfg.vocab_size}"
                return f"beyond the target vocabulary size {cfg.vocab_size} (at {size:,})"
        return None

    def _queue_reason(self, best) -> str | None:
        """Why the best queue entry (None: the queue is empty) cannot be merged, if it cannot."""
        if best is None:
            forbidden = self.state.forbidden
            if forbidden:  # pairs are left, but no rule lets any of them merge
                return f"nothing left to merge: the {plural(forbidden, 'pair')} left would break a constraint (forbidden_reason says which)"
            return "nothing left to merge: every word is a single token"
        count, least = -best[0], self.config.min_frequency
        if count < least:
            return f"best pair occurs {plural(count, 'time')}, below min_frequency {least}"
        return None

    @property
    def target_steps(self) -> int | None:
        """The step (merge number) the target corresponds to, if it is known in advance (not
        for a vocabulary size when the variant takes tokens out: PickyBPE's removals)."""
        cfg = self.config
        if cfg.merges is not None:
            return cfg.merges
        if cfg.vocab_size is not None and not self._variant.removes_tokens:
            st = self.state
            return self.first_step + max(0, cfg.vocab_size - (st.first_merge_id - st.holes))
        return None

    @property
    def table(self):
        """A :class:`~bpe_tui.core.tables.table.MergeTable` of the merges so far."""
        from ..tables.table import MergeTable

        return MergeTable.from_trainer(self)

    def merge_list(self) -> list[tuple[int, int, int]]:
        """``(left_id, right_id, new_id)`` for every merge so far, in order (a start
        table's merges first; those dropped at SuperBPE's transition left out)."""
        merges = self.state.inherited + [(*e.pair_ids, e.new_id) for e in self._history]
        return _kept(merges, self.state.dropped[0])

    def merge_counts(self) -> list[int] | None:
        """The count each merge had when it was made; None when going on from a table that
        does not record its merges' counts."""
        inherited = self.state.inherited_counts
        if inherited is None:
            return None
        return _kept(inherited + [e.count for e in self._history], self.state.dropped[0])

    # ------------------------------------------------------------------ the plan, and how it shows

    def __repr__(self) -> str:
        from ..notebook import trainer_repr

        return trainer_repr(self)

    def _repr_html_(self) -> str:
        """The trainer in a notebook: where it stands, its last merge and why, the pairs next."""
        from ..notebook import trainer_html

        return trainer_html(self)

    def planned_pair(self) -> tuple | None:
        """The pair chosen by hand that the next step will replay (surfaces), or None."""
        planned = self._plan.get(self.steps_done + 1)
        return surface_pair(self.state.surfaces, key_of(*planned)) if planned is not None else None

    @property
    def manual_steps(self) -> dict[int, tuple[int, int]]:
        """The plan: step number -> ``(left_id, right_id)`` chosen by hand, including steps
        ahead of the current one that going forward will replay."""
        return dict(self._plan)

    def manual_ranks(self) -> frozenset[int]:
        """0-based ranks of the table's merges that were chosen by hand (a start table's too)."""
        ranks = self.state.inherited_manual | {e.step - 1 for e in self._history if e.manual}
        gone = self.state.dropped[0]
        return frozenset(r - sum(1 for g in gone if g < r) for r in ranks if r not in gone) if gone else ranks

    # ------------------------------------------------------------------ checking

    def recount_pairs(self) -> dict[tuple, int]:
        """Count every pair from scratch (the seeds' algorithm): the reference for tests."""
        out: dict = {}
        st = self.state
        s = st.surfaces
        for word, c in zip(st.words, st.counts):
            for x, y in zip(word, word[1:]):
                key = (s[ord(x)], s[ord(y)])
                out[key] = out.get(key, 0) + c
        return out

    def pair_counts(self) -> dict[tuple, int]:
        """The incrementally maintained pair counts, as surfaces."""
        s = self.state.surfaces
        return {surface_pair(s, k): c for k, c in self.state.pair_counts.items()}
