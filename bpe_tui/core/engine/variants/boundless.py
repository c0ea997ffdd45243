"""BoundlessBPE: BPE that may also join two whole pre-tokens into one token.

Schmidt, Reddy, Tanner and Pinter, "Boundless Byte Pair Encoding: Breaking the
Pre-tokenization Barrier" (COLM 2025, arXiv 2504.00178); the reference code is github
kensho-technologies/boundlessbpe (``FasterHalfDirectRegexTokenizer`` in
``boundlessbpetrain.py``).

**The problem.** A pre-tokenizer cuts text into words before BPE sees it, so no token ever
spans two of them: ``·of·the`` or ``·United·States`` stay two tokens however common they are.

**The idea.** Keep the pre-tokenizer, and let BPE join two *adjacent pre-tokens that are each
already one whole token* into one: a **supermerge**. Three kinds of event come out of
training, in one order:

* **word merges**: plain BPE inside pre-tokens;
* **deletions**: right after a word merge, a part the merge used up almost everywhere (its
  IoS, the merge's count over the part's own count before it, at least τ) is split back, into
  its bytes (the paper) or into the pair that made it (its ablation) — PickyBPE's rule; a
  deleted token keeps its id and its place in the vocabulary size, and is never made again;
* **supermerges**: two whole pre-tokens side by side, both matching the merge pattern
  (letters, with spaces, underscores and apostrophes), joined into one token.

**Two states, one choice.** The trainer's words are the *word state*: each distinct pre-token,
split into tokens. Beside it this variant keeps the *superword state*
(:mod:`~.boundless_units`): every document as a sequence of whole pre-tokens, one unit each,
where a pre-token takes part only once a word merge has made it one whole token (it is
*unlocked*). Both count pairs without overlap in runs of one token (``x x x`` holds one
``(x, x)``: the trainer's words count overlaps, so the few such pairs are corrected here), and
skip pairs whose token exists already. At each step each state names its best pair (the
highest count, ties by the config's rule: the reference's is the smallest pair by bytes,
lexical-min, which ``--preset boundless`` sets); the word merge is taken only if its count is
**strictly greater**, else the supermerge.

**In the trainer** a word merge is an ordinary merge: after it this variant updates the token
counts, deletes through ``state.rewrite`` (:class:`DeletionEvent` in the merge event's
``after``) and unlocks the pre-token the merge made whole. A supermerge is a merge of units the
variant keeps itself (its Choice's reason, :class:`Supermerge`, is a
:class:`~.seam.MergedElsewhere`): the trainer makes the token and the event, the words stay as
they are, and this variant joins the pair in its documents. Undo takes each back exactly.

What the reference does, rule by rule, is docs/variants/boundless.md; its goldens
(tests/core/golden/boundless) hold this trainer to it event for event, counts included.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import regex

from ...errors import BPEError
from ...text.boundless_rules import MERGE_PATTERN
from ...wording import plural
from ..config import BOUNDLESS_DELETIONS
from ..speed import ids_of
from ..state import Merged
from ..tiebreak import show, show_pair
from .boundless_events import DeletionEvent, Supermerge, WordMerge
from .boundless_units import UnitState
from .options import Option
from .seam import Bench, Choice, Variant

if TYPE_CHECKING:
    from ..config import TrainerConfig
    from ..events import MergeEvent

__all__ = ["BoundlessBPE", "DeletionEvent", "Supermerge", "WordMerge"]

#: A run of three or more equal tokens in a word (its pairs counted with overlap by the
#: trainer, without by this variant).
_RUN_OF_THREE = regex.compile(r"(.)\1\1", regex.DOTALL)


class _StepLog:
    """What undo needs to take one step's BoundlessBPE work back."""

    __slots__ = ("counts", "corrections", "made", "unlocked", "supermerge", "deleted")

    def __init__(self) -> None:
        self.counts: list[tuple[int, int]] = []  # (token, its count before)
        self.corrections: list[tuple[int, dict[str, int] | None]] = []  # (word, its correction before)
        self.made: int | None = None  # the token a word merge made
        self.unlocked: tuple[str, int] | None = None  # (pre-token text, token) unlocked
        self.supermerge: tuple[str, int, tuple[int, ...], int] | None = None  # (pair, new, runs, joins)
        self.deleted: list[int] = []


