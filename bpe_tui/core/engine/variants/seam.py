"""The one seam through which a BPE variant plugs into the trainer: its typed contract.

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
module each, whose docstring teaches its algorithm (plain BPE's is
:mod:`~bpe_tui.core.engine.variants.plain`, the default), and it declares its options once
(:class:`~bpe_tui.core.engine.variants.options.Option`; the built-ins are listed in
:mod:`~bpe_tui.core.engine.registry`). A variant from outside the package is the same kind of
class: ``Trainer(..., variant=MyVariant(...))``, ``bpe-tui train --variant module:MyVariant``
(see the docs page "Write your own variant").

What a variant is handed
========================

Every hook is given the trainer as a :class:`Bench`: a Protocol naming exactly what a variant
may use, so that mypy checks the contract. It holds

* ``bench.state``, the :class:`~bpe_tui.core.engine.state.TrainingState`: the corpus (``words``
  as id strings, ``counts``, ``word_text``), ``pair_counts``, ``count_hist``, ``where``, the
  vocabulary (``surfaces``, ``surface_to_id``, ``removed``, ``vocab_size``, ``first_merge_id``,
  ``special_ids``, ``unknown``, ``inherited``: a start table's merges) and ``total_tokens``;
  read anything, change it only through its methods (``rewrite``, ``set_present``,
  ``install_corpus``, ``drop_merges`` and ``restore_dropped``, ``set_limit``) and the two
  attributes ``transition`` and ``initial_total_tokens``;
* ``bench.queue``, the :class:`~bpe_tui.core.engine.queue.PairQueue`: ``pop(k)``,
  ``peek(k)``, ``put_back(entry)``, ``push(pair)`` after a key moved, ``requeue_all()``,
  ``set_rule(rule)``, ``make_entry(pair, count)`` and the ``rule`` in force;
* the trainer's questions: ``config``, ``name``, ``steps_done``, ``first_step``,
  ``history``, ``merge_list()``, ``corpus_counts()``, and ``stop_reason_for(entry,
  respect_target)``: the trainer's own reasons to stop (nothing left, below min_frequency,
  the target reached), in its order.

No module of a variant touches a name that starts with ``_`` on another object
(tests/core/test_variants_seam.py reads every variant module's source to check it).

The contract
============

One variant object serves one trainer, which calls it at these points and no others (a
variant that changes only what happens after a merge subclasses
:class:`~bpe_tui.core.engine.variants.plain.PlainBPE` and keeps its choice):

``attach(bench)``
    Once, as the last thing the trainer's constructor does: the corpus is counted, the
    alphabet made, the pair counts, the pair -> words index and the queue are built. The
    variant builds its own state from them or refuses the trainer's config with a
    :class:`~bpe_tui.core.errors.BPEError` of one line (an option it cannot honour).

``choose(bench, respect_target) -> Choice | str``
    At every step the rules decide (a pair chosen by hand, or replayed from the trainer's plan,
    is merged without asking). Returns the pair to merge as a :class:`Choice` (or a plain
    tuple of its seven fields, :data:`ChoiceTuple`), or a ``str``: why training stops here,
    which becomes the trainer's ``stop_reason``. Check stopping with
    ``bench.stop_reason_for(entry, respect_target)``; an entry taken off the queue and not
    merged goes back with ``bench.queue.put_back(entry)``.

``peek(bench) -> entry | None``
    The queue entry the rules would merge next, left where it is (None: nothing to merge). It
    must name the pair :meth:`choose` would return if called now: the trainer uses it to say
    whether a pair chosen by hand is the one the rules pick anyway, and to name the rules'
    pick in a hand-chosen merge's explanation.

``stop_reason(bench, respect_target) -> str | None``
    Why :meth:`choose` would stop now, in its words, without choosing (None: it would merge).
    The base class gives the trainer's own reasons for :meth:`peek`'s entry; a variant with
    reasons of its own says them here and in :meth:`choose` alike.

``after_merge(bench, merged) -> tuple``  (called only when ``acts_after_merge`` is True)
    Right after each merge (chosen by the rules or by hand), before its event is made.
    ``merged`` (:class:`~bpe_tui.core.engine.state.Merged`) says what the merge did. The
    variant may change the corpus further, only through ``bench.state.rewrite(rewrites,
    merged)``, and the vocabulary, only through ``bench.state.set_present(token_id,
    present)``; it returns its own events, in the order they happened (PickyBPE's removals),
    which become the merge event's ``after`` (an event with an ``explanation`` is shown in
    the history under its merge). The merge event then reports the whole step.

``after_step(bench, event)``  (called only when ``acts_after_step`` is True)
    Once the step is over: its event made and recorded. Here, and only here, a variant may
    cut the corpus anew (SuperBPE's transition to chunks): ``bench.state.install_corpus(texts,
    counts, words)`` (after ``bench.queue.set_rule(rule)`` to order by another rule),
    ``bench.state.drop_merges(bench.merge_list(), ranks)``, ``bench.state.set_limit(limit)``,
    and says what it did as ``bench.state.transition`` (and the new corpus's length before
    any merge as ``bench.state.initial_total_tokens``).

``undo(bench, event)``  (called only when ``acts_after_merge`` or ``acts_after_step`` is True)
    When ``event``, the step's MergeEvent, is undone, first thing: the variant takes back its
    own state as it was before ``after_merge`` ran for it, and what ``after_step`` did. The
    trainer then restores the words ``rewrite`` changed (their old segmentations, last first),
    the pair counts (the event's net changes reversed) and the merge itself. Undo is last-in
    first-out, so the variant may keep a stack.

``corpus_counts(bench) -> (words, chunks)``
    The corpus as the trainer was built with it, wherever it stands: the base class gives the
    words as they are now and no chunks; a variant that cut the corpus anew gives what it was
    cut from, and the other cut.

``plain_words(bench) -> dict | None``
    The words plain BPE trains on to be measured beside this variant at the same vocabulary
    size (``eval``'s side-by-side block, the explorer's Evaluate view), or None.

``table_config(bench) -> dict``
    What the variant adds to the config of the trainer's table (saved files): what encoding
    must know to give the tokens training gave (PickyBPE's removals, which encoding replays
    through the variant's :meth:`encoding_rule`) and what the variant was (``about``).

``check(bench) -> str | None``
    In check mode, after the trainer's own recount: the variant's own state against a recount
    of its own, the first thing that disagrees in words (None: all agrees). By default None.

``describe()``, ``about_table(config, merges)``, ``measure_languages()``
    What people read: a few words for the status line, the lines ``inspect`` prints about a
    saved table this variant made, and the languages the Evaluate view measures first.

Merges of units the variant keeps itself
========================================

Some variants count pairs in a second state of their own beside the trainer's words
(BoundlessBPE: every document as a sequence of whole pre-tokens, where two neighbours may
join). To merge such a pair, ``choose`` returns a Choice whose ``reason`` is a
:class:`MergedElsewhere`: the trainer then makes the new token and the step's event as for any
merge, but rewrites no word and leaves the pair counts alone (the pair may stand in the words
too, where it is not merged); ``after_merge`` is called with ``merged.elsewhere`` True and
makes the merge in the variant's own state, and ``undo`` takes it back there.

Exactness is the trainer's as long as a variant keeps to this: train k steps and undo j equals
train k - j, whatever the variant did after each merge, because every word it rewrote is
restored from its old segmentation and every count from the step's net changes. Check mode
(``Trainer(..., check=True)``, ``--check-variant``) recounts the whole state after every step
and undo and names the first breach in one line.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol

from ..state import Merged

if TYPE_CHECKING:
    from ..config import TrainerConfig
    from ..events import MergeEvent
    from ..queue import PairQueue
    from ..state import TrainingState
    from .options import Option

__all__ = ["Bench", "Choice", "ChoiceTuple", "Merged", "MergedElsewhere", "Series", "Variant"]


class Bench(Protocol):
    """What a variant is handed at every hook: the trainer, seen only through these names."""

    config: "TrainerConfig"
    name: str
    first_step: int
    state: "TrainingState"
    queue: "PairQueue"

    @property
    def steps_done(self) -> int: ...

    @property
    def history(self) -> "list[MergeEvent]": ...

    def merge_list(self) -> list[tuple[int, int, int]]: ...

    def corpus_counts(self) -> tuple[dict[str, int], dict[str, int] | None]: ...

    def stop_reason_for(self, best: tuple | None, respect_target: bool) -> str | None: ...


@dataclass(frozen=True)
class Series:
    """A measure a variant follows over the merges, one line per label, for the explorer's
    Stats tab (parity-aware BPE: every language's development-text tokens).

    labels:  one name per line, in order (its languages)
    history: each label's value before the first merge and after each merge since, as rows
    title:   what is measured, in a few words (a chart's title)
    whole:   whether the values are whole numbers (False: ratios)
    turn:    whose turn it is next, when the variant takes turns (None: nobody's)
    """

    labels: tuple[str, ...]
    history: list[tuple]
    title: str
    whole: bool = True
    turn: str | None = None


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
               ``MergeEvent.reason``; ``str(reason)`` ends the event's explanation (the
               history's why line)
    """

    pair: str
    pair_count: int
    tie_count: int = 0
    ties: tuple = ()
    won: tuple | None = None
    other: tuple | None = None
    reason: Any = None


class MergedElsewhere:
    """The kind of :attr:`Choice.reason` that says the pair is merged in units the variant
    keeps itself, not in the trainer's words (see "Merges of units the variant keeps itself"
    in this module's docstring): BoundlessBPE's supermerge of two whole pre-tokens. A variant
    subclasses it for its own reason; ``str(reason)`` ends the event's explanation as any
    reason's does, and ``kind`` names the kind of merge in a word or two for the history."""

    kind = "merge elsewhere"


#: What :meth:`Variant.choose` returns when it merges: a :class:`Choice`, or a plain tuple of
#: the same seven fields in the same order (plain BPE's, made at every step: a NamedTuple's
#: own constructor is a Python call, 1% of a training run's instructions).
ChoiceTuple = tuple[str, int, int, tuple, "tuple | None", "tuple | None", Any]


class Variant:
    """A BPE variant: what chooses the next pair, and what happens after a merge (see the
    contract in this module's docstring). The base class is no variant: plain BPE is
    :class:`~bpe_tui.core.engine.variants.plain.PlainBPE`."""

    #: The name people read and type (``--variant NAME``, the status line, a saved table).
    name = ""
    #: Who proposed it, for ``--help``'s heading over its options ("PickyBPE (Chizhov et al. 2024)").
    title = ""
    #: Its options (:class:`~bpe_tui.core.engine.variants.options.Option`), declared once:
    #: ``--variant-option key=value`` on the command line, keyword arguments of the class.
    options: "Sequence[Option]" = ()
    #: The preset a run with this variant starts from unless another is given (None: the usual).
    preset: str | None = None
    #: Whether it trains on one corpus per language (``--language LANG=FILE``, ``Trainer.from_languages``).
    takes_languages = False
    #: Whether the explorer's default ``max_token_length`` may be put on it.
    takes_length_limit = True
    #: ``(class, options)`` it was made with by :func:`~bpe_tui.core.engine.registry.make_variant`
    #: (None: made otherwise); :meth:`fresh` makes another from it.
    made_with: "tuple[type[Variant], dict[str, Any]] | None" = None
    #: A mark the explorer draws beside the tokens :meth:`marks` picks ("⁀" beside SuperBPE's
    #: superwords), and what it means, for the keys' help ("" : no mark).
    token_mark = ""
    token_mark_means = ""
    #: Whether :meth:`after_merge` and :meth:`undo` do something; when False the trainer
    #: never calls them (plain BPE pays nothing for the seam on its hot path).
    acts_after_merge = False
    #: Whether :meth:`after_step` and :meth:`undo` do something (False: never called).
    acts_after_step = False
    #: Whether it may take tokens out of the vocabulary (``set_present``): then how many
    #: merges reach a vocabulary size is not known in advance (``Trainer.target_steps``).
    removes_tokens = False
    #: What its merges of units it keeps itself are called, for the history's legend
    #: ("supermerge": see :class:`MergedElsewhere`); "": it makes none.
    elsewhere_kind = ""
    #: What its events after a merge that split a token are called, for the history's legend
    #: ("deletion"); "": none, or PickyBPE's removals and restores (``removes_tokens``).
    split_kind = ""

    # ------------------------------------------------------------------ the declaration (the class's)

    @classmethod
    def wanted(cls, config: "TrainerConfig") -> bool:
        """Whether ``config`` asks for this variant (a built-in whose options are config
        fields: one of them set). A variant from elsewhere is asked for by name instead."""
        return False

    @classmethod
    def from_config(cls, config: "TrainerConfig", chunk_counts: Mapping[str, int] | None = None) -> "Variant":
        """The variant ``config`` asks for (see :meth:`wanted`); ``chunk_counts``: the
        corpus's other cut, for a variant that needs one."""
        return cls()

    @classmethod
    def about_table(cls, config: Mapping[str, Any], merges: int | None = None) -> list[tuple[str, str]]:
        """What ``inspect`` says about a saved table this variant made, from the table's
        config and its merge count (``merges``, when known): ``(label, text)`` rows (none: the
        table is not this variant's)."""
        return []

    @classmethod
    def encoding_rule(cls, config: Mapping[str, Any], merges: Any, vocab: Any, source: str) -> Any:
        """How a finished table of this variant encodes, when it differs from merges applied
        by rank (PickyBPE's removals, replayed in order with the merges): an object the
        table's encoder asks (see :class:`~bpe_tui.core.tables.removals.Removals`), or None."""
        return None

    @classmethod
    def marks(cls, surface: Any) -> bool:
        """Whether a token gets this variant's :attr:`token_mark` (any table's token: a
        superword is one wherever it comes from)."""
        return False

    @classmethod
    def said(cls) -> str:
        """Its name as a sentence says it: its title up to the parenthesis ("PickyBPE")."""
        return cls.title.split(" (")[0] or cls.name or cls.__name__

    @classmethod
    def config_notes(cls, config: "TrainerConfig") -> list[str]:
        """Notes ``bpe-tui train`` says about a config, before saving (SuperBPE: its preset
        without a transition trains stage 1 only); none for most."""
        return []

    @classmethod
    def save_needs(cls, config: "TrainerConfig") -> dict[str, bool]:
        """What a format must hold to save a table ``config`` trains, as ``check_save``'s
        keywords (SuperBPE: ``superwords``; PickyBPE: ``picky``); none for most."""
        return {}

    @classmethod
    def table_save_needs(cls, table: Any) -> dict[str, bool]:
        """:meth:`save_needs` for a table read from a file (``bpe-tui convert``)."""
        return {}

    @classmethod
    def config_fields(cls, given: Mapping[str, Any], start_merges: int | None, name: "Callable[[str], str]", requested: bool) -> dict[str, Any]:
        """The TrainerConfig fields the command line's options give this built-in
        (``given``: option key -> value, None where not given; ``start_merges``: the merges of
        the ``--from`` table, or None; ``name``: how messages name an option, its flag;
        ``requested``: whether any of its flags, or the languages it takes, were given). The
        base class: each option that is a config field, as given."""
        if not requested:
            return {}
        return {o.key: given[o.key] for o in cls.options if given.get(o.key) is not None}

    # ------------------------------------------------------------------ the hooks (the instance's)

    def attach(self, bench: Bench) -> None:
        """Build the variant's state from the trainer just built (see the contract)."""

    def choose(self, bench: Bench, respect_target: bool) -> ChoiceTuple | str:
        raise NotImplementedError

    def peek(self, bench: Bench) -> tuple | None:
        raise NotImplementedError

    def stop_reason(self, bench: Bench, respect_target: bool) -> str | None:
        """Why :meth:`choose` would stop now (see the contract); by default the trainer's own
        reasons for :meth:`peek`'s entry."""
        return bench.stop_reason_for(self.peek(bench), respect_target)

    def after_merge(self, bench: Bench, merged: Merged) -> tuple:
        return ()

    def after_step(self, bench: Bench, event: "MergeEvent") -> None:
        pass

    def undo(self, bench: Bench, event: "MergeEvent") -> None:
        pass

    def corpus_counts(self, bench: Bench) -> tuple[dict[str, int], dict[str, int] | None]:
        """The corpus as the trainer was built with it: ``(word counts, other cut or None)``."""
        st = bench.state
        return dict(zip(st.word_text, st.counts)), None

    def plain_words(self, bench: Bench) -> dict[str, int] | None:
        """The words plain BPE trains on to be measured against this variant at the same
        vocabulary size (the explorer's Evaluate trains that table beside it), or None: plain
        BPE itself, or a trainer that went on from a table (its corpus is not all it learned).
        By default the corpus the trainer was built with."""
        return None if bench.first_step else self.corpus_counts(bench)[0]

    def table_config(self, bench: Bench) -> Mapping[str, Any]:
        """What the variant adds to its table's config (see the contract)."""
        return {}

    def check(self, bench: Bench) -> str | None:
        """Check mode: the variant's own state against a recount, the first thing that
        disagrees in words (see the contract); None: nothing to check, or all agrees."""
        return None

    def describe(self) -> str:
        """A few words for status lines (empty for plain BPE, which needs none)."""
        return ""

    def summary(self, bench: Bench) -> list[str]:
        """Lines ``bpe-tui train`` prints after training with this variant (what it did)."""
        return []

    def fresh(self) -> "Variant | None":
        """A new variant like this one, for a trainer built again under other rules (the
        explorer's rules dialog); None: the new config's own (``variant_for``)."""
        if self.made_with is None:
            return None
        cls, values = self.made_with
        made = cls(**values)
        made.made_with = self.made_with
        return made

    def recount(self, config: "TrainerConfig", **count_options: Any) -> "tuple[dict[str, int], Variant] | None":
        """The corpus counted again under ``config``, with a new variant over it, for a
        variant whose corpus is not the trainer's files (parity-aware BPE: one per language);
        None: the files are counted as usual."""
        return None

    def measure_languages(self) -> tuple[str, ...]:
        """The languages the Evaluate view measures first, by name (empty: all it has)."""
        return ()

    def heading(self, bench: Bench) -> str:
        """What the explorer's history says of this variant over its list (" · ..."), or ""."""
        return ""

    def recut_step(self) -> int | None:
        """The merge after which this variant cuts the corpus anew (SuperBPE's K), or None:
        pair counts on either side of it cannot be compared."""
        return None

    def series(self) -> Series | None:
        """The measure it follows over the merges, for the explorer's Stats tab (None: none)."""
        return None

    def next_pick(self, bench: Bench) -> tuple | None:
        """The pair (surfaces) the next step merges by the rules when this variant chooses
        otherwise than the corpus's most frequent pair, or None (plain BPE's is the leader).
        By default :meth:`peek`'s pair, when it is not the queue's first."""
        mine = self.peek(bench)
        first = bench.queue.peek(1)
        if mine is None or (first and first[0][-1] == mine[-1]):
            return None
        surfaces = bench.state.surfaces
        return surfaces[ord(mine[-1][0])], surfaces[ord(mine[-1][1])]

    def turn(self) -> str | None:
        """Why :meth:`next_pick` is that pair, in a few words for the pair table's caption
        ("de's turn: its most frequent pair"), or None."""
        return None
