"""MergeTable: a trained BPE tokenizer — merges, vocabulary, pre-tokenizer — and encoding.

A merge table is the ranked list of merges BPE learned, ``(left, right) -> new token``, plus
the vocabulary (id -> surface) and the rules needed to apply it (units, pre-tokenizer,
special tokens, end-of-word marker).

How encoding works: cut special tokens out, pre-tokenize the rest, and for each pre-token
start from its base symbols (bytes or characters) and repeatedly merge the adjacent pair with
the *lowest rank* (the earliest learned merge), leftmost first on ties, until no adjacent pair
is in the table. That gives the same result as replaying the merge list in order, but only
looks at pairs that are actually present (this is what tiktoken does).

In bytes mode surfaces are ``bytes`` and every string can be encoded; in chars mode they are
``str`` and a character the table has never seen encodes as :data:`UNK_ID` (shown as
unknown, never a crash).

Why this module is long: MergeTable is one value, and its sections (the merge list and its
indices, building, questions, encoding, explaining) read the same private indices; the encode
path, the hot one, stays in one class so that a lookup is one attribute away. Reading and
writing files is not here (``core/tables/formats``), nor is the merge loop (``engine/merging``).
"""

from __future__ import annotations

import bisect
import copy
import itertools
import random
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from operator import itemgetter
from typing import Any

from ..engine.merging import MergeLog, PieceCache, merge
from ..engine.superwords import stage_pretokenizer
from ..engine.units import text_of, visible
from ..errors import BPEError, TokenIdError, UndecodableToken
from ..text.normalize import SentencePieceNormalizer, from_spec
from ..text.pretokenize import (
    PreTokenizer,
    ascii_findall,
    valid_text,
)
from ..text.specials import special_token_list
from ..types import UNK_ID, Pair, PrefixScheme, Surface  # UNK_ID is re-exported too
from ..wording import merge_number  # noqa: F401  (re-exported: where callers have always found it)
from . import batch, handoff, offsets, special_policy
from .removals import Removals, ReplayLog, renumbered
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


def merged_surface(left, right, prefix: str | None = None):
    """The surface a merge of ``left`` and ``right`` makes: the two joined, except that with a
    ``continuing_subword_prefix`` (Hugging Face's, e.g. ``##``: every symbol but a word's first
    carries it) the right one loses the prefix's length first, as tokenizers does
    (``hel`` + ``##lo`` = ``hello``, ``##el`` + ``##lo`` = ``##ello``)."""
    return left + right[len(prefix) :] if prefix else left + right


def check_dropout(p) -> float:
    """A dropout probability: a number in [0, 1] (BPEError otherwise)."""
    if isinstance(p, bool) or not isinstance(p, (int, float)) or not 0 <= p <= 1:
        raise BPEError(f"dropout must be a probability between 0 and 1, not {p!r}")
    return float(p)


#: ``progress(done, total)``, called now and then by long work.
Progress = Callable[[int, int], None]
#: ``cancelled() -> True`` stops long work that asks it now and then.
Cancelled = Callable[[], bool]
#: What a table holds instead of its merges until they are first needed: called as
#: ``builder(progress, cancelled)``, returns ``(merges, notes)`` (the ``(left_id, right_id,
#: new_id)`` list in rank order, and sentences for :attr:`MergeTable.notes`), or None when
#: ``cancelled()`` said stop. The tiktoken reader's replay is one (see :meth:`build_merges`).
MergeBuilder = Callable[["Progress | None", "Cancelled | None"], "tuple[list[tuple[int, int, int]], list[str]] | None"]

