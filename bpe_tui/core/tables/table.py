"""MergeTable: a trained BPE tokenizer — merges, vocabulary, pre-tokenizer — as one value.

A merge table is the ranked list of merges BPE learned, ``(left, right) -> new token``, plus
the vocabulary (id -> surface) and the rules needed to apply it (units, pre-tokenizer,
special tokens, end-of-word marker). This module is the table's face: building it, the merge
list and its indices, the questions people ask of it (which token, which rank, how was it
built, does it encode to itself), tracing a word. Encoding is the table's :class:`Encoder`
(``encoder.py``: how it works is told there), decoding ``decoding.py``, offsets
``offsets.py`` and batches ``batch.py``; reading and writing files is not here
(``core/tables/formats``), nor is the merge loop (``engine/merging``).

Why this module is long: MergeTable is one value with many questions; its sections (the merge
list and its indices, building, questions, encoding calls, explaining) read the same indices.
"""

from __future__ import annotations

import random
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from operator import itemgetter
from typing import Any

from ..engine.registry import encoding_rule, variant_record
from ..engine.superwords import stage_pretokenizer
from ..engine.units import text_of, visible
from ..errors import BPEError, TokenIdError
from ..text.pretokenize import PreTokenizer, valid_text
from ..text.specials import special_token_list
from ..types import UNK_ID, Pair, Surface  # UNK_ID is re-exported too
from ..wording import merge_number  # noqa: F401  (re-exported: where callers have always found it)
from . import batch, decoding, explain, handoff, offsets, search, special_policy
from .encoder import BY_TOKEN_RANK, EncodeOptions, Encoder, check_dropout  # noqa: F401  (BY_TOKEN_RANK, check_dropout: re-exported)
from .explain import MergeNode, TraceStep  # noqa: F401  (re-exported)
from .boundless import BoundlessEvents
from .removals import Removals, renumbered
from .special_policy import Allowed, Disallowed


def _first_ranks(
    merges: list[tuple[int, int, int]], start: int = 0
) -> tuple[dict[tuple[int, int], int], dict[tuple[int, int], int], dict[int, int]]:
    """The indices of ``merges[start:]``: pair -> rank, pair -> the id it makes, id -> the
    rank that makes it. Where a pair or a result comes twice the first rank is the one kept
    (the one an encoder meets first). Built in C (zip and map, no loop of ours), backwards,
    so that the first rank is the last one written."""
    tail = merges[start:][::-1]
    pairs = list(map(itemgetter(0, 1), tail))
    made = list(map(itemgetter(2), tail))
    ranks = range(len(merges) - 1, start - 1, -1)
    return dict(zip(pairs, ranks)), dict(zip(pairs, made)), dict(zip(made, ranks))


def merged_surface(left, right, prefix: str | None = None):
    """The surface a merge of ``left`` and ``right`` makes: the two joined, except that with a
    ``continuing_subword_prefix`` (Hugging Face's, e.g. ``##``: every symbol but a word's first
    carries it) the right one loses the prefix's length first, as tokenizers does
    (``hel`` + ``##lo`` = ``hello``, ``##el`` + ``##lo`` = ``##ello``)."""
    return left + right[len(prefix) :] if prefix else left + right


#: ``progress(done, total)``, called now and then by long work.
Progress = Callable[[int, int], None]
#: ``cancelled() -> True`` stops long work that asks it now and then.
Cancelled = Callable[[], bool]
#: What a table holds instead of its merges until they are first needed: called as
#: ``builder(progress, cancelled)``, returns ``(merges, notes)`` (the ``(left_id, right_id,
#: new_id)`` list in rank order, and sentences for :attr:`MergeTable.notes`), or None when
#: ``cancelled()`` said stop. The tiktoken reader's replay is one (see :meth:`build_merges`).
MergeBuilder = Callable[["Progress | None", "Cancelled | None"], "tuple[list[tuple[int, int, int]], list[str]] | None"]

