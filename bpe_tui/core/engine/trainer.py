"""The stepwise BPE trainer: one merge per ``step()``, exactly undoable.

How BPE training works, in four sentences. Split the corpus into words (pre-tokens) and count
each distinct word once. Write every word as a sequence of base symbols (bytes or characters).
Count every adjacent pair of symbols, weighted by the word's count, and merge the most frequent
pair everywhere into a new symbol. Repeat until the vocabulary is as large as you want.

What makes this trainer fast enough to watch live is that it never recounts. Its state is two
objects of their own: the :class:`~bpe_tui.core.engine.state.TrainingState` (the words and
their segmentations, ``pair -> count``, ``pair -> words`` that may hold it, the vocabulary,
the constraints) and the :class:`~bpe_tui.core.engine.queue.PairQueue` (every pair, best
first, with lazy invalidation). A merge rewrites only the words that contain the pair
(:func:`~bpe_tui.core.engine.rewrite.merge_word`) and changes only the counts of the pairs
around each occurrence. Each step records the old segmentations of the words it rewrote and
the count changes it made, so ``undo()`` is the exact inverse.

What this module still holds, and why here: the step itself (:meth:`Trainer._apply`: merge,
let the variant act, make the event), its undo, ``goto`` and ``run``; the history and the
*plan* of pairs chosen by hand (:meth:`Trainer.step`); the stop reasons (the target, the
corpus running out); and the trainer's narrow questions (top pairs, segmentations, the table
so far). Counting a corpus is :mod:`~bpe_tui.core.engine.counting`'s; the tie-break rules are
:mod:`~bpe_tui.core.engine.tiebreak`'s; words are stored as id strings (one character per id,
so that a merge is ``str.replace`` in C), see :mod:`~bpe_tui.core.engine.speed`.

What chooses each pair, and what happens after a merge, is the BPE variant's (plain BPE unless
the config asks for another), through one typed seam (:mod:`~bpe_tui.core.engine.variants.seam`):
it is handed this trainer as a ``Bench`` (the state, the queue and a few questions).

Beyond the rules, a person can steer: ``step(pair=...)`` merges a pair chosen by hand (undo
and goto replay it, see :meth:`Trainer.step`); ``Trainer.from_table`` goes on from a saved
table; ``max_token_length`` and ``no_merge_across`` forbid some pairs (see
:meth:`Trainer.forbidden_pair_count`).

Why this module is long: the code is under 600 lines; the rest is the public constructors'
and stepping methods' parameter tables (Args, Returns, Raises), which the API reference shows.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import TYPE_CHECKING, Any

from ..errors import BPEError
from .checks import check_text, checked_counts
from .config import TrainerConfig, check_vocab_size
from .counting import file_counts, iterator_counts, table_counts, text_counts
from .events import TIES_LISTED, Context, MergeEvent
from .queue import PairQueue
from .questions import Questions
from .rewrite import merge_word
from .speed import fast_constructor, ids_of, key_of, pairs_of
from .start import table_config
from .state import Merged, TrainingState
from .tiebreak import make_rule, show_pair
from .variants import Variant
from .variants.seam import MergedElsewhere
from .registry import plain_config, variant_for
from .variants.superbpe import plain_words, segment_chunks  # (their old home: kept importable from here)
from .verify import guard, guarded

if TYPE_CHECKING:
    from ..tables.table import MergeTable
    from ..text.datasets.records import ReadReport


__all__ = ["MergeEvent", "Trainer", "TIES_LISTED", "merge_word", "plain_counterpart", "plain_words", "segment_chunks", "table_config"]

_new_event = fast_constructor(MergeEvent)


#: What undo needs beside the step's event (which has the pair, new_id and the count changes,
#: see Trainer.undo): ``(created, old_words, tokens_saved, rewritten)``: whether the merge made
#: a new vocabulary entry; the rewritten words' old segmentations as ``(word, old)``, or None
#: when undo splits new_id instead; how many tokens the step saved; the words a variant
#: rewrote after the merge, as ``(word, old)`` in order (None: the variant does not act). A tuple of plain values, which
#: the garbage collector stops tracking, where a record object per step stayed tracked and was
#: walked by every full collection.
_UndoRecord = tuple[bool, "tuple[tuple[int, str], ...] | None", int, "tuple[tuple[int, str], ...] | None"]


def plain_counterpart(words: Mapping[str, int], config: TrainerConfig, vocab_size: int, name: str = "plain") -> "MergeTable":
    """The plain BPE table the same corpus gives at the same vocabulary size: ``words`` (a
    variant's ``plain_words``) trained under ``config`` without the variant (every variant
    option the registry knows cleared), to ``vocab_size``: what a variant is measured against."""
    trainer = Trainer(words, plain_config(config, vocab_size), name=name)
    for _ in trainer.run():
        pass
    return trainer.table


class Trainer(Questions):
    """A BPE trainer you can step, undo and jump around in.

    Build one with :meth:`from_text`, :meth:`from_files` or :meth:`from_counts` (or go on
    from a saved table with :meth:`from_table`); then call :meth:`step` for one merge (or
    ``step(pair=...)`` for a pair of your choice), :meth:`undo` to take it back, :meth:`goto`
    to jump to any step, or iterate :meth:`run` to train to the configured target.
    """

    # Speed: every attribute is a slot (CPython 3.11 keeps an instance's attributes in a
    # compact array, with specialized access on ``self``, only up to 30 of them; slots have no
    # such limit). A new attribute must be added here (assigning one that is not fails loudly).
    __slots__ = (
        "config", "first_step", "name", "table_rules", "state", "queue",
        "_plan", "_made", "_history", "_undo", "_variant", "_choose", "_after", "_after_step", "_check",
    )

    # ------------------------------------------------------------------ construction

    def __init__(
        self,
        word_counts: Mapping[str, int],
        config: TrainerConfig | None = None,
        name: str = "corpus",
        start: "MergeTable | None" = None,
        chunk_counts: Mapping[str, int] | None = None,
        variant: Variant | None = None,
        check: bool = False,
    ):
        """Train on ``word_counts``: pre-token -> count, in order of first appearance.

        ``variant``: the BPE variant that chooses each pair and acts after each merge (see
        :mod:`~bpe_tui.core.engine.variants`), a built-in or your own; None: the one the
        config asks for (:func:`~bpe_tui.core.engine.registry.variant_for`: plain BPE
        unless set otherwise). ``check``: recount the whole state after every step and undo
        and raise a one-line :class:`~bpe_tui.core.errors.VariantError` where it disagrees
        (a variant that broke the seam's contract; see :mod:`~bpe_tui.core.engine.verify`).

        ``chunk_counts``: the corpus's other cut, for a variant that switches to it (SuperBPE's
        stage-2 chunks, see :mod:`~bpe_tui.core.engine.variants.superbpe`); the ``from_*``
        constructors count it (:mod:`~bpe_tui.core.engine.counting`).

        With ``start`` (a MergeTable), go on from that table: its merges are applied to the
        words first (by rank, as encoding does), its ids are kept, and new merges get ids
        after its vocabulary; the table's units, pre-tokenizer, end-of-word marker, lowercase
        and special tokens replace ``config``'s (see :func:`table_config`;
        :attr:`table_rules` says what was taken). ``word_counts`` must have been counted
        under those rules (:meth:`from_table` does it).
        """
        self.table_rules: list[str] = []  # what a start table decided, by name
        if start is not None:
            config, self.table_rules = table_config(start, config)
        self.config = config or TrainerConfig()
        self.name = name
        cfg = self.config

        word_text, counts = checked_counts(word_counts)
        check_text(word_text, cfg, name)
        st = self.state = TrainingState(cfg, word_text, counts, name, start, self.table_rules)
        self.first_step = st.first_step
        least = st.vocab_size if start is not None else st.base_count + len(st.special_ids)
        if start is not None and cfg.vocab_size is not None and cfg.vocab_size < least:
            raise BPEError(f"{name}: vocabulary size {cfg.vocab_size:,} is smaller than the {least:,} tokens the start table already has")
        check_vocab_size(cfg.vocab_size, st.base_count, len(st.special_ids), name)

        # The tie-break rule, with its per-token material (see tiebreak.py), orders the queue.
        rule = make_rule(  # (the first-seen alphabet's ids are in its own order: kept)
            cfg.tie_break, st.surfaces, cfg.units, cfg.end_of_word, st.base_count, len(st.special_ids),
            keep_ids=start is not None or cfg.alphabet == "first-seen",
        )
        self.queue = PairQueue(st, rule)
        st.context = Context(rule, st.word_text, st.counts, cfg.end_of_word)  # what every explanation shares

        # Hand-chosen pairs by step (see step): replayed when going forward again.
        self._plan: dict[int, tuple[int, int]] = {}
        #: merged token id -> the surface it was made as; an id made again after an undo as
        #: another token (a hand choice went another way) makes the queue's keys stale.
        self._made: dict[int, object] = {}
        self._history: list[MergeEvent] = []  # one event per step, and what undo needs besides:
        self._undo: list[_UndoRecord] = []
        self.stop_reason: str | None = None
        self._variant = v = variant if variant is not None else variant_for(self.config, chunk_counts)
        # (a variant from outside the package has its hooks' errors made one line: see verify.py)
        self._choose = guard(v, v.choose)
        self._after = guard(v, v.after_merge) if v.acts_after_merge else None
        self._after_step = guard(v, v.after_step) if v.acts_after_step else None
        self._check: Callable[[str], None] | None = None
        guarded(v, "attach", self)
        if check:
            self.check_variant(True)

    @classmethod
    def from_counts(
        cls, counts: Mapping[str, int], config: TrainerConfig | None = None, name: str = "counts",
        chunk_counts: Mapping[str, int] | None = None, variant: Variant | None = None, check: bool = False,
    ) -> "Trainer":
        """A trainer on word counts made elsewhere.

        Args:
            counts: ``{pre-token: count}``, in order of first appearance.
            config: The rules (None: ``TrainerConfig()``, the gpt2 preset).
            name: What messages call the corpus.
            chunk_counts: The stage-2 chunks' counts, for ``superwords_after``.
            variant: A variant made by its own constructor (see :meth:`__init__`).
            check: Recount after every step and stop at a variant's breach of the contract.

        Returns:
            The trainer at step 0.
        """
        if not counts:
            raise BPEError(f"{name}: the corpus is empty (no words to train on)")
        return cls(counts, config, name=name, chunk_counts=chunk_counts, variant=variant, check=check)

    @classmethod
    def from_languages(
        cls, corpora: Mapping, dev: Mapping | None = None, config: TrainerConfig | None = None, ratio: Mapping | None = None, **count_options: Any,
    ) -> "Trainer":
        """Parity-aware BPE (:mod:`~bpe_tui.core.engine.variants.parity`): one corpus per language.

        Args:
            corpora: Language -> its corpus (a path or paths).
            dev: Language -> its development text (multi-parallel), for every language.
            config: The rules (None: the parity preset with ``parity="base"``).
            ratio: Instead of ``dev``: language -> its target compression ratio.
            **count_options: Each language's counting (errors, workers, progress, ...).

        Returns:
            The trainer at step 0; each event's ``reason`` is a
            :class:`~bpe_tui.core.engine.variants.parity.ParityChoice`.
        """
        from .variants.parity import language_counts

        words, config, variant, name = language_counts(corpora, dev, ratio, config, **count_options)
        return cls(words, config, name=name, variant=variant)

    @classmethod
    def from_text(cls, text: str, config: TrainerConfig | None = None, name: str = "text", variant: Variant | None = None) -> "Trainer":
        """A trainer on a string, read line by line exactly as a file would be.

        Args:
            text: The corpus.
            config: The rules (None: ``TrainerConfig()``, the gpt2 preset).
            name: What messages call the corpus.
            variant: A variant made by its own constructor (see :meth:`__init__`).

        Returns:
            The trainer at step 0.
        """
        config = config or TrainerConfig()
        words, chunks, name = text_counts(text, config, name)
        return cls.from_counts(words, config, name=name, chunk_counts=chunks, variant=variant)

    @classmethod
    def from_files(
        cls,
        paths: Iterable[str],
        config: TrainerConfig | None = None,
        errors: str = "strict",
        progress: Callable[[int, int], None] | None = None,
        counts: bool = False,
        workers: int | None = None,
        client: Any = None,
        text_field: str = "text",
        skip_bad_records: bool = False,
        report: "ReadReport | None" = None,
        variant: Variant | None = None,
        check: bool = False,
    ) -> "Trainer":
        """A trainer on files, directories (every corpus file below), globs or ``-`` (stdin).

        Text, compressed or not, JSON lines and Parquet are read (each record's
        ``text_field`` a document). The merges do not depend on ``workers`` or ``client``.
        The counting is :func:`~bpe_tui.core.engine.counting.file_counts`.

        Args:
            paths: A path or paths.
            config: The rules (None: ``TrainerConfig()``, the gpt2 preset).
            errors: "strict" (bytes that are not UTF-8 are an error naming the byte) or "replace".
            progress: ``progress(bytes_read, total_bytes)`` as the reading goes (ranges on Dask).
            counts: The inputs are ``word<TAB>count`` files (see corpus.py), not text.
            workers: Processes counting words in parallel (None: the CPU count for big inputs,
                see :func:`~bpe_tui.core.text.corpus.count_files`).
            client: Count on Dask instead: a Client, a scheduler address or ``"local"`` (see
                :func:`~bpe_tui.core.text.distributed.count_words`).
            text_field: JSON lines / Parquet: the field holding the text.
            skip_bad_records: JSON lines / Parquet: skip records without it.
            report: A ReadReport, filled in with what the reading met.
            variant: A variant made by its own constructor (see :meth:`__init__`).
            check: Recount after every step and stop at a variant's breach of the contract.

        Returns:
            The trainer at step 0.
        """
        config = config or TrainerConfig()
        words, chunks, name = file_counts(
            paths, config, counts=counts, report=report, client=client, errors=errors, progress=progress, workers=workers,
            text_field=text_field, skip_bad_records=skip_bad_records,
        )
        return cls.from_counts(words, config, name=name, chunk_counts=chunks, variant=variant, check=check)

    @classmethod
    def from_iterator(
        cls,
        texts: Iterable[str],
        config: TrainerConfig | None = None,
        errors: str = "strict",
        progress: Callable[[int, int], None] | None = None,
        name: str = "texts",
    ) -> "Trainer":
        """A trainer on any iterable of strings, each one document.

        A ``datasets`` column, a generator, a list (Hugging Face tokenizers'
        ``train_from_iterator``). Each is read as a text file holding it would be, and no
        pre-token spans two; the iterable is read once (see
        :mod:`~bpe_tui.core.text.datasets.iterables`).

        Args:
            texts: The documents.
            config: The rules (None: ``TrainerConfig()``, the gpt2 preset).
            errors: "strict" or "replace", for surrogates that are not text.
            progress: ``progress(items, len(texts))`` as it goes (the length 0 when the
                iterable has none).
            name: What messages call the corpus.

        Returns:
            The trainer at step 0.
        """
        config = config or TrainerConfig()
        words, chunks, name = iterator_counts(texts, config, errors, progress, name)
        return cls.from_counts(words, config, name=name, chunk_counts=chunks)

    @classmethod
    def from_table(
        cls, table: "MergeTable", paths: Iterable[str] | str, config: TrainerConfig | None = None, **count_options: Any
    ) -> "Trainer":
        """Go on training from a saved table on the corpus at ``paths``.

        The table's merges are applied to the corpus first, its ids are kept, and new merges
        get ids after its vocabulary; :attr:`first_step` is the number of merges inherited,
        and event steps number on from it (the first new merge after GPT-2's 50,000 is step
        50,001). The corpus is read under the table's units, pre-tokenizer, end-of-word
        marker, lowercase and special tokens (see :func:`table_config`; :attr:`table_rules`
        names them).

        Args:
            table: The table to go on from.
            paths: The corpus (as :meth:`from_files` takes it).
            config: The rest of the rules (tie-break, target, constraints).
            **count_options: :meth:`from_files`'s (errors, progress, counts, workers, client,
                text_field, skip_bad_records, report; and ``variant``).

        Returns:
            The trainer at :attr:`first_step`.
        """
        variant = count_options.pop("variant", None)
        words, chunks, name = table_counts(table, paths, config, **count_options)
        return cls(words, config, name=name, start=table, chunk_counts=chunks, variant=variant)

    # ------------------------------------------------------------------ stepping

    def step(self, pair: tuple | None = None) -> MergeEvent | None:
        """Apply one merge and return its event, or None when training is finished.

        Without ``pair``: the pair the rules pick (the first of :meth:`top_pairs`), unless
        this step was chosen by hand before (see below). With ``pair``: that pair instead,
        by hand; the event says ``manual=True``. min_frequency does not apply to a pair
        chosen by hand, but the target does.

        Hand choices survive undo and goto. The trainer keeps a *plan*: step number -> the
        pair chosen by hand there. Going forward over a planned step (``step()``, ``goto``,
        ``run``) replays the planned pair, so undo then redo, or ``goto(0)`` then ``goto(k)``,
        reproduce the same merges. What replaces the plan: ``step(pair=...)`` at step k
        records that pair for step k and, if it differs from what step k did before (by
        hand or by the rules), forgets every hand choice after k (they were made in a future
        that no longer follows); choosing the same pair again keeps them.
        :meth:`forget_manual` drops hand choices ahead on request, so that ``step()`` goes by
        the rules again. :meth:`planned_pair` says what the next step will replay.

        Finished means the target (vocab_size or merges) is reached, or nothing is left to
        merge (no pairs, or the best pair is below min_frequency); :attr:`stop_reason` says
        which.

        Args:
            pair: ``(left, right)`` surfaces, as in :attr:`MergeEvent.pair`, to merge by hand.

        Returns:
            The merge's event (with what the variant did right after it in its ``after``),
            or None when finished.

        Raises:
            BPEError: The pair chosen by hand does not occur now, or a constraint forbids it.
        """
        if pair is not None:
            return self._step_by_hand(pair)
        return self._step(respect_target=True)

    def _step(self, respect_target: bool) -> MergeEvent | None:
        if self._plan:  # speed: no plan lookup (and steps_done call) per step when nothing was chosen by hand
            planned = self._plan.get(self.steps_done + 1)
            if planned is not None:
                return self._replay(planned, respect_target)
        choice = self._choose(self, respect_target)  # the seam: what chooses the next pair
        if isinstance(choice, str):
            self.stop_reason = choice
            return None
        self.stop_reason = None
        pair, count, tie_count, ties, won, other, reason = choice
        if reason is not None and isinstance(reason, MergedElsewhere):  # (the pair lives in the variant's own units)
            return self._apply(pair, count, tie_count, ties, won, other, reason, False, True)
        return self._apply(pair, count, tie_count, ties, won, other, reason)

    def _step_by_hand(self, pair: tuple) -> MergeEvent | None:
        """``step(pair=...)``: check the pair, record it in the plan, merge it."""
        if not isinstance(pair, (tuple, list)) or len(pair) != 2:
            raise BPEError(f"a pair to merge is (left, right), not {pair!r}")
        key = self._pair_key(tuple(pair))
        shown = show_pair(pair, self.config.end_of_word)
        if key is None and (kind := self._surface_kind_error(pair)) is not None:
            raise BPEError(f"cannot merge {shown}: {kind}")
        if key is None or not self.state.pair_counts.get(key):
            raise BPEError(f"cannot merge {shown}: the pair does not occur in the corpus now (step {self.steps_done})")
        reason = self.state.forbidden_reason(key)
        if reason is not None:
            raise BPEError(f"cannot merge {shown}: {reason}")
        target = self._target_reason()
        if target is not None:
            self.stop_reason = target
            return None
        k = self.steps_done + 1
        ids = ids_of(key)
        if self._plan.get(k) != ids and not self._did_before(k, ids):
            self._plan = {s: p for s, p in self._plan.items() if s < k}
        self._plan[k] = ids
        return self._replay(ids, respect_target=True)

    def _peek(self) -> tuple | None:
        """The queue entry the variant's rules would merge next (its ``peek``)."""
        return guarded(self._variant, "peek", self)

    def _did_before(self, k: int, ids: tuple[int, int]) -> bool:
        """Whether step k merged ``ids`` the last time it was taken (no plan entry: by the
        rules, which are deterministic, so the step the rules would take now)."""
        if k in self._plan:
            return False
        best = self._peek()
        return best is not None and ids_of(best[-1]) == ids

    def _replay(self, ids: tuple[int, int], respect_target: bool) -> MergeEvent | None:
        """Merge the hand-chosen pair ``ids`` (from the plan) as this step."""
        if respect_target:
            target = self._target_reason()
            if target is not None:
                self.stop_reason = target
                return None
        key = key_of(*ids)
        count = self.state.pair_counts.get(key, 0)
        if not count:  # cannot happen on a path the plan was made on; go by the rules from here
            self._plan = {s: p for s, p in self._plan.items() if s <= self.steps_done}
            return self._step(respect_target)
        self.stop_reason = None
        return self._apply(key, count, 0, (), None, self._peek(), None, True)  # (the rules' pick, which the explanation names)

    def forget_manual(self, after: int | None = None) -> int:
        """Forget the hand choices of the steps after ``after`` (default: the current step),
        so that going forward follows the rules; return how many were forgotten."""
        after = self.steps_done if after is None else after
        before = len(self._plan)
        self._plan = {s: p for s, p in self._plan.items() if s <= after}
        return before - len(self._plan)

    def _apply(
        self, pair: str, count: int, tie_count: int, ties: tuple, won: tuple | None, other: tuple | None,
        reason: object = None, manual: bool = False, elsewhere: bool = False,
    ) -> MergeEvent:
        """Merge ``pair`` (an internal key) everywhere, let the variant act after it, and
        return the event; the rest of the arguments are what the event reports and explains
        (the first seven are a variant's Choice; ``won`` and ``other`` are queue entries: see
        MergeEvent's ``_won`` and ``_other``; ``reason``: the variant's account of its choice;
        ``manual``: the pair was chosen by hand; ``elsewhere``: the variant merges it in units
        of its own, the words are left as they are: see seam.MergedElsewhere)."""
        st = self.state
        a, b = ids_of(pair)
        surfaces = st.surfaces
        new_surface = surfaces[a] + surfaces[b]
        new_id = st.surface_to_id.get(new_surface)
        created = new_id is None
        stale_keys = False
        if new_id is None:
            new_id = st.add_token(new_surface)
            self.queue.rule.add_token(a, b, new_id)
            # Queue entries name tokens by id and carry their tie-break key; under the fixed-key
            # rules an entry whose count is current is trusted as it is (PairQueue.pop). An id
            # made before as another token and undone (a hand choice went another way) can still
            # stand in entries with that token's key: rebuild the queue once the counts are in.
            stale_keys = self._made.setdefault(new_id, new_surface) != new_surface
            if stale_keys:
                self._made[new_id] = new_surface
        new = chr(new_id)

        changes: dict[str, int] = {}
        pc = st.pair_counts
        where = st.where
        touched: list[int]
        olds: list[str]
        occurrences: dict[int, int]
        if elsewhere:
            touched, olds, saved, occurrences = [], [], 0, {}
        else:
            touched, olds, saved, occurrences = merge_word(st.words, sorted(where.pop(pair, ())), pair, new, st.counts, changes, where, not created)
            # The merged pair is gone everywhere (with a == b the local deltas above also touched
            # it; every occurrence has been merged or absorbed, so its count is exactly zero).
            changes[pair] = -pc.get(pair, 0)
        st.total_tokens -= saved
        befores = st.apply_changes(changes)
        if created and stale_keys:
            self.queue.requeue_all()
        after: tuple = ()
        rewritten = None
        if self._after is not None:  # the seam: what the variant does after the merge
            merged = Merged(pair, new_id, created, touched, None if created else olds, saved, changes, befores, elsewhere=elsewhere)
            try:
                after = self._after(self, merged)
            except Exception:  # (a variant's own: the merge is taken back, the trainer stays usable)
                self._take_back(created, None if created else tuple(zip(touched, olds)), merged, new_id, pair, touched)
                raise
            saved, rewritten = merged.saved, tuple(merged.rewritten)

        # speed: the fields go as one dict display. A call with more than 15 keyword arguments
        # compiles (CPython 3.11) to building a dict, unpacking it into the call and building
        # it again for the callee: ~3% of the instructions of a training run, at 17 fields.
        event = _new_event({
            "step": self.first_step + len(self._history) + 1,  # steps_done + 1, without the property's call
            "pair": (surfaces[a], surfaces[b]),
            "pair_ids": (a, b),
            "new_id": new_id,
            "new_token": new_surface,
            "count": count,
            "tie_count": tie_count,
            "ties": ties,
            "rule": self.config.tie_break,
            "words_touched": tuple(touched),
            "total_tokens": st.total_tokens,
            "vocab_size": len(surfaces) - st.holes,
            "manual": manual,
            "_changes": changes,
            "_before": befores,
            "_surfaces": surfaces,
            "_won": won,
            "_other": other,
            "_occurrences": occurrences or None,
            "_context": st.context,
        })
        if after or reason is not None:  # (plain BPE's defaults are the class's: see fast_constructor)
            event.__dict__.update(after=after, reason=reason)
        st.surfaces_shared = True
        # Old segmentations are kept only when the merge reused an existing token: when it
        # created new_id, undo gets them back by splitting every new_id into (a, b), which
        # saves most of the history's memory (80 MB of 250 on a 28 MB corpus).
        self._history.append(event)
        self._undo.append((created, None if created else tuple(zip(touched, olds)), saved, rewritten))
        if self._after_step is not None:  # the seam: what the variant does once the step is recorded
            try:
                self._after_step(self, event)
            except Exception:
                self._pop_step(call_variant=False)
                raise
        if self._check is not None:
            self._check("step")
        return event

    def _take_back(self, created: bool, old_words, merged: Merged, new_id: int, pair: str, touched: list[int]) -> None:
        """Undo a merge whose variant failed in ``after_merge`` (no event was made): the words
        it and the variant rewrote, the counts, the token it made."""
        st = self.state
        words, where = st.words, st.where
        for w, old in reversed(merged.rewritten):
            words[w] = old
            for p in pairs_of(old):
                where[p][w] = None
        new, olds = chr(new_id), old_words
        for w, old in (olds if olds is not None else ((w, words[w].replace(new, pair)) for w in touched)):
            words[w] = old
            for p in pairs_of(old):
                where[p][w] = None
        st.total_tokens += merged.saved
        st.apply_changes({p: -d for p, d in merged.changes.items() if d})
        if created:
            st.drop_last_token()
            self.queue.rule.drop_last_token()

    def undo(self) -> MergeEvent | None:
        """Take back the last merge exactly (and what the variant did after it).

        A hand choice at the step undone stays in the plan (see :meth:`step`).

        Returns:
            The event undone; None at step 0, or at :attr:`first_step` when going on from a
            table (its merges cannot be undone).
        """
        if not self._history:
            return None
        event = self._pop_step(call_variant=True)
        if self._check is not None:
            self._check("undo")
        return event

    def _pop_step(self, call_variant: bool) -> MergeEvent:
        """Take back the last step: the variant's own state first (``call_variant``), then
        the words it and the merge rewrote, the counts, the merge itself."""
        event = self._history[-1]
        if call_variant and (self._after is not None or self._after_step is not None):  # (its corpus too)
            guarded(self._variant, "undo", self, event)
        self._history.pop()
        created, old_words, tokens_saved, rewritten = self._undo.pop()
        st = self.state
        words = st.words
        where = st.where
        if rewritten:  # then the words it rewrote after the merge
            for w, old in reversed(rewritten):
                words[w] = old
                for p in pairs_of(old):
                    where[p][w] = None
        for w, old in self._old_segmentations(event, old_words):
            words[w] = old
            for p in pairs_of(old):
                where[p][w] = None
        st.total_tokens += tokens_saved
        st.apply_changes({p: -d for p, d in event._changes.items() if d})
        if created:
            st.drop_last_token()
            self.queue.rule.drop_last_token()
        self.stop_reason = None
        return event

    def _old_segmentations(self, event: MergeEvent, old_words) -> Iterator[tuple[int, str]]:
        """``(word, segmentation before the merge)`` for each word the merge of ``event`` rewrote.

        Undo is last-in first-out, so the words are exactly as the merge left them; when it
        created new_id (no ``old_words`` kept), every new_id in them came from it and splits
        back into (a, b).
        """
        if old_words is not None:
            yield from old_words
            return
        new = chr(event.new_id)
        pair = key_of(*event.pair_ids)
        words = self.state.words
        for w in event.words_touched:
            yield w, words[w].replace(new, pair)

    def goto(self, k: int) -> int:
        """Move to the state after exactly ``k`` merges, forward or back.

        Going forward ignores the vocab_size / merges target and replays hand choices (see
        :meth:`step`); the state equals training ``k`` merges from scratch driven the same
        way. Afterwards :attr:`stop_reason` says why a step would stop where it stands
        ("beyond the target ..." past the target, "reached ..." at it, the corpus's reason
        where it ran out; None where training can go on).

        Args:
            k: The number of merges to stand after.

        Returns:
            The step reached: ``k``, or less where the corpus ran out first (nothing left to
            merge, or the best pair below min_frequency).

        Raises:
            BPEError: ``k`` is not a whole number of 0 or more, or is below :attr:`first_step`.
        """
        if isinstance(k, bool) or not isinstance(k, int):
            raise BPEError(f"cannot go to step {k!r}: a step is a whole number")
        if k < 0:
            raise BPEError(f"cannot go to step {k}: steps start at 0")
        if k < self.first_step:
            raise BPEError(f"cannot go to step {k:,}: the first {self.first_step:,} merges come from the start table")
        while self.steps_done > k:
            self.undo()
        while self.steps_done < k:
            if self._step(respect_target=False) is None:
                break
        self.stop_reason = self._stop_check(respect_target=True)
        return self.steps_done

    def run(self, max_steps: int | None = None) -> Iterator[MergeEvent]:
        """Step until finished (or ``max_steps`` merges), yielding each event.

        A generator, so a UI can interleave rendering, progress and cancellation.

        Args:
            max_steps: At most this many merges (None: to the target).

        Yields:
            Each merge's event, in order.
        """
        done = 0
        while max_steps is None or done < max_steps:
            event = self.step()
            if event is None:
                return
            done += 1
            yield event

    # ------------------------------------------------------------------ checking

    def check_variant(self, on: bool = True) -> None:
        """Check mode (``--check-variant``): after every step and undo, recount the whole state
        and raise a one-line :class:`~bpe_tui.core.errors.VariantError` where the variant
        left it inconsistent (a count gone negative or wrong, a token that does not exist, a
        word whose tokens no longer spell it); ``on=False`` turns it off. Slow: a recount per step."""
        from .verify import StateCheck  # (its recount, only in check mode)

        self._check = StateCheck(self) if on else None
