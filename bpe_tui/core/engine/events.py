"""MergeEvent: one merge, as a value a UI (or a learner) can read without asking the trainer.

An event is made at every step, so making one must cost next to nothing: what only some
readers want (the pair changes by name, the explanation sentence) is kept in the form the
trainer had at hand and worked out when first asked (``cached_property``). Everything an event
holds stays valid whatever the trainer does next (steps, undos, a different future): it
keeps only values, and lists the trainer never changes again (see ``_surfaces``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from types import MappingProxyType
from typing import NamedTuple

from ..wording import plural
from .speed import ids_of, surface_pair
from .tiebreak import TieBreakRule, show, show_pair

#: How many tied pairs a MergeEvent lists by name (tie_count says how many there were).
TIES_LISTED = 5

#: How many words an explanation names (the rest are counted).
WORDS_NAMED = 3


class Context(NamedTuple):
    """What every explanation of one trainer shares (made once; lists the trainer never changes).

    rule:        the tie-break rule in force (its ``why`` reads only what it is given)
    words:       the corpus's words by first appearance, and their frequencies
    end_of_word: the end-of-word marker, shown as itself
    """

    rule: TieBreakRule | None = None
    words: Sequence[str] = ()
    frequencies: Sequence[int] = ()
    end_of_word: str | None = None


_NO_CONTEXT = Context()


@dataclass(frozen=True)
class MergeEvent:
    """Everything a UI needs to render one merge without asking the trainer again.

    Attributes:
        step: The 1-based merge number: the merge's rank in the table is step - 1 (a trainer
            extending a saved table numbers on after the table's merges).
        pair: The (left, right) surfaces that were merged.
        pair_ids: Their ids, (left_id, right_id).
        new_id: The id of the merged token (an existing id if that surface already existed).
        new_token: The surface of the merged token.
        count: How often the pair occurred when it was merged.
        tie_count: How many other pairs had the same count (0: no tie; 0 for a pair chosen by
            hand, which no tie decided).
        ties: The first few of those pairs, in tie-break order.
        rule: The tie-break rule in force.
        words_touched: Indices of the words whose segmentation changed (see
            ``Trainer.word_text``).
        total_tokens: The corpus's length in tokens after the merge.
        vocab_size: The vocabulary's size after the merge.
        manual: True when the pair was chosen by hand (``Trainer.step(pair=...)``), not by
            the rules.
        after: What the BPE variant did right after the merge, as its own events, in order
            (PickyBPE's :class:`~bpe_tui.core.engine.variants.picky.RemovalEvent` and
            :class:`~bpe_tui.core.engine.variants.picky.RestoreEvent`; empty for plain BPE).
            ``total_tokens``, ``vocab_size`` and :attr:`pair_changes` are then those of the
            whole step, after the last.
        reason: The variant's account of why it chose this pair (parity-aware BPE's
            :class:`~bpe_tui.core.engine.variants.parity.ParityChoice`; None for plain BPE,
            whose reason is the count and the tie-break rule); its ``str`` ends the
            :attr:`explanation`.
    """

    step: int
    pair: tuple
    pair_ids: tuple[int, int]
    new_id: int
    new_token: bytes | str
    count: int
    tie_count: int
    ties: tuple
    rule: str
    words_touched: tuple[int, ...]
    total_tokens: int
    vocab_size: int
    manual: bool = False
    after: tuple = ()
    reason: object = None
    # The pair changes are kept in the trainer's internal form and named only when asked
    # (naming them at every step would cost more than the merge): ``_changes`` maps a pair
    # key to its change in count (zero for a pair the merge took away and gave back),
    # ``_before`` each pair whose count changed to its count before. ``_surfaces`` is the
    # trainer's id -> surface list of the moment: the trainer only ever appends to a list it
    # has handed to an event (see TrainingState.drop_last_token), so ids up to new_id keep
    # their surfaces here whatever the trainer does next.
    _changes: Mapping[str, int] = field(repr=False, compare=False, default_factory=dict)
    _before: Mapping[str, int] = field(repr=False, compare=False, default_factory=dict)
    _surfaces: list = field(repr=False, compare=False, default_factory=list)
    # What the explanation needs from the moment of the merge, kept as the trainer had it
    # (no new object per step; the sentence is worked out when first asked):
    # _won:         the queue entry the rules merged (None for a pair chosen by hand)
    # _other:       the queue entry it is compared with: the next pair in the rule's order at
    #               the same count, or, for a pair chosen by hand, the rules' pick (None: none)
    # _occurrences: word -> occurrences of the pair in it, where that is not 1 (None: none)
    # _context:     what every explanation of the trainer shares (Context)
    # The entries are the queue's own tuples, ``(-count, *tie-break key, pair key)``, immutable;
    # the keys are sliced out and the pairs named only when the sentence is made (doing it at
    # every step made three tuples per step, which the garbage collector then walked). The
    # entries name pairs by id, whose surfaces _surfaces has.
    _won: tuple | None = field(repr=False, compare=False, default=None)
    _other: tuple | None = field(repr=False, compare=False, default=None)
    _occurrences: Mapping[int, int] | None = field(repr=False, compare=False, default=None)
    _context: Context = field(repr=False, compare=False, default=_NO_CONTEXT)

    @cached_property
    def pair_changes(self) -> Mapping[tuple, tuple[int, int]]:
        """``(left, right) surfaces -> (count before, count after)`` for every pair this merge changed."""
        s = self._surfaces
        d = self._changes
        return MappingProxyType({surface_pair(s, k): (n, n + d[k]) for k, n in self._before.items()})

    @cached_property
    def pair_changes_by_id(self) -> Mapping[tuple[int, int], tuple[int, int]]:
        """The same as :attr:`pair_changes`, keyed by ``(left_id, right_id)``."""
        d = self._changes
        return MappingProxyType({ids_of(k): (n, n + d[k]) for k, n in self._before.items()})

    @cached_property
    def explanation(self) -> str:
        """One plain sentence for a learner: what merged, how often and where, and why this
        pair (the tie-break rule's reason when others had the same count, or that it was
        chosen by hand), e.g.

        "merged t + h into th: 3 times, in 'the' (2) and 'that' (1); tied with 3 other pairs
        at 3, first-seen picks t + h because it occurs first, in 'the', the 1st word"

        What the variant did after the merge follows, each event's own sentence after
        "; then " (PickyBPE: "; then removed ft: IoS 0.93 > 0.9: ...").
        """
        merge = self._merge_sentence()
        return "; then ".join([merge, *(e.explanation for e in self.after)]) if self.after else merge

    def _merge_sentence(self) -> str:
        context = self._context
        eow = context.end_of_word
        times = plural(self.count, "time")
        where = self._where()
        head = f"merged {show_pair(self.pair, eow)} into {show(self.new_token, eow)}: {times}{where}"
        other = self._other
        if self.reason is not None and not self.manual:
            return f"{head}; {self.reason}"
        if self.manual:
            if other is None:
                return f"{head}; chosen by hand"
            leader = surface_pair(self._surfaces, other[-1])
            if leader == tuple(self.pair):
                return f"{head}; chosen by hand, the pair the rules pick too"
            return f"{head}; chosen by hand instead of {show_pair(leader, eow)} ({-other[0]:,}), the pair the rules ({self.rule}) pick"
        if not self.tie_count:
            return f"{head}; no other pair occurs as often"
        others = plural(self.tie_count, "other pair")
        reason = ""
        rule = context.rule
        won = self._won
        if rule is not None and other is not None and won is not None:
            rival = surface_pair(self._surfaces, other[-1])
            reason = rule.why(self.pair, rival, won[1:-1], other[1:-1], context.words)
        return f"{head}; tied with {others} at {self.count:,}" + (f", {reason}" if reason else "")

    def _where(self) -> str:
        """``, in 'the' (2) and 'that' (1)``: the words the pair occurred in, most first."""
        words = self._context.words
        if not words or not self.words_touched:
            return ""
        freq = self._context.frequencies
        occ = self._occurrences or {}
        share = sorted(((occ.get(w, 1) * freq[w], w) for w in self.words_touched), key=lambda x: (-x[0], x[1]))
        named = [f"'{show(words[w])}' ({n:,})" for n, w in share[:WORDS_NAMED]]
        rest = len(share) - len(named)
        if rest:
            return f", in {', '.join(named)} and {plural(rest, 'other word')}"
        if len(named) == 1:
            return f", in {named[0]}"
        return f", in {', '.join(named[:-1])} and {named[-1]}"

    def __repr__(self) -> str:
        from ..notebook import event_repr

        return event_repr(self, self._context.end_of_word)

    def _repr_html_(self) -> str:
        """The merge in a notebook: the pair and its token as chips with ids, and why it won."""
        from ..notebook import event_html

        return event_html(self, self._context.end_of_word)

    def __getstate__(self) -> dict:
        """Pickle and copy the fields only: the read-only mappings are rebuilt on demand; the
        explanation goes as its sentence, without the corpus's word list it was made from."""
        state = dict(self.__dict__)
        for name in ("pair_changes", "pair_changes_by_id"):
            state.pop(name, None)
        state["explanation"] = self.explanation
        state.update(_won=None, _other=None, _occurrences=None, _context=_NO_CONTEXT)
        return state