class BoundlessBPE(Variant):
    """BoundlessBPE with deletion threshold ``tau`` (above 1: none), deletions into
    ``deletions`` ("bytes" or "pair"), supermerges of pre-tokens matching ``merge_pattern``.
    Needs the corpus's runs (``chunk_counts``: counted with the words when the config sets
    ``boundless``, see :func:`~bpe_tui.core.engine.counting.runs_config`)."""

    name = "boundless"
    title = "BoundlessBPE (Schmidt et al. 2025)"
    options = (
        Option(
            "boundless", float, None, flag="--boundless", metavar="TAU", label="BoundlessBPE τ",
            note="merges across pre-tokens (blank: off)", check=lambda v: None if v > 0 else "must be above 0",
            help="BoundlessBPE (Schmidt et al. 2025): also join two whole adjacent pre-tokens into one token (a supermerge), and "
            "after each ordinary merge delete a part whose IoS is at least TAU (above 1: no deletions); --preset boundless is "
            "the authors' setup (TAU 0.9)",
        ),
        Option(
            "boundless_deletions", str, "bytes", choices=BOUNDLESS_DELETIONS, flag="--boundless-deletions", label="deletions into",
            choice_labels=("its bytes (the paper)", "the pair that made it"),
            help="BoundlessBPE: split a deleted token into its bytes (the paper, default) or into the pair that made it (its ablation)",
        ),
        Option(
            "boundless_merge_pattern", str, None, flag="--boundless-merge-pattern", metavar="REGEX",
            help="BoundlessBPE: the regex a whole pre-token must match to join another (default: the authors', letters with "
            "spaces, underscores and apostrophes)",
        ),
    )
    preset = "boundless"
    takes_length_limit = False
    acts_after_merge = True
    elsewhere_kind = "supermerge"
    split_kind = "deletion"

    def __init__(self, boundless: float = 0.9, boundless_deletions: str = "bytes", boundless_merge_pattern: str | None = None,
                 chunk_counts: Mapping[str, int] | None = None) -> None:
        self.tau = boundless
        self.deletions = boundless_deletions
        self.merge_pattern = boundless_merge_pattern or MERGE_PATTERN
        self.runs = chunk_counts

    # ------------------------------------------------------------------ the declaration

    @classmethod
    def wanted(cls, config: "TrainerConfig") -> bool:
        return config.boundless is not None

    @classmethod
    def from_config(cls, config: "TrainerConfig", chunk_counts: Mapping[str, int] | None = None) -> "BoundlessBPE":
        assert config.boundless is not None
        return cls(config.boundless, config.boundless_deletions, config.boundless_merge_pattern, chunk_counts)

    @classmethod
    def about_table(cls, config: Mapping[str, Any], merges: int | None = None) -> list[tuple[str, str]]:
        """Its supermerges and deletions (none: not BoundlessBPE's table)."""
        supermerges = config.get("supermerges")
        if not isinstance(supermerges, list):
            return []
        listed = config.get("removals")
        removals = listed if isinstance(listed, list) else []
        into = "the pair that made each" if config.get("deletions") == "pair" else "bytes"
        tau = config.get("boundless")
        told = f"τ {tau:g}: " if isinstance(tau, (int, float)) and not isinstance(tau, bool) else ""
        return [("BoundlessBPE", f"{told}{plural(len(supermerges), 'supermerge')}, {plural(len(removals), 'deletion')} (into {into}); encoding replays them in order")]

    @classmethod
    def encoding_rule(cls, config: Mapping[str, Any], merges: Any, vocab: Any, source: str) -> Any:
        """The word merges, deletions and supermerges in event order
        (:class:`~bpe_tui.core.tables.boundless.BoundlessEvents`)."""
        if "supermerges" not in config or merges is None:
            return None
        from ...tables.boundless import BoundlessEvents, supermerge_numbers

        numbers = supermerge_numbers(config, len(merges), source)
        return BoundlessEvents(config.get("removals") or [], merges, vocab, source, numbers)

    @classmethod
    def save_needs(cls, config: "TrainerConfig") -> dict[str, bool]:
        """Its events need a format that replays them in order (native or boundless)."""
        return {"boundless": config.boundless is not None}

    @classmethod
    def config_fields(cls, given: Mapping[str, Any], start_merges: int | None, name: Callable[[str], str], requested: bool) -> dict[str, Any]:
        """τ and the two options; the options need τ (or the preset's)."""
        if start_merges is not None and given.get("boundless") is not None:
            raise BPEError(f"{name('boundless')} trains from the bytes up: it does not go on from a table (--from)")
        return {o.key: given[o.key] for o in cls.options if given.get(o.key) is not None}

    def describe(self) -> str:
        return "BoundlessBPE" + (f" τ {self.tau:g}" if self.tau <= 1 else " (no deletions)")

    def summary(self, bench: Bench) -> list[str]:
        supers = sum(isinstance(e.reason, Supermerge) for e in bench.history)
        deletions = sum(isinstance(a, DeletionEvent) for e in bench.history for a in e.after)
        words = len(bench.history) - supers
        return [f"{plural(words, 'word merge')}, {plural(supers, 'supermerge')}, {plural(deletions, 'deletion')}"]

    def heading(self, bench: Bench) -> str:
        supers = sum(isinstance(e.reason, Supermerge) for e in bench.history)
        return f" · {plural(supers, 'supermerge')}" if supers else " · supermerges join whole pre-tokens"

    # ------------------------------------------------------------------ building

    def attach(self, bench: Bench) -> None:
        st = bench.state
        cfg = bench.config
        if bench.first_step:
            raise BPEError(f"{bench.name}: BoundlessBPE trains from the bytes up: it does not go on from a table")
        if cfg.units != "bytes" or cfg.end_of_word is not None or bench.queue.rule.moving_keys:
            raise BPEError("BoundlessBPE needs bytes, no end-of-word marker and a tie-break rule whose order of pairs stays put (--preset boundless)")
        if self.runs is None:
            raise BPEError(
                f"{bench.name}: BoundlessBPE needs the corpus's runs of pre-tokens as well as its words "
                "(build the trainer with from_text, from_files or from_iterator, or pass chunk_counts)"
            )
        self.units = UnitState(self.runs)
        self.runs = None
        self.units.make_entry = bench.queue.make_entry
        if cfg.vocab_size is not None:
            self.units.check_room(cfg.vocab_size)
        #: word-state token -> its occurrences (the deletion rule's counts)
        self.counts: dict[int, int] = {}
        counts = self.counts
        for word, n in zip(st.words, st.counts):
            for ch in word:
                counts[ord(ch)] = counts.get(ord(ch), 0) + n
        #: pair (x, x) -> its overlapping count less its count without overlap, and each word's share
        self.correction: dict[str, int] = {}
        self.shares: dict[int, dict[str, int]] = {}
        #: the side queue: pairs of two equal tokens with a correction, by their count without
        #: overlap (lazy, as the trainer's queue), and what it reads
        self.side: list[tuple] = []
        self.pair_counts = st.pair_counts
        self.make_entry = bench.queue.make_entry
        for w, word in enumerate(st.words):
            if _RUN_OF_THREE.search(word):
                self._set_share(w, word, st.counts[w])
        #: token -> the pair of the word merge that made it (a deletion into the pair splits it so)
        self.made_by: dict[int, tuple[int, int]] = {}
        #: token -> lists of words that may hold it (together a superset: the words each
        #: merge that made it or split into it rewrote)
        self.holders: dict[int, list[Sequence[int]]] = {}
        #: deleted token -> the merge after which it was deleted
        self.deleted: dict[int, int] = {}
        #: pre-token text -> its word, for the pre-tokens the runs hold (to unlock them)
        self.word_of: dict[str, int] = {}
        lock_of = self.units.lock_of
        for w, text in enumerate(st.word_text):
            if text in lock_of:
                self.word_of[text] = w
        self.log: list[tuple] = []
        self.pending: Supermerge | None = None

    def _set_share(self, w: int, word: str, n: int) -> dict[str, int] | None:
        """Word ``w``'s share of the corrections, from its segmentation ``word`` (count ``n``);
        returns its share before."""
        before = self.shares.pop(w, None)
        corr = self.correction
        if before:
            for p, k in before.items():
                left = corr[p] - k
                if left:
                    corr[p] = left
                else:
                    del corr[p]
        share = {p: k * n for p, k in run_corrections(word).items()} if _RUN_OF_THREE.search(word) else {}
        if share:
            self.shares[w] = share
            for p, k in share.items():
                corr[p] = corr.get(p, 0) + k
        self._requeue(before, share)
        return before

    def _requeue(self, *changed: dict[str, int] | None) -> None:
        """Queue the pairs of two equal tokens whose correction moved, in the side queue, by
        their count without overlap (see :meth:`_best_word`)."""
        pc, corr, entry, side = self.pair_counts, self.correction, self.make_entry, self.side
        for pairs in changed:
            for p in pairs or ():
                count = pc.get(p, 0) - corr.get(p, 0)
                if count > 0:
                    heapq.heappush(side, entry(p, count))

    # ------------------------------------------------------------------ choosing

    def _made(self, bench: Bench) -> Callable[[str], bool]:
        """Whether a pair (key) would make a token that exists (deleted ones too)."""
        surfaces, made = bench.state.surfaces, bench.state.surface_to_id
        return lambda p: surfaces[ord(p[0])] + surfaces[ord(p[1])] in made

    def _best_word(self, bench: Bench) -> tuple | None:
        """The word state's best entry with its count without overlap: ``(-count, *key,
        pair)``, or None. Pairs that would make an existing token leave the queue (undo queues
        them again). A pair of two equal tokens with a correction (a run of three or more of
        them somewhere: the queue counts it with overlap) leaves the trainer's queue for the
        side queue, where its count is the one without overlap; the best is the better of the
        trainer's first valid entry (left in place) and the side queue's."""
        queue = bench.queue
        made = self._made(bench)
        corr = self.correction
        word: tuple | None = None
        while True:
            got = queue.pop(1)
            if not got:
                break
            entry = got[0]
            pair = entry[-1]
            if made(pair):
                continue  # (never merged while its token exists)
            if pair[0] == pair[1] and pair in corr:
                self._requeue({pair: 0})  # (to the side queue, counted without overlap)
                continue
            queue.put_back(entry)
            word = entry
            break
        side, pc, make = self.side, self.pair_counts, self.make_entry
        while side:
            top = side[0]
            pair = top[-1]
            count = pc.get(pair, 0) - corr.get(pair, 0)
            if count <= 0 or made(pair):
                heapq.heappop(side)
                continue
            if count != -top[0]:
                heapq.heapreplace(side, make(pair, count))
                continue
            return top if word is None or top < word else word
        return word

    def _choice(self, bench: Bench) -> tuple[tuple | None, bool, tuple | None]:
        """``(entry, is it a supermerge, the other state's best entry)`` of what the next
        step takes (entry None: nothing)."""
        word = self._best_word(bench)
        sup = self.units.best(self._made(bench))
        if sup is not None and (word is None or -sup[0] >= -word[0]):
            return sup, True, word
        return word, False, sup

    def peek(self, bench: Bench) -> tuple | None:
        return self._choice(bench)[0]

    def choose(self, bench: Bench, respect_target: bool) -> Any:
        entry, supermerge, rival = self._choice(bench)
        stop = bench.stop_reason_for(entry, respect_target)
        if stop is not None:
            return stop
        assert entry is not None
        pair, count = entry[-1], -entry[0]
        surfaces = bench.state.surfaces
        a, b = ids_of(pair)
        if supermerge:
            units = self.units.token_counts
            reason: Any = Supermerge(
                surfaces[a], surfaces[b], count, units[a], units[b],
                ((surfaces[ord(rival[-1][0])], surfaces[ord(rival[-1][1])]), -rival[0]) if rival is not None else None,
                a != b,
            )
            self.pending = reason
        else:
            reason = WordMerge(
                count, self.counts.get(a, 0), self.counts.get(b, 0),
                ((surfaces[ord(rival[-1][0])], surfaces[ord(rival[-1][1])]), -rival[0]) if rival is not None else None,
            )
        return Choice(pair, count, reason=reason)

    # ------------------------------------------------------------------ after a merge

    def after_merge(self, bench: Bench, merged: Merged) -> tuple:
        if not merged.created:
            st = bench.state
            raise BPEError(f"BoundlessBPE never makes a token twice: {show_pair(ids_surfaces(st.surfaces, merged.pair))} makes {show(st.surfaces[merged.new_id])}, which exists")
        log = _StepLog()
        events = self._after_supermerge(bench, merged, log) if merged.elsewhere else self._after_word_merge(bench, merged, log)
        # (kept as a tuple of tuples: the garbage collector stops walking it)
        self.log.append((tuple(log.counts), tuple(log.corrections), log.made, log.unlocked, log.supermerge, tuple(log.deleted)))
        return events

    def _after_supermerge(self, bench: Bench, merged: Merged, log: _StepLog) -> tuple:
        touched, joins, unlocked = self.units.merge(merged.pair, merged.new_id)
        log.supermerge = (merged.pair, merged.new_id, tuple(touched), joins)
        self.pending = None
        return ()

    def _count(self, log: _StepLog, token: int, change: int) -> None:
        counts = self.counts
        before = counts.get(token, 0)
        log.counts.append((token, before))
        counts[token] = before + change

    def _recorrect(self, bench: Bench, words: Iterable[int], log: _StepLog, made: int | None = None) -> None:
        """The overlap corrections of ``words`` after a change: a merge that made ``made``
        can only make a run of three of it (others only shrink); a split may make any."""
        st = bench.state
        shares = self.shares
        triple = chr(made) * 3 if made is not None else None
        search = _RUN_OF_THREE.search
        for w in words:
            word = st.words[w]
            if w in shares or (triple in word if triple is not None else search(word)):
                log.corrections.append((w, self._set_share(w, word, st.counts[w])))

    def _after_word_merge(self, bench: Bench, merged: Merged, log: _StepLog) -> tuple:
        st = bench.state
        step = bench.steps_done + 1
        new = merged.new_id
        a, b = ids_of(merged.pair)
        joins = merged.saved  # the merge's count without overlap: how many joins it made
        before = {a: self.counts.get(a, 0), b: self.counts.get(b, 0)}
        self._count(log, a, -joins)
        self._count(log, b, -joins)
        self._count(log, new, joins)
        self.made_by[new] = (a, b)
        log.made = new
        self.holders.setdefault(new, []).append(merged.touched)  # (the merge's own list: no copy)
        self._recorrect(bench, merged.touched, log, new)
        events: list[DeletionEvent] = []
        for part in (a, b):
            surface = st.surfaces[part]
            if len(surface) > 1 and joins / before[part] >= self.tau:
                events.append(self._delete(bench, part, new, joins, before[part], step, merged, log))
        text = self._text_of(st.surfaces[new])
        if text is not None:
            w = self.word_of.get(text)
            if w is not None and st.words[w] == chr(new) and self.units.unlock(text, new, st.counts[w]):
                log.unlocked = (text, new)
        return tuple(events)

    @staticmethod
    def _text_of(surface: bytes) -> str | None:
        try:
            return surface.decode("utf-8")
        except UnicodeDecodeError:
            return None

    def _delete(self, bench: Bench, part: int, new: int, joins: int, before: int, step: int, merged: Merged, log: _StepLog) -> DeletionEvent:
        """Delete ``part`` after the merge that made ``new``: split its remaining occurrences."""
        st = bench.state
        surface = st.surfaces[part]
        if self.deletions == "bytes":
            split = [st.surface_to_id[surface[i : i + 1]] for i in range(len(surface))]
        else:
            split = list(self.made_by[part])
        left = self.counts.get(part, 0)
        mark = chr(part)
        words = st.words
        held = sorted({w for listed in self.holders.get(part, ()) for w in listed if mark in words[w]})
        if held:
            spelled = "".join(map(chr, split))
            st.rewrite([(w, words[w].replace(mark, spelled)) for w in held], merged)
            for p in split:
                self.holders.setdefault(p, []).append(held)
            self._recorrect(bench, held, log)
        for p in split:
            self._count(log, p, left)
        self._count(log, part, -left)
        log.deleted.append(part)
        self.deleted[part] = step
        return DeletionEvent(
            step, surface, part, tuple(st.surfaces[p] for p in split), tuple(split), st.surfaces[new], joins / before, self.tau,
            left, joins, tuple(held), st.total_tokens, st.vocab_size,
        )

    # ------------------------------------------------------------------ undo

    def undo(self, bench: Bench, event: "MergeEvent") -> None:
        changed_counts, corrections, made, unlocked, supermerge, deleted = self.log.pop()
        if supermerge is not None:
            pair, new, touched, joins = supermerge
            self.units.unmerge(pair, new, touched, joins)
        if unlocked is not None:
            self.units.relock(*unlocked)
        for token in deleted:
            self.deleted.pop(token, None)
        st = bench.state
        for w, share in reversed(corrections):
            self._set_share(w, "", 0)
            if share:
                self.shares[w] = share
                for p, k in share.items():
                    self.correction[p] = self.correction.get(p, 0) + k
                self._requeue(share)
        counts = self.counts
        for token, before in reversed(changed_counts):
            if before:
                counts[token] = before
            else:
                counts.pop(token, None)
        if made is not None:
            del self.made_by[made]
        # The token this step made is taken back: pairs that would make it may be merged again.
        surface = st.surfaces[event.new_id]
        to_id = st.surface_to_id
        for i in range(1, len(surface)):
            left, right = to_id.get(surface[:i]), to_id.get(surface[i:])
            if left is not None and right is not None:
                pair = chr(left) + chr(right)
                bench.queue.push(pair)
                self.units.push(pair)
                if pair in self.correction:
                    self._requeue({pair: 0})

    # ------------------------------------------------------------------ the table, and checking

    def table_config(self, bench: Bench) -> dict[str, Any]:
        """The supermerges (1-based merge numbers) and the deletions (``[merge number, token,
        [parts]]``), as a BoundlessBPE model file read holds them, for encoding in event order."""
        supermerges = [e.step for e in bench.history if isinstance(e.reason, Supermerge)]
        removals = [[d.step, d.token_id, list(d.part_ids)] for e in bench.history for d in e.after if isinstance(d, DeletionEvent)]
        return {"supermerges": supermerges, "removals": removals, "deletions": self.deletions, "merge_pattern": self.merge_pattern}

    def plain_words(self, bench: Bench) -> dict[str, int] | None:
        """The same words: plain BPE is BoundlessBPE without supermerges and deletions."""
        return self.corpus_counts(bench)[0]

    def corpus_counts(self, bench: Bench) -> tuple[dict[str, int], dict[str, int] | None]:
        """The words as counted; the runs are not kept as text (the trainer is not built again from them)."""
        st = bench.state
        return dict(zip(st.word_text, st.counts)), None

    def check(self, bench: Bench) -> str | None:
        """The token counts, the overlap corrections and the supermerge pair counts against a recount."""
        st = bench.state
        counts: dict[int, int] = {}
        correction: dict[str, int] = {}
        for word, n in zip(st.words, st.counts):
            for ch in word:
                counts[ord(ch)] = counts.get(ord(ch), 0) + n
            for p, k in run_corrections(word).items():
                correction[p] = correction.get(p, 0) + k * n
        mine = {t: c for t, c in self.counts.items() if c}
        if counts != mine:
            t = next(t for t in set(counts) | set(mine) if counts.get(t, 0) != mine.get(t, 0))
            return f"token {st.surfaces[t]!r} occurs {counts.get(t, 0):,} times, BoundlessBPE says {mine.get(t, 0):,}"
        if correction != self.correction:
            return "the corrections of pairs of two equal tokens (counted without overlap) disagree with a recount"
        return self.units.problem()


def run_corrections(word: str) -> dict[str, int]:
    """``(x, x)`` -> how many more times the pair counts with overlap than without in
    ``word``: ``(L - 1) // 2`` for each run of ``L`` equal tokens (``x x x``: 2 against 1)."""
    out: dict[str, int] = {}
    i, size = 0, len(word)
    while i < size:
        j = i + 1
        while j < size and word[j] == word[i]:
            j += 1
        if j - i >= 3:
            p = word[i] * 2
            out[p] = out.get(p, 0) + (j - i - 1) // 2
        i = j
    return out


def ids_surfaces(surfaces: list, pair: str) -> tuple:
    """The surfaces of a pair key."""
    return surfaces[ord(pair[0])], surfaces[ord(pair[1])]
