"""The training state: the corpus as the trainer sees it, and every count kept about it.

BPE training works on distinct words, each with its count, each written as a sequence of
tokens. This class holds that corpus and what the trainer keeps up to date about it as
merges rewrite it, so that no step ever recounts:

* ``word_text`` (each word's text, in order of first appearance), ``counts`` (its frequency)
  and ``words`` (its segmentation now, as an *id string*: one character per token id, see
  :mod:`~bpe_tui.core.engine.speed`);
* ``pair_counts`` (pair key -> count, positive counts only; overlapping occurrences count),
  ``count_hist`` (count -> how many pairs have it) and ``where`` (pair key -> the words that
  may hold it: a superset, stale members pruned when met);
* the vocabulary: ``surfaces`` (id -> surface; only ever appended to), ``surface_to_id``,
  ``removed`` (ids a variant took out) and the holes they and dropped merges leave;
* ``total_tokens``, the corpus's length in tokens now, and the constraints (``forbids``: the
  pairs ``max_token_length``, ``no_merge_across``, the unknown token or a variant's limit
  never let merge, counted as ``forbidden``).

The trainer changes the state through the merge loop; a BPE variant (see
:mod:`~bpe_tui.core.engine.variants.seam`) changes it only through the public methods here
(:meth:`TrainingState.rewrite`, :meth:`~TrainingState.set_present`,
:meth:`~TrainingState.install_corpus`, :meth:`~TrainingState.drop_merges` and
:meth:`~TrainingState.restore_dropped`, :meth:`~TrainingState.set_limit`), each of which keeps
the counts, the index and the queue (:class:`~bpe_tui.core.engine.queue.PairQueue`) agreeing
with the words. Everything else it may read and must not change.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from operator import mul
from typing import TYPE_CHECKING, Any, Protocol

import regex

from ..errors import BPEError
from .alphabet import fresh_alphabet
from .config import TrainerConfig
from .constraints import MIXED, class_standing
from .events import Context, TransitionEvent
from .speed import MAX_TOKEN_ID, ids_of, pair_index, pairs_of
from .tiebreak import show, show_pair

if TYPE_CHECKING:
    from .queue import PairQueue

__all__ = ["Limit", "Merged", "TrainingState"]

class StartTable(Protocol):
    """What the state reads of a table it goes on from (a
    :class:`~bpe_tui.core.tables.table.MergeTable`)."""

    @property
    def vocab(self) -> Mapping[int, Any]: ...

    @property
    def source(self) -> str | None: ...

    @property
    def special_tokens(self) -> Mapping[str, int]: ...

    @property
    def num_merges(self) -> int: ...

    @property
    def merge_ids(self) -> list[tuple[int, int, int]]: ...

    @property
    def counts(self) -> Any: ...

    def base_ids(self) -> Any: ...

    def whole_token(self, word: str) -> int | None: ...


#: A variant's own limit on what a merge may make (:meth:`TrainingState.set_limit`): the
#: reason a merge making this token is refused, or None where it is allowed.
Limit = Callable[[Any], "str | None"]


@dataclass(slots=True)
class Merged:
    """One merge as a variant's ``after_merge`` sees it, and the step's record of what the
    variant changes after it (:meth:`TrainingState.rewrite` adds to it).

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
    elsewhere: whether the pair was merged where the variant keeps it, not in the words (the
               variant's Choice said so with a :class:`~bpe_tui.core.engine.variants.seam.MergedElsewhere`
               reason): then no word was rewritten and ``after_merge`` makes the merge itself
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
    elsewhere: bool = False


