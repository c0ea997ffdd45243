"""The one seam through which a BPE variant plugs into the trainer: its contract.

Plain BPE repeats one rule: merge the most frequent adjacent pair, everywhere. The variants of
recent papers change one of two things about a step, and nothing else:

1. **what chooses the next pair** (parity-aware BPE: the most frequent pair *of the language
   whose text is compressed worst so far*, not of the whole corpus);
2. **what happens after a merge** (PickyBPE: a token the merge used up is removed from the
   vocabulary, and its occurrences are split back into its parts; SuperBPE: after merge K the
   whole corpus is cut again, into chunks where a pair may span spaces).

Everything else stays the trainer's: the words and their segmentations, the pair counts and the
pair -> words index, the priority queue, merging itself, the history, undo and goto, pairs
chosen by hand, the stop conditions, the events. A variant is a :class:`Variant` subclass, one
module each in this package, whose docstring teaches its algorithm (plain BPE's is
:mod:`~bpe_tui.core.engine.variants.plain`, the default).
:func:`~bpe_tui.core.engine.variants.variant_for` picks one from a
:class:`~bpe_tui.core.engine.config.TrainerConfig`; a variant that needs more than a config
(several corpora, a development set) is made by its own constructor and handed to
``Trainer(..., variant=...)``.

The contract
============

One variant object serves one trainer, which calls it at these points and no others (a
variant that changes only what happens after a merge subclasses
:class:`~bpe_tui.core.engine.variants.plain.PlainBPE` and keeps its choice):

``attach(trainer)``
    Once, as the last thing the trainer's constructor does: the corpus is counted, the
    alphabet made, the pair counts, the pair -> words index and the queue are built. The
    variant builds its own state from them (its per-language pair counts, its token
    frequencies, its development set's segmentation) or refuses the trainer's config with a
    :class:`~bpe_tui.core.errors.BPEError` of one line (an option it cannot honour).

``choose(trainer, respect_target) -> Choice | str``
    At every step the rules decide (a pair chosen by hand, or replayed from the trainer's plan,
    is merged without asking). Returns the pair to merge as a :class:`Choice` (or a plain
    tuple of its seven fields, :data:`ChoiceTuple`), or a ``str``:
    why training stops here, which becomes the trainer's ``stop_reason``. Check stopping with
    ``trainer._stop_reason(entry, respect_target)``, which gives the trainer's own reasons
    (nothing left, below min_frequency, the target reached) in the trainer's order; an entry
    taken off the queue and not merged goes back with ``trainer._put_back(entry)``.

``peek(trainer) -> entry | None``
    The queue entry the rules would merge next, left where it is (None: nothing to merge). It
    must name the pair :meth:`choose` would return if called now: the trainer uses it to say
    whether a pair chosen by hand is the one the rules pick anyway, and to name the rules'
    pick in a hand-chosen merge's explanation.

``stop_reason(trainer, respect_target) -> str | None``
    Why :meth:`choose` would stop now, in its words, without choosing (None: it would merge):
    the trainer's ``finished`` and where ``goto`` ends ask it, and ``stop_reason`` is then this.
    The base class gives the trainer's own reasons for :meth:`peek`'s entry; a variant with
    reasons of its own (parity-aware BPE: the choosing language has no pair left, the window
    leaves no language) says them here and in :meth:`choose` alike.

``after_merge(trainer, merged) -> tuple``  (called only when ``acts_after_merge`` is True)
    Right after each merge (chosen by the rules or by hand), before its event is made.
    ``merged`` (:class:`Merged`) says what the merge did. The variant may change the corpus
    further, only through ``trainer._rewrite(rewrites, merged)``, and the vocabulary, only
    through ``trainer._set_present(token_id, present)``; it returns its own events, in the
    order they happened (PickyBPE's removals), which become the merge event's ``after``.
    The merge event then reports the whole step: ``total_tokens`` and ``vocab_size`` after
    the last of them, and ``pair_changes`` the net change of every pair over the step.

``after_step(trainer, event)``  (called only when ``acts_after_step`` is True)
    Once the step is over: its event made and recorded (``event`` is the last of
    ``trainer.history``, and ``trainer.merge_list()`` holds its merge). Here, and only here, a
    variant may cut the corpus anew (SuperBPE's transition to chunks): it installs the new
    corpus with ``trainer._install_corpus(texts, counts, words, rule)``, may leave merges out
    of the table with ``trainer._drop_merges(ranks)``, may limit what later merges make with
    ``trainer._set_limit(limit)``, and says what it did as ``trainer.transition`` (and the new
    corpus's length before any merge as ``trainer.initial_total_tokens``). The step's event
    stays as it was: it reports the merge over the corpus it was made on.

``undo(trainer, event)``  (called only when ``acts_after_merge`` or ``acts_after_step`` is True)
    When ``event``, the step's MergeEvent, is undone, first thing: the variant takes back its
    own state (frequencies, orders, presence through ``_set_present``) as it was before
    ``after_merge`` ran for it, and what ``after_step`` did (the old corpus installed again,
    ``trainer._restore_dropped()``, ``_set_limit(None)``, ``transition`` None). The trainer
    then restores the words :meth:`_rewrite` changed (their old segmentations, last first),
    the pair counts (the event's net changes reversed) and the merge itself. Undo is last-in
    first-out, so the variant may keep a stack.

``corpus_counts(trainer) -> (words, chunks)``
    The corpus as the trainer was built with it, wherever it stands (``Trainer.corpus_counts``,
    which builds the same trainer again under other rules): the base class gives the words
    as they are now and no chunks; a variant that cut the corpus anew gives what it was cut
    from, and the other cut.

``table_config(trainer) -> dict``
    What the variant adds to the config of the trainer's table (``trainer.table``, saved
    files): what encoding must know to give the tokens training gave (PickyBPE's removals,
    which encoding applies in event order). Plain BPE adds nothing.

A queue entry is a tuple ``(-count, *tie-break key, pair key)``: ``entry[0]`` is minus the
pair's count and ``entry[-1]`` its key, the two token ids as a two-character string
(:func:`~bpe_tui.core.engine.speed.key_of`). The trainer's queue orders every pair of the
corpus by the config's tie-break rule; a variant that chooses otherwise keeps its own order
(parity-aware BPE: a queue per language) and returns entries of the same shape.

What a variant may use on the trainer (nothing else; all of it is the trainer's to change):

* read: ``config``, ``_words`` (each word's segmentation as an id string, see
  :mod:`~bpe_tui.core.engine.speed`), ``_counts`` (each word's frequency), ``_word_text``,
  ``_pair_counts`` (pair key -> count, positive counts only), ``_count_hist`` (count -> pairs
  with it), ``_where`` (pair key -> words that may hold it: a superset), ``_surfaces`` (id ->
  surface; never shrink or change it), ``_surface_to_id``, ``_first_merge_id`` (ids below it
  are the alphabet, the special tokens and a start table's tokens), ``_inherited`` (a start
  table's merges, ``(left, right, new)``), ``_special_ids``, ``_unknown`` (the id standing for
  characters left out of the alphabet, or None), ``_removed`` (ids taken out of the
  vocabulary), ``_rule`` (the tie-break rule), ``_total_tokens``, ``_history`` and
  ``steps_done``;
* the queue: ``_pop_valid(k)``, ``_peek_valid(k)``, ``_put_back(entry)``,
  ``_stop_reason(entry, respect_target)``; when the variant keeps the tie-break rule's keys
  (PickyBPE's order: ``_rule.stamps``), ``_queue(pair)`` after a key moves, and
  ``_requeue_all()`` in ``attach`` once the keys are set;
* changing the corpus after a merge: ``_rewrite(rewrites, merged)``, ``_set_present(token_id,
  present)``;
* cutting the corpus anew after a step (``after_step``, and back in ``undo``):
  ``_install_corpus(texts, counts, words, rule=None)``, ``_drop_merges(ranks)`` and
  ``_restore_dropped()``, ``_set_limit(limit)``, ``merge_list()``, and the attributes
  ``transition`` and ``initial_total_tokens``; in ``attach``, for a trainer built past such a
  cut, the same (and ``_inherited``, ``_base_count``, ``_special_ids`` to read).

Exactness is the trainer's as long as a variant keeps to this: train k steps and undo j equals
train k - j, whatever the variant did after each merge, because every word it rewrote is
restored from its old segmentation and every count from the step's net changes.

How the variants fit
====================

* **PickyBPE** (:mod:`~bpe_tui.core.engine.variants.picky`) acts after each merge: it computes
  each part's Intersection over Self, removes a part above the threshold with
  ``_set_present(t, False)`` and splits it everywhere with ``_rewrite``; a later merge that makes
  a removed surface again gets its old id back, and the variant marks it present.
* **Parity-aware BPE** is made with one word-count mapping per language and a development
  text per language: the trainer gets the union of the words (a word's count is the sum over
  languages); the variant keeps, per word, its count in each language, and in ``attach`` counts
  the pairs per language and segments the development texts. ``choose`` finds the language
  whose development text needs the most tokens now (the development texts say the same thing
  in every language, so their lengths in tokens compare directly; in the ratio form, without
  them, the language whose training corpus is compressed least against its target), and
  takes that language's most frequent pair from its own queue (entries shaped as above), with
  the language and every language's measure then as ``Choice.reason`` (kept on the event as ``MergeEvent.reason``,
  and said by its explanation). ``after_merge`` (``acts_after_merge = True``, returning no
  events) updates the per-language counts from ``merged.touched`` (each word's old
  segmentation is in ``merged.olds``, or, when None, is its new one with ``chr(new_id)``
  replaced by the pair's key) and applies the merge to the development texts
  (:func:`~bpe_tui.core.engine.trainer.merge_word` works on any list of id strings); ``undo``
  takes both back. The trainer's own queue still orders the whole corpus's pairs: it is what
  the explorer's pair table shows.
* **SuperBPE** (:mod:`~bpe_tui.core.engine.variants.superbpe`) chooses as plain BPE does and
  acts in ``after_step``: right after merge K is recorded it installs the chunks (the K merges
  replayed over them) with ``_install_corpus``, drops the merges that never occur there
  (``superwords_drop_unused``) with ``_drop_merges`` and sets stage 2's limits with
  ``_set_limit``; its ``undo`` of merge K installs the words as they stood. It keeps the
  chunks until then, and the words after, and gives both as ``corpus_counts``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, NamedTuple

__all__ = ["Choice", "ChoiceTuple", "Merged", "Variant"]


class Choice(NamedTuple):
    """The pair a variant chooses to merge, and what the merge event says about the choice.

    pair:      the pair's key (two token ids as characters)
    pair_count: its count now (the event's ``count``)
    tie_count: how many other pairs had the same count (0: no tie decided it)
    ties:      the first few of those, as surfaces, in tie-break order
    won:       the queue entry merged (None: chosen by another order than the queue's)
    other:     the entry it is compared with in the explanation: the next one in the rule's
               order at the same count (None: none)
    reason:    the variant's own account of its choice (None for plain BPE), kept as
               ``MergeEvent.reason``; ``str(reason)`` ends the event's explanation
    """

    pair: str
    pair_count: int
    tie_count: int = 0
    ties: tuple = ()
    won: tuple | None = None
    other: tuple | None = None
    reason: Any = None


#: What :meth:`Variant.choose` returns when it merges: a :class:`Choice`, or a plain tuple of
#: the same seven fields in the same order (plain BPE's, made at every step: a NamedTuple's
#: own constructor is a Python call, 1% of a training run's instructions).
ChoiceTuple = tuple[str, int, int, tuple, "tuple | None", "tuple | None", Any]


@dataclass(slots=True)
class Merged:
    """One merge as :meth:`Variant.after_merge` sees it, and the step's record of what the
    variant changes after it (``trainer._rewrite`` adds to it).

    pair:      the merged pair's key
    new_id:    the id of the token it made (an existing id when the surface was known)
    created:   whether the merge created ``new_id`` (False: the surface was a token already,
               or one a variant had removed)
    touched:   the words the merge rewrote, in index order
    olds:      their segmentations before the merge, in the same order, or None (then each is
               its segmentation now with ``chr(new_id)`` replaced by ``pair``)
    saved:     how many tokens the step saved so far (the merge's, less what rewrites added)
    changes:   pair key -> change of its count over the step so far
    befores:   pair key -> its count before the step, for each pair whose count changed
    rewritten: ``(word, segmentation before)`` for every rewrite after the merge, in order
    """

    pair: str
    new_id: int
    created: bool
    touched: list[int]
    olds: list[str] | None
    saved: int
    changes: dict[str, int]
    befores: dict[str, int]
    rewritten: list[tuple[int, str]] = field(default_factory=list)


class Variant:
    """A BPE variant: what chooses the next pair, and what happens after a merge (see the
    contract in this module's docstring). The base class is no variant: plain BPE is
    :class:`~bpe_tui.core.engine.variants.plain.PlainBPE`."""

    #: The name people read (``bpe-tui train --help``, the status line).
    name = ""
    #: Whether :meth:`after_merge` and :meth:`undo` do something; when False the trainer
    #: never calls them (plain BPE pays nothing for the seam on its hot path).
    acts_after_merge = False
    #: Whether :meth:`after_step` and :meth:`undo` do something (False: never called).
    acts_after_step = False
    #: Whether it may take tokens out of the vocabulary (``_set_present``): then how many
    #: merges reach a vocabulary size is not known in advance (``Trainer.target_steps``).
    removes_tokens = False

    def attach(self, trainer: Any) -> None:
        """Build the variant's state from the trainer just built (see the contract)."""

    def choose(self, trainer: Any, respect_target: bool) -> ChoiceTuple | str:
        raise NotImplementedError

    def peek(self, trainer: Any) -> tuple | None:
        raise NotImplementedError

    def stop_reason(self, trainer: Any, respect_target: bool) -> str | None:
        """Why :meth:`choose` would stop now (see the contract); by default the trainer's own
        reasons for :meth:`peek`'s entry."""
        return trainer._stop_reason(self.peek(trainer), respect_target)

    def after_merge(self, trainer: Any, merged: Merged) -> tuple:
        return ()

    def after_step(self, trainer: Any, event: Any) -> None:
        pass

    def undo(self, trainer: Any, event: Any) -> None:
        pass

    def corpus_counts(self, trainer: Any) -> tuple[dict[str, int], dict[str, int] | None]:
        """The corpus as the trainer was built with it: ``(word counts, other cut or None)``."""
        return dict(zip(trainer._word_text, trainer._counts)), None

    def plain_words(self, trainer: Any) -> dict[str, int] | None:
        """The words plain BPE trains on to be measured against this variant at the same
        vocabulary size (the explorer's Evaluate trains that table beside it), or None: plain
        BPE itself, or a trainer that went on from a table (its corpus is not all it learned)."""
        return None

    def table_config(self, trainer: Any) -> Mapping[str, Any]:
        return {}

    def describe(self) -> str:
        """A few words for status lines (empty for plain BPE, which needs none)."""
        return ""
