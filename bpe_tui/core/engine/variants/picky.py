"""PickyBPE: BPE that takes back the tokens its merges leave behind.

Chizhov, Arnett, Korotkova and Yamshchikov, "BPE Gets Picky: Efficient Vocabulary Refinement
During Tokenizer Training" (EMNLP 2024, arXiv 2409.04599); the reference code is
github pchizhov/picky_bpe (``bpe_trainer.py``, ``picky_tokenize.py``).

**The problem.** Plain BPE keeps every token it ever made. Many are scaffolding: ``entucky`` is
made on the way to ``Kentucky`` and, once ``Kentucky`` exists, almost never occurs on its own.
It still takes a place in the vocabulary (and, in a language model, an embedding that is hardly
ever trained).

**The rule.** Right after a merge of ``(x, y)`` into ``xy``, look at each part. Let ``m`` be how
many times the merge joined it into ``xy`` and ``f`` how many times it still occurs on its own.
Its *Intersection over Self* is ``IoS = m / (f + m)``: the share of its occurrences that now
live inside ``xy``. When ``IoS > τ`` (the threshold, 0 < τ <= 1), the part is *removed*: taken
out of the vocabulary, and each of its remaining occurrences split back into the tokens it was
made of (its first merge's parts, themselves split further if they were removed since). A base
symbol is never removed. With τ = 1 nothing ever is (IoS is at most 1): plain BPE.

**Restores.** A removed token is not banned. If a later merge makes the same string again
(its parts are still in the corpus, side by side), it comes back with its old id: a *restore*.
A string can also be made by another pair than the first time (``abc`` from ``a + bc`` after
``ab + c``): the token is the same, its parts for splitting stay the first ones.

**In the trainer** this variant acts after each merge (see :mod:`~.seam`): it keeps every
token's standalone frequency (``f`` above) and the pair that first made it, decides removals,
splits through ``state.rewrite`` and reports each removal and restore as an event of its own
(:class:`RemovalEvent`, :class:`RestoreEvent`, in the merge event's ``after``). It chooses
pairs as plain BPE does. Under the ``picky`` tie-break rule
(:class:`~bpe_tui.core.engine.tiebreak.PickyOrder`, the picky preset's) it also keeps that
rule's order, which is the reference's: pairs ordered by when they entered its pair counter,
each merge's and removal's new pairs entering in the order the reference inserts them.

**Exactness against the reference.** The reference counts with a Python ``Counter`` and takes
``most_common(1)``; the new pairs of one step enter it in the order of a set of word objects,
which follows memory addresses and differs from run to run (two runs on taylorswift agreed on
640 events and parted at a tie). Here those words are taken in order of first appearance; the
golden files in ``tests/core/golden/picky`` were made by the reference with that one order
fixed. Also unlike the reference: a merge that makes a token already in the vocabulary adds no
token here (the reference counts it as one more, and its pair counts go wrong there).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ...wording import plural
from ..speed import ids_of, pairs_of
from ..state import Merged
from ..tiebreak import PickyOrder, show
from .options import Option
from .plain import PlainBPE
from .seam import Bench

if TYPE_CHECKING:
    from ..config import TrainerConfig
    from ..events import MergeEvent

__all__ = ["PickyBPE", "RemovalEvent", "RestoreEvent", "ios_text"]


def ios_text(ios: float, threshold: float) -> str:
    """``ios`` with as many decimals as it takes to read it above ``threshold`` (0.93; 0.9004
    against 0.9, where 0.90 would read as not above)."""
    for digits in range(2, 7):
        shown = f"{ios:.{digits}f}"
        if float(shown) > threshold:
            return shown
    return f"{ios:.6f}"


@dataclass(frozen=True)
class RemovalEvent:
    """A token PickyBPE removed right after merge ``step``, as a value (in the merge
    event's ``after``).

    Attributes:
        step: The merge after which it was removed.
        token: The token removed (its id stays reserved: a restore gets it back).
        token_id: Its id.
        parts: What each of its occurrences was split into.
        part_ids: Their ids.
        inside: The token merge ``step`` made, where it now mostly lives.
        ios: Its Intersection over Self, ``merged / (freq + merged)``.
        threshold: τ, which ``ios`` was above.
        freq: Its occurrences left on their own (what was split).
        merged: Its occurrences the merge took into ``inside``.
        words_touched: The words where it was split.
        total_tokens: The corpus's length after the removal.
        vocab_size: The vocabulary's size after the removal.
        end_of_word: The trainer's end-of-word marker, for showing the tokens.
    """

    step: int
    token: bytes | str
    token_id: int
    parts: tuple
    part_ids: tuple[int, ...]
    inside: bytes | str
    ios: float
    threshold: float
    freq: int
    merged: int
    words_touched: tuple[int, ...] = field(repr=False)
    total_tokens: int
    vocab_size: int
    end_of_word: str | None = field(default=None, repr=False, compare=False)

    @property
    def explanation(self) -> str:
        """One sentence: why the token went, and what it became."""
        eow = self.end_of_word
        token, inside = show(self.token, eow), show(self.inside, eow)
        total = self.freq + self.merged
        parts = " + ".join(show(p, eow) for p in self.parts)
        if not self.freq:
            rest = f"none is left on its own (it would split into {parts})"
        elif self.freq == 1:
            rest = f"the 1 left is split into {parts}"
        else:
            rest = f"the {self.freq:,} left are split into {parts}"
        return (
            f"removed {token}: IoS {ios_text(self.ios, self.threshold)} > {self.threshold:g}: {token} now lives almost only inside "
            f"{inside} ({self.merged:,} of its {total:,} occurrences); {rest}"
        )


@dataclass(frozen=True)
class RestoreEvent:
    """A removed token that merge ``step`` made again: back in the vocabulary, with its id
    (in the merge event's ``after``).

    Attributes:
        step: The merge that made it again.
        token: The token restored.
        token_id: Its id, the one it had before its removal.
        pair: The two tokens that made it again.
        removed_at: The merge after which it had last been removed.
        end_of_word: The trainer's end-of-word marker, for showing the tokens.
    """

    step: int
    token: bytes | str
    token_id: int
    pair: tuple
    removed_at: int
    end_of_word: str | None = field(default=None, repr=False, compare=False)

    @property
    def explanation(self) -> str:
        eow = self.end_of_word
        return (
            f"restored {show(self.token, eow)}: removed after merge {self.removed_at:,}, made again from "
            f"{show(self.pair[0], eow)} + {show(self.pair[1], eow)}, with its old id {self.token_id:,}"
        )


class _StepLog:
    """What undo needs to take one step's PickyBPE work back: old values, in the order changed."""

    __slots__ = ("freqs", "stamps", "tick", "made", "restored", "removed")

    def __init__(self, tick: int) -> None:
        self.freqs: list[tuple[int, int]] = []  # (token, frequency before)
        self.stamps: list[tuple[str, int | None]] = []  # (pair, stamp before; None: it had none)
        self.tick = tick
        self.made: int | None = None  # a token whose parts this step recorded
        self.restored: tuple[int, int] | None = None  # (token, the removal step it undid)
        self.removed: list[tuple[int, int | None]] = []  # (token, its removal step before)


class PickyBPE(PlainBPE):
    """PickyBPE with IoS threshold ``threshold`` (None: no removals, only the reference's
    order among equal counts, for the picky preset without a threshold)."""

    name = "picky"
    title = "PickyBPE (Chizhov et al. 2024)"
    options = (
        Option(
            "picky", float, None, flag="--picky", metavar="TAU", label="PickyBPE τ", offered=True,
            note="0 < τ <= 1 removes tokens (blank: plain BPE)",
            help="PickyBPE (Chizhov et al. 2024): after each merge, remove a part whose share of occurrences inside the new "
            "token (its IoS) is above TAU, 0 < TAU <= 1, splitting it back into its parts; --preset picky is the authors' setup",
        ),
    )
    acts_after_merge = True

    def __init__(self, threshold: float | None) -> None:
        self.threshold = threshold
        self.removes_tokens = threshold is not None

    @classmethod
    def wanted(cls, config: "TrainerConfig") -> bool:
        """τ given, or the picky tie-break (the reference's order, which this variant keeps)."""
        return config.picky is not None or config.tie_break == "picky"

    @classmethod
    def from_config(cls, config: "TrainerConfig", chunk_counts: Mapping[str, int] | None = None) -> "PickyBPE":
        return cls(config.picky)

    @classmethod
    def config_fields(cls, given: Mapping[str, Any], start_merges: int | None, name: Callable[[str], str], requested: bool) -> dict[str, Any]:
        """τ is given anew for every run (None when not given: a start table's does not carry over)."""
        return {"picky": given.get("picky")}

    @classmethod
    def save_needs(cls, config: "TrainerConfig") -> dict[str, bool]:
        """Removals, or ▁ in front of every word (the picky preset's setup), need a format that replays them."""
        return {"picky": config.picky is not None or config.word_start is not None}

    def summary(self, bench: Bench) -> list[str]:
        """Its work in one line: how many removals and restores, how many tokens are out."""
        after = [e for ev in bench.history for e in ev.after]
        removals = sum(isinstance(e, RemovalEvent) for e in after)
        restores = sum(isinstance(e, RestoreEvent) for e in after)
        out = len(bench.state.removed)
        return [f"{plural(removals, 'removal')}, {plural(restores, 'restore')}: {plural(out, 'token')} out of the vocabulary"] if self.threshold is not None else []

    @classmethod
    def about_table(cls, config: Mapping[str, Any], merges: int | None = None) -> list[tuple[str, str]]:
        """τ and the removals a PickyBPE table records (none: not PickyBPE's)."""
        tau, removals = config.get("picky"), config.get("removals")
        if not isinstance(tau, (int, float)) or isinstance(tau, bool):
            return []
        listed = removals if isinstance(removals, list) else []
        count = len(listed)
        steps = sorted({r[0] for r in listed if isinstance(r, list) and r})
        where = f", after {len(steps):,} of its merges (the first after merge {steps[0]:,})" if steps else ""
        return [("PickyBPE", f"τ {tau:g}: {count:,} token{'s' if count != 1 else ''} removed{where}; encoding replays them in order")]

    @classmethod
    def encoding_rule(cls, config: Mapping[str, Any], merges: Any, vocab: Any, source: str) -> Any:
        """The removals, replayed in order with the merges (:class:`~bpe_tui.core.tables.removals.Removals`)."""
        if not config.get("removals") or merges is None or "supermerges" in config:  # (supermerges: BoundlessBPE's events)
            return None
        from ...tables.removals import Removals

        return Removals(config["removals"], merges, vocab, source)

    def describe(self) -> str:
        return f"PickyBPE τ {self.threshold:g}" if self.threshold is not None else ""

    def plain_words(self, bench: Bench) -> dict[str, int] | None:
        """The same words: plain BPE is PickyBPE that never removes."""
        if self.threshold is None or bench.first_step:
            return None
        return self.corpus_counts(bench)[0]

    # ------------------------------------------------------------------ building

    def attach(self, bench: Bench) -> None:
        st = bench.state
        self.unknown: int | None = st.unknown
        self.end_of_word = bench.config.end_of_word
        #: token -> how often it occurs on its own in the corpus (the IoS's ``f``)
        self.freq: dict[int, int] = {}
        freq = self.freq
        for word, count in zip(st.words, st.counts):
            for ch in word:
                t = ord(ch)
                freq[t] = freq.get(t, 0) + count
        #: merged token -> the pair that first made it (what a removal splits it into); a
        #: token without one (a base symbol, a special token) is never removed
        self.parts: dict[int, tuple[int, int]] = {}
        #: merged token -> words that may hold it (a superset, as the trainer's pair index)
        self.holders: dict[int, dict[int, None]] = {}
        for a, b, new in st.inherited:  # going on from a table: its merged tokens
            self.parts.setdefault(new, (a, b))
        if self.parts:
            for w, word in enumerate(st.words):
                for ch in word:
                    if ord(ch) in self.parts:
                        self.holders.setdefault(ord(ch), {})[w] = None
        #: removed token -> the merge after which it was removed (for a restore's sentence)
        self.removed_at: dict[int, int] = {}
        self.log: list[_StepLog] = []
        rule = bench.queue.rule
        self.order: PickyOrder | None = rule if isinstance(rule, PickyOrder) else None
        self.tick = 0
        if self.order is not None:  # the reference's counter starts as the corpus's pairs in order
            stamps = self.order.stamps
            for word in st.words:
                for p in pairs_of(word):
                    if p not in stamps and self._valid(p):
                        stamps[p] = self.tick
                        self.tick += 1
            bench.queue.requeue_all()

    def _valid(self, pair: str) -> bool:
        """Whether the reference counts this pair (never one holding the unknown token)."""
        unknown = self.unknown
        return unknown is None or (ord(pair[0]) != unknown and ord(pair[1]) != unknown)

    # ------------------------------------------------------------------ after a merge

    def after_merge(self, bench: Bench, merged: Merged) -> tuple:
        step = bench.steps_done + 1  # (the merge's event is made after this)
        st = bench.state
        new = merged.new_id
        a, b = ids_of(merged.pair)
        actual = merged.saved  # how many times the merge joined its parts (before any split)
        log = _StepLog(self.tick)
        events: list = []
        surfaces = st.surfaces
        if new in st.removed:
            st.set_present(new, True)
            removed_at = self.removed_at.pop(new)
            log.restored = (new, removed_at)
            events.append(RestoreEvent(step, surfaces[new], new, (surfaces[a], surfaces[b]), removed_at, self.end_of_word))
        if new not in self.parts:
            self.parts[new] = (a, b)
            log.made = new
        self.holders.setdefault(new, {}).update(dict.fromkeys(merged.touched))
        if self.order is not None:
            self._order_after_merge(bench, merged, log)
        self._add(log, new, actual)
        if a == b:  # (x, x): each merge used two of them
            self._add(log, a, -2 * actual)
            self._consider(bench, a, actual, merged, step, log, events)
        else:
            for part in (a, b):
                self._add(log, part, -actual)
                self._consider(bench, part, actual, merged, step, log, events)
        self.log.append(log)
        return tuple(events)

    def _add(self, log: _StepLog, token: int, change: int) -> None:
        old = self.freq.get(token, 0)
        log.freqs.append((token, old))
        self.freq[token] = old + change

    def _consider(self, bench: Bench, token: int, merged_count: int, merged: Merged, step: int, log: _StepLog, events: list) -> None:
        """Remove ``token`` if its IoS after this merge is above the threshold."""
        if self.threshold is None or token not in self.parts:
            return
        freq = self.freq.get(token, 0)
        ios = merged_count / (freq + merged_count)
        if not ios > self.threshold:
            return
        st = bench.state
        st.set_present(token, False)
        split = self._walk(token, st.removed)
        log.removed.append((token, self.removed_at.get(token)))
        self.removed_at[token] = step
        for part in split:
            self._add(log, part, freq)
        words = st.words
        mark = chr(token)
        held = sorted(w for w in self.holders.get(token, ()) if mark in words[w])
        entered: list[str] = []
        if self.order is not None:
            entered = self._order_after_removal(token, split, held, words, log)
        spelled = "".join(map(chr, split))
        st.rewrite([(w, words[w].replace(mark, spelled)) for w in held], merged)
        for part in split:
            if part in self.parts:
                self.holders.setdefault(part, {}).update(dict.fromkeys(held))
        for p in entered:
            bench.queue.push(p)
        self._add(log, token, -freq)
        surfaces = st.surfaces
        events.append(RemovalEvent(
            step, surfaces[token], token, tuple(surfaces[p] for p in split), tuple(split), surfaces[merged.new_id],
            ios, self.threshold, freq, merged_count, tuple(held), st.total_tokens,
            st.vocab_size, self.end_of_word,
        ))

    def _walk(self, token: int, removed: set[int]) -> list[int]:
        """The tokens a removed ``token`` splits into: the pair that first made it, each part
        split in turn while it is removed too (the reference's ``Token.walk``)."""
        out: list[int] = []
        todo = [token]
        while todo:
            t = todo.pop()
            if t in removed and t in self.parts:
                left, right = self.parts[t]
                todo += [right, left]
            else:
                out.append(t)
        return out

    # ------------------------------------------------------------------ the reference's order

    def _enter(self, pair: str, log: _StepLog) -> bool:
        stamps = self.order.stamps  # type: ignore[union-attr]
        if pair in stamps:
            return False
        log.stamps.append((pair, None))
        stamps[pair] = self.tick
        self.tick += 1
        return True

    def _leave(self, pair: str, log: _StepLog) -> None:
        stamps = self.order.stamps  # type: ignore[union-attr]
        if pair in stamps:
            log.stamps.append((pair, stamps.pop(pair)))

    def _order_after_merge(self, bench: Bench, merged: Merged, log: _StepLog) -> None:
        """The reference's counter after a merge: the merged pair and every pair the merge
        took to zero leave it; the new token's pairs enter, words in order, each left to right."""
        changes = merged.changes
        for p, before in merged.befores.items():
            if before and before + changes[p] == 0:
                self._leave(p, log)
        mark = chr(merged.new_id)
        words = bench.state.words
        entered = []
        for w in merged.touched:
            for p in pairs_of(words[w]):
                if mark in p and self._valid(p) and self._enter(p, log):
                    entered.append(p)
        for p in entered:
            bench.queue.push(p)

    def _order_after_removal(self, token: int, split: list[int], held: list[int], words: list[str], log: _StepLog) -> list[str]:
        """The reference's counter as a removal changes it (before the words are split): the
        pairs inside the split enter (even those that occur nowhere yet, which stay at zero),
        then, for each pair holding the token (words in order, each left to right), the pair
        its split makes there enters and the pair leaves. Returns the pairs that entered."""
        entered: list[str] = []
        for x, y in zip(split, split[1:]):
            p = chr(x) + chr(y)
            if self._enter(p, log):
                entered.append(p)
        mark = chr(token)
        first, last = chr(split[0]), chr(split[-1])
        holding = dict.fromkeys(p for w in held for p in pairs_of(words[w]) if mark in p and self._valid(p))
        for p in holding:
            if p[0] == mark:
                made = last + (first if p[1] == mark else p[1])
            else:
                made = p[0] + first
            if self._enter(made, log):
                entered.append(made)
            self._leave(p, log)
        return entered

    # ------------------------------------------------------------------ undo, and the table

    def undo(self, bench: Bench, event: "MergeEvent") -> None:
        log = self.log.pop()
        if self.order is not None:
            stamps = self.order.stamps
            moved = []
            for pair, before in reversed(log.stamps):
                if before is None:
                    stamps.pop(pair, None)
                else:
                    stamps[pair] = before
                    moved.append(pair)
            self.tick = log.tick
            for pair in moved:  # (their keys got smaller: queue them where they belong again)
                bench.queue.push(pair)
        for token, before in reversed(log.freqs):
            self.freq[token] = before
        st = bench.state
        for token, removed_before in reversed(log.removed):
            st.set_present(token, True)
            if removed_before is None:
                del self.removed_at[token]
            else:
                self.removed_at[token] = removed_before
        if log.restored is not None:
            token, removed_at = log.restored
            st.set_present(token, False)
            self.removed_at[token] = removed_at
        if log.made is not None:
            del self.parts[log.made]

    def table_config(self, bench: Bench) -> dict[str, Any]:
        """The removals, for encoding as the reference's tokenizer does: merges and removals
        applied in the order they happened (``removals``: ``[merge number, token id, [the ids
        it split into]]``, each after the merge it follows), and a word that is a token
        itself taken whole (``ignore_merges``)."""
        return {"ignore_merges": True, "removals": removal_list(bench.history)}


def removal_list(history: Iterable[Any]) -> list[list]:
    """``[merge number, token id, [part ids]]`` for every removal after the merges in
    ``history`` (MergeEvents), in order."""
    return [[e.step, e.token_id, list(e.part_ids)] for ev in history for e in ev.after if isinstance(e, RemovalEvent)]