class TrainingState:
    """The corpus, its counts and its vocabulary (see the module docstring). Built by the
    trainer from word counts, fresh (``start`` None) or going on from a table."""

    # Speed: slots, as the trainer's (attribute reads on the hot path stay specialized).
    __slots__ = (
        "config", "name", "word_text", "counts", "words", "pair_counts", "where", "count_hist", "total_tokens",
        "corpus_chars", "initial_total_tokens", "surfaces", "surfaces_shared", "surface_to_id", "holes", "removed",
        "base_count", "special_ids", "unknown", "first_merge_id", "first_step", "inherited", "inherited_counts",
        "inherited_manual", "eow_id", "across", "standing", "constrained", "limit", "limit_named", "forbidden",
        "forbidden_kinds", "dropped",
        "transition", "context", "word_index", "by_frequency", "queue",
    )

    def __init__(self, config: TrainerConfig, word_text: list[str], counts: list[int], name: str,
                 start: "StartTable | None" = None, table_rules: list[str] | None = None) -> None:
        self.config = config
        self.name = name
        self.word_text = word_text
        self.counts = counts
        if start is None:
            words = self._fresh_alphabet()
        else:
            words = self._alphabet_of(start, table_rules if table_rules is not None else [])
        self.words: list[str] = words
        eow = config.end_of_word
        self.eow_id = self.surface_to_id[eow.encode("utf-8") if config.units == "bytes" else eow] if eow is not None else None
        self.first_merge_id = len(self.surfaces)
        #: True once a MergeEvent holds ``surfaces``: from then on the list is only appended
        #: to, and undo replaces it by a copy instead of popping it (drop_last_surface).
        self.surfaces_shared = False
        self.removed: set[int] = set()  # ids a variant took out of the vocabulary (set_present)
        #: (ranks, token id -> surface) of the merges left out of the table (drop_merges)
        self.dropped: tuple[frozenset[int], dict[int, Any]] = (frozenset(), {})
        #: The corpus's re-cut, once a variant made it and while the trainer stands past it
        #: (SuperBPE's transition to chunks); None otherwise.
        self.transition: TransitionEvent | None = None
        self.pair_counts, self.where, self.count_hist = pair_index(words, counts)
        self.total_tokens = sum(map(mul, map(len, words), counts))
        self.initial_total_tokens = self.total_tokens
        self.corpus_chars = sum(map(mul, map(len, word_text), counts))
        self.word_index: dict[str, int] | None = None
        self.by_frequency: list[int] | None = None
        # Constraints: pairs they forbid are never queued, and counted (forbidden).
        across = config.no_merge_across
        self.across = regex.compile(across) if across is not None else None
        self.standing: list[int] = [class_standing(s, self.across, eow) for s in self.surfaces] if across is not None else []
        self.limit: Limit | None = None  # a variant's own (set_limit)
        self.limit_named = ""  # what forbidden_by calls it
        self.constrained = config.max_token_length is not None or across is not None or self.unknown is not None
        self.recount_forbidden()
        self.context = Context()
        self.queue: PairQueue | None = None  # the trainer's, once made (changes queue their pairs there)

    # ------------------------------------------------------------------ the alphabet

    def _fresh_alphabet(self) -> list[str]:
        """Set up the base alphabet and specials of a fresh run (see
        :mod:`~bpe_tui.core.engine.alphabet`); return the words as id strings."""
        alphabet = fresh_alphabet(self.word_text, self.counts, self.config)
        self.base_count = alphabet.base_count
        self.holes = 0
        self.surfaces: list = alphabet.surfaces  # id -> surface, for base symbols and merged tokens
        special = set(alphabet.special_ids.values())
        self.surface_to_id: dict = {s: i for i, s in enumerate(alphabet.surfaces) if i not in special}
        self.special_ids: dict[str, int] = alphabet.special_ids  # they never take part in merges
        self.unknown: int | None = alphabet.unknown
        self.first_step = 0
        self.inherited: list[tuple[int, int, int]] = []
        self.inherited_counts: list[int] | None = []
        self.inherited_manual: frozenset[int] = frozenset()
        return alphabet.words

    def _alphabet_of(self, table: StartTable, table_rules: list[str]) -> list[str]:
        """Set up ids as ``table`` has them; return the words as id strings, each already
        merged by the table's merges (lowest rank first, as encoding does).

        Base symbols the table lacks (a character its corpus never had) get new ids after its
        vocabulary, before any new merge; ``table_rules`` gets a line naming them.
        """
        from .merging import merge

        cfg = self.config
        bytes_mode = cfg.units == "bytes"
        eow = cfg.end_of_word
        vocab = table.vocab
        if any(not isinstance(i, int) or i < 0 or i > MAX_TOKEN_ID for i in vocab):
            raise BPEError(f"{table.source or 'table'}: token ids must be whole numbers from 0 to {MAX_TOKEN_ID:,}")
        size = max(vocab, default=-1) + 1
        self.surfaces = [vocab.get(i) for i in range(size)]
        self.holes = size - len(vocab)
        self.special_ids = dict(table.special_tokens)
        specials = set(self.special_ids.values())
        self.surface_to_id = {}
        for i, s in enumerate(self.surfaces):
            if s is not None and i not in specials:
                self.surface_to_id.setdefault(s, i)
        self.base_count = len(table.base_ids())
        self.unknown = None
        self.first_step = table.num_merges
        self.inherited = table.merge_ids
        self.inherited_counts = list(table.counts) if table.counts is not None else None
        self.inherited_manual = frozenset(getattr(table, "manual_ranks", ()))

        # The corpus's base symbols, and ids for those the table lacks.
        symbols: set = set()
        for word in self.word_text:
            symbols.update(word.encode("utf-8") if bytes_mode else word)
        units = sorted(bytes([b]) for b in symbols) if bytes_mode else sorted(symbols)
        if eow is not None:
            units.append(eow.encode("utf-8") if bytes_mode else eow)
        added = []
        for surface in units:
            if surface not in self.surface_to_id:
                self.surface_to_id[surface] = len(self.surfaces)
                self.surfaces.append(surface)
                added.append(surface)
        self.base_count += len(added)
        if added:
            shown = ", ".join(show(s) for s in added[:8])
            table_rules.append(
                f"base symbols the table lacks, added with ids {size:,}-{size + len(added) - 1:,}: {shown}{' ...' if len(added) > 8 else ''}"
            )
        to_id = self.surface_to_id
        ranks: dict[tuple[int, int], int] = {}  # (left, right) -> rank; the lowest rank of a pair wins
        made: dict[tuple[int, int], int] = {}  # (left, right) -> the id it makes
        for rank in range(len(self.inherited) - 1, -1, -1):
            a, b, new = self.inherited[rank]
            ranks[(a, b)] = rank
            made[(a, b)] = new
        tail = [to_id[eow.encode("utf-8") if bytes_mode else eow]] if eow is not None else []
        words = []
        for text in self.word_text:
            whole = table.whole_token(text)
            if whole is not None and whole not in specials:
                words.append(chr(whole))
                continue
            ids = [to_id[bytes([b])] for b in text.encode("utf-8")] if bytes_mode else [to_id[ch] for ch in text]
            words.append("".join(map(chr, merge(ids + tail, ranks, made))))
        return words

    # ------------------------------------------------------------------ questions

    @property
    def vocab_size(self) -> int:
        """Base alphabet + special tokens + distinct merged tokens present, right now."""
        return len(self.surfaces) - self.holes

    def first_occurrence(self, pair: str) -> tuple[int, int]:
        """(first word containing the pair, offset of its first occurrence there, in base
        units: bytes or characters): the first-seen rule's key (see tiebreak.py).

        Words are numbered in order of first appearance and offsets never move when other
        symbols merge, so this orders pairs exactly as a fresh left-to-right scan of the
        corpus would. Words that no longer contain the pair are pruned from the index.
        """
        members = self.where.get(pair)
        surfaces = self.surfaces
        while members:
            w = min(members)
            word = self.words[w]
            i = word.find(pair)
            if i >= 0:
                return (w, sum(len(surfaces[ord(ch)]) for ch in word[:i]))
            members.pop(w, None)
        return (1 << 62, 0)

    #: The constraints a pair may break, in the order they are checked: :meth:`forbids`
    #: gives the number of the first one a pair breaks (0: none), ``forbidden_kinds`` counts
    #: the pairs present by it.
    CONSTRAINT_KINDS = ("unknown", "max_token_length", "no_merge_across", "limit")

    def forbids(self, pair: str) -> int:
        """Which constraint forbids merging ``pair`` (a pair key): its number in
        :attr:`CONSTRAINT_KINDS`, from 1; 0 (false) when none does."""
        a, b = ord(pair[0]), ord(pair[1])
        if self.unknown is not None and (a == self.unknown or b == self.unknown):
            return 1  # the unknown token stands for characters left out: it never merges
        most = self.config.max_token_length
        if most is not None:
            surfaces = self.surfaces
            if len(surfaces[a]) + len(surfaces[b]) > most:
                return 2
        if self.across is not None and self.standing[a] | self.standing[b] == MIXED:
            return 3
        limit = self.limit
        return 4 if limit is not None and limit(self.surfaces[a] + self.surfaces[b]) is not None else 0

    def recount_forbidden(self) -> None:
        """Count the pairs present that the constraints forbid, in all and by constraint."""
        kinds = [0] * (len(self.CONSTRAINT_KINDS) + 1)
        if self.constrained:
            forbids = self.forbids
            for p in self.pair_counts:
                kinds[forbids(p)] += 1
        self.forbidden_kinds = kinds
        self.forbidden = sum(kinds[1:])

    def forbidden_by(self) -> dict[str, int]:
        """The pairs present that the constraints forbid, by the constraint that forbids
        them (the first each breaks), named short enough for a caption -> how many pairs:
        ``{"<UNK> (coverage)": 5}``. Empty when none is forbidden."""
        cfg = self.config
        named = {
            "unknown": f"{cfg.unk_token} (coverage)",
            "max_token_length": f"tokens over max_token_length {cfg.max_token_length}",
            "no_merge_across": f"no_merge_across {cfg.no_merge_across}",
            "limit": self.limit_named or "the variant's limits",
        }
        kinds = self.forbidden_kinds
        return {named[kind]: kinds[k] for k, kind in enumerate(self.CONSTRAINT_KINDS, 1) if kinds[k]}

    def forbidden_reason(self, pair: str) -> str | None:
        """Why the constraints forbid merging ``pair`` (a pair key), or None if they allow it."""
        if not self.constrained or not self.forbids(pair):
            return None
        cfg = self.config
        a, b = ids_of(pair)
        s = self.surfaces
        shown = show_pair((s[a], s[b]), cfg.end_of_word)
        most = cfg.max_token_length
        size = len(s[a]) + len(s[b])
        if self.unknown in (a, b):
            return f"{shown} holds the unknown token {cfg.unk_token}, which stands for characters left out of the alphabet and never merges"
        if most is not None and size > most:
            return f"{shown} would make a token of {size} {cfg.units}, longer than max_token_length {most}"
        if self.across is not None and self.standing[a] | self.standing[b] == MIXED:
            return f"{shown} would mix characters of no_merge_across {cfg.no_merge_across} with others"
        assert self.limit is not None
        return f"{shown} {self.limit(s[a] + s[b])}"

    # ------------------------------------------------------------------ counts

    def apply_changes(self, changes: Mapping[str, int]) -> dict[str, int]:
        """Add count deltas (pair -> change) to the pair counts and queue every pair whose count rose.

        Returns ``pair -> count before`` for every pair whose count changed (the count after
        is that plus its change). Plain ints, so neither dict is ever tracked by the garbage
        collector: a ``(before, after)`` tuple per pair made a dozen tracked objects per step.
        """
        pc = self.pair_counts
        hist = self.count_hist
        befores = {}
        queue = self.queue
        assert queue is not None
        heap = queue.heap
        entry = queue.make_entry
        heappush = heapq.heappush
        get = pc.get
        # Under first-seen a pair's key can move with no net change in its count (a merge that
        # reuses an existing token both removes and adds its pairs), so re-queue all of them.
        requeue_all = queue.keys_move
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
        if self.constrained:  # pairs that appear or vanish change the forbidden counts
            forbids = self.forbids
            kinds = self.forbidden_kinds
            for p, before in befores.items():
                after = before + changes[p]
                if (not before) != (not after) and (kind := forbids(p)):
                    self.forbidden += 1 if after else -1
                    kinds[kind] += 1 if after else -1
        return befores

    def add_token(self, surface: Any) -> int:
        """Give a new surface the next id (a merge that made a token never seen)."""
        new_id = len(self.surfaces)
        if new_id > MAX_TOKEN_ID:
            raise BPEError(f"the vocabulary cannot grow past {MAX_TOKEN_ID + 1:,} tokens")
        self.surfaces.append(surface)
        self.surface_to_id[surface] = new_id
        if self.across is not None:
            self.standing.append(class_standing(surface, self.across, self.config.end_of_word))
        return new_id

    def drop_last_token(self) -> None:
        """Undo :meth:`add_token` for the last id.

        Events keep the surfaces list they were made with and read surfaces from it later, so
        a list an event holds must never shrink (a later step could put another surface at
        the same id). Copy on write: the first undo after a step leaves that list to the
        events and goes on with a copy; undos in a row then pop the copy, which nothing else
        holds. One O(V) copy per undo that follows a step, none per step, one for a whole goto(0).
        """
        if not self.surfaces_shared:
            last = self.surfaces.pop()
        else:
            last = self.surfaces[-1]
            self.surfaces = self.surfaces[:-1]
            self.surfaces_shared = False
        del self.surface_to_id[last]
        if self.across is not None:
            self.standing.pop()

    # ------------------------------------------------------------------ what a variant may change

    def rewrite(self, rewrites: Iterable[tuple[int, str]], merged: Merged) -> None:
        """A variant's change to the corpus right after a merge: each ``(word, segmentation)``
        replaces that word's segmentation (an id string of the same text). The pair counts, the
        pair -> words index, the queue and the token total follow, and ``merged`` records the
        change for the step's event and for undo."""
        words, counts, where = self.words, self.counts, self.where
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
        self.total_tokens += grown
        merged.saved -= grown
        changes, befores = merged.changes, merged.befores
        for p, before in self.apply_changes(deltas).items():
            befores.setdefault(p, before)
        for p, d in deltas.items():
            if d:
                changes[p] = changes.get(p, 0) + d

    def set_present(self, token_id: int, present: bool) -> None:
        """Take a token out of the vocabulary, or put it back. Its id and surface stay: a
        merge that makes the same surface again gets the same id."""
        if present and token_id in self.removed:
            self.removed.discard(token_id)
            self.holes -= 1
        elif not present and token_id not in self.removed:
            self.removed.add(token_id)
            self.holes += 1

    def install_corpus(self, texts: list[str], counts: list[int], words: list[str]) -> None:
        """A new cut of the corpus (SuperBPE's chunks, and its words back on undo): make
        ``words`` (id strings of ``texts``, with ``counts``) the corpus, the pair counts, the
        pair -> words index and the queue built afresh from them (by the queue's rule: set it
        first with :meth:`PairQueue.set_rule <bpe_tui.core.engine.queue.PairQueue.set_rule>`
        to order by another)."""
        self.word_text, self.counts, self.words = texts, counts, words
        self.pair_counts, self.where, self.count_hist = pair_index(words, counts)
        self.total_tokens = sum(map(mul, map(len, words), counts))
        self.corpus_chars = sum(map(mul, map(len, texts), counts))
        self.word_index = None
        self.by_frequency = None
        self.recount_forbidden()
        if self.queue is not None:
            self.context = Context(self.queue.rule, texts, counts, self.config.end_of_word)
            self.queue.requeue_all()

    def drop_merges(self, merges: list[tuple[int, int, int]], ranks: list[int]) -> tuple:
        """Leave the merges of ``ranks`` (0-based, in ``merges``: the trainer's
        ``merge_list()``) out of the table, and the tokens only they made out of the vocabulary
        (ids left as holes; a later merge that makes one again gives it a new id, as SuperBPE's
        authors' trainer does). Returns ``(step, token)`` of each, for an explanation."""
        if not ranks:
            return ()
        gone = frozenset(ranks)
        kept_made = {new for r, (_, _, new) in enumerate(merges) if r not in gone}
        tokens = {}
        for r in ranks:
            new = merges[r][2]
            if new not in kept_made and new not in tokens:
                surface = self.surfaces[new]
                tokens[new] = surface
                if self.surface_to_id.get(surface) == new:
                    del self.surface_to_id[surface]
        self.holes += len(tokens)
        self.dropped = (gone, tokens)
        return tuple((r + 1, self.surfaces[merges[r][2]]) for r in ranks)

    def restore_dropped(self) -> None:
        """Undo :meth:`drop_merges`."""
        _, tokens = self.dropped
        for new, surface in tokens.items():
            self.surface_to_id[surface] = new
        self.holes -= len(tokens)
        self.dropped = (frozenset(), {})

    def set_limit(self, limit: Limit | None, named: str = "") -> None:
        """A variant's own limit on what a merge may make (SuperBPE's stage-2 limits), or None:
        ``limit(token)`` is why a merge making ``token`` is refused (what ``forbidden_reason``
        says after the pair), or None where it is allowed. It joins the constraints: pairs it
        refuses are never merged, and counted as forbidden (``named``: what
        :meth:`forbidden_by` calls it, e.g. "SuperBPE's stage-2 limits")."""
        self.limit = limit
        self.limit_named = named if limit is not None else ""
        cfg = self.config
        self.constrained = cfg.max_token_length is not None or self.across is not None or self.unknown is not None or limit is not None
        self.recount_forbidden()