@dataclass(frozen=True)
class TransitionEvent:
    """SuperBPE's switch of pre-tokenizer, as a value: right after merge ``step`` the corpus
    was cut again by the stage-2 rule and the merges so far were applied to the new chunks.

    Attributes:
        step: How many merges came before it (K); merge K + 1 is the first that may span a space.
        words: Distinct pre-tokens before it (0 when the trainer started past it, going on
            from a table).
        chunks: Distinct chunks after it.
        tokens_before: The corpus's length in tokens as words, just before (0: started past it).
        tokens_after: The corpus's length in tokens as chunks, the K merges applied.
        rule: The stage-2 rule that cut them ("regex" or "digits", see superwords.py).
        dropped: ``(step, token)`` of each merge so far that never occurred while the merges
            were replayed over the chunks, dropped from the table there
            (``superwords_drop_unused``); empty when none was, or the option is off.
    """

    step: int
    words: int
    chunks: int
    tokens_before: int
    tokens_after: int
    rule: str = "regex"
    dropped: tuple = ()

    #: What each stage-2 rule cuts out, for the explanation.
    RULES = {
        "regex": "numbers, runs of punctuation and trailing spaces apart, everything between them one chunk",
        "digits": "only digit runs apart, cut in threes from the right; punctuation and spaces stay inside the chunks",
    }

    @property
    def explanation(self) -> str:
        """One plain sentence: what changed, and what it means for the merges to come."""
        merged = f"merges 1-{self.step:,} applied to them by rank" if self.step else "no merges yet"
        before = f"{plural(self.words, 'word')} became " if self.words else "the corpus is "
        text = (
            f"from here on, pairs may span spaces: after merge {self.step:,} the corpus is cut again by SuperBPE's "
            f"{self.rule} rule ({self.RULES.get(self.rule, self.rule)}): {before}{plural(self.chunks, 'chunk')}, {merged}"
        )
        if self.dropped:
            shown = ", ".join(f"{step:,} ({show(token)})" for step, token in self.dropped[:3])
            more = f" and {len(self.dropped) - 3:,} more" if len(self.dropped) > 3 else ""
            text += (
                f"; {plural(len(self.dropped), 'merge')} never occur there and leave the table, as the authors' "
                f"trainer drops them: merge {shown}{more}"
            )
        return text


__all__ = ["Context", "MergeEvent", "TIES_LISTED", "TransitionEvent"]