#: ``config["merge_by"]`` for tables that encode by *token rank* (tiktoken's rule: a pair
#: merges when its concatenation is a token, lowest rank first; see merging.py), not by their
#: merge list. Token ids are the ranks.
BY_TOKEN_RANK = "token rank"


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
        continuing = self.config.get("continuing_subword_prefix")
        #: Hugging Face's ``continuing_subword_prefix`` (e.g. ``##``), chars tables only: every
        #: symbol of a word but its first starts as the prefixed character (see merged_surface).
        self.continuing_prefix: str | None = continuing if isinstance(continuing, str) and continuing and units == "chars" else None

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
        special_ids = set(self.special_tokens.values())
        bytes_mode = units == "bytes"
        #: PickyBPE's removals, replayed in order with the merges when encoding (removals.py)
        self._removals: Removals | None = None
        if self.config.get("removals") and self._merges is not None:
            self._removals = Removals(self.config["removals"], self._merges, self._vocab, source or "table")
        absent: frozenset[int] = self._removals.absent if self._removals is not None else frozenset()
        self._surface_to_id = _surfaces_to_ids({i: s for i, s in self._vocab.items() if i not in absent} if absent else self._vocab, special_ids)
        #: Text put in front of every pre-token before encoding (PickyBPE's ``▁``), if any.
        start = self.config.get("word_start")
        self.word_start: str | None = start if isinstance(start, str) and start else None
        self._base: dict = {}  # byte value (int) or character (str) -> id
        if bytes_mode:  # the 256 single bytes (a merge never makes one)
            for b in range(256):
                found = self._surface_to_id.get(bytes([b]))
                if found is not None:
                    self._base[b] = found
        else:
            for token_id, surface in self._vocab.items():
                # (a merge makes two symbols or more: only a multi-character end-of-word
                # marker could be both a base symbol and a merge's result)
                if token_id in special_ids or token_id in self._creator:
                    continue
                if len(surface) == 1 or surface == end_of_word:
                    self._base[surface] = token_id
        # With a continuing prefix: a character after a word's first -> the id of prefix + it.
        self._continuing_base: dict[str, int] = {}
        if self.continuing_prefix is not None:
            cut = len(self.continuing_prefix)
            for token_id, surface in self._vocab.items():
                if isinstance(surface, str) and len(surface) == cut + 1 and surface.startswith(self.continuing_prefix) and token_id not in special_ids:
                    self._continuing_base[surface[cut:]] = token_id
        self._eow_id = None
        if end_of_word is not None:
            key = end_of_word.encode("utf-8") if bytes_mode else end_of_word
            self._eow_id = next((i for i, s in self._vocab.items() if s == key and i not in special_ids), None)
        self._special_surfaces = {i: s for s, i in self.special_tokens.items()}
        # The space sentencepiece-style tokenizers put in front of the text (see
        # PREFIX_SCHEMES); tables from before the scheme was kept say only prepend_space.
        prefix: PrefixScheme | None = self.config.get("prepend_scheme") or ("always" if self.config.get("prepend_space") else None)
        # What the table's library does to the text first (config["normalizer"], see
        # normalize.py): sentencepiece's normalizer takes the whole text, others each segment.
        spec = self.config.get("normalizer")
        normalizer = from_spec(spec, "config.normalizer") if isinstance(spec, dict) else None
        whole = normalizer if isinstance(normalizer, SentencePieceNormalizer) else None
        flags = self.config.get("special_flags") if isinstance(self.config.get("special_flags"), dict) else None
        self._pre_rules = (prefix, None if whole else normalizer, whole, flags)
        self._pre = self._pretokenizer_for(list(self.special_tokens))
        #: The same table recognising fewer special tokens, by the set it recognises (see
        #: _recognising): made when an encode call first asks, kept for the next.
        self._views: dict[frozenset[str], MergeTable] = {}
        #: Decoding takes off the space encoding put in front of the text.
        self._strips_prefix = (prefix is not None and units == "chars") or self.word_start is not None or (
            whole is not None and whole.add_dummy_prefix and not whole.treat_whitespace_as_suffix
        )
        # Characters a chars-mode table does not know: spelled as <0xNN> byte tokens
        # (byte_fallback), else the unknown token, runs of them fused into one (fuse_unk).
        self._byte_tokens: dict[int, int] = {}
        if units == "chars" and self.config.get("byte_fallback"):
            for token_id, surface in self._vocab.items():
                if isinstance(surface, str) and len(surface) == 6 and surface.startswith("<0x") and surface.endswith(">"):
                    try:
                        self._byte_tokens[int(surface[3:5], 16)] = token_id
                    except ValueError:
                        pass
        self._byte_token_values = {i: b for b, i in self._byte_tokens.items()}
        self._fuse_unk = bool(self.config.get("fuse_unk"))
        unk_surface = self.config.get("unk_surface")
        self._unk_surface = unk_surface if isinstance(unk_surface, str) else None
        self._cache = PieceCache()
        #: Encode by token rank (tiktoken's rule), not by merge list: see BY_TOKEN_RANK.
        self.by_token_rank = self.config.get("merge_by") == BY_TOKEN_RANK and bytes_mode and end_of_word is None
        self._single_bytes = [bytes([b]) for b in range(256)]
        self._search: tuple[str, list[int], list[int]] | None = None  # see _search_index
        self._raw_pre: PreTokenizer | None = None  # without the prefix space (encodes_to_itself)
        #: Emit a pre-token that is itself a token whole, merges or not (tiktoken always does;
        #: Hugging Face's ``ignore_merges``): the table's ``config["ignore_merges"]``.
        self.ignore_merges = bool(self.config.get("ignore_merges"))
        # Encoding fast paths, same results: bytes -> base ids in one bytes.translate when
        # every byte has a base id below 256; Python's re with ASCII classes on ASCII text.
        self._byte_ids: bytes | None = None
        if bytes_mode and all(0 <= self._base.get(b, -1) < 256 for b in range(256)):
            self._byte_ids = bytes(self._base[b] for b in range(256))
        self._ascii_findall = ascii_findall(self._pre.name)
        # The id a table's own format gives unknown characters (sentencepiece's <unk>), if any.
        unk = self.config.get("unk_id", self.special_tokens.get(self.config.get("unk_token") or ""))
        self.unk_id: int = unk if isinstance(unk, int) and not isinstance(unk, bool) and unk in self._vocab else UNK_ID
        # Ids from here on are helper symbols the reader added (a bare character or ``c</w>``
        # an attached-marker vocabulary lacks): left unmerged, they are unknown, as in the
        # table's own library, which has no id for them.
        outside = self.config.get("outside_vocab_from")
        self._outside_from: int | None = outside if isinstance(outside, int) and not isinstance(outside, bool) else None
        # ``(len, n_vocab)`` of the ids below it, where there is such a limit (see __len__)
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
        returned as it is. Saved tables with removals are written so."""
        if self._removals is None:
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
        if token_id in self._special_surfaces or token_id in self.base_ids():
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

    def display(self, token_id: int) -> str:
        """A token as readable one-line text (whitespace visible, bad bytes as <0xNN>)."""
        if token_id == UNK_ID:
            return "<unk>"
        return visible(self._vocab[token_id], self.end_of_word)

    def merge_tree(self, token_id: int) -> MergeNode:
        """How a token was built, down to base symbols (a tree of merges).

        Built without recursion: a token trained on a long word can sit thousands of merges
        deep (each merge adding one symbol), deeper than Python's recursion limit.
        """
        if isinstance(token_id, bool) or not isinstance(token_id, int) or token_id not in self._vocab:
            raise BPEError(f"token id {token_id!r} is not in the vocabulary")
        merges = self._merge_list()
        built: dict[int, MergeNode] = {}
        todo = [token_id]
        while todo:
            current = todo[-1]
            if current in built:
                todo.pop()
                continue
            rank = self._creator.get(current)
            if rank is None:
                built[current] = MergeNode(current, self._vocab[current])
                todo.pop()
                continue
            a, b, _ = merges[rank]
            missing = [t for t in (a, b) if t not in built]
            if missing:
                todo.extend(missing)
                continue
            node = MergeNode(current, self._vocab[current], rank, built[a], built[b])
            built[current] = node
            todo.pop()
        return built[token_id]

    def search(self, query: str, limit: int = 200, cancelled=None) -> list[int]:
        """Token ids whose readable text contains ``query`` (or whose id is ``query``).

        Exact matches come first, then shorter tokens, then by id. The tokens' texts are
        worked out once per table, sorted by length (the first search of a 200,000-token table
        takes a second or two; the next ones milliseconds), and a search walks them shortest
        first, so it stops as soon as ``limit`` are found. ``cancelled()``, if given, is asked
        now and then: a UI that starts a new search on each keystroke stops the old one that
        way (and gets ``[]``).
        """
        hits: list[int] = []
        if query.strip().isdigit() and int(query) in self._vocab:
            hits.append(int(query))
        for surface in (query, query.encode("utf-8")):
            found = self.token_id(surface)
            if found is not None and found not in hits:
                hits.append(found)
        q = query.lower()
        if not q:
            return hits[:limit]
        haystack, starts, ids = self._search_index()
        if "\n" in q or "\x00" in q:  # the index has no line breaks inside a line: look token by token
            vocab = self._vocab
            matches = (k for k, t in enumerate(ids) if q in text_of(vocab[t]).lower())
        else:
            matches = self._index_matches(haystack, starts, q)
        for n, k in enumerate(matches):
            if n % 256 == 0 and cancelled is not None and cancelled():
                return []
            if ids[k] not in hits:
                hits.append(ids[k])
                if len(hits) >= limit:
                    break
        by_id = hits[:1] if query.strip().isdigit() and int(query) in self._vocab else []
        exact = [t for t in hits if t not in by_id and self.display(t) == query]
        return (by_id + exact + [t for t in hits if t not in by_id and t not in exact])[:limit]

    @staticmethod
    def _index_matches(haystack: str, starts: list[int], q: str):
        """Line numbers of the index holding ``q``, in order, found by ``str.find`` in C."""
        pos = haystack.find(q)
        while pos >= 0:
            k = bisect.bisect_right(starts, pos) - 1
            yield k
            pos = haystack.find(q, starts[k + 1]) if k + 1 < len(starts) else -1

    def _search_index(self) -> tuple[str, list[int], list[int]]:
        """One string with a line per token, shortest readable text first: the readable text
        and the raw text, lowercased, joined by NUL; the lines' starts; their token ids."""
        if self._search is None:
            rows = []
            for token_id, surface in self._vocab.items():
                raw = text_of(surface)
                text = visible(surface, self.end_of_word)
                rows.append((len(text), token_id, text.lower() + "\x00" + raw.lower().replace("\n", "\x00")))
            rows.sort()
            lines = [line for _, _, line in rows]
            starts = list(itertools.accumulate((len(line) + 1 for line in lines[:-1]), initial=0))
            self._search = ("\n".join(lines), starts, [token_id for _, token_id, _ in rows])
        return self._search

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

    # ------------------------------------------------------------------ encoding

    def _base_ids(self, word: str) -> list[int]:
        if self.word_start is not None:
            word = self.word_start + word
        if self._byte_ids is not None and self._eow_id is None:
            return list(word.encode("utf-8").translate(self._byte_ids))
        if self.units == "bytes":
            base = self._base
            ids = [base.get(b, UNK_ID) for b in word.encode("utf-8")]
        else:
            base = self._base
            ids = [base.get(c, UNK_ID) for c in word]
            if self.continuing_prefix is not None and len(word) > 1:
                after = self._continuing_base
                ids[1:] = [after.get(c, UNK_ID) for c in word[1:]]
            if UNK_ID in ids and (self._byte_tokens or self._fuse_unk):
                ids = self._unknown_chars(word, ids)
        if self._eow_id is not None and not (self._outside_from is not None and ids and ids[-1] == UNK_ID):
            # (a file that attaches the marker has one unknown symbol for "á</w>", not two)
            ids.append(self._eow_id)
        return ids

    def _unknown_chars(self, word: str, ids: list[int]) -> list[int]:
        """Base ids with unknown characters spelled as byte tokens (when every byte of the
        character has one), else left unknown, a run of unknowns fused into one if asked."""
        out: list[int] = []
        byte_tokens = self._byte_tokens
        prefix = self.continuing_prefix
        for k, (ch, i) in enumerate(zip(word, ids)):
            if i == UNK_ID:
                if prefix is not None and k > 0:
                    ch = prefix + ch  # tokenizers spells the prefixed symbol's bytes
                spelled = [t for b in ch.encode("utf-8") if (t := byte_tokens.get(b)) is not None]
                if byte_tokens and len(spelled) == len(ch.encode("utf-8")):
                    out += spelled
                    continue
                if self._fuse_unk and out and out[-1] == UNK_ID:
                    continue
            out.append(i)
        return out

    def whole_token(self, word: str) -> int | None:
        """The id of a pre-token emitted whole, without merging: with ``ignore_merges``, a
        pre-token that is itself a (non-special) token; else None."""
        if not self.ignore_merges or self._eow_id is not None:
            return None
        if self.word_start is not None:
            word = self.word_start + word
        return self._surface_to_id.get(word.encode("utf-8") if self.units == "bytes" else word)

    def _symbols(self, word: str) -> list:
        """A pre-token's symbols before any merge: base ids, or, by token rank, its bytes
        one by one (as byte strings: the rule joins them)."""
        if self.by_token_rank:
            return list(map(self._single_bytes.__getitem__, word.encode("utf-8")))
        return self._base_ids(word)

    def _merged(self, symbols: list, dropout: float = 0.0, rng: random.Random | None = None, log: list | None = None) -> list[int]:
        """The ids ``symbols`` merge into, by the table's rule: the one merge loop of
        :mod:`~bpe_tui.core.engine.merging`, with its dropout and its log (for traces)."""
        if self.by_token_rank:
            ranks = self._surface_to_id
            return [ranks[s] for s in merge(symbols, ranks, dropout=dropout, rng=rng, log=log)]
        if self._merges is None:
            self.build_merges()
        if self._removals is not None:  # PickyBPE: merges and removals replayed in order
            if dropout:
                raise BPEError("BPE-dropout is not defined for a table with removals (PickyBPE): its events are replayed in order")
            if log is not None:
                raise BPEError("character offsets are not worked out for a table with removals (PickyBPE)")
            return self._removals.replay(symbols)
        return merge(symbols, self._pair_ranks, self._pair_made, dropout=dropout, rng=rng, log=log)

    def _encode_word(self, word: str) -> tuple[int, ...]:
        cached = self._cache.get(word)
        if cached is not None:
            return cached
        whole = self.whole_token(word) if self.ignore_merges else None
        return self._cache.remember(word, (whole,) if whole is not None else tuple(self._merged(self._symbols(word))))

    def _encode_word_dropout(self, word: str, p: float, rng: random.Random) -> list[int]:
        """BPE-dropout (Provilkov et al. 2020): each candidate merge is skipped with probability p.

        A pre-token emitted whole (see :meth:`whole_token`) stays whole, as in Hugging Face."""
        whole = self.whole_token(word)
        if whole is not None:
            return [whole]
        return self._merged(self._symbols(word), p, rng)

    def _trace_steps(self, symbols: list) -> list[TraceStep]:
        """One TraceStep per merge the loop applies to ``symbols`` (and per removal it
        replays, PickyBPE's)."""
        if self._removals is not None:
            return self._replay_steps(symbols)
        log: list = []
        self._merged(symbols, log=log)
        merges = self._merge_list()  # for the merge numbers people read
        vocab = self._vocab
        steps = []
        if self.by_token_rank:
            rank_log = MergeLog(symbols, log)
            for k, ((left, right), (_, rank, new, position)) in enumerate(zip(rank_log.pairs(), log)):
                steps.append(TraceStep(self._creator.get(rank, -1), (left, right), new, position, rank_log, k))
            return steps
        shared = _SurfaceLog(MergeLog(symbols, log), vocab)
        for k, (_, rank, new, position) in enumerate(log):
            a, b, _ = merges[rank]
            steps.append(TraceStep(rank, (vocab[a], vocab[b]), vocab[new], position, shared, k))
        return steps

    def _replay_steps(self, symbols: list) -> list[TraceStep]:
        """The trace of a table with removals: one TraceStep per event replayed; a removal's
        ``pair`` is empty and its ``split`` the parts (``rank``: the merge it follows)."""
        assert self._removals is not None
        log = ReplayLog()
        self._removals.replay(symbols, log)
        vocab = self._vocab
        shared = _SurfaceLog(log, vocab)  # type: ignore[arg-type]
        steps = []
        for k, (position, what, _) in enumerate(log.events):
            rank, removal = self._removals.step_of(position)
            if removal:
                parts = tuple(vocab[p] for p in self._removals.parts[position])
                steps.append(TraceStep(rank, (), vocab[what], -1, shared, k, parts))
            else:
                steps.append(TraceStep(rank, (vocab[what[0]], vocab[what[1]]), vocab[self._removals.made[position]], -1, shared, k))
        return steps

    def encode(
        self, text: str, dropout: float = 0.0, seed: int | None = None, *,
        allowed_special: Allowed = "all", disallowed_special: Disallowed = "all",
    ) -> list[int]:
        """Token ids of ``text``. Special tokens in the text encode to their own ids (as
        Hugging Face does); ``allowed_special`` and ``disallowed_special`` say otherwise, with
        tiktoken's meaning (see :mod:`~bpe_tui.core.tables.special_policy`): a special token
        not allowed is ordinary text, and a disallowed one found in the text is refused
        (:class:`~bpe_tui.core.errors.DisallowedSpecial`, naming it and its offset).

        With ``dropout`` > 0, each merge is skipped with that probability (seeded by
        ``seed``), sampling one of the text's alternative segmentations.
        """
        table = self._for_text(text, allowed_special, disallowed_special)
        return table._finish(table._encode(text, dropout, seed))

    def _finish(self, ids: list[int]) -> list[int]:
        """Ids as :meth:`encode` gives them: helper symbols outside the file's vocabulary
        unknown, and the unknown id the table's own (sentencepiece's <unk>) where it has one."""
        if self._outside_from is not None:
            ids = self._inside(ids)
        if self.unk_id != UNK_ID:
            return [self.unk_id if i == UNK_ID else i for i in ids]
        return ids

    def encode_ordinary(self, text: str) -> list[int]:
        """Token ids of ``text`` with every special token's text encoded as ordinary text
        (tiktoken's ``encode_ordinary``; Hugging Face's ``encode_special_tokens=True``)."""
        return self.encode(text, allowed_special=frozenset(), disallowed_special=())

    def encode_with_offsets(
        self, text: str, dropout: float = 0.0, seed: int | None = None, *,
        allowed_special: Allowed = "all", disallowed_special: Disallowed = "all",
    ) -> tuple[list[int], list[tuple[int, int]]]:
        """``(ids, offsets)``: the ids :meth:`encode` gives and, per token, the ``(start,
        end)`` characters of ``text`` it stands for, in the text as given (before any
        normalization), with Hugging Face's ``Encoding.offsets`` semantics: a token holding
        part of a character's bytes spans the whole character, a prefix space added in front
        of a segment spans that segment's first character. See
        :mod:`~bpe_tui.core.tables.offsets`."""
        table = self._for_text(text, allowed_special, disallowed_special)
        ids, spans = offsets.encode_with_offsets(table, text, dropout, seed)
        return table._finish(ids), spans

    def encode_batch(
        self, texts: Sequence[str], workers: int | None = None, *,
        allowed_special: Allowed = "all", disallowed_special: Disallowed = "all",
    ) -> list[list[int]]:
        """:meth:`encode` of each text, in order, by ``workers`` processes (None: one per
        CPU for a big batch, this process for a small one; see :mod:`~bpe_tui.core.tables.batch`).
        tiktoken's ``encode_batch`` (threads), Hugging Face's ``encode_batch``."""
        recognised, disallowed = special_policy.resolve(self.special_tokens, allowed_special, disallowed_special)
        for text in texts:
            special_policy.check(text, disallowed)
        return batch.encode_batch(self, recognised, texts, workers)

    def encode_ordinary_batch(self, texts: Sequence[str], workers: int | None = None) -> list[list[int]]:
        """:meth:`encode_ordinary` of each text (see :meth:`encode_batch`)."""
        return self.encode_batch(texts, workers, allowed_special=frozenset(), disallowed_special=())

    # ------------------------------------------------------------------ special tokens in text

    def _pretokenizer_for(self, specials: list[str]) -> PreTokenizer:
        """The table's pre-tokenizer, recognising ``specials`` in text."""
        prefix, normalizer, whole, flags = self._pre_rules
        return PreTokenizer(
            self.pretokenizer, specials, self.lowercase, prefix_space=prefix,
            normalizer=normalizer, text_normalizer=whole,
            special_flags=flags,
            normalized_tokens=[t for t, f in (flags or {}).items() if isinstance(f, dict) and f.get("normalized")],
        )

    def _recognising(self, specials: frozenset[str]) -> "MergeTable":
        """This table with only ``specials`` recognised in text: the other special tokens'
        texts are ordinary text. A view for encoding, never handed out: ids, vocabulary and
        the pieces cache are the table's own (a piece's ids do not depend on the specials)."""
        if len(specials) == len(self.special_tokens):
            return self
        view = self._views.get(specials)
        if view is None:
            view = copy.copy(self)
            view.special_tokens = {s: i for s, i in self.special_tokens.items() if s in specials}
            view._pre = self._pretokenizer_for(list(view.special_tokens))
            view._ascii_findall = ascii_findall(view._pre.name)
            view._raw_pre = None
            view._views = {}
            self._views[specials] = view
        return view

    def _for_text(self, text: str, allowed_special: Allowed, disallowed_special: Disallowed) -> "MergeTable":
        """The table (or view) that encodes ``text`` under tiktoken's two arguments, after
        refusing a text that holds a disallowed special token."""
        if allowed_special == "all" and disallowed_special == "all":
            return self  # the default: every special token recognised, nothing refused
        recognised, disallowed = special_policy.resolve(self.special_tokens, allowed_special, disallowed_special)
        special_policy.check(text, disallowed)
        return self._recognising(recognised)

    def _for_stream(self, chunks: Iterable[str], allowed_special: Allowed, disallowed_special: Disallowed) -> "tuple[MergeTable, Iterable[str]]":
        """:meth:`_for_text` for a stream: the table, and the chunks checked as they come."""
        if allowed_special == "all" and disallowed_special == "all":
            return self, chunks
        recognised, disallowed = special_policy.resolve(self.special_tokens, allowed_special, disallowed_special)
        return self._recognising(recognised), special_policy.checked_stream(chunks, disallowed)

    def _inside(self, ids: Sequence[int]) -> list[int]:
        """``ids`` with helper symbols outside the file's vocabulary (see
        ``config["outside_vocab_from"]``) made unknown."""
        limit = self._outside_from
        return [UNK_ID if i >= limit else i for i in ids] if limit is not None else list(ids)

    def _encode(self, text: str, dropout: float, seed: int | None) -> list[int]:
        text = valid_text(text)
        if self._pre.text_normalizer is not None:
            text = self._pre.text_normalizer(text)
        if dropout:
            return self._encode_dropout(text, check_dropout(dropout), seed)
        out: list[int] = []
        pre = self._pre
        if pre.matches_normalized_tokens and pre.prefix_space is not None:  # (see _encode_segment)
            specials = self.special_tokens
            for is_special, piece in pre.split(text, text_normalized=True):
                out += (specials[piece],) if is_special else self._encode_word(piece)
            return out
        # The same pieces as self._pre.split(text), without a tuple per piece.
        matcher = pre.special_matcher
        if matcher is None:
            self._encode_segment(pre.prefixed(text, True), out)
            return out
        pos = 0
        for m in matcher.finditer(text):
            if m.start() > pos:
                self._encode_segment(pre.prefixed(text[pos : m.start()], pos == 0), out)
            out.append(self.special_tokens[m.group()])
            pos = m.end()
        if pos < len(text):
            self._encode_segment(pre.prefixed(text[pos:], pos == 0), out)
        return out

    def _encode_segment(self, segment: str, out: list[int]) -> None:
        """Append the ids of a text without special tokens (the hot path of :meth:`encode`)."""
        segment = self._pre.normalize(segment)
        if self._pre.matches_normalized_tokens:
            # Special tokens looked for in normalized text (HF's normalized=true added tokens):
            # cut out here (a table with a prefix space takes the general path in _encode).
            parts = self._pre.normalized_specials(segment)
            for k, part in enumerate(parts):
                if k % 2:
                    out.append(self.special_tokens[part])
                elif part:
                    self._encode_words(part, out)
            return
        self._encode_words(segment, out)

    def _encode_words(self, segment: str, out: list[int]) -> None:
        """Append the ids of normalized text without special tokens."""
        fast = self._ascii_findall
        words = fast(segment) if fast is not None and segment.isascii() else self._pre.pattern.findall(segment)
        get = self._cache.get
        encode_word = self._encode_word
        for word in words:
            ids = get(word)
            out += ids if ids is not None else encode_word(word)

    def _encode_dropout(self, text: str, dropout: float, seed: int | None) -> list[int]:
        out: list[int] = []
        specials = self.special_tokens
        rng = random.Random(seed)
        for is_special, piece in self._pre.split(text, text_normalized=True):
            out.extend([specials[piece]] if is_special else self._encode_word_dropout(piece, dropout, rng))
        return out

    def pieces(
        self, text: str, dropout: float = 0.0, seed: int | None = None, *,
        allowed_special: Allowed = "all", disallowed_special: Disallowed = "all",
    ) -> list[tuple[int, bytes | str]]:
        """``(id, surface)`` per token; an unknown character is ``(UNK_ID, the character)``.
        Special tokens as in :meth:`encode`."""
        table = self._for_text(text, allowed_special, disallowed_special)
        if table is not self:
            return table.pieces(text, dropout, seed)
        out = []
        specials = self.special_tokens
        rng = random.Random(seed)
        dropout = check_dropout(dropout)
        for is_special, piece in self._pre.split(valid_text(text)):
            if is_special:
                out.append((specials[piece], self._vocab[specials[piece]]))
            else:
                ids = self._encode_word_dropout(piece, dropout, rng) if dropout > 0 else list(self._encode_word(piece))
                out.extend(self._pieces_of_ids(piece, ids))
        return out

    def tokens(self, text: str) -> list[bytes | str]:
        """The surfaces of ``text``'s tokens (unknown characters as themselves)."""
        return [s for _, s in self.pieces(text)]

    def decode(self, ids: Iterable[int], errors: str = "replace") -> str:
        """Text from token ids. Bytes are joined and decoded as UTF-8; in chars mode the
        end-of-word marker becomes a space. A table that puts a prefix space in front of the
        text takes it off again (as its own decoder does).

        ``errors`` is Python's (and tiktoken's) for bytes that are not UTF-8: ``replace``
        (U+FFFD for each bad sequence), ``strict`` (:class:`~bpe_tui.core.errors.UndecodableToken`
        naming the first id whose bytes do not decode), ``ignore``, ``backslashreplace``.
        An id the table does not have is refused (:class:`~bpe_tui.core.errors.TokenIdError`),
        :data:`UNK_ID` aside on a table whose encoding gives it (:attr:`emits_unknown`): it
        decodes as U+FFFD.
        """
        if errors not in DECODE_ERRORS:
            raise BPEError(f"errors must be one of {', '.join(DECODE_ERRORS)}, not {errors!r}")
        ids = list(ids)
        text = self._decode(ids, errors)
        if self._strips_prefix and ids and ids[0] not in self._special_surfaces and text.startswith(" "):
            return text[1:]
        return text

    def _decode(self, ids: list[int], errors: str = "replace") -> str:
        vocab = self._vocab
        parts: list[Any] = []  # bytes in a bytes table, str in a chars table
        unknown = self.emits_unknown
        for k, i in enumerate(ids):
            if type(i) is not int:  # True is 1 to Python, not to a reader of token ids
                raise BPEError(f"token id {i!r} (position {k + 1}) is not an integer")
            if i == UNK_ID and unknown:
                parts.append(b"\xef\xbf\xbd" if self.units == "bytes" else "\ufffd")
                continue
            if i == self.unk_id and self._unk_surface is not None:
                parts.append(self._unk_surface)  # sentencepiece decodes <unk> as " ⁇ "
                continue
            try:
                parts.append(vocab[i])
            except KeyError:
                raise self._no_such_id(i, k) from None
        if self.units == "bytes":
            if self.end_of_word:  # as in chars mode: the marker reads as a space (CLIP decodes so)
                marker = self.end_of_word.encode("utf-8")
                parts = [part.replace(marker, b" ") for part in parts]
            return decoded(ids, parts, errors)
        if self._byte_token_values:
            parts = _join_byte_tokens(ids, parts, self._byte_token_values, errors)
        prefix = self.continuing_prefix
        if prefix is not None:  # a piece that continues a word loses its prefix
            parts = [p[len(prefix) :] if p.startswith(prefix) and len(p) > len(prefix) else p for p in parts]
        text = "".join(parts)
        if self.end_of_word:
            text = text.replace(self.end_of_word, " ")
        if self.word_start is not None:
            text = text.replace(self.word_start, " ")
        return text

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
        table, chunks = self._for_stream(chunks, allowed_special, disallowed_special)
        if table is not self:
            yield from table.encode_iterable(chunks)
            return
        if self._pre.matches_normalized_tokens:
            yield from self.encode("".join(chunks))
            return
        specials = self.special_tokens
        encode_word = self._encode_word
        for is_special, piece in self._prefix_pieces(self._stream_pieces(chunks)):
            if is_special:
                yield specials[piece]
            else:
                yield from self._inside(encode_word(piece))

    def pieces_iterable(
        self, chunks: Iterable[str], *, allowed_special: Allowed = "all", disallowed_special: Disallowed = "all",
    ) -> Iterator[tuple[int, bytes | str]]:
        """``(id, surface)`` per token of a stream of text, lazily (see :meth:`encode_iterable`);
        the same pieces as :meth:`pieces` of the whole text."""
        table, chunks = self._for_stream(chunks, allowed_special, disallowed_special)
        if table is not self:
            yield from table.pieces_iterable(chunks)
            return
        if self._pre.matches_normalized_tokens:  # see encode_iterable
            yield from self.pieces("".join(chunks))
            return
        specials = self.special_tokens
        vocab = self._vocab
        for is_special, piece in self._prefix_pieces(self._stream_pieces(chunks)):
            if is_special:
                yield specials[piece], vocab[specials[piece]]
            else:
                yield from self._pieces_of_ids(piece, list(self._encode_word(piece)))

    def _stream_pieces(self, chunks: Iterable[str]) -> Iterator[tuple[bool, str]]:
        """``(is_special, piece)`` of a stream of text, each as soon as it is decided."""
        raw = PreTokenizer(self.pretokenizer, list(self.special_tokens), lowercase=False)
        if self._pre.text_normalizer is not None:  # sentencepiece's: it streams itself
            chunks = self._pre.text_normalizer.stream(valid_text(c) for c in chunks)
        pending = ""
        original = ""  # pending before normalizing: special tokens are found there
        for chunk in chunks:
            if not chunk:
                continue
            chunk = valid_text(chunk)
            lowered = self._pre.normalize(chunk)  # a chunk at a time: lines, for files
            pending += lowered
            original += chunk if len(lowered) == len(chunk) else lowered
            spans = list(raw.spans(pending, original))
            # Pieces before the last one are final: the regex decided each of them by looking
            # at characters that are already here. The last piece, and any tail that could be
            # the start of a special token, wait for more text.
            cut = spans[-1][1] if spans else len(pending)
            cut = min(cut, len(pending) - raw.special_prefix_len(original))
            ready = [(sp, head + pending[s:e]) for sp, s, e, head in spans if e <= cut]
            if not ready:
                continue
            keep = spans[len(ready)][1] if len(ready) < len(spans) else len(pending)
            ready = [(sp, original[s:e] if sp else piece) for (sp, piece), (_, s, e, _) in zip(ready, spans)]
            pending, original = pending[keep:], original[keep:]
            yield from ready
        if pending:
            for sp, s, e, head in raw.spans(pending, original):
                yield sp, original[s:e] if sp else head + pending[s:e]

    def _prefix_pieces(self, pieces: Iterable[tuple[bool, str]]) -> Iterator[tuple[bool, str]]:
        """The pieces of a whole text with the prefix space added where the table's scheme
        puts one: the first piece of a segment gets it and is pre-tokenized again (for the
        sentencepiece-style patterns such tables have, the same as prefixing the segment)."""
        pre = self._pre
        if pre.prefix_space is None:
            yield from pieces
            return
        segment_start = text_start = True
        for is_special, piece in pieces:
            if is_special:
                yield True, piece
                segment_start = True
            elif segment_start:
                for word in pre.pattern.findall(pre.prefixed(piece, text_start)):
                    yield False, word
                segment_start = False
            else:
                yield False, piece
            text_start = False

    # ------------------------------------------------------------------ explaining

    def trace(self, word: str) -> list[TraceStep]:
        """The merges applied to one pre-token, in the order they apply, with ranks.

        ``word`` is taken as a single pre-token (it is not pre-tokenized again).
        """
        word = valid_text(word)
        return self._trace_steps(self._symbols(self._pre.normalize(word)))

    def initial_symbols(self, word: str) -> list:
        """A pre-token's base symbols, before any merge (unknown characters as themselves)."""
        return [s for _, s in self._pieces_of_ids(word, self._base_ids(word))]

    def _pieces_of_ids(self, word: str, ids: list[int]):
        if self.word_start is not None:
            word = self.word_start + word
        units = list(word.encode("utf-8")) if self.units == "bytes" else list(word)
        known = [self._base] + [self._continuing_base if self.continuing_prefix is not None else self._base] * (len(units) - 1)
        unknown = iter(u for u, base in zip(units, known) if u not in base)
        for i in ids:
            if type(i) is not int:  # True is 1 to Python, not to a reader of token ids
                raise BPEError(f"token id {i!r} is not an integer")
            if i == UNK_ID:
                u = next(unknown)
                yield i, bytes([u]) if isinstance(u, int) else u
            elif self._outside_from is not None and i >= self._outside_from:
                yield UNK_ID, self._vocab[i]
            else:
                yield i, self._vocab[i]

    def pretokenize(self, text: str) -> list[tuple[bool, str]]:
        """``(is_special, piece)`` for the text, as encode sees it."""
        return list(self._pre.split(text))

    def pretoken_spans(self, text: str) -> list[tuple[bool, str, tuple[int, int]]]:
        """``(is_special, piece, (start, end))``: the pieces of :meth:`pretokenize`, each with
        the characters of ``text`` as given that it stands for (a lowercased or normalized
        piece is found where its original text is). See :mod:`~bpe_tui.core.tables.offsets`."""
        return offsets.pretoken_spans(self, text)