class MergeTable:
    """A BPE tokenizer: merges in rank order, vocabulary, and the rules to apply them."""

    def __init__(
        self,
        units: str,
        vocab: Mapping[int, Surface],
        merges: "Iterable[tuple[int, int, int]] | MergeBuilder",
        special_tokens: Mapping[str, int] | None = None,
        pretokenizer: str = "gpt2",
        end_of_word: str | None = None,
        lowercase: bool = False,
        counts: list[int] | None = None,
        config: dict | None = None,
        source_format: str = "native",
        source: str | None = None,
        manual_ranks: Iterable[int] = (),
        *,
        _checked: bool = True,
        _like: "MergeTable | None" = None,
    ):
        """``merges``: ``(left_id, right_id, new_id)`` in rank order, or a :data:`MergeBuilder`
        that makes them when first asked (see :meth:`build_merges`). ``_checked=False`` (only
        :meth:`from_trainer`) indexes the merges without checking them again, starting from
        the indices of ``_like`` when its merges begin this table's."""
        if units not in ("bytes", "chars"):
            raise BPEError(f"unknown units {units!r}")
        self.units = units
        self._vocab: dict[int, Surface] = dict(vocab)
        self.special_tokens: dict[str, int] = dict(special_tokens or {})
        self.pretokenizer = pretokenizer
        self.end_of_word = end_of_word
        self.lowercase = lowercase
        self.counts = list(counts) if counts is not None else None
        self.config = dict(config or {})
        self.source_format = source_format
        self.source = source
        #: 0-based ranks of the merges chosen by hand while training (Trainer.step(pair=...)).
        self.manual_ranks: frozenset[int] = frozenset(manual_ranks)
        #: What ``config`` says about encoding, read once (see EncodeOptions).
        self.options = EncodeOptions.from_config(self.config, units, end_of_word)
        #: Hugging Face's ``continuing_subword_prefix`` (e.g. ``##``), chars tables only: every
        #: symbol of a word but its first starts as the prefixed character (see merged_surface).
        self.continuing_prefix: str | None = self.options.continuing_prefix

        self._merges: list[tuple[int, int, int]] | None = None
        self._pair_ranks: dict[tuple[int, int], int] = {}  # (left_id, right_id) -> rank
        self._pair_made: dict[tuple[int, int], int] = {}  # (left_id, right_id) -> new id
        self._creator: dict[int, int] = {}  # new id -> rank of the merge that makes it
        self._build: MergeBuilder | None = None
        self._build_lock = threading.Lock()
        if callable(merges):
            self._build = merges
        elif _checked:
            self._set_merges(merges)
        else:
            self._index_merges(list(merges), _like)
        #: How the variant that made the table says it encodes, when not by merges alone
        #: (PickyBPE's removals, replayed in order with the merges: removals.py; BoundlessBPE's
        #: word merges, deletions and supermerges: boundless.py); the registry asks each
        #: variant's ``encoding_rule`` of the table's config.
        self._removals: Removals | None = encoding_rule(self.config, self._merges, self._vocab, source or "table")
        absent: frozenset[int] = self._removals.absent if self._removals is not None else frozenset()
        #: The encoding path (encoder.py): every encode call is handed to it.
        self._encoder = encoder = Encoder(
            units, self._vocab, self.special_tokens, pretokenizer, end_of_word, lowercase, self.options,
            self._creator, self._merge_index, self._removals, where=source or "table",
        )
        # The encoder's indices the table's questions read too (the same objects).
        self._surface_to_id = encoder.surface_to_id
        self._base = encoder.base  # byte value (int) or character (str) -> id
        self._base_id_set = frozenset(encoder.base.values())  # (asked once a token by encodes_to_itself)
        self._continuing_base = encoder.continuing_base
        self._eow_id = encoder.eow_id
        self._pre = encoder.pre
        self._byte_tokens = encoder.byte_tokens
        self._byte_token_values = encoder.byte_token_values
        self._special_surfaces = {i: s for s, i in self.special_tokens.items()}
        #: Encode by token rank (tiktoken's rule), not by merge list: see BY_TOKEN_RANK.
        self.by_token_rank = encoder.by_token_rank
        #: Emit a pre-token that is itself a token whole, merges or not (tiktoken always does;
        #: Hugging Face's ``ignore_merges``): the table's ``config["ignore_merges"]``.
        self.ignore_merges = encoder.ignore_merges
        #: The id a table's own format gives unknown characters (sentencepiece's <unk>), or UNK_ID.
        self.unk_id: int = encoder.unk_id
        #: Text put in front of every pre-token before encoding (PickyBPE's ``▁``), if any.
        self.word_start: str | None = self.options.word_start
        self._outside_from = encoder.outside_from
        self._search: search.SearchIndex | None = None  # made by the first search
        self._raw_pre: PreTokenizer | None = None  # without the prefix space (encodes_to_itself)
        # ``(len, n_vocab)`` of the ids below outside_vocab_from and not removed, where there
        # is such a limit (see __len__)
        self._inside_counts: tuple[int, int] | None = None
        if self._outside_from is not None or absent:
            limit = self._outside_from
            inside = [i for i in self._vocab if (limit is None or i < limit) and i not in absent]
            self._inside_counts = len(inside), max(inside, default=-1) + 1

    def __reduce__(self) -> tuple[Any, ...]:
        """A table pickles as what builds it again (so worker processes get it whole: see
        :mod:`~bpe_tui.core.tables.batch`), its merges not checked again on the way in."""
        merges = self._merges if self._merges is not None else self._build
        return (_unpickled, (
            self.units, self._vocab, merges, self.special_tokens, self.pretokenizer, self.end_of_word, self.lowercase,
            self.counts, self.config, self.source_format, self.source, sorted(self.manual_ranks),
        ))

    # ------------------------------------------------------------------ the merge list

    def _set_merges(self, merges: Iterable[tuple[int, int, int]]) -> None:
        """Check and index the merge list: every merge's parts and result are tokens, and
        the result's surface is the parts' surfaces joined."""
        source = self.source
        vocab = self._vocab
        prefix = self.continuing_prefix
        checked: list[tuple[int, int, int]] = [(a, b, new) for a, b, new in merges]
        for rank, (a, b, new) in enumerate(checked):
            for part in (a, b, new):
                if part not in vocab or isinstance(part, bool):
                    raise BPEError(f"{source or 'table'}: merge {rank + 1} names token id {part!r}, which is not in the vocabulary")
            if not vocab[a] or not vocab[b] or vocab[new] != merged_surface(vocab[a], vocab[b], prefix):
                raise BPEError(
                    f"{source or 'table'}: merge {rank + 1}: {vocab[a]!r} + {vocab[b]!r} does not make {vocab[new]!r}"
                )
        self._index_merges(checked)

    def _index_merges(self, merges: list[tuple[int, int, int]], like: "MergeTable | None" = None) -> None:
        """Index a merge list known to be right (a trainer's: every merge it made joins two
        of its tokens into the token it then added; a start table's were checked when it was
        read): what :meth:`_set_merges` builds, without its checks. When the merges of
        ``like`` (an earlier table of the same trainer) begin this list, its indices are
        copied and only the merges after them added: a step costs a copy, not a rebuild."""
        known = like._merges if like is not None else None
        k = len(known) if known is not None else 0
        reuse = like is not None and known is not None and k <= len(merges) and merges[:k] == known
        pair_ranks, pair_made, creator = _first_ranks(merges, k if reuse else 0)
        if like is not None and reuse:  # the earlier ranks come first: theirs win
            pair_ranks.update(like._pair_ranks)
            pair_made.update(like._pair_made)
            creator.update(like._creator)
        self._pair_ranks, self._pair_made, self._creator = pair_ranks, pair_made, creator
        self._merges = merges  # last: another thread reads "built" from this

    @property
    def merges_built(self) -> bool:
        """Whether the merge list is there (a rank file's is built when first needed)."""
        return self._merges is not None

    def build_merges(self, progress: Progress | None = None, cancelled: Cancelled | None = None) -> bool:
        """Make the merge list now if the table does not hold it yet; True once it is there.

        A tiktoken rank file records no merges, and encoding does not need them (it goes by
        token rank); the views that show merges do (history, trace, merge trees, audit, saving
        to a format with merges). Whatever asks for them (:attr:`merges`, :attr:`merge_ids`,
        :attr:`num_merges`, :meth:`rank_of`, ...) builds them then; a UI calls this first, in
        a worker, to show ``progress(done, total)`` and stop when ``cancelled()`` (then it
        returns False and nothing is kept: the next call starts again). Thread-safe: a second
        caller waits for the first one's build.
        """
        if self._merges is not None:
            return True
        with self._build_lock:
            if self._merges is not None:
                return True
            assert self._build is not None
            built = self._build(progress, cancelled)
            if built is None:
                return False
            merges, notes = built
            self._set_merges(merges)
            if notes:
                self.config["notes"] = self.notes + [n for n in notes if n not in self.notes]
            return True

    def _merge_list(self) -> list[tuple[int, int, int]]:
        """The merges, built first if need be."""
        if self._merges is None:
            self.build_merges()
        assert self._merges is not None
        return self._merges

    def _merge_index(self) -> tuple[dict[tuple[int, int], int], dict[tuple[int, int], int]]:
        """``(pair_ranks, pair_made)`` of the merge list, built first if need be (the encoder's
        :data:`~bpe_tui.core.tables.encoder.MergeIndex`)."""
        self._merge_list()
        return self._pair_ranks, self._pair_made

    # ------------------------------------------------------------------ building

    @classmethod
    def from_trainer(cls, trainer, like: "MergeTable | None" = None) -> "MergeTable":
        """The table of a trainer's merges so far (asks only the trainer's public questions).

        The merges are not checked again as a file's are (a trainer's are right by
        construction): with GPT-2's 50,000 behind a ``--from`` run, checking them cost ~0.4 s
        on every step the explorer shows. ``like``: an earlier table of this trainer, whose
        indices are reused when its merges are still the first ones (``like`` itself is left
        as it was: tables are values)."""
        cfg = trainer.config
        config = {**cfg.to_dict(), **trainer.variant.table_config(trainer)}
        record = variant_record(trainer.variant)  # a variant from elsewhere: which, and whether it must be installed to encode
        if record is not None:
            config["variant"] = record
        if trainer.dropped_merges:  # SuperBPE: where the transition stands among the merges kept
            config["superwords_dropped"] = len(trainer.dropped_merges)
        vocab = trainer.vocab()
        vocab.update({i: trainer.surface(i) for i in trainer.removed})  # (PickyBPE: merges name them)
        return cls(
            units=cfg.units,
            vocab=vocab,
            merges=trainer.merge_list(),
            special_tokens=trainer.special_tokens,
            pretokenizer=trainer.pretokenizer,  # SuperBPE's chunks past the transition
            end_of_word=cfg.end_of_word,
            lowercase=cfg.lowercase,
            counts=trainer.merge_counts(),
            config=config,
            source_format="trainer",
            source=trainer.name,
            manual_ranks=trainer.manual_ranks(),
            _checked=False,
            _like=like,
        )

    @classmethod
    def from_vocab_merges(
        cls,
        vocab: Mapping,
        merges: Iterable[tuple],
        special_tokens: Iterable[str] | None = None,
        pretokenizer: str = "gpt2",
        end_of_word: str | None = None,
        lowercase: bool = False,
        source_format: str = "vocab+merges",
        source: str | None = None,
    ) -> "MergeTable":
        """Build a table from a vocabulary and a merge list, keeping the given ids.

        ``vocab`` maps id -> surface or surface -> id; ``merges`` lists ``(left, right)``
        surfaces in rank order. Surfaces are bytes (bytes mode) or str (chars mode). Every
        merge's parts and result must be in the vocabulary. Vocabulary entries that are
        neither base symbols nor merge results are treated as special tokens, as are the
        ``special_tokens`` named (added with fresh ids if missing).
        """
        items = list(vocab.items())
        if items and isinstance(items[0][0], int):
            id_to_surface = dict(items)
        else:
            id_to_surface = {i: s for s, i in items}
        if not id_to_surface:
            raise BPEError(f"{source or 'vocab'}: the vocabulary is empty")
        sample = next(iter(id_to_surface.values()))
        units = "bytes" if isinstance(sample, bytes) else "chars"
        surface_to_id = {s: i for i, s in id_to_surface.items()}
        merge_ids = []
        seen = set()
        for rank, (left, right) in enumerate(merges):
            where = f"{source or 'merges'}: merge {rank + 1} ({left!r} {right!r})"
            if (left, right) in seen:
                raise BPEError(f"{where} is listed twice")
            seen.add((left, right))
            for part in (left, right):
                if part not in surface_to_id:
                    raise BPEError(f"{where}: {part!r} is not in the vocabulary")
            new = left + right
            if new not in surface_to_id:
                raise BPEError(f"{where}: the merged token {new!r} is not in the vocabulary")
            merge_ids.append((surface_to_id[left], surface_to_id[right], surface_to_id[new]))
        outputs = {m[2] for m in merge_ids}
        specials: dict[str, int] = {}
        for token_id, surface in id_to_surface.items():
            if token_id in outputs or len(surface) == 1 or surface == end_of_word:
                continue
            text = text_of(surface)
            specials[text] = token_id
        next_id = max(id_to_surface) + 1
        for special in special_token_list(special_tokens):  # a str is one token; none empty
            key = special.encode("utf-8") if units == "bytes" else special
            if special not in specials:
                if key in surface_to_id and surface_to_id[key] not in outputs:
                    specials[special] = surface_to_id[key]
                else:
                    specials[special] = next_id
                    id_to_surface[next_id] = key
                    next_id += 1
        return cls(
            units,
            id_to_surface,
            merge_ids,
            specials,
            pretokenizer=pretokenizer,
            end_of_word=end_of_word,
            lowercase=lowercase,
            source_format=source_format,
            source=source,
        )

    def with_rules(self, pretokenizer: str | None = None, special_tokens: Iterable[str] = ()) -> "MergeTable":
        """The same merges and vocabulary with another pre-tokenizer, and/or more special
        tokens (each with a fresh id after the vocabulary, unless it already is one).

        For files that do not record these (a tiktoken rank file nobody recognises), or a
        guess the user wants to correct; ``notes`` records what was set by hand.
        """
        specials = dict(self.special_tokens)
        vocab = dict(self._vocab)
        notes = list(self.notes)
        added = [s for s in special_token_list(special_tokens) if s not in specials]
        next_id = max(vocab, default=-1) + 1
        for special in added:
            specials[special] = next_id
            vocab[next_id] = special.encode("utf-8") if self.units == "bytes" else special
            next_id += 1
        if added:
            notes.append("special tokens added by hand: " + ", ".join(f"{s} = {specials[s]}" for s in added))
        if pretokenizer is not None and pretokenizer != self.pretokenizer:
            notes.append(f"pre-tokenizer set by hand to {pretokenizer} (the reader had {self.pretokenizer})")
        else:
            pretokenizer = self.pretokenizer
        merges = self._merges if self._merges is not None else self._build
        assert merges is not None, "a table has its merge list or the builder that makes it"
        return MergeTable(
            self.units, vocab, merges, specials, pretokenizer=pretokenizer, end_of_word=self.end_of_word,
            lowercase=self.lowercase, counts=self.counts, config=dict(self.config, notes=notes),
            source_format=self.source_format, source=self.source, manual_ranks=self.manual_ranks,
        )

    def truncated(self, k: int) -> "MergeTable":
        """The same table with only its first ``k`` merges (ids unchanged). It encodes by
        its merge list (a cut is a place in the merge list, not in the token ranks)."""
        merges = self._merge_list()
        k = max(0, min(k, len(merges)))
        keep = merges[:k]
        dropped = {m[2] for m in merges[k:]} - {m[2] for m in keep}
        # A merge may use a part made by a later merge (rank files: see tiktoken_bpe); once
        # that part is cut, so is the merge, and so on down the chain.
        while True:
            orphans = [m for m in keep if m[0] in dropped or m[1] in dropped]
            if not orphans:
                break
            keep = [m for m in keep if m not in orphans]
            dropped |= {m[2] for m in orphans} - {m[2] for m in keep}
        vocab = {i: s for i, s in self._vocab.items() if i not in dropped}
        config = {key: value for key, value in self.config.items() if key != "merge_by"}
        if self._removals is not None:  # (PickyBPE: the removals up to the cut)
            config["removals"] = self._removals.truncated(k)
        if "supermerges" in config:  # (BoundlessBPE: the supermerges up to the cut)
            config["supermerges"] = [n for n in self.supermerges if n <= k]
        return MergeTable(
            self.units,
            vocab,
            keep,
            self.special_tokens,
            pretokenizer=stage_pretokenizer(self.pretokenizer, self.config, k),  # SuperBPE: stage 1 before K
            end_of_word=self.end_of_word,
            lowercase=self.lowercase,
            counts=self.counts[:k] if self.counts is not None else None,
            config=config,
            source_format=self.source_format,
            source=self.source,
            manual_ranks=self._kept_manual_ranks(k, keep),
        )

    def renumbered(self) -> "MergeTable":
        """The same tokenizer numbered as PickyBPE's reference numbers its output (its
        ``id2int``): the tokens in the vocabulary in id order from 0, without the gaps the
        removed ones leave, then the tokens removed for good (see
        :func:`~bpe_tui.core.tables.removals.renumbered`). A table without removals is
        returned as it is, and so is a BoundlessBPE table (its reference keeps the deleted
        tokens' ids). Saved tables with removals are written so."""
        if self._removals is None or isinstance(self._removals, BoundlessEvents):
            return self
        new = renumbered(self._vocab, self._removals.absent)
        config = dict(self.config, removals=[[k, new[t], [new[p] for p in parts]] for k, t, parts in self._removals.entries])
        return MergeTable(
            self.units, {new[i]: s for i, s in self._vocab.items()}, [(new[a], new[b], new[c]) for a, b, c in self._merge_list()],
            {s: new[i] for s, i in self.special_tokens.items()}, pretokenizer=self.pretokenizer, end_of_word=self.end_of_word,
            lowercase=self.lowercase, counts=self.counts, config=config, source_format=self.source_format, source=self.source,
            manual_ranks=self.manual_ranks,
        )

    def _kept_manual_ranks(self, k: int, keep: list) -> list[int]:
        """The manual ranks of a table cut to ``keep`` (the first ``k`` merges, less orphans)."""
        if not self.manual_ranks:
            return []
        kept = set(keep)
        new_rank: dict[int, int] = {}
        for old, merge in enumerate(self._merge_list()[:k]):
            if merge in kept:
                new_rank[old] = len(new_rank)
        return [new_rank[r] for r in self.manual_ranks if r in new_rank]

    # ------------------------------------------------------------------ questions

    @property
    def vocab(self) -> dict[int, Surface]:
        """id -> surface for every token, special tokens included (as bytes in bytes mode); not
        the tokens PickyBPE removed for good (see :attr:`removed`)."""
        if self._removals is not None:
            absent = self._removals.absent
            return {i: s for i, s in self._vocab.items() if i not in absent}
        return dict(self._vocab)

    @property
    def removed(self) -> frozenset[int]:
        """The ids of the tokens PickyBPE's training removed for good: merges and removals
        name them (:meth:`surface` knows them) but encoding never gives them."""
        return self._removals.absent if self._removals is not None else frozenset()

    @property
    def removals(self) -> list[list]:
        """PickyBPE's removals, ``[k, token id, [part ids]]`` each right after merge ``k``, in
        order (empty for a table without); encoding replays them with the merges."""
        return self._removals.to_config() if self._removals is not None else []

    @property
    def supermerges(self) -> list[int]:
        """The 1-based numbers of the merges that are BoundlessBPE's supermerges (two whole
        pre-tokens joined; they apply across pre-tokens, after the words are encoded), in
        order; empty for any other table."""
        return list(self._removals.supermerges) if isinstance(self._removals, BoundlessEvents) else []

    @property
    def is_boundless(self) -> bool:
        """Whether this is a BoundlessBPE table (``config["supermerges"]``, even an empty one)."""
        return isinstance(self._removals, BoundlessEvents)

    @property
    def merges(self) -> list[Pair]:
        """``(left, right)`` surfaces of every merge, in rank order."""
        v = self._vocab
        return [(v[a], v[b]) for a, b, _ in self._merge_list()]

    @property
    def merge_ids(self) -> list[tuple[int, int, int]]:
        """``(left_id, right_id, new_id)`` of every merge, in rank order."""
        return list(self._merge_list())

    def __repr__(self) -> str:
        from ..notebook import table_repr

        return table_repr(self)

    def _repr_html_(self) -> str:
        """The table in a notebook: size, rules, special tokens, first and last merges."""
        from ..notebook import table_html

        return table_html(self)

    def __len__(self) -> int:
        """Vocabulary size (base + special + merged tokens). A helper symbol kept outside the
        vocabulary (CLIP's lone ``</w>``, ``config["outside_vocab_from"]``: encoding never
        gives it) is not counted: CLIP's table has 49,408 tokens, as CLIPTokenizer says."""
        return len(self._vocab) if self._inside_counts is None else self._inside_counts[0]

    @property
    def num_merges(self) -> int:
        return len(self._merge_list())

    def surface(self, token_id: int) -> Surface:
        """The surface of a token id (KeyError if absent)."""
        return self._vocab[token_id]

    def token_id(self, surface: Surface) -> int | None:
        """The id of a surface, or None."""
        found = self._surface_to_id.get(surface)
        if found is None and isinstance(surface, (str, bytes)):
            text = text_of(surface)
            found = self.special_tokens.get(text)
        return found

    # ------------------------------------------------------------------ lookups (tiktoken's and HF's names)

    def token_to_id(self, token: str | bytes) -> int | None:
        """The id of the token whose text (str) or bytes is ``token``, special tokens
        included, or None (Hugging Face's ``token_to_id``; tiktoken's ``encode_single_token``
        raises KeyError instead). Tokens are spelled as they are, not as a file stores them:
        ``" the"``, not GPT-2's ``"Ġthe"`` or sentencepiece's ``"▁the"``."""
        if isinstance(token, bytes) and self.units == "chars":
            try:
                token = token.decode("utf-8")
            except UnicodeDecodeError:
                return None
        elif isinstance(token, str) and self.units == "bytes" and token not in self.special_tokens:
            token = token.encode("utf-8", "surrogatepass")
        if not isinstance(token, (str, bytes)):
            raise BPEError(f"a token is a str or bytes, not {token!r}")
        return self.token_id(token)

    def id_to_token(self, token_id: int) -> Surface | None:
        """The token with this id (bytes in a byte-level table, str in a chars table; a
        special token as its text's bytes or text), or None (Hugging Face's ``id_to_token``)."""
        return self._vocab.get(token_id) if type(token_id) is int else None

    @property
    def n_vocab(self) -> int:
        """One more than the largest id (tiktoken's ``n_vocab``): ids run below it. ``len(table)``
        counts the tokens (Hugging Face's ``get_vocab_size``); the two differ where ids have gaps."""
        return max(self._vocab, default=-1) + 1 if self._inside_counts is None else self._inside_counts[1]

    def decode_single_token_bytes(self, token_id: int) -> bytes:
        """The bytes of one token (tiktoken's ``decode_single_token_bytes``): a byte-level
        token's bytes, a byte-fallback token's byte, else the token's text as UTF-8 (a special
        token's, or a chars token's with its end-of-word marker or prefix as it is).
        :class:`~bpe_tui.core.errors.TokenIdError` (a KeyError) for an id the table lacks."""
        if type(token_id) is not int or token_id not in self._vocab:
            raise self._no_such_id(token_id)
        value = self._byte_token_values.get(token_id)
        if value is not None:
            return bytes([value])
        surface = self._vocab[token_id]
        return surface if isinstance(surface, bytes) else surface.encode("utf-8")

    @property
    def emits_unknown(self) -> bool:
        """Whether :meth:`encode` can give :data:`UNK_ID`: the table has no token for some
        character or byte and no unknown token of its own (a chars table without byte
        fallback for every byte, a byte-level table missing a byte). Only then does
        :meth:`decode` take UNK_ID (as U+FFFD); elsewhere -1 is an id like any other absent one."""
        if self.unk_id != UNK_ID:
            return False
        if self.units == "bytes":
            return self.by_token_rank is False and len(self._base) < 256
        return len(self._byte_tokens) < 256 or self._outside_from is not None

    def _no_such_id(self, token_id: object, position: int | None = None) -> TokenIdError:
        """The one-line error for an id the table does not have."""
        where = f" (position {position + 1})" if position is not None else ""
        if token_id == UNK_ID:
            if self.unk_id != UNK_ID:
                instead = f"encode gives the table's own unknown token, id {self.unk_id}, instead"
            elif self.units == "bytes":
                instead = "encode never gives it: every byte has a token"
            else:
                instead = "encode spells unknown characters in byte tokens instead"
            return TokenIdError(
                f"token id -1{where} is not in the vocabulary: -1 (UNK_ID) stands for a character the table has no token for, and {instead}"
            )
        return TokenIdError(f"token id {token_id!r}{where} is not in the vocabulary (ids run 0-{self.n_vocab - 1})")

    # ------------------------------------------------------------------ hand-off to the libraries

    def to_tiktoken(self, name: str | None = None) -> Any:
        """A ``tiktoken.Encoding`` that encodes every text to the ids :meth:`encode` gives, or
        a one-line BPEError naming what tiktoken cannot express (see
        :mod:`~bpe_tui.core.tables.handoff`). Needs tiktoken installed."""
        return handoff.to_tiktoken(self, name)

    def to_tokenizers(self) -> Any:
        """A Hugging Face ``tokenizers.Tokenizer`` that encodes every text to the ids
        :meth:`encode` gives (``add_special_tokens`` adds nothing), or a one-line BPEError
        naming what it cannot express (see :mod:`~bpe_tui.core.tables.handoff`)."""
        return handoff.to_tokenizers(self)

    def rank_of(self, token_id: int) -> int | None:
        """The 0-based rank of the merge that created ``token_id`` (None for base/special)."""
        self._merge_list()
        return self._creator.get(token_id)

    def pair_rank(self, left_id: int, right_id: int) -> int | None:
        """The 0-based rank of the merge of these two tokens, or None if there is none."""
        self._merge_list()
        return self._pair_ranks.get((left_id, right_id))

    def merge_at(self, rank: int) -> tuple[int, int, int]:
        """``(left_id, right_id, new_id)`` of the merge with this rank."""
        return self._merge_list()[rank]

    def is_special(self, token_id: int) -> bool:
        return token_id in self._special_surfaces

    def base_ids(self) -> set[int]:
        """The ids of the base symbols (single bytes or characters, and the end-of-word
        marker) that encoding starts from."""
        return set(self._base.values())

    def unbuildable_ids(self) -> list[int]:
        """Tokens no merge makes that are neither base symbols nor special tokens.

        BPE can never produce them by merging; only a whole-piece lookup can emit them (as
        tiktoken does when a pre-token is itself a rank, and as Llama 3's table relies on),
        or nothing at all. The tiktoken reader keeps such ranks for decoding.
        """
        base = self.base_ids()
        self._merge_list()
        return sorted(
            i for i in self._vocab if i not in self._creator and i not in self._special_surfaces and i not in base
        )

    def encodes_to_itself(self, token_id: int) -> bool:
        """Whether encoding the token's own text gives back exactly this one token.

        The text must come through lowercasing and the table's normalizer unchanged, and
        stay one pre-token (the pre-tokenizer, without the prefix space a sentencepiece-style
        table adds, must not cut it and no special token may be inside it); only then may it
        be emitted whole (``ignore_merges``), or else merging its base symbols by rank must
        end in this token. (o200k's ``" I'"`` is a rank, yet its regex cuts it before the
        apostrophe: it encodes to two tokens.) A token that ends
        with the end-of-word marker is taken as a whole word; one without it as the inside
        of a word. A byte token that is not valid UTF-8 alone has no text: only its merges
        are checked. Special tokens and base symbols encode to themselves.
        """
        if token_id in self._special_surfaces or token_id in self._base_id_set:
            return True
        surface: Any = self._vocab[token_id]  # bytes in a bytes table, str in a chars table
        eow = self.end_of_word
        bytes_mode = self.units == "bytes"
        marker: Any = (eow.encode("utf-8") if bytes_mode else eow) if eow else None
        whole_word = marker is not None and surface.endswith(marker)
        body = surface[: len(surface) - len(marker)] if whole_word else surface
        prefix: Any = self.continuing_prefix
        # (with a continuing prefix, a token that carries it is the inside of a word)
        inside = prefix is not None and body.startswith(prefix) and len(body) > len(prefix)
        if inside:
            body = body[len(prefix) :]
        try:
            text = body.decode("utf-8") if bytes_mode else body
        except UnicodeDecodeError:
            text = None  # a piece of a character: no text to pre-tokenize
        if text is not None and self.is_boundless:  # (a supermerge's token spans pre-tokens)
            return self.encode_ordinary(text) == [token_id]
        if text is not None:
            if self._pre.normalize(text) != text:
                return False  # encoding lowercases or normalizes it (Qwen2's NFC) into other text
            if self._raw_pre is None:
                self._raw_pre = PreTokenizer(self.pretokenizer, list(self.special_tokens), lowercase=False)
            if list(self._raw_pre.split(text)) != [(False, text)]:
                return False
            if not whole_word and not inside and self.whole_token(text) == token_id:
                return True  # one pre-token, emitted whole (ignore_merges: tiktoken's lookup)
        if self.by_token_rank:
            symbols: list = [body[i : i + 1] for i in range(len(body))]
        elif inside:
            after = self._continuing_base
            symbols = [after.get(c, UNK_ID) for c in body]
        else:
            base = self._base
            symbols = [base.get(u, UNK_ID) for u in body]  # bytes iterate as ints, str as characters
            if prefix is not None:
                after = self._continuing_base
                symbols[1:] = [after.get(c, UNK_ID) for c in body[1:]]
            if whole_word:
                symbols.append(self._eow_id)
        return self._merged(symbols) == [token_id]

    def merge_tree(self, token_id: int) -> MergeNode:
        """How a token was built, down to base symbols (a tree of merges; see explain.py)."""
        return explain.merge_tree(self, token_id)

    def search(self, query: str, limit: int = 200, cancelled: Callable[[], bool] | None = None) -> list[int]:
        """Token ids whose readable text contains ``query`` (or whose id is ``query``).

        Exact matches come first, then shorter tokens, then by id. The tokens' texts are
        worked out once per table, sorted by length (the first search of a 200,000-token table
        takes a second or two; the next ones milliseconds), and a search walks them shortest
        first, so it stops as soon as ``limit`` are found. ``cancelled()``, if given, is asked
        now and then: a UI that starts a new search on each keystroke stops the old one that
        way (and gets ``[]``). See :mod:`~bpe_tui.core.tables.search`.
        """
        if self._search is None:
            self._search = search.SearchIndex(self._vocab, self.end_of_word)
        return search.search(self, self._search, query, limit, cancelled)

    def display(self, token_id: int) -> str:
        """A token as readable one-line text (whitespace visible, bad bytes as <0xNN>)."""
        if token_id == UNK_ID:
            return "<unk>"
        return visible(self._vocab[token_id], self.end_of_word)

    def describe(self, build: bool = True) -> dict:
        """A summary for ``inspect`` and status lines.

        ``build=False``: do not build a rank file's merge list to count its merges; while it
        is not built (:attr:`merges_built`), ``"merges"`` is None. A UI thread asks this way,
        so that a summary never waits seconds for the merges a worker is building.
        """
        return {
            "format": self.source_format,
            "source": self.source,
            "units": self.units,
            "pretokenizer": self.pretokenizer,
            "end_of_word": self.end_of_word,
            "lowercase": self.lowercase,
            "vocab_size": len(self),
            "merges": self.num_merges if build or self.merges_built else None,
            "special_tokens": dict(self.special_tokens),
            "prefix_space": self.prefix_space,
            "notes": self.notes,
            "tie_break": self.config.get("tie_break"),
        }

    @property
    def notes(self) -> list[str]:
        """What the reader of this table's file recognised, inferred or could not apply, in
        plain sentences (``config["notes"]``); shown by ``bpe-tui inspect`` and the explorer."""
        notes = self.config.get("notes")
        return [str(n) for n in notes] if isinstance(notes, list) else []

    @property
    def prefix_space(self) -> str | None:
        """Where encoding puts a space in front of the text, if it does (see PREFIX_SCHEMES)."""
        return self._pre.prefix_space

    # ------------------------------------------------------------------ encoding (encoder.py)

    def whole_token(self, word: str) -> int | None:
        """The id of a pre-token emitted whole, without merging: with ``ignore_merges``, a
        pre-token that is itself a (non-special) token; else None."""
        return self._encoder.whole_token(word)

    def _merged(self, symbols: list, dropout: float = 0.0, rng: random.Random | None = None, log: list | None = None) -> list[int]:
        """The ids ``symbols`` merge into, by the table's rule (see Encoder.merged)."""
        return self._encoder.merged(symbols, dropout, rng, log)

    def encode(
        self, text: str, dropout: float = 0.0, seed: int | None = None, *,
        allowed_special: Allowed = "all", disallowed_special: Disallowed = "all",
    ) -> list[int]:
        """Token ids of ``text``.

        Special tokens in the text encode to their own ids (as Hugging Face does);
        ``allowed_special`` and ``disallowed_special`` say otherwise, with tiktoken's meaning
        (see :mod:`~bpe_tui.core.tables.special_policy`).

        Args:
            text: The text.
            dropout: The probability of skipping each merge (BPE-dropout), sampling one of the
                text's alternative segmentations; 0: the one segmentation.
            seed: The dropout's random seed.
            allowed_special: The special tokens recognised in the text ("all", or a set): one
                not allowed is ordinary text (the added tokens a tokenizer.json marks
                ``"special": false`` are recognised whatever this says, as there).
            disallowed_special: The special tokens refused when found ("all", or a set).

        Returns:
            The ids; an unseen character in a chars table without an unknown token is
            :data:`UNK_ID`.

        Raises:
            DisallowedSpecial: A disallowed special token is in the text (naming it and its
                offset).
        """
        return self._encoder.for_text(text, allowed_special, disallowed_special).encode(text, dropout, seed)

    def encode_ordinary(self, text: str) -> list[int]:
        """Token ids of ``text`` with every special token's text encoded as ordinary text
        (tiktoken's ``encode_ordinary``; Hugging Face's ``encode_special_tokens=True``, which
        still matches the added tokens marked ``"special": false``: so does this)."""
        return self.encode(text, allowed_special=frozenset(), disallowed_special=())

    def encode_with_offsets(
        self, text: str, dropout: float = 0.0, seed: int | None = None, *,
        allowed_special: Allowed = "all", disallowed_special: Disallowed = "all",
    ) -> tuple[list[int], list[tuple[int, int]]]:
        """The ids :meth:`encode` gives, with the characters of ``text`` each token stands for.

        Offsets are in the text as given (before any normalization), with Hugging Face's
        ``Encoding.offsets`` semantics: a token holding part of a character's bytes spans the
        whole character, a prefix space added in front of a segment spans that segment's first
        character. See :mod:`~bpe_tui.core.tables.offsets`. ``dropout``, ``seed`` and the
        special tokens' options as in :meth:`encode`.

        Args:
            text: The text.

        Returns:
            ``(ids, offsets)``, an ``(start, end)`` pair of character offsets per token.
        """
        return self._encoder.for_text(text, allowed_special, disallowed_special).encode_with_offsets(text, dropout, seed)

    def encode_batch(
        self, texts: Sequence[str], workers: int | None = None, *,
        allowed_special: Allowed = "all", disallowed_special: Disallowed = "all",
    ) -> list[list[int]]:
        """:meth:`encode` of each text, in order, in worker processes (special tokens as there).

        tiktoken's ``encode_batch`` (threads), Hugging Face's ``encode_batch``.

        Args:
            texts: The texts.
            workers: Processes (None: one per CPU for a big batch, this process for a small
                one; see :mod:`~bpe_tui.core.tables.batch`).

        Returns:
            Each text's ids.
        """
        recognised, disallowed = self.resolve_specials(allowed_special, disallowed_special)
        for text in texts:
            special_policy.check(text, disallowed)
        return batch.encode_batch(self, recognised, texts, workers)

    def resolve_specials(self, allowed_special: Allowed, disallowed_special: Disallowed) -> tuple[frozenset[str], frozenset[str]]:
        """``(recognised, disallowed)``: the special tokens recognised in text and the texts
        refused under tiktoken's two arguments (see :mod:`~bpe_tui.core.tables.special_policy`);
        the added tokens a tokenizer.json marks not special are always recognised."""
        return self._encoder.policy(allowed_special, disallowed_special)

    def encode_ordinary_batch(self, texts: Sequence[str], workers: int | None = None) -> list[list[int]]:
        """:meth:`encode_ordinary` of each text (see :meth:`encode_batch`)."""
        return self.encode_batch(texts, workers, allowed_special=frozenset(), disallowed_special=())

    def _recognising(self, specials: frozenset[str]) -> Encoder:
        """The table's encoder with only ``specials`` recognised in text (for batch.py)."""
        return self._encoder.recognising(specials)

    def pieces(
        self, text: str, dropout: float = 0.0, seed: int | None = None, *,
        allowed_special: Allowed = "all", disallowed_special: Disallowed = "all",
    ) -> list[tuple[int, bytes | str]]:
        """Each token of ``text`` as ``(id, surface)``; ``dropout``, ``seed`` and the special
        tokens' options as in :meth:`encode`.

        Args:
            text: The text.

        Returns:
            ``(id, surface)`` per token; an unknown character is ``(UNK_ID, the character)``.
        """
        return self._encoder.for_text(text, allowed_special, disallowed_special).pieces(text, dropout, seed)

    def tokens(self, text: str) -> list[bytes | str]:
        """The surfaces of ``text``'s tokens (unknown characters as themselves)."""
        return [s for _, s in self.pieces(text)]

    def encode_iterable(
        self, chunks: Iterable[str], *, allowed_special: Allowed = "all", disallowed_special: Disallowed = "all",
    ) -> Iterator[int]:
        """Encode a stream of text (say, a file's lines) lazily, as if it were one string.
        Special tokens as in :meth:`encode` (a disallowed one is refused when the stream
        reaches it: the ids before it have been given by then).

        The last pre-token of each chunk (and any tail that could begin a special token) is
        held back until more text arrives, because the next chunk may extend it; memory
        stays bounded by the longest pre-token, not by the input. (Tables with added tokens
        matched after normalization, Hugging Face's ``normalized: true`` under a normalizer
        that changes them, take the whole text at once: the streaming splitter finds special
        tokens in the raw text only.)
        """
        encoder, chunks = self._encoder.for_stream(chunks, allowed_special, disallowed_special)
        return encoder.encode_iterable(chunks)

    def pieces_iterable(
        self, chunks: Iterable[str], *, allowed_special: Allowed = "all", disallowed_special: Disallowed = "all",
    ) -> Iterator[tuple[int, bytes | str]]:
        """``(id, surface)`` per token of a stream of text, lazily (see :meth:`encode_iterable`);
        the same pieces as :meth:`pieces` of the whole text."""
        encoder, chunks = self._encoder.for_stream(chunks, allowed_special, disallowed_special)
        return encoder.pieces_iterable(chunks)

    def decode(self, ids: Iterable[int], errors: str = "replace") -> str:
        """Text from token ids.

        Bytes are joined and decoded as UTF-8; in chars mode the end-of-word marker becomes a
        space. A table that puts a prefix space in front of the text takes it off again (as
        its own decoder does).

        Args:
            ids: Token ids. :data:`UNK_ID` decodes as U+FFFD on a table whose encoding gives it
                (:attr:`emits_unknown`).
            errors: Python's (and tiktoken's) for bytes that are not UTF-8: "replace" (U+FFFD
                for each bad sequence), "strict", "ignore", "backslashreplace".

        Returns:
            The text.

        Raises:
            TokenIdError: An id the table does not have.
            UndecodableToken: With ``errors="strict"``: the first id whose bytes do not decode.
        """
        return decoding.decode(self, list(ids), errors)

    # ------------------------------------------------------------------ explaining

    def trace(self, word: str) -> list[TraceStep]:
        """The merges applied to one pre-token, in the order they apply, with ranks.

        Args:
            word: A single pre-token (it is not pre-tokenized again).

        Returns:
            One step per merge applied.
        """
        word = valid_text(word)
        return explain.trace_steps(self, self._encoder.symbols(self._pre.normalize(word)))

    def initial_symbols(self, word: str) -> list:
        """A pre-token's base symbols, before any merge (unknown characters as themselves)."""
        return [s for _, s in self._encoder.pieces_of_ids(word, self._encoder.base_ids(word))]

    def pretokenize(self, text: str) -> list[tuple[bool, str]]:
        """``(is_special, piece)`` for the text, as encode sees it."""
        return list(self._pre.split(text))

    def pretoken_spans(self, text: str) -> list[tuple[bool, str, tuple[int, int]]]:
        """``(is_special, piece, (start, end))``: the pieces of :meth:`pretokenize`, each with
        the characters of ``text`` as given that it stands for (a lowercased or normalized
        piece is found where its original text is). See :mod:`~bpe_tui.core.tables.offsets`."""
        return offsets.pretoken_spans(self._encoder, text)


def _unpickled(*args: Any) -> MergeTable:
    """A pickled table built again (see :meth:`MergeTable.__reduce__`)."""
    return MergeTable(*args, _checked=False)
