"""The stepwise BPE trainer: one merge per ``step()``, exactly undoable.

How BPE training works, in four sentences. Split the corpus into words (pre-tokens) and count
each distinct word once. Write every word as a sequence of base symbols (bytes or characters).
Count every adjacent pair of symbols, weighted by the word's count, and merge the most frequent
pair everywhere into a new symbol. Repeat until the vocabulary is as large as you want.

What makes this trainer fast enough to watch live is that it never recounts. It keeps:

* ``pair -> count`` for every adjacent pair in the corpus (overlapping occurrences count:
  ``aaaa`` holds three ``(a, a)``; the merge itself replaces left to right, non-overlapping);
* ``pair -> words`` that may contain it (a superset; stale members are skipped or pruned);
* a priority queue (heap) whose key is ``(-count, tie-break key)``, so the best pair is the
  first valid entry. Entries go stale when counts change; a stale entry is re-queued or
  dropped when it reaches the top ("lazy invalidation").

A merge rewrites only the words that contain the pair (:func:`~bpe_tui.core.engine.rewrite.merge_word`) and changes only
the counts of the pairs around each occurrence. Each step records the old segmentations of
the words it rewrote and the count changes it made, so ``undo()`` is the exact inverse.

Words are stored as strings of token ids, one character per id, so that a merge is
``str.replace`` in C: see :mod:`~bpe_tui.core.engine.speed` for that and the other speed helpers. The
tie-break rules (which pair wins when counts are equal) are in :mod:`~bpe_tui.core.engine.tiebreak`.

What chooses each pair, and what happens after a merge, is the BPE variant's: plain BPE (the
most frequent pair, nothing after) unless the config asks for another, such as PickyBPE. The
variant plugs in through one seam, whose contract is :mod:`~bpe_tui.core.engine.variants`.

Beyond the rules, a person can steer: ``step(pair=...)`` merges a pair chosen by hand (undo
and goto replay it, see :meth:`Trainer.step`); ``Trainer.from_table`` goes on from a saved
table; ``max_token_length`` and ``no_merge_across`` forbid some pairs (see
:meth:`Trainer.forbidden_pair_count`).

Why this module is long: the step, its undo and the queue they share are one piece of state
whose invariants (counts, pair -> words, the heap, the history) hold only together; the hot
loop reads them as locals of one class, and splitting it over modules would trade the reader's
one place for attribute lookups on every merge (benchmarks/against.py measures the cost).
SuperBPE's transition, which swaps that state from the words to the chunks and back on undo,
is a variant (:mod:`~bpe_tui.core.engine.variants.superbpe`): it installs the other corpus
through the seam (``_install_corpus``), and the trainer holds no rule of its own.
"""

from __future__ import annotations

import heapq
import os
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import replace
from operator import mul
from typing import TYPE_CHECKING, Any

import regex

from ..errors import BPEError
from ..wording import plural
from .alphabet import fresh_alphabet
from .config import TrainerConfig, check_vocab_size
from .constraints import MIXED, class_standing
from .checks import check_text, checked_counts
from .events import TIES_LISTED, Context, MergeEvent, TransitionEvent
from .rewrite import merge_word
from .start import table_config
from .speed import (
    MAX_TOKEN_ID,
    fast_constructor,
    ids_of,
    key_of,
    pair_index,
    pairs_of,
    surface_pair,
)
from .superwords import stage2_pretokenizer
from .tiebreak import TieBreakRule, make_rule, show, show_pair
from .variants import Merged, Variant, variant_for
from .variants.superbpe import count_each, count_stages, no_chunks_from_counts, plain_words, segment_chunks

if TYPE_CHECKING:
    from ..tables.table import MergeTable
    from ..text.datasets.records import ReadReport


__all__ = ["MergeEvent", "Trainer", "TIES_LISTED", "merge_word", "plain_counterpart", "plain_words", "segment_chunks", "table_config"]

_new_event = fast_constructor(MergeEvent)


def _kept(items: list, dropped: frozenset[int]) -> list:
    """``items`` (one per merge, in rank order) without those of the ``dropped`` ranks."""
    return [x for r, x in enumerate(items) if r not in dropped] if dropped else items


#: What undo needs beside the step's event (which has the pair, new_id and the count changes,
#: see Trainer.undo): ``(created, old_words, tokens_saved, rewritten)``: whether the merge made
#: a new vocabulary entry; the rewritten words' old segmentations as ``(word, old)``, or None
#: when undo splits new_id instead; how many tokens the step saved; the words a variant
#: rewrote after the merge, as ``(word, old)`` in order (None: the variant does not act). A tuple of plain values, which
#: the garbage collector stops tracking, where a record object per step stayed tracked and was
#: walked by every full collection.
_UndoRecord = tuple[bool, "tuple[tuple[int, str], ...] | None", int, "tuple[tuple[int, str], ...] | None"]


# ---------------------------------------------------------------------- superwords: the plain table to compare


def plain_counterpart(words: Mapping[str, int], config: TrainerConfig, vocab_size: int, name: str = "plain") -> "MergeTable":
    """The plain BPE table the same corpus gives at the same vocabulary size: ``words`` (a
    variant's ``plain_words``) trained under ``config`` without the variant (no superwords, no
    removals, no parity), to ``vocab_size``: what a variant is measured against."""
    plain = replace(config, superwords_after=None, picky=None, parity=None, global_merges=0, vocab_size=vocab_size, merges=None)
    trainer = Trainer(words, plain, name=name)
    for _ in trainer.run():
        pass
    return trainer.table


def _check_words(word_counts: Mapping[str, int], paths: list[str]) -> None:
    """A corpus with no words is an error that names its files as the user gave them."""
    if not word_counts:
        from ..text.sources import corpus_where

        raise BPEError(f"{corpus_where(paths)}: the corpus is empty (no words to train on)")