def _unpickled(*args: Any) -> MergeTable:
    """A pickled table built again (see :meth:`MergeTable.__reduce__`)."""
    return MergeTable(*args, _checked=False)


def _surfaces_to_ids(vocab: dict[int, bytes | str], special_ids: set[int]) -> dict:
    """surface -> id of every token that is not special (the last id where two share one).

    In C where the surfaces are all different (every real table): one ``dict(zip(...))``."""
    found = dict(zip(vocab.values(), vocab.keys()))
    if len(found) == len(vocab):
        for i in special_ids:
            found.pop(vocab[i], None)
        return found
    return {s: i for i, s in vocab.items() if i not in special_ids}


def _join_byte_tokens(ids: list[int], parts: list[str], byte_values: dict[int, int], errors: str = "replace") -> list[str]:
    """Runs of byte-fallback tokens (``<0xE6><0x97><0xA5>``) decoded back to text as UTF-8,
    each invalid byte as U+FFFD (Hugging Face's ByteFallback decoder) under ``errors``
    "replace" (see :func:`decoded`)."""
    out: list[str] = []
    run: list[int] = []  # positions in ids of the byte tokens in a row
    for k, (token_id, part) in enumerate(zip(ids, parts)):
        if token_id in byte_values:
            run.append(k)
            continue
        if run:
            out.append(decoded([ids[j] for j in run], [bytes([byte_values[ids[j]]]) for j in run], errors, run[0]))
            run.clear()
        out.append(part)
    if run:
        out.append(decoded([ids[j] for j in run], [bytes([byte_values[ids[j]]]) for j in run], errors, run[0]))
    return out


#: What ``decode(errors=...)`` takes: Python's error handlers for bytes that are not UTF-8.
DECODE_ERRORS = ("replace", "strict", "ignore", "backslashreplace")


def decoded(ids: Sequence[int], parts: Sequence[bytes], errors: str, first: int = 0) -> str:
    """The tokens' bytes joined and decoded as UTF-8 under ``errors``; with "strict", a bad
    sequence is :class:`~bpe_tui.core.errors.UndecodableToken` naming the id that holds its
    first byte (``first``: the position of ``ids[0]`` in the whole list)."""
    data = b"".join(parts)
    try:
        return data.decode("utf-8", errors)
    except UnicodeDecodeError as exc:
        ends = list(itertools.accumulate(map(len, parts)))
        k = bisect.bisect_right(ends, exc.start)
        raise UndecodableToken(ids[k], first + k, parts[k]) from None
