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

A merge rewrites only the words that contain the pair and changes only the counts of the
pairs around each occurrence. Each step records the old segmentations of the words it
rewrote and the count changes it made, so ``undo()`` is the exact inverse.

How the symbols are stored (the one trick in here). Every token has an integer id, and a
word's current segmentation is kept as a ``str`` whose characters are those ids
(``chr(id)``); a pair is the 2-character string of its two ids. Then merging a pair in a word
is ``word.replace(pair, chr(new_id))``, which is exactly BPE's left-to-right,
non-overlapping replacement, done in C; ``pair in word`` asks whether a word holds a pair, and
the pairs around an occurrence at ``i`` are the slices ``word[i-1:i+1]`` and
``word[i+1:i+3]``. Nothing outside this module sees these strings: questions are answered in
ids (``segmentation_ids``) and surfaces.

Tie-break rules (which pair wins when counts are equal):

* ``lexical-max``  the greatest ``(left, right)`` compared as bytes (CS336; subword-nmt on str)
* ``lexical-min``  the smallest ``(left, right)`` (the Rust tutorial's sort)
* ``first-seen``   the pair that occurs first, reading words in order of first appearance
                   (Python's ``max`` over an insertion-ordered dict; minbpe)
* ``hf``           Hugging Face tokenizers: the smallest ``(left_id, right_id)``, where ids are
                   the alphabet sorted by code point, then merged tokens in creation order
"""

from __future__ import annotations

import heapq
import os
from collections import Counter, defaultdict, deque
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import MISSING, dataclass, field, fields
from functools import cached_property
from itertools import chain, repeat
from operator import add, mul, sub
from types import MappingProxyType

from .config import TrainerConfig, check_vocab_size
from .errors import BPEError
from .units import bytes_to_unicode

Pair = tuple  # (left surface, right surface)

#: Token ids are stored as characters, so they must be code points.
MAX_TOKEN_ID = 0x10FFFF


def _key(a: int, b: int) -> str:
    """The internal key of the pair of token ids ``(a, b)``: the two ids as characters."""
    return chr(a) + chr(b)


def _ids(key: str) -> tuple[int, int]:
    """The token ids ``(a, b)`` of an internal pair key."""
    return ord(key[0]), ord(key[1])


def _surface_pair(surfaces: list, key: str) -> tuple:
    """The ``(left, right)`` surfaces of an internal pair key."""
    return surfaces[ord(key[0])], surfaces[ord(key[1])]


def _pairs(word: str):
    """Every adjacent pair (as a key) of a word stored as characters, left to right."""
    return map(add, word, word[1:])


def _utf8_as_ids(text: str) -> str:
    """``text``'s UTF-8 bytes as characters: byte-level token ids of the base alphabet."""
    return text.encode("utf-8").decode("latin-1")


def _convert_all(words: list[str], convert: Callable[[str], str], sep: str) -> list[str]:
    """``[convert(w) for w in words]`` in one call on the words joined by ``sep``, when no word
    holds ``sep`` (``convert`` works character by character and maps ``sep`` to itself)."""
    joined = sep.join(words)
    if joined.count(sep) == len(words) - 1:
        return convert(joined).split(sep)
    return list(map(convert, words))


#: How many tied pairs a MergeEvent lists by name (tie_count says how many there were).
TIES_LISTED = 5


@dataclass(frozen=True)
class MergeEvent:
    """Everything a UI needs to render one merge without asking the trainer again.

    step:          1-based merge number (its rank in the merge table is step - 1)
    pair:          (left, right) surfaces that were merged
    pair_ids:      (left_id, right_id)
    new_id:        id of the merged token (an existing id if that surface already existed)
    new_token:     surface of the merged token
    count:         how often the pair occurred when it was merged
    tie_count:     how many other pairs had the same count (0 = no tie)
    ties:          the first few of those pairs, in tie-break order
    rule:          the tie-break rule that decided
    words_touched: indices of the words whose segmentation changed (see Trainer.word_text)
    total_tokens:  corpus length in tokens after the merge
    vocab_size:    vocabulary size after the merge
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
    # The pair changes are kept in the trainer's internal form and named only when asked
    # (naming them at every step would cost more than the merge). ``_surfaces`` is the
    # trainer's id -> surface list of the moment: the trainer only ever appends to a list it
    # has handed to an event (see Trainer._drop_last_surface), so ids up to new_id keep
    # their surfaces here whatever the trainer does next.
    _changes: Mapping[str, tuple[int, int]] = field(repr=False, compare=False, default_factory=dict)
    _surfaces: list = field(repr=False, compare=False, default_factory=list)

    @cached_property
    def pair_changes(self) -> Mapping[tuple, tuple[int, int]]:
        """``(left, right) surfaces -> (count before, count after)`` for every pair this merge changed."""
        s = self._surfaces
        return MappingProxyType({_surface_pair(s, k): change for k, change in self._changes.items()})

    @cached_property
    def pair_changes_by_id(self) -> Mapping[tuple[int, int], tuple[int, int]]:
        """The same as :attr:`pair_changes`, keyed by ``(left_id, right_id)``."""
        return MappingProxyType({_ids(k): change for k, change in self._changes.items()})

    def __getstate__(self) -> dict:
        """Pickle and copy the fields only: the read-only mappings above are rebuilt on demand."""
        state = dict(self.__dict__)
        state.pop("pair_changes", None)
        state.pop("pair_changes_by_id", None)
        return state


_EVENT_ARGS = frozenset(
    "step pair pair_ids new_id new_token count tie_count ties rule words_touched total_tokens vocab_size _changes _surfaces".split()
)
#: Fields the trainer does not pass (added later, with defaults): filled in by _new_event.
_EVENT_DEFAULTS = [f for f in fields(MergeEvent) if f.name not in _EVENT_ARGS]


def _new_event(**values) -> MergeEvent:
    """A MergeEvent built without the frozen dataclass __init__ (one object.__setattr__ per
    field: 6% of the training time); equal to MergeEvent(**values) in every way."""
    for f in _EVENT_DEFAULTS:
        values[f.name] = f.default if f.default is not MISSING else f.default_factory()
    event = object.__new__(MergeEvent)
    event.__dict__.update(values)
    if _EVENT_POST_INIT:
        event.__post_init__()
    return event


_EVENT_POST_INIT = hasattr(MergeEvent, "__post_init__")


@dataclass
class _StepRecord:
    """What undo needs: the merge, the words' old segmentations, the count changes."""

    pair: tuple[int, int]
    new_id: int
    created: bool  # True when the merge created a new vocabulary entry
    old_words: tuple[tuple[int, str], ...] | None  # None: undo splits new_id (see undo)
    changes: dict[str, tuple[int, int]]  # pair key -> (count before, count after)
    tokens_saved: int
    event: MergeEvent


def _checked_counts(word_counts: Mapping[str, int]) -> tuple[list[str], list[int]]:
    """The words and their counts as two lists, empty words dropped; counts must be >= 1."""
    counts = list(word_counts.values())
    if "" not in word_counts and set(map(type, counts)) <= {int} and (not counts or min(counts) >= 1):
        return list(word_counts), counts  # the usual case, checked in C
    words, counts = [], []
    for word, count in word_counts.items():
        if not word:
            continue
        if not isinstance(count, int) or count < 1:
            raise BPEError(f"word {word!r} has count {count!r}; counts must be positive integers")
        words.append(word)
        counts.append(count)
    return words, counts


def _check_text(words: list[str], config, name: str) -> None:
    """Refuse what would train a table that cannot be written or read back: text with lone
    surrogates (not Unicode), and an end-of-word marker that is a base symbol or occurs in
    the corpus (it would decode as a space, or collide with a byte)."""
    joined = "\n".join(words)
    try:
        joined.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise BPEError(
            f"{name}: the text holds a lone surrogate (U+{ord(joined[exc.start]):04X}), which is not valid "
            "Unicode; decode input with errors='replace'"
        ) from None
    eow = config.end_of_word
    if eow is None:
        return
    if config.units == "bytes" and len(eow.encode("utf-8")) == 1:
        raise BPEError(f"end-of-word marker {eow!r} is a single byte, the same as a base symbol; choose a longer one such as '</w>'")
    if eow in joined:
        raise BPEError(f"{name}: the end-of-word marker {eow!r} occurs in the corpus; choose another marker (or none)")


class Trainer:
    """A BPE trainer you can step, undo and jump around in.

    Build one with :meth:`from_text`, :meth:`from_files` or :meth:`from_counts`; then call
    :meth:`step` for one merge, :meth:`undo` to take it back, :meth:`goto` to jump to any step,
    or iterate :meth:`run` to train to the configured target.
    """

    # ------------------------------------------------------------------ construction

    def __init__(self, word_counts: Mapping[str, int], config: TrainerConfig | None = None, name: str = "corpus"):
        """Train on ``word_counts``: pre-token -> count, in order of first appearance."""
        self.config = config or TrainerConfig()
        self.name = name
        cfg = self.config
        bytes_mode = cfg.units == "bytes"

        self._word_text, self._counts = _checked_counts(word_counts)
        _check_text(self._word_text, cfg, name)

        # Base alphabet: 256 bytes, or the corpus's characters sorted by code point.
        eow = cfg.end_of_word
        if bytes_mode:
            base: list = [bytes([i]) for i in range(256)]
            if eow is not None:
                base.append(eow.encode("utf-8"))
        else:
            chars = set()
            for word in self._word_text:
                chars.update(word)
            if eow is not None:
                chars.add(eow)
            base = sorted(chars)
        self._base_count = len(base)
        self._surfaces: list = list(base)  # id -> surface, for base symbols and merged tokens
        # True once a MergeEvent holds self._surfaces: from then on the list is only appended
        # to, and undo replaces it by a copy instead of popping it (_drop_last_surface).
        self._surfaces_shared = False
        self._surface_to_id: dict = {s: i for i, s in enumerate(base)}
        self._eow_id = self._surface_to_id[eow.encode("utf-8") if bytes_mode else eow] if eow is not None else None

        # Special tokens come right after the base alphabet; they never take part in merges.
        self._special_ids: dict[str, int] = {}
        for special in cfg.special_tokens:
            self._special_ids[special] = len(self._surfaces)
            self._surfaces.append(special.encode("utf-8") if bytes_mode else special)
        self._first_merge_id = len(self._surfaces)
        check_vocab_size(cfg.vocab_size, self._base_count, len(self._special_ids), name)

        # Tie-break key material per token id, extended as merged tokens are created.
        if bytes_mode:
            b2u = bytes_to_unicode()
            hf_text = [("".join(b2u[b] for b in s) if i < 256 else s.decode("utf-8", "replace")) for i, s in enumerate(base)]
        else:
            hf_text = list(base)
        order = sorted(range(len(base)), key=lambda i: hf_text[i])
        self._hf_base_rank = {token_id: pos for pos, token_id in enumerate(order)}
        self._tie_material: list = [self._material(i, s) for i, s in enumerate(self._surfaces)]

        # Words as strings of token ids (see the module docstring). In bytes mode a byte's id
        # is its value, so latin-1 turns the UTF-8 bytes into ids; in chars mode str.translate
        # maps each character to its id. Either runs once over all the words (_convert_all).
        if bytes_mode:
            words = _convert_all(self._word_text, _utf8_as_ids, "\x00")
        else:
            to_ids = {ord(ch): chr(i) for i, ch in enumerate(base) if len(ch) == 1}
            words = _convert_all(self._word_text, lambda text: text.translate(to_ids), "\U0010ffff")
        if eow is not None:
            tail = chr(self._eow_id)
            words = [w + tail for w in words]
        self._words: list[str] = words

        # The pair -> words index and the pair counts, built in one pass that runs in C: every
        # pair occurrence appends its word to the pair's list (a word holding a pair twice is
        # listed twice), so a pair's count is the sum of its listed words' counts. The lists
        # then become the index's word "sets": dicts of word -> None, because a dict of ints is
        # never tracked by the garbage collector, where 100k+ sets would be traversed by every
        # full collection (that alone cost a third of the training time on 28 MB). Each list is
        # popped as it is converted, so the lists and the dicts never all stand at once.
        listed: defaultdict[str, list[int]] = defaultdict(list)
        every_pair = chain.from_iterable(map(_pairs, self._words))
        pairs_per_word = map(sub, map(len, self._words), repeat(1))
        its_word = chain.from_iterable(map(repeat, range(len(self._words)), pairs_per_word))
        deque(map(list.append, map(listed.__getitem__, every_pair), its_word), maxlen=0)
        count_of = self._counts.__getitem__
        pc: dict[str, int] = {}
        where: defaultdict[str, dict[int, None]] = defaultdict(dict)
        for pair in list(listed):
            members = listed.pop(pair)
            pc[pair] = sum(map(count_of, members))
            where[pair] = dict.fromkeys(members)
        self._pair_counts = pc
        self._where = where
        self._count_hist: dict[int, int] = dict(Counter(pc.values()))  # count -> pairs with it

        self._total_tokens = sum(map(mul, map(len, self._words), self._counts))
        self.initial_total_tokens = self._total_tokens
        self.corpus_chars = sum(map(mul, map(len, self._word_text), self._counts))
        self._word_index: dict[str, int] | None = None
        self._by_frequency: list[int] | None = None

        self._entry = self._make_entry_function()
        entry = self._entry
        self._heap: list = [entry(p, c) for p, c in pc.items()]
        heapq.heapify(self._heap)
        # Valid entries taken off the heap by a peek, smallest first; each is no greater than
        # anything left in the heap, so the queue is front + heap (see _pop_valid).
        self._front: deque = deque()
        self._history: list[_StepRecord] = []
        self.stop_reason: str | None = None

    @classmethod
    def from_counts(cls, counts: Mapping[str, int], config: TrainerConfig | None = None, name: str = "counts") -> "Trainer":
        """Train on a ``{pre-token: count}`` mapping made elsewhere (order = first appearance)."""
        if not counts:
            raise BPEError(f"{name}: the corpus is empty (no words to train on)")
        return cls(counts, config, name=name)

    @classmethod
    def from_text(cls, text: str, config: TrainerConfig | None = None, name: str = "text") -> "Trainer":
        """Train on a string, read line by line exactly as a file would be."""
        from .corpus import count_text

        config = config or TrainerConfig()
        return cls.from_counts(count_text(text, config), config, name=name)

    @classmethod
    def from_files(
        cls,
        paths: Iterable[str],
        config: TrainerConfig | None = None,
        errors: str = "strict",
        progress: Callable[[int, int], None] | None = None,
        counts: bool = False,
        workers: int | None = None,
        client=None,
    ) -> "Trainer":
        """Train on files, directories (every text file below) or ``-`` (stdin).

        With ``counts=True`` the inputs are ``word<TAB>count`` files (see corpus.py).
        ``progress(bytes_read, total_bytes)`` follows the reading. ``workers``: processes
        counting words in parallel (None: the CPU count for big inputs, see
        :func:`~bpe_tui.core.corpus.count_files`); the merges do not depend on it.
        ``client``: count on Dask instead (a Client, a scheduler address or ``"local"``; see
        :func:`~bpe_tui.core.distributed.count_words`; progress then counts ranges).
        """
        from .corpus import corpus_name, read_count_files
        from .distributed import count_words

        config = config or TrainerConfig()
        paths = [paths] if isinstance(paths, (str, os.PathLike)) else list(paths)  # one path, or many
        paths = [os.fspath(p) for p in paths]
        if counts:
            word_counts = read_count_files(paths, progress=progress)
        else:
            word_counts = count_words(paths, config, client=client, errors=errors, progress=progress, workers=workers)
        return cls.from_counts(word_counts, config, name=corpus_name(paths))

    # ------------------------------------------------------------------ tie-break keys

    def _material(self, token_id: int, surface) -> object:
        """Per-token tie-break material; a pair's key is (material[left], material[right]).

        lexical-min: the surface as a str that sorts like bytes (latin-1 keeps byte order).
        lexical-max: the same with every code point inverted and a terminator above them all,
                     so the greatest pair sorts first (and a longer string before its prefix).
        hf:          the token's Hugging Face id rank (alphabet by code point, then creation).
        """
        rule = self.config.tie_break
        if rule == "hf":
            return self._hf_base_rank.get(token_id, token_id)
        text = surface.decode("latin-1") if isinstance(surface, bytes) else surface
        if rule == "lexical-max":
            return "".join(chr(0x10FFFE - ord(ch)) for ch in text) + "\U0010ffff"
        return text

    def _merged_material(self, a: int, b: int, new_id: int) -> object:
        """``_material`` of a token created by merging ``a`` and ``b``, from theirs (cheaper)."""
        rule = self.config.tie_break
        material = self._tie_material
        if rule == "hf":
            return new_id  # merged tokens rank by creation, after the whole alphabet
        if rule == "lexical-max":
            return material[a][:-1] + material[b]  # drop a's terminator; b's ends the key
        return material[a] + material[b]

    def _make_entry_function(self) -> Callable[[str, int], tuple]:
        """A pair's whole heap entry ``(-count, *tie-break key, pair key)``, built in one call."""
        if self.config.tie_break == "first-seen":
            key = self._first_seen_key
            return lambda p, c: (-c, *key(p), p)
        material = self._tie_material
        return lambda p, c: (-c, material[ord(p[0])], material[ord(p[1])], p)

    def _first_seen_key(self, pair: str) -> tuple[int, int]:
        """(first word containing the pair, character offset of its first occurrence there).

        Words are numbered in order of first appearance and character offsets never move
        when other symbols merge, so this orders pairs exactly as a fresh left-to-right scan
        of the corpus would. Words that no longer contain the pair are pruned from the index.
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

    def _pop_valid(self):
        """Pop the best up-to-date queue entry, re-queueing or dropping stale ones.

        The queue is the heap plus a short sorted ``_front`` of entries a peek took off (and
        that were no greater than anything in the heap then); the smaller head goes first.
        """
        heap = self._heap
        front = self._front
        pc = self._pair_counts
        make = self._entry
        heappop = heapq.heappop
        # Only first-seen keys move while a pair's count stays put (see _first_seen_key); under
        # the other rules an entry whose count is current is exactly the entry we would build.
        fixed_keys = self.config.tie_break != "first-seen"
        limit = self.config.max_token_length
        surfaces = self._surfaces
        while True:
            if front:
                if heap and heap[0] < front[0]:
                    entry = heappop(heap)
                else:
                    entry = front.popleft()
            elif heap:
                entry = heappop(heap)
            else:
                return None
            pair = entry[-1]
            count = pc.get(pair, 0)
            if count == 0:
                continue
            if limit is not None and len(surfaces[ord(pair[0])]) + len(surfaces[ord(pair[1])]) > limit:
                continue  # would make a token longer than max_token_length: never merged
            if count == -entry[0] and fixed_keys:  # the usual case: nothing moved since queued
                return entry
            fresh = make(pair, count)
            if fresh == entry:
                return entry
            if fresh > entry:  # got worse since queued: queue it where it belongs now
                heapq.heappush(heap, fresh)
            # else: it got better (undo); a fresher entry was queued then, drop this one

    def _peek_valid(self, k: int) -> list:
        """The best ``k`` valid entries, distinct pairs, leaving the queue as it was."""
        taken = []
        seen = set()
        while len(taken) < k:
            entry = self._pop_valid()
            if entry is None:
                break
            if entry[-1] in seen:  # a duplicate of a valid entry: one copy is enough
                continue
            taken.append(entry)
            seen.add(entry[-1])
        # They came out smallest first and no greater than anything left: put them in front.
        self._front.extendleft(reversed(taken))
        return taken

    # ------------------------------------------------------------------ questions

    @property
    def steps_done(self) -> int:
        """How many merges have been applied (the current step k)."""
        return len(self._history)

    @property
    def vocab_size(self) -> int:
        """Base alphabet + special tokens + distinct merged tokens, right now."""
        return len(self._surfaces)

    @property
    def total_tokens(self) -> int:
        """Corpus length in tokens right now (special tokens not counted)."""
        return self._total_tokens

    @property
    def history(self) -> list[MergeEvent]:
        """The MergeEvent of every merge so far, in order."""
        return [r.event for r in self._history]

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
        return self._surfaces[token_id]

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
                raise KeyError(f"{word!r} is not a word of this corpus")
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
        return _key(a, b) if a is not None and b is not None else None

    def top_pairs(self, k: int = 10) -> list[tuple[tuple, int]]:
        """The current best ``k`` pairs as ``((left, right), count)``, in tie-break order.

        The first one is the pair the next :meth:`step` will merge (unless a stop condition
        intervenes).
        """
        s = self._surfaces
        return [(_surface_pair(s, e[-1]), -e[0]) for e in self._peek_valid(k)]

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
        best = self._peek_valid(1)
        return self._stop_reason(best[0] if best else None, respect_target)

    def _stop_reason(self, best, respect_target: bool) -> str | None:
        """Why training cannot take the best queue entry (None: the queue is empty), if it
        cannot. What the corpus has run out of comes first: a trainer with nothing left to
        merge says so even where it also stands at (or beyond) its target."""
        return self._queue_reason(best) or (self._target_reason() if respect_target else None)

    def _target_reason(self) -> str | None:
        """Whether the configured target stops training: "reached" at it, "beyond" past it
        (where a goto went on)."""
        cfg = self.config
        if cfg.merges is not None and len(self._history) >= cfg.merges:
            if len(self._history) == cfg.merges:
                return f"reached {cfg.merges} merges"
            return f"beyond the target of {cfg.merges} merges (at step {len(self._history):,})"
        if cfg.vocab_size is not None and len(self._surfaces) >= cfg.vocab_size:
            if len(self._surfaces) == cfg.vocab_size:
                return f"reached vocabulary size {cfg.vocab_size}"
            return f"beyond the target vocabulary size {cfg.vocab_size} (at {len(self._surfaces):,})"
        return None

    def _queue_reason(self, best) -> str | None:
        """Why the best queue entry (None: the queue is empty) cannot be merged, if it cannot."""
        if best is None:
            return "nothing left to merge: every word is a single token"
        count, least = -best[0], self.config.min_frequency
        if count < least:
            return f"best pair occurs {count:,} time{'s' if count != 1 else ''}, below min_frequency {least}"
        return None

    @property
    def target_steps(self) -> int | None:
        """The merge count the target corresponds to, if it is known in advance."""
        cfg = self.config
        if cfg.merges is not None:
            return cfg.merges
        if cfg.vocab_size is not None:
            return max(0, cfg.vocab_size - self._first_merge_id)
        return None

    @property
    def table(self):
        """A :class:`~bpe_tui.core.table.MergeTable` of the merges so far."""
        from .table import MergeTable

        return MergeTable.from_trainer(self)

    def merge_list(self) -> list[tuple[int, int, int]]:
        """``(left_id, right_id, new_id)`` for every merge so far, in order."""
        return [(r.pair[0], r.pair[1], r.new_id) for r in self._history]

    def merge_counts(self) -> list[int]:
        """The count each merge had when it was made."""
        return [r.event.count for r in self._history]

    def base_surfaces(self) -> list:
        """Surfaces of the base alphabet, in id order."""
        return self._surfaces[: self._base_count]

    # ------------------------------------------------------------------ stepping

    def step(self) -> MergeEvent | None:
        """Apply one merge and return its event, or None when training is finished.

        Finished means the target (vocab_size or merges) is reached, or nothing is left to
        merge (no pairs, or the best pair is below min_frequency); :attr:`stop_reason` says
        which.
        """
        return self._step(respect_target=True)

    def _step(self, respect_target: bool) -> MergeEvent | None:
        entry = self._pop_valid()  # one pop: the stop check and the merge share it
        reason = self._stop_reason(entry, respect_target)
        if reason is not None:
            if entry is not None:
                self._front.appendleft(entry)  # not merged: back to the head of the queue
            self.stop_reason = reason
            return None
        self.stop_reason = None
        count = -entry[0]
        pair = entry[-1]

        # Ties: how many other pairs share this count, and the first few of them by name.
        # They are exactly the next valid entries, so peek no further than needed.
        tie_count = max(0, self.pairs_with_count(count) - 1)
        ties: tuple = ()
        if tie_count:
            s = self._surfaces
            ties = tuple(
                _surface_pair(s, e[-1])
                for e in self._peek_valid(min(tie_count, TIES_LISTED))
                if -e[0] == count
            )
        return self._apply(pair, count, tie_count, ties)

    def _apply(self, pair: str, count: int, tie_count: int, ties: tuple) -> MergeEvent:
        a, b = _ids(pair)
        surfaces = self._surfaces
        new_surface = surfaces[a] + surfaces[b]
        new_id = self._surface_to_id.get(new_surface)
        created = new_id is None
        if created:
            new_id = len(surfaces)
            if new_id > MAX_TOKEN_ID:
                raise BPEError(f"the vocabulary cannot grow past {MAX_TOKEN_ID + 1:,} tokens")
            surfaces.append(new_surface)
            self._surface_to_id[new_surface] = new_id
            self._tie_material.append(self._merged_material(a, b, new_id))
        new = chr(new_id)

        words = self._words
        counts = self._counts
        where = self._where
        changes: dict[str, int] = {}
        get = changes.get
        old_words: list[tuple[int, str]] = []
        touched: list[int] = []
        saved = 0
        for w in sorted(where.pop(pair, ())):
            old = words[w]
            word = old.replace(pair, new)  # the merge itself, left to right, in C
            if word is old:  # replace hands back the same object when the pair is absent
                continue
            wc = counts[w]
            n = len(old)
            i = old.find(pair)
            # Count changes around each occurrence, left to right: (prev, a) becomes
            # (prev, new) and (b, next) becomes (new, next).
            if len(word) == n - 1:  # one occurrence, the usual case: both words line up at i
                if i:
                    p = old[i - 1 : i + 1]
                    changes[p] = get(p, 0) - wc
                    p = word[i - 1 : i + 1]
                    changes[p] = get(p, 0) + wc
                    where[p][w] = None
                if i + 2 < n:
                    p = old[i + 1 : i + 3]
                    changes[p] = get(p, 0) - wc
                    p = word[i : i + 2]
                    changes[p] = get(p, 0) + wc
                    where[p][w] = None
                saved += wc
            else:  # several: prev is the symbol before as rewritten so far (``new`` if adjacent)
                merged_here = n - len(word)
                for k in range(merged_here):
                    if k:
                        i = old.find(pair, i + 2)
                    j = i - k  # where this occurrence's ``new`` stands in the new word
                    if j:
                        p = word[j - 1] + pair[0]
                        changes[p] = get(p, 0) - wc
                        p = word[j - 1 : j + 1]
                        changes[p] = get(p, 0) + wc
                        where[p][w] = None
                    if i + 2 < n:
                        p = old[i + 1 : i + 3]
                        changes[p] = get(p, 0) - wc
                        p = new + old[i + 2]
                        changes[p] = get(p, 0) + wc
                        where[p][w] = None
                saved += merged_here * wc
            if not created:
                old_words.append((w, old))
            touched.append(w)
            words[w] = word

        # The merged pair is gone everywhere (with a == b the local deltas above also touched
        # it; every occurrence has been merged or absorbed, so its count is exactly zero).
        changes[pair] = -self._pair_counts.get(pair, 0)
        self._total_tokens -= saved
        applied = self._apply_changes(changes)

        event = _new_event(
            step=len(self._history) + 1,
            pair=(surfaces[a], surfaces[b]),
            pair_ids=(a, b),
            new_id=new_id,
            new_token=new_surface,
            count=count,
            tie_count=tie_count,
            ties=ties,
            rule=self.config.tie_break,
            words_touched=tuple(touched),
            total_tokens=self._total_tokens,
            vocab_size=len(surfaces),
            _changes=applied,
            _surfaces=surfaces,
        )
        self._surfaces_shared = True
        # Old segmentations are kept only when the merge reused an existing token: when it
        # created new_id, undo gets them back by splitting every new_id into (a, b), which
        # saves most of the history's memory (80 MB of 250 on a 28 MB corpus).
        self._history.append(_StepRecord((a, b), new_id, created, None if created else tuple(old_words), applied, saved, event))
        return event

    def _apply_changes(self, changes: Mapping[str, int]) -> dict:
        """Add count deltas to the pair table and queue every pair whose count rose.

        Returns ``pair -> (before, after)``.
        """
        pc = self._pair_counts
        hist = self._count_hist
        applied = {}
        heap = self._heap
        entry = self._entry
        heappush = heapq.heappush
        get = pc.get
        # Under first-seen a pair's key can move with no net change in its count (a merge that
        # reuses an existing token both removes and adds its pairs), so re-queue all of them.
        requeue_all = self.config.tie_break == "first-seen"
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
            applied[p] = (before, after)
            if d > 0 or (requeue_all and after):
                heappush(heap, entry(p, after))
        return applied

    def undo(self) -> MergeEvent | None:
        """Take back the last merge exactly; return the event undone (None at step 0)."""
        if not self._history:
            return None
        record = self._history.pop()
        words = self._words
        where = self._where
        for w, old in self._old_segmentations(record):
            words[w] = old
            for p in _pairs(old):
                where[p][w] = None
        self._total_tokens += record.tokens_saved
        self._apply_changes({p: before - after for p, (before, after) in record.changes.items()})
        if record.created:
            del self._surface_to_id[self._drop_last_surface()]
            self._tie_material.pop()
        self.stop_reason = None
        return record.event

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

    def _old_segmentations(self, record: _StepRecord) -> Iterator[tuple[int, str]]:
        """``(word, segmentation before the merge)`` for each word the merge rewrote.

        Undo is last-in first-out, so the words are exactly as the merge left them; when it
        created new_id, every new_id in them came from it and splits back into (a, b).
        """
        if record.old_words is not None:
            yield from record.old_words
            return
        new = chr(record.new_id)
        pair = _key(*record.pair)
        words = self._words
        for w in record.event.words_touched:
            yield w, words[w].replace(new, pair)

    def goto(self, k: int) -> int:
        """Move to the state after exactly ``k`` merges, forward or back; return the step reached.

        Going forward ignores the vocab_size / merges target; the state equals training ``k``
        merges from scratch. Only the corpus can stop it early (nothing left to merge, or the
        best pair below min_frequency): then it returns the step where it stopped, less than
        ``k``, and :attr:`stop_reason` says why.
        """
        if isinstance(k, bool) or not isinstance(k, int):
            raise BPEError(f"cannot go to step {k!r}: a step is a whole number")
        if k < 0:
            raise BPEError(f"cannot go to step {k}: steps start at 0")
        while self.steps_done > k:
            self.undo()
        while self.steps_done < k:
            if self._step(respect_target=False) is None:
                break
        return self.steps_done

    def run(self, max_steps: int | None = None) -> Iterator[MergeEvent]:
        """Step until finished (or ``max_steps`` merges), yielding each MergeEvent.

        A generator, so a UI can interleave rendering, progress and cancellation.
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
        return {_surface_pair(s, k): c for k, c in self._pair_counts.items()}