class Trainer:
    """A BPE trainer you can step, undo and jump around in.

    Build one with :meth:`from_text`, :meth:`from_files` or :meth:`from_counts` (or go on
    from a saved table with :meth:`from_table`); then call :meth:`step` for one merge (or
    ``step(pair=...)`` for a pair of your choice), :meth:`undo` to take it back, :meth:`goto`
    to jump to any step, or iterate :meth:`run` to train to the configured target.
    """

    # Speed: every attribute is a slot. CPython 3.11 keeps an instance's attributes in a
    # compact shared-key array (fast, specialized attribute and method access on ``self``)
    # only up to 30 of them; past that the instance gets an ordinary dict and every
    # ``self.x`` and ``self.method()`` in the stepping loop takes a slower path. The
    # trainer has more than 30 (38 since start tables, constraints and explanations came
    # in: 2% more instructions training tinyshakespeare -> 10k). Slots have no such limit.
    # A new attribute must be added here (assigning one that is not fails loudly).
    __slots__ = (
        "config", "corpus_chars", "first_step", "initial_total_tokens", "name", "stop_reason", "table_rules", "transition",
        "_dropped", "_limit", "_after_step",
        "_across", "_base_count", "_by_frequency", "_constrained", "_context", "_count_hist", "_counts",
        "_entry", "_eow_id", "_first_merge_id", "_forbidden", "_forbidden_kinds", "_front", "_heap", "_history", "_holes",
        "_inherited", "_inherited_counts", "_inherited_manual", "_keys_move", "_made", "_pair_counts", "_plan", "_rule",
        "_special_ids", "_standing", "_surface_to_id", "_surfaces", "_surfaces_shared", "_total_tokens",
        "_undo", "_where", "_word_index", "_word_text", "_words", "_variant", "_choose", "_after", "_removed", "_unknown",
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
    ):
        """Train on ``word_counts``: pre-token -> count, in order of first appearance.

        ``variant``: the BPE variant that chooses each pair and acts after each merge (see
        :mod:`~bpe_tui.core.engine.variants`); None: the one the config asks for
        (:func:`~bpe_tui.core.engine.variants.variant_for`: plain BPE unless set otherwise).

        With ``config.superwords_after = K`` (SuperBPE, see :mod:`~.superwords`):
        ``chunk_counts`` are the corpus's stage-2 chunks with counts, which the trainer
        switches to right after merge K (:attr:`transition`); a trainer that starts at or past
        K (``K = 0``, or going on from a table of K merges or more) needs none: its
        ``word_counts`` are then the chunks. The ``from_*`` constructors count both.

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

        self._word_text, self._counts = checked_counts(word_counts)
        check_text(self._word_text, cfg, name)
        if start is None:
            words = self._fresh_alphabet()
        else:
            words = self._alphabet_of(start)
        eow = cfg.end_of_word
        self._eow_id = self._surface_to_id[eow.encode("utf-8") if cfg.units == "bytes" else eow] if eow is not None else None
        self._words: list[str] = words
        self._first_merge_id = len(self._surfaces)
        least = len(self._surfaces) - self._holes if start is not None else self._base_count + len(self._special_ids)
        if start is not None and cfg.vocab_size is not None and cfg.vocab_size < least:
            raise BPEError(f"{name}: vocabulary size {cfg.vocab_size:,} is smaller than the {least:,} tokens the start table already has")
        check_vocab_size(cfg.vocab_size, self._base_count, len(self._special_ids), name)
        # True once a MergeEvent holds self._surfaces: from then on the list is only appended
        # to, and undo replaces it by a copy instead of popping it (_drop_last_surface).
        self._surfaces_shared = False

        # The tie-break rule, with its per-token material (see tiebreak.py).
        self._rule = make_rule(  # (the first-seen alphabet's ids are in its own order: kept)
            cfg.tie_break, self._surfaces, cfg.units, eow, self._base_count, len(self._special_ids),
            keep_ids=start is not None or cfg.alphabet == "first-seen",
        )

        # Pair counts and the pair -> words index (speed.pair_index builds them in C).
        pc, where, hist = pair_index(self._words, self._counts)
        self._pair_counts = pc
        self._where = where
        self._count_hist: dict[int, int] = hist  # count -> pairs with it

        self._total_tokens = sum(map(mul, map(len, self._words), self._counts))
        self.initial_total_tokens = self._total_tokens
        self.corpus_chars = sum(map(mul, map(len, self._word_text), self._counts))
        self._word_index: dict[str, int] | None = None
        self._by_frequency: list[int] | None = None

        # Constraints: pairs they forbid are never queued, and counted (forbidden_pair_count).
        across = cfg.no_merge_across
        self._across = regex.compile(across) if across is not None else None
        self._standing: list[int] = [class_standing(s, self._across, eow) for s in self._surfaces] if across is not None else []
        self._constrained = cfg.max_token_length is not None or across is not None or self._unknown is not None
        self._limit: Callable[[bytes], str | None] | None = None  # a variant's own (_set_limit)
        self._recount_forbidden()

        # Hand-chosen pairs by step (see step): replayed when going forward again.
        self._plan: dict[int, tuple[int, int]] = {}

        # What every event's explanation shares (see events.py).
        self._context = Context(self._rule, self._word_text, self._counts, eow)

        self._entry = self._rule.entry_function(self._first_occurrence)
        # The rule's moving_keys, read at every pop: kept here because CPython 3.11 does not
        # specialize reading a class attribute through an instance (self._rule.moving_keys).
        self._keys_move = self._rule.moving_keys
        self._heap: list = []
        self._front: deque = deque()
        self._requeue_all()
        #: merged token id -> the surface it was made as; an id made again after an undo as
        #: another token (a hand choice went another way) makes the queue's keys stale.
        self._made: dict[int, object] = {}
        self._history: list[MergeEvent] = []  # one event per step, and what undo needs besides:
        self._undo: list[_UndoRecord] = []
        self.stop_reason: str | None = None
        #: The corpus's re-cut, once a variant made it and while the trainer stands past it
        #: (SuperBPE's transition to chunks); None otherwise.
        self.transition: TransitionEvent | None = None
        self._dropped: tuple[frozenset[int], dict] = (frozenset(), {})  # (ranks, token id -> surface) left out (_drop_merges)
        self._removed: set[int] = set()  # ids a variant took out of the vocabulary (_set_present)
        self._variant = variant if variant is not None else variant_for(self.config, chunk_counts)
        self._choose = self._variant.choose
        self._after = self._variant.after_merge if self._variant.acts_after_merge else None
        self._after_step = self._variant.after_step if self._variant.acts_after_step else None
        self._variant.attach(self)

    def _requeue_all(self) -> None:
        """Build the queue afresh from the pair counts (at the start, and when the tie-break
        keys of queued entries may be stale: see _apply). The queue is the heap plus ``_front``:
        valid entries taken off the heap by a peek, smallest first; each is no greater than
        anything left in the heap (see _pop_valid)."""
        entry = self._entry
        self._heap = [entry(p, c) for p, c in self._pair_counts.items()]
        heapq.heapify(self._heap)
        self._front.clear()

    def _fresh_alphabet(self) -> list[str]:
        """Set up the base alphabet and specials of a fresh run (see
        :mod:`~bpe_tui.core.engine.alphabet`); return the words as id strings."""
        alphabet = fresh_alphabet(self._word_text, self._counts, self.config)
        self._base_count = alphabet.base_count
        self._holes = 0
        self._surfaces: list = alphabet.surfaces  # id -> surface, for base symbols and merged tokens
        special = set(alphabet.special_ids.values())
        self._surface_to_id: dict = {s: i for i, s in enumerate(alphabet.surfaces) if i not in special}
        self._special_ids: dict[str, int] = alphabet.special_ids  # they never take part in merges
        self._unknown = alphabet.unknown
        self.first_step = 0
        self._inherited: list[tuple[int, int, int]] = []
        self._inherited_counts: list[int] | None = []
        self._inherited_manual: frozenset[int] = frozenset()
        return alphabet.words

    def _alphabet_of(self, table: "MergeTable") -> list[str]:
        """Set up ids as ``table`` has them; return the words as id strings, each already
        merged by the table's merges (lowest rank first, as encoding does).

        Base symbols the table lacks (a character its corpus never had) get new ids after its
        vocabulary, before any new merge; :attr:`table_rules` names them.
        """
        from .merging import merge

        cfg = self.config
        bytes_mode = cfg.units == "bytes"
        eow = cfg.end_of_word
        vocab = table.vocab
        if any(not isinstance(i, int) or i < 0 or i > MAX_TOKEN_ID for i in vocab):
            raise BPEError(f"{table.source or 'table'}: token ids must be whole numbers from 0 to {MAX_TOKEN_ID:,}")
        size = max(vocab, default=-1) + 1
        self._surfaces = [vocab.get(i) for i in range(size)]
        self._holes = size - len(vocab)
        self._special_ids = dict(table.special_tokens)
        specials = set(self._special_ids.values())
        self._surface_to_id = {}
        for i, s in enumerate(self._surfaces):
            if s is not None and i not in specials:
                self._surface_to_id.setdefault(s, i)
        base_ids = table.base_ids()
        self._base_count = len(base_ids)
        self._unknown = None
        self.first_step = table.num_merges
        self._inherited = table.merge_ids
        self._inherited_counts = list(table.counts) if table.counts is not None else None
        self._inherited_manual = frozenset(getattr(table, "manual_ranks", ()))

        # The corpus's base symbols, and ids for those the table lacks.
        symbols: set = set()
        for word in self._word_text:
            symbols.update(word.encode("utf-8") if bytes_mode else word)
        units = sorted(bytes([b]) for b in symbols) if bytes_mode else sorted(symbols)
        if eow is not None:
            units.append(eow.encode("utf-8") if bytes_mode else eow)
        added = []
        for surface in units:
            if surface not in self._surface_to_id:
                self._surface_to_id[surface] = len(self._surfaces)
                self._surfaces.append(surface)
                added.append(surface)
        self._base_count += len(added)
        if added:
            shown = ", ".join(show(s) for s in added[:8])
            self.table_rules.append(
                f"base symbols the table lacks, added with ids {size:,}-{size + len(added) - 1:,}: {shown}{' ...' if len(added) > 8 else ''}"
            )
        to_id = self._surface_to_id
        ranks: dict[tuple[int, int], int] = {}  # (left, right) -> rank; the lowest rank of a pair wins
        made: dict[tuple[int, int], int] = {}  # (left, right) -> the id it makes
        for rank in range(len(self._inherited) - 1, -1, -1):
            a, b, new = self._inherited[rank]
            ranks[(a, b)] = rank
            made[(a, b)] = new
        tail = [to_id[eow.encode("utf-8") if bytes_mode else eow]] if eow is not None else []
        words = []
        for text in self._word_text:
            whole = table.whole_token(text)
            if whole is not None and whole not in specials:
                words.append(chr(whole))
                continue
            ids = [to_id[bytes([b])] for b in text.encode("utf-8")] if bytes_mode else [to_id[ch] for ch in text]
            words.append("".join(map(chr, merge(ids + tail, ranks, made))))
        return words

    @classmethod
    def from_counts(
        cls, counts: Mapping[str, int], config: TrainerConfig | None = None, name: str = "counts",
        chunk_counts: Mapping[str, int] | None = None, variant: Variant | None = None,
    ) -> "Trainer":
        """A trainer on word counts made elsewhere.

        Args:
            counts: ``{pre-token: count}``, in order of first appearance.
            config: The rules (None: ``TrainerConfig()``, the gpt2 preset).
            name: What messages call the corpus.
            chunk_counts: The stage-2 chunks' counts, for ``superwords_after``.
            variant: A variant made by its own constructor (see :meth:`__init__`).

        Returns:
            The trainer at step 0.
        """
        if not counts:
            raise BPEError(f"{name}: the corpus is empty (no words to train on)")
        return cls(counts, config, name=name, chunk_counts=chunk_counts, variant=variant)

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
        from .variants.parity import train_languages

        return train_languages(cls, corpora, dev, ratio, config, **count_options)

    @classmethod
    def from_text(cls, text: str, config: TrainerConfig | None = None, name: str = "text") -> "Trainer":
        """A trainer on a string, read line by line exactly as a file would be.

        Args:
            text: The corpus.
            config: The rules (None: ``TrainerConfig()``, the gpt2 preset).
            name: What messages call the corpus.

        Returns:
            The trainer at step 0.
        """
        from ..text.corpus import count_text

        config = config or TrainerConfig()
        words, chunks = count_stages(count_each(lambda cfg, _: count_text(text, cfg)), config, 0)
        return cls.from_counts(words, config, name=name, chunk_counts=chunks)

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
    ) -> "Trainer":
        """A trainer on files, directories (every corpus file below), globs or ``-`` (stdin).

        Text, compressed or not, JSON lines and Parquet are read (each record's
        ``text_field`` a document). The merges do not depend on ``workers`` or ``client``.

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

        Returns:
            The trainer at step 0.
        """
        from ..text.count_files import read_count_files
        from ..text.distributed import count_words
        from ..text.sources import corpus_name

        config = config or TrainerConfig()
        paths = [paths] if isinstance(paths, (str, os.PathLike)) else list(paths)  # one path, or many
        paths = [os.fspath(p) for p in paths]
        chunk_counts = None
        if counts:
            no_chunks_from_counts(config, paths)
            word_counts = read_count_files(paths, progress=progress)
        else:
            options = dict(client=client, errors=errors, progress=progress, workers=workers, text_field=text_field, skip_bad_records=skip_bad_records)
            word_counts, chunk_counts = count_stages(
                count_each(lambda cfg, first: count_words(paths, cfg, report=report if first else None, **options)), config, 0
            )
        _check_words(word_counts, paths)
        return cls.from_counts(word_counts, config, name=corpus_name(paths), chunk_counts=chunk_counts)

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
        from ..text.datasets.iterables import count_texts

        config = config or TrainerConfig()
        word_counts, chunk_counts = count_stages(lambda configs: count_texts(texts, configs, errors, progress, name=name), config, 0)
        return cls.from_counts(word_counts, config, name=name, chunk_counts=chunk_counts)

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
                text_field, skip_bad_records, report).

        Returns:
            The trainer at :attr:`first_step`.
        """
        cfg, _ = table_config(table, config)
        from ..text.count_files import read_count_files
        from ..text.distributed import count_words
        from ..text.sources import corpus_name

        paths = [paths] if isinstance(paths, (str, os.PathLike)) else list(paths)
        paths = [os.fspath(p) for p in paths]
        options = dict(count_options)
        chunk_counts = None
        if options.pop("counts", False):
            no_chunks_from_counts(cfg, paths)
            word_counts = read_count_files(paths, progress=options.get("progress"))
        else:
            report = options.pop("report", None)
            word_counts, chunk_counts = count_stages(
                count_each(lambda c, first: count_words(paths, c, report=report if first else None, **options)), cfg, table.num_merges
            )
        name = corpus_name(paths)
        _check_words(word_counts, paths)
        return cls(word_counts, config, name=name, start=table, chunk_counts=chunk_counts)

    # ------------------------------------------------------------------ the corpus's cut (SuperBPE's transition)

    @property
    def pretokenizer(self) -> str:
        """The pre-tokenizer in force now: SuperBPE's stage-2 rule once the trainer is past
        its transition, else the config's."""
        return stage2_pretokenizer(self.config) if self.in_superword_stage else self.config.pretokenizer

    @property
    def in_superword_stage(self) -> bool:
        """Whether the corpus is SuperBPE's chunks now (merges may span spaces)."""
        return self.transition is not None

    @property
    def dropped_merges(self) -> tuple[int, ...]:
        """The steps (1-based ranks among all merges made, a start table's first) of the merges
        dropped at the transition because their pair never occurred in the chunks
        (``superwords_drop_unused``): they stay in the history, not in the table."""
        return tuple(sorted(r + 1 for r in self._dropped[0]))

    def corpus_counts(self) -> tuple[dict[str, int], dict[str, int] | None]:
        """``(word counts, chunk counts)`` as the trainer was built with them (order of first
        appearance), wherever it stands: enough to build the same trainer again under other
        rules (chunk counts None without a transition ahead of the start)."""
        return self._variant.corpus_counts(self)

    # ------------------------------------------------------------------ first-seen

    def _first_occurrence(self, pair: str) -> tuple[int, int]:
        """(first word containing the pair, offset of its first occurrence there, in base
        units: bytes or characters): the first-seen rule's key (see tiebreak.py).

        Words are numbered in order of first appearance and offsets never move when other
        symbols merge, so this orders pairs exactly as a fresh left-to-right scan of the
        corpus would. Words that no longer contain the pair are pruned from the index.
        """
        members = self._where.get(pair)
        surfaces = self._surfaces
        while members:
            w = min(members)
            word = self._words[w]
            i = word.find(pair)
            if i >= 0:
                return (w, sum(len(surfaces[ord(ch)]) for ch in word[:i]))
            members.pop(w, None)
        return (1 << 62, 0)


    # ------------------------------------------------------------------ the queue

    def _pop_valid(self, k: int = 1) -> list:
        """Pop the best ``k`` up-to-date queue entries (distinct pairs), best first (fewer when
        the queue runs out), re-queueing or dropping stale ones on the way.

        The queue is the heap plus a short sorted ``_front`` of entries a peek took off (and
        that were no greater than anything in the heap then); the smaller head goes first.
        A step pops one entry, then peeks at the ties behind it: one call each (speed: this
        setup once per peek, not once per entry).
        """
        heap = self._heap
        front = self._front
        pc = self._pair_counts
        make = self._entry
        heappop = heapq.heappop
        heappush = heapq.heappush
        # Only first-seen keys move while a pair's count stays put (see tiebreak.py); under
        # the other rules an entry whose count is current is exactly the entry we would build.
        fixed_keys = not self._keys_move
        forbids = self._forbids if self._constrained else None
        taken: list = []
        if k < 1:
            return taken
        while True:  # (how many are taken is checked only when one is taken)
            if front:
                if heap and heap[0] < front[0]:
                    entry = heappop(heap)
                else:
                    entry = front.popleft()
            elif heap:
                entry = heappop(heap)
            else:
                return taken
            pair = entry[-1]
            count = pc.get(pair, 0)
            if count == 0:
                continue
            if forbids is not None and forbids(pair):
                continue  # a constraint forbids it: never merged (forbidden_pair_count counts it)
            if count != -entry[0] or not fixed_keys:  # the usual case skips this: nothing moved since queued
                fresh = make(pair, count)
                if fresh != entry:
                    if fresh > entry:  # got worse since queued: queue it where it belongs now
                        heappush(heap, fresh)
                    continue  # else: it got better (undo); a fresher entry was queued then, drop this one
            # Valid: its count and key are current, so a valid copy of the same pair equals it,
            # and entries come out in order: a second copy comes right after the first.
            if taken and taken[-1] == entry:
                continue
            taken.append(entry)
            if len(taken) == k:
                return taken

    def _peek_valid(self, k: int) -> list:
        """The best ``k`` valid entries, distinct pairs, leaving the queue as it was."""
        taken = self._pop_valid(k)
        # They came out smallest first and no greater than anything left: put them in front.
        self._front.extendleft(reversed(taken))
        return taken

    # ------------------------------------------------------------------ questions

    @property
    def steps_done(self) -> int:
        """How many merges the table has now (the current step k), inherited ones included."""
        return self.first_step + len(self._history)

    @property
    def vocab_size(self) -> int:
        """Base alphabet + special tokens + distinct merged tokens, right now."""
        return len(self._surfaces) - self._holes

    @property
    def total_tokens(self) -> int:
        """Corpus length in tokens right now (special tokens not counted)."""
        return self._total_tokens

    @property
    def history(self) -> list[MergeEvent]:
        """The MergeEvent of every merge so far, in order (not the merges of a start table)."""
        return list(self._history)

    @property
    def word_count(self) -> int:
        """Number of distinct words (pre-tokens) in the corpus."""
        return len(self._word_text)

    @property
    def base_size(self) -> int:
        """Number of base symbols (256 in bytes mode, plus the end-of-word marker if any)."""
        return self._base_count

    def surface(self, token_id: int):
        """The surface (bytes or str) of a token id."""
        surface = self._surfaces[token_id]
        if surface is None:
            raise IndexError(f"no token has id {token_id}")
        return surface

    def vocab(self) -> dict[int, bytes | str]:
        """id -> surface for every token right now (special tokens included)."""
        gone, removed = self._dropped[1], self._removed
        return {i: s for i, s in enumerate(self._surfaces) if s is not None and i not in gone and i not in removed}

    def word_text(self, index: int) -> str:
        """The pre-token string of word ``index`` (words are numbered by first appearance)."""
        return self._word_text[self._word_number(index)]

    def word_frequency(self, index: int) -> int:
        """How often word ``index`` occurs in the corpus."""
        return self._counts[self._word_number(index)]

    def words_by_frequency(self, limit: int | None = None) -> list[int]:
        """Word indices, most frequent first (ties: first appearance first)."""
        if self._by_frequency is None:  # counts never change, so sort once
            self._by_frequency = sorted(range(len(self._counts)), key=lambda w: -self._counts[w])
        order = self._by_frequency
        return list(order) if limit is None else order[:limit]

    def segmentation(self, word: str | int) -> list:
        """The current symbols (surfaces) of a word, given as its text or its index."""
        if isinstance(word, str):
            if self._word_index is None:
                self._word_index = {w: i for i, w in enumerate(self._word_text)}
            if word not in self._word_index:
                spaced = f" (a word is a pre-token: {' ' + word!r} is one)" if " " + word in self._word_index else ""
                raise KeyError(f"{word!r} is not a word of this corpus{spaced}")
            word = self._word_index[word]
        return [self._surfaces[ord(ch)] for ch in self._words[self._word_number(word)]]

    def _word_number(self, index) -> int:
        """``index`` checked as a word number: no negative numbers counting from the end."""
        if isinstance(index, bool) or not isinstance(index, int) or not 0 <= index < len(self._words):
            raise BPEError(f"word {index!r} does not exist: words are numbered 0 to {len(self._words) - 1}")
        return index

    def segmentation_ids(self, index: int) -> tuple[int, ...]:
        """The current symbol ids of word ``index``."""
        return tuple(map(ord, self._words[self._word_number(index)]))

    def pair_count(self, pair: tuple) -> int:
        """The current count of a pair given as surfaces."""
        key = self._pair_key(pair)
        return self._pair_counts.get(key, 0) if key else 0

    def words_containing(self, pair: tuple, limit: int | None = None) -> list[int]:
        """Indices of the words whose current segmentation contains ``pair`` (surfaces)."""
        key = self._pair_key(pair)
        if not key:
            return []
        out = []
        words = self._words
        for w in sorted(self._where.get(key, ())):
            if key in words[w]:
                out.append(w)
                if limit is not None and len(out) >= limit:
                    break
        return out

    def _pair_key(self, pair: tuple) -> str | None:
        """The internal key of a pair given as surfaces (None if either is not a token)."""
        left, right = pair
        a = self._surface_to_id.get(left)
        b = self._surface_to_id.get(right)
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
        s = self._surfaces
        return [(surface_pair(s, e[-1]), -e[0]) for e in self._peek_valid(k)]

    def forbidden_pair_count(self) -> int:
        """How many pairs present now the constraints forbid (``max_token_length``: the merged
        token would be too long; ``no_merge_across``: it would mix characters of the class
        with others). They are never merged and :meth:`top_pairs` does not list them."""
        return self._forbidden

    def forbidden_reason(self, pair: tuple) -> str | None:
        """Why the constraints forbid merging ``pair`` (surfaces), or None if they allow it."""
        key = self._pair_key(pair)
        return self._forbidden_reason(key) if key is not None else None

    def forbidden_by(self) -> dict[str, int]:
        """The pairs present that the constraints forbid (:meth:`forbidden_pair_count`), by
        the constraint that forbids them, named short enough for a caption -> how many pairs
        (a pair is counted under the first it breaks, in the order :meth:`forbidden_reason`
        checks; that method says why in full): ``{"<UNK> (coverage)": 5}`` under
        PickyBPE's setup, ``tokens over max_token_length 32``, ``no_merge_across \\d``,
        ``SuperBPE's stage-2 limits``. Empty when none is forbidden."""
        cfg = self.config
        named = {
            "unknown": f"{cfg.unk_token} (coverage)",
            "max_token_length": f"tokens over max_token_length {cfg.max_token_length}",
            "no_merge_across": f"no_merge_across {cfg.no_merge_across}",
            "limit": "SuperBPE's stage-2 limits",
        }
        counts = self._forbidden_kinds
        return {named[kind]: counts[k] for k, kind in enumerate(self._CONSTRAINT_KINDS, 1) if counts[k]}

    #: The constraints a pair may break, in the order they are checked: ``_forbids`` gives the
    #: number of the first one a pair breaks (0: none), ``_forbidden_kinds`` counts by it.
    _CONSTRAINT_KINDS = ("unknown", "max_token_length", "no_merge_across", "limit")

    def _forbids(self, pair: str) -> int:
        """Which constraint forbids merging ``pair`` (an internal key): its number in
        ``_CONSTRAINT_KINDS``, from 1; 0 when none does."""
        a, b = ord(pair[0]), ord(pair[1])
        if self._unknown is not None and (a == self._unknown or b == self._unknown):
            return 1  # the unknown token stands for characters left out: it never merges
        limit = self.config.max_token_length
        if limit is not None:
            surfaces = self._surfaces
            if len(surfaces[a]) + len(surfaces[b]) > limit:
                return 2
        if self._across is not None and self._standing[a] | self._standing[b] == MIXED:
            return 3
        limit2 = self._limit
        return 4 if limit2 is not None and limit2(self._surfaces[a] + self._surfaces[b]) is not None else 0

    def _recount_forbidden(self) -> None:
        """Count the pairs present that the constraints forbid, in all and by constraint."""
        kinds = [0] * (len(self._CONSTRAINT_KINDS) + 1)
        if self._constrained:
            forbids = self._forbids
            for p in self._pair_counts:
                kinds[forbids(p)] += 1
        self._forbidden_kinds = kinds
        self._forbidden = sum(kinds[1:])

    def _forbidden_reason(self, pair: str) -> str | None:
        if not self._constrained or not self._forbids(pair):
            return None
        a, b = ids_of(pair)
        s = self._surfaces
        shown = show_pair((s[a], s[b]), self.config.end_of_word)
        limit = self.config.max_token_length
        size = len(s[a]) + len(s[b])
        if self._unknown in (a, b):
            return f"{shown} holds the unknown token {self.config.unk_token}, which stands for characters left out of the alphabet and never merges"
        if limit is not None and size > limit:
            return f"{shown} would make a token of {size} {self.config.units}, longer than max_token_length {limit}"
        if self._across is not None and self._standing[a] | self._standing[b] == MIXED:
            return f"{shown} would mix characters of no_merge_across {self.config.no_merge_across} with others"
        assert self._limit is not None
        return f"{shown} {self._limit(s[a] + s[b])}"

    def pair_count_histogram(self) -> dict[int, int]:
        """``count -> number of distinct pairs with that count`` right now."""
        return dict(self._count_hist)

    def pairs_with_count(self, count: int) -> int:
        """How many distinct pairs occur exactly ``count`` times right now."""
        return self._count_hist.get(count, 0)

    @property
    def special_tokens(self) -> dict[str, int]:
        return dict(self._special_ids)

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
        return self._variant.stop_reason(self, respect_target)  # the seam: worded as choose would

    def _stop_reason(self, best, respect_target: bool) -> str | None:
        """Why training cannot take the best queue entry (None: the queue is empty), if it
        cannot. What the corpus has run out of comes first: a trainer with nothing left to
        merge says so even where it also stands at (or beyond) its target."""
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
        if cfg.vocab_size is not None and (size := len(self._surfaces) - self._holes) >= cfg.vocab_size:
            if size == cfg.vocab_size:
                return f"reached vocabulary size {cfg.vocab_size}"
            return f"beyond the target vocabulary size {cfg.vocab_size} (at {size:,})"
        return None

    def _queue_reason(self, best) -> str | None:
        """Why the best queue entry (None: the queue is empty) cannot be merged, if it cannot."""
        if best is None:
            if self._forbidden:  # pairs are left, but no rule lets any of them merge
                return f"nothing left to merge: the {plural(self._forbidden, 'pair')} left would break a constraint (forbidden_reason says which)"
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
            return self.first_step + max(0, cfg.vocab_size - (self._first_merge_id - self._holes))
        return None

    @property
    def table(self):
        """A :class:`~bpe_tui.core.tables.table.MergeTable` of the merges so far."""
        from ..tables.table import MergeTable

        return MergeTable.from_trainer(self)

    def merge_list(self) -> list[tuple[int, int, int]]:
        """``(left_id, right_id, new_id)`` for every merge so far, in order (a start
        table's merges first; those dropped at SuperBPE's transition left out)."""
        merges = self._inherited + [(*e.pair_ids, e.new_id) for e in self._history]
        return _kept(merges, self._dropped[0])

    def merge_counts(self) -> list[int] | None:
        """The count each merge had when it was made; None when going on from a table that
        does not record its merges' counts."""
        if self._inherited_counts is None:
            return None
        return _kept(self._inherited_counts + [e.count for e in self._history], self._dropped[0])

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
        return self._apply(pair, count, tie_count, ties, won, other, reason)

    def _step_by_hand(self, pair: tuple) -> MergeEvent | None:
        """``step(pair=...)``: check the pair, record it in the plan, merge it."""
        if not isinstance(pair, (tuple, list)) or len(pair) != 2:
            raise BPEError(f"a pair to merge is (left, right), not {pair!r}")
        key = self._pair_key(tuple(pair))
        shown = show_pair(pair, self.config.end_of_word)
        if key is None and (kind := self._surface_kind_error(pair)) is not None:
            raise BPEError(f"cannot merge {shown}: {kind}")
        if key is None or not self._pair_counts.get(key):
            raise BPEError(f"cannot merge {shown}: the pair does not occur in the corpus now (step {self.steps_done})")
        reason = self._forbidden_reason(key)
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

    def _did_before(self, k: int, ids: tuple[int, int]) -> bool:
        """Whether step k merged ``ids`` the last time it was taken (no plan entry: by the
        rules, which are deterministic, so the step the rules would take now)."""
        if k in self._plan:
            return False
        best = self._variant.peek(self)
        return best is not None and ids_of(best[-1]) == ids

    def _replay(self, ids: tuple[int, int], respect_target: bool) -> MergeEvent | None:
        """Merge the hand-chosen pair ``ids`` (from the plan) as this step."""
        if respect_target:
            target = self._target_reason()
            if target is not None:
                self.stop_reason = target
                return None
        key = key_of(*ids)
        count = self._pair_counts.get(key, 0)
        if not count:  # cannot happen on a path the plan was made on; go by the rules from here
            self._plan = {s: p for s, p in self._plan.items() if s <= self.steps_done}
            return self._step(respect_target)
        self.stop_reason = None
        return self._apply(key, count, 0, (), None, self._variant.peek(self), None, True)  # (the rules' pick, which the explanation names)

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
        return surface_pair(self._surfaces, key_of(*planned)) if planned is not None else None

    @property
    def manual_steps(self) -> dict[int, tuple[int, int]]:
        """The plan: step number -> ``(left_id, right_id)`` chosen by hand, including steps
        ahead of the current one that going forward will replay."""
        return dict(self._plan)

    def forget_manual(self, after: int | None = None) -> int:
        """Forget the hand choices of the steps after ``after`` (default: the current step),
        so that going forward follows the rules; return how many were forgotten."""
        after = self.steps_done if after is None else after
        before = len(self._plan)
        self._plan = {s: p for s, p in self._plan.items() if s <= after}
        return before - len(self._plan)

    def manual_ranks(self) -> frozenset[int]:
        """0-based ranks of the table's merges that were chosen by hand (a start table's too)."""
        ranks = self._inherited_manual | {e.step - 1 for e in self._history if e.manual}
        gone = self._dropped[0]
        return frozenset(r - sum(1 for g in gone if g < r) for r in ranks if r not in gone) if gone else ranks

    def _apply(
        self, pair: str, count: int, tie_count: int, ties: tuple, won: tuple | None, other: tuple | None,
        reason: object = None, manual: bool = False,
    ) -> MergeEvent:
        """Merge ``pair`` (an internal key) everywhere, let the variant act after it, and
        return the event; the rest of the arguments are what the event reports and explains
        (the first seven are a variant's Choice; ``won`` and ``other`` are queue entries: see
        MergeEvent's ``_won`` and ``_other``; ``reason``: the variant's account of its choice;
        ``manual``: the pair was chosen by hand)."""
        a, b = ids_of(pair)
        surfaces = self._surfaces
        new_surface = surfaces[a] + surfaces[b]
        new_id = self._surface_to_id.get(new_surface)
        created = new_id is None
        stale_keys = False
        if new_id is None:
            new_id = len(surfaces)
            if new_id > MAX_TOKEN_ID:
                raise BPEError(f"the vocabulary cannot grow past {MAX_TOKEN_ID + 1:,} tokens")
            surfaces.append(new_surface)
            self._surface_to_id[new_surface] = new_id
            self._rule.add_token(a, b, new_id)
            # Queue entries name tokens by id and carry their tie-break key; under the fixed-key
            # rules an entry whose count is current is trusted as it is (_pop_valid). An id made
            # before as another token and undone (a hand choice went another way) can still
            # stand in entries with that token's key: rebuild the queue once the counts are in.
            stale_keys = self._made.setdefault(new_id, new_surface) != new_surface
            if stale_keys:
                self._made[new_id] = new_surface
            if self._across is not None:
                self._standing.append(class_standing(new_surface, self._across, self.config.end_of_word))
        new = chr(new_id)

        changes: dict[str, int] = {}
        touched, olds, saved, occurrences = merge_word(
            self._words, sorted(self._where.pop(pair, ())), pair, new, self._counts, changes, self._where, not created
        )

        # The merged pair is gone everywhere (with a == b the local deltas above also touched
        # it; every occurrence has been merged or absorbed, so its count is exactly zero).
        changes[pair] = -self._pair_counts.get(pair, 0)
        self._total_tokens -= saved
        befores = self._apply_changes(changes)
        if created and stale_keys:
            self._requeue_all()
        after: tuple = ()
        rewritten = None
        if self._after is not None:  # the seam: what the variant does after the merge
            merged = Merged(pair, new_id, created, touched, None if created else olds, saved, changes, befores)
            after = self._after(self, merged)
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
            "total_tokens": self._total_tokens,
            "vocab_size": len(surfaces) - self._holes,
            "manual": manual,
            "_changes": changes,
            "_before": befores,
            "_surfaces": surfaces,
            "_won": won,
            "_other": other,
            "_occurrences": occurrences or None,
            "_context": self._context,
        })
        if after or reason is not None:  # (plain BPE's defaults are the class's: see fast_constructor)
            event.__dict__.update(after=after, reason=reason)
        self._surfaces_shared = True
        # Old segmentations are kept only when the merge reused an existing token: when it
        # created new_id, undo gets them back by splitting every new_id into (a, b), which
        # saves most of the history's memory (80 MB of 250 on a 28 MB corpus).
        self._history.append(event)
        self._undo.append((created, None if created else tuple(zip(touched, olds)), saved, rewritten))
        if self._after_step is not None:  # the seam: what the variant does once the step is recorded
            self._after_step(self, event)
        return event

    def _apply_changes(self, changes: Mapping[str, int]) -> dict[str, int]:
        """Add count deltas (pair -> change) to the pair table and queue every pair whose count rose.

        Returns ``pair -> count before`` for every pair whose count changed (the count after
        is that plus its change). Plain ints, so neither dict is ever tracked by the garbage
        collector: a ``(before, after)`` tuple per pair made a dozen tracked objects per step.
        """
        pc = self._pair_counts
        hist = self._count_hist
        befores = {}
        heap = self._heap
        entry = self._entry
        heappush = heapq.heappush
        get = pc.get
        # Under first-seen a pair's key can move with no net change in its count (a merge that
        # reuses an existing token both removes and adds its pairs), so re-queue all of them.
        requeue_all = self._keys_move
        for p, d in changes.items():
            if not d:
                if requeue_all and p in pc:
                    heappush(heap, entry(p, pc[p]))
                continue
            before = get(p, 0)
            after = before + d
            if before:
                left = hist[before] - 1
                if left:
                    hist[before] = left
                else:
                    del hist[before]
            if after:
                pc[p] = after
                hist[after] = hist.get(after, 0) + 1
            else:
                del pc[p]
            befores[p] = before
            if d > 0 or (requeue_all and after):
                heappush(heap, entry(p, after))
        if self._constrained:  # pairs that appear or vanish change the forbidden count
            forbids = self._forbids
            kinds = self._forbidden_kinds
            for p, before in befores.items():
                after = before + changes[p]
                if (not before) != (not after) and (kind := forbids(p)):
                    self._forbidden += 1 if after else -1
                    kinds[kind] += 1 if after else -1
        return befores

    # ------------------------------------------------------------------ the variants' protocol (see variants/)

    def _put_back(self, entry: tuple) -> None:
        """Return a queue entry taken and not merged to the head of the queue."""
        self._front.appendleft(entry)

    def _rewrite(self, rewrites: Iterable[tuple[int, str]], merged: Merged) -> None:
        """A variant's change to the corpus right after a merge: each ``(word, segmentation)``
        replaces that word's segmentation (an id string of the same text). The pair counts, the
        pair -> words index, the queue and the token total follow, and ``merged`` records the
        change for the step's event and for undo."""
        words, counts, where = self._words, self._counts, self._where
        deltas: dict[str, int] = {}
        get = deltas.get
        grown = 0
        for w, new in rewrites:
            old = words[w]
            c = counts[w]
            for p in pairs_of(old):
                deltas[p] = get(p, 0) - c
            for p in pairs_of(new):
                deltas[p] = get(p, 0) + c
                where[p][w] = None
            grown += (len(new) - len(old)) * c
            words[w] = new
            merged.rewritten.append((w, old))
        self._total_tokens += grown
        merged.saved -= grown
        changes, befores = merged.changes, merged.befores
        for p, before in self._apply_changes(deltas).items():
            befores.setdefault(p, before)
        for p, d in deltas.items():
            if d:
                changes[p] = changes.get(p, 0) + d

    def _queue(self, pair: str) -> None:
        """Queue ``pair`` afresh, when it occurs: a variant moved its tie-break key."""
        count = self._pair_counts.get(pair)
        if count:
            heapq.heappush(self._heap, self._entry(pair, count))

    def _set_present(self, token_id: int, present: bool) -> None:
        """A variant takes a token out of the vocabulary, or puts it back. Its id and surface
        stay: a merge that makes the same surface again gets the same id."""
        if present and token_id in self._removed:
            self._removed.discard(token_id)
            self._holes -= 1
        elif not present and token_id not in self._removed:
            self._removed.add(token_id)
            self._holes += 1

    def _install_corpus(self, texts: list[str], counts: list[int], words: list[str], rule: TieBreakRule | None = None) -> None:
        """A variant's new cut of the corpus (SuperBPE's chunks, and its words back on undo):
        make ``words`` (id strings of ``texts``, with ``counts``) the corpus, the pair counts,
        the pair -> words index and the queue built afresh from them; ``rule``: order the queue
        by this tie-break rule from now on (its keys for the tokens there are)."""
        if rule is not None:
            self._rule = rule
            self._entry = rule.entry_function(self._first_occurrence)
            self._keys_move = rule.moving_keys
        self._word_text, self._counts, self._words = texts, counts, words
        self._pair_counts, self._where, self._count_hist = pair_index(words, counts)
        self._total_tokens = sum(map(mul, map(len, words), counts))
        self.corpus_chars = sum(map(mul, map(len, texts), counts))
        self._word_index = None
        self._by_frequency = None
        self._context = Context(self._rule, texts, counts, self.config.end_of_word)
        self._recount_forbidden()
        self._requeue_all()

    def _drop_merges(self, ranks: list[int]) -> tuple:
        """Leave the merges of ``ranks`` (0-based, in :meth:`merge_list`'s order) out of the
        table, and the tokens only they made out of the vocabulary (ids left as holes; a later
        merge that makes one again gives it a new id, as the authors' trainer does). Returns
        ``(step, token)`` of each, for the transition's explanation."""
        if not ranks:
            return ()
        merges = self.merge_list()
        gone = frozenset(ranks)
        kept_made = {new for r, (_, _, new) in enumerate(merges) if r not in gone}
        tokens = {}
        for r in ranks:
            new = merges[r][2]
            if new not in kept_made and new not in tokens:
                surface = self._surfaces[new]
                tokens[new] = surface
                if self._surface_to_id.get(surface) == new:
                    del self._surface_to_id[surface]
        self._holes += len(tokens)
        self._dropped = (gone, tokens)
        return tuple((r + 1, self._surfaces[merges[r][2]]) for r in ranks)

    def _restore_dropped(self) -> None:
        """Undo :meth:`_drop_merges`."""
        _, tokens = self._dropped
        for new, surface in tokens.items():
            self._surface_to_id[surface] = new
        self._holes -= len(tokens)
        self._dropped = (frozenset(), {})

    def _set_limit(self, limit: Callable[[bytes], str | None] | None) -> None:
        """A variant's own limit on what a merge may make (SuperBPE's stage-2 limits), or None:
        ``limit(token)`` is why a merge making ``token`` is refused (what ``forbidden_reason``
        says after the pair), or None where it is allowed. It joins the constraints: pairs it
        refuses are never merged, and counted as forbidden."""
        self._limit = limit
        self._constrained = self.config.max_token_length is not None or self._across is not None or self._unknown is not None or limit is not None
        self._recount_forbidden()

    @property
    def removed(self) -> frozenset[int]:
        """The ids of the tokens the variant took out of the vocabulary (PickyBPE's removals)."""
        return frozenset(self._removed)

    @property
    def variant(self) -> Variant:
        """The BPE variant this trainer runs (see :mod:`~bpe_tui.core.engine.variants`)."""
        return self._variant

    def undo(self) -> MergeEvent | None:
        """Take back the last merge exactly (and what the variant did after it).

        A hand choice at the step undone stays in the plan (see :meth:`step`).

        Returns:
            The event undone; None at step 0, or at :attr:`first_step` when going on from a
            table (its merges cannot be undone).
        """
        if not self._history:
            return None
        event = self._history.pop()
        created, old_words, tokens_saved, rewritten = self._undo.pop()
        if self._after is not None or self._after_step is not None:  # the variant's own state first (its corpus too)
            self._variant.undo(self, event)
        words = self._words
        where = self._where
        if rewritten:  # then the words it rewrote after the merge
            for w, old in reversed(rewritten):
                words[w] = old
                for p in pairs_of(old):
                    where[p][w] = None
        for w, old in self._old_segmentations(event, old_words):
            words[w] = old
            for p in pairs_of(old):
                where[p][w] = None
        self._total_tokens += tokens_saved
        self._apply_changes({p: -d for p, d in event._changes.items() if d})
        if created:
            del self._surface_to_id[self._drop_last_surface()]
            self._rule.drop_last_token()
            if self._across is not None:
                self._standing.pop()
        self.stop_reason = None
        return event

    def _drop_last_surface(self):
        """Remove the last token's surface from the id -> surface list and return it.

        Events keep the list they were made with and read surfaces from it later, so a list
        an event holds must never shrink (a later step could put another surface at the same
        id). Copy on write: the first undo after a step leaves that list to the events and
        goes on with a copy; undos in a row then pop the copy, which nothing else holds. One
        O(V) copy per undo that follows a step, none per step, one for a whole goto(0).
        """
        if not self._surfaces_shared:
            return self._surfaces.pop()
        last = self._surfaces[-1]
        self._surfaces = self._surfaces[:-1]
        self._surfaces_shared = False
        return last

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
        words = self._words
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

    def recount_pairs(self) -> dict[tuple, int]:
        """Count every pair from scratch (the seeds' algorithm): the reference for tests."""
        out: dict = {}
        s = self._surfaces
        for word, c in zip(self._words, self._counts):
            for x, y in zip(word, word[1:]):
                key = (s[ord(x)], s[ord(y)])
                out[key] = out.get(key, 0) + c
        return out

    def pair_counts(self) -> dict[tuple, int]:
        """The incrementally maintained pair counts, as surfaces."""
        s = self._surfaces
        return {surface_pair(s, k): c for k, c in self._pair_counts.items()}
