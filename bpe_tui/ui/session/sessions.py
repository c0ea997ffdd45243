"""The explorer's two kinds of session: a trainer (:class:`ExploreSession`) or a saved table
(:class:`InspectSession`), each shown by its own screen (:mod:`bpe_tui.ui.screens`).

Both answer the questions every pane asks (:class:`Session`: the table to encode with, the
history rows, the merge counts); what only one of them has -- a trainer to move, a table to
cut -- lives on its own class, so no pane asks "which kind is this?". The panes never reach
into trainer internals; they render :class:`Snapshot` objects and ask the session narrow
questions. While a worker thread is moving the trainer (``busy``), the UI
thread must not touch the trainer: it renders the snapshots the worker posts, and
:meth:`Session.table` returns the last table built while idle.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from ...core.engine.events import TransitionEvent
from ...core.engine.trainer import MergeEvent, Trainer
from ...core.engine.variants.parity import ParityAware
from ...core.tables.table import MergeTable, merge_number
from ...core.text.datasets.records import RecordOptions
from ...core.text.parts import preview_text
from ..keys import key_for

#: Pairs shown in the pair table.
TOP_PAIRS = 50
#: Words whose segmentation a snapshot carries (what the corpus pane shows while busy).
SNAPSHOT_WORDS = 300
#: Characters of the corpus kept for the running-text view.
PREVIEW_CHARS = 4000


@dataclass
class Snapshot:
    """What the panes need after a training move, computed where the trainer is safe to read."""

    step: int = 0
    target: int | None = None
    vocab_size: int = 0
    total_tokens: int = 0
    initial_tokens: int = 0
    corpus_chars: int = 0
    finished: bool = False
    stop_reason: str | None = None
    top_pairs: list = field(default_factory=list)
    leader_ties: int = 0
    last_event: MergeEvent | None = None
    timeline_len: int = 0
    segmentations: dict = field(default_factory=dict)
    #: The same words' frequencies and texts (what the corpus pane shows while busy: the
    #: trainer may switch from words to chunks meanwhile, SuperBPE).
    frequencies: dict = field(default_factory=dict)
    texts: dict = field(default_factory=dict)
    #: SuperBPE: whether the corpus is chunks now, and the transition made (None: not yet).
    superwords: bool = False
    transition: TransitionEvent | None = None
    forbidden: int = 0  # present pairs the constraints forbid (not in top_pairs)
    #: The pair chosen by hand that the next step replays (undone, then not yet redone) and
    #: its count now; None: the next step goes by the rules (the first of ``top_pairs``).
    planned: tuple | None = None
    planned_count: int = 0
    #: The pair the rules merge next when the variant chooses otherwise than the whole
    #: corpus's leader (parity-aware BPE: the turn's language's pair), and its count now.
    next_pair: tuple | None = None
    next_count: int = 0
    #: Parity-aware BPE: every language's measure over the merges, whose turn it is next.
    parity: ParityView | None = None


@dataclass(frozen=True)
class ParityView:
    """What the panes show of parity-aware BPE (see core/engine/variants/parity.py)."""

    languages: tuple[str, ...]
    #: Every language's measure before the first merge and after each merge since (its
    #: development text's tokens; in the ratio form, its compression over its target).
    history: list[tuple]
    ratio_form: bool
    #: The language whose turn is next (None in the hybrid's global merges, or when none may).
    next_language: str | None

    @property
    def measure(self) -> str:
        """What the measure is, in a few words (a chart's title, which plotext leaves out
        when it is wider than the chart: the Stats tab at 80x24)."""
        return "compression/target" if self.ratio_form else "dev tokens"


@dataclass
class HistoryRow:
    step: int  # the merge number (1-based: table.merge_number of the rank)
    left: object
    right: object
    new: object
    new_id: int
    count: int | None
    future: bool  # undone, but still re-appliable (shown dimmed)
    ties: int = 0  # how many other pairs had the same count when it merged (0: no tie decided it)
    manual: bool = False  # chosen by hand, not the leader
    event: MergeEvent | None = None  # explore mode: the merge as it happened
    language: str | None = None  # parity-aware BPE: the language that chose it


@dataclass
class MergeListBuild:
    """Where the building of a rank file's merge list stands.

    A tiktoken rank file (o200k, cl100k, Llama 3) stores no merges: the table encodes by
    token rank without them, so the inspect screen shows the table at once and builds the
    list behind it, in a worker (seconds for o200k). Meanwhile the panes that need the merges
    (history, merge trees, traces, the pair table's merge numbers) say so with :meth:`note`.
    """

    done: int = 0
    total: int = 0
    #: Escape stopped the build: nothing was kept, and the key builds it again.
    stopped: bool = False

    @property
    def percent(self) -> int:
        """How far the build has come; 99 at most (after the replay the list is still checked,
        indexed and cached: it is done when it is there)."""
        return min(99, 100 * self.done // self.total) if self.total else 0

    def note(self) -> str:
        """What a pane that needs the merge list says instead, for now."""
        if self.stopped:
            return f"the merge list was not built (cancelled): press {key_for('build_merges')} to build it"
        return f"building the merge list… {self.percent}%"

    def short(self) -> str:
        """The same for the status line, in a few words."""
        if self.stopped:
            return f"merges not built ({key_for('build_merges')} builds them)"
        return f"merges: building… {self.percent}%"


def read_preview(paths: list[str] | None, counts: bool = False, records: RecordOptions | None = None) -> str | None:
    """The start of the first readable corpus file (decompressed; a dataset's first documents,
    one a line), for the running-text view."""
    if counts or not paths:
        return None
    return preview_text(paths, PREVIEW_CHARS, records)


class Session:
    """What both kinds of session answer: a name, the table to encode with, the history rows.

    ``busy`` is True while a worker moves a trainer (never for a table).
    """

    def __init__(self) -> None:
        self.busy = False

    @property
    def name(self) -> str:
        raise NotImplementedError

    @property
    def end_of_word(self) -> str | None:
        raise NotImplementedError

    @property
    def step(self) -> int:
        """The merges in effect: the trainer's steps, or where the table is cut."""
        raise NotImplementedError

    @property
    def unsaved(self) -> int:
        """How many merges would be lost if this session were closed now (0: nothing to lose)."""
        return 0

    def table(self) -> MergeTable | None:
        """The table to encode with (None only while a first training run builds it)."""
        raise NotImplementedError

    def lookup_table(self) -> MergeTable | None:
        """The table for token details."""
        return self.table()

    def history_row(self, index: int) -> HistoryRow | None:
        """Row ``index`` (0-based) of the history pane; None if out of range."""
        raise NotImplementedError

    def merge_counts(self) -> list[int]:
        """The count of each merge in effect (as far as known)."""
        raise NotImplementedError

    def merges_note(self) -> str | None:
        """None when the merge list is there (a trainer's always is); else what a pane that
        needs it shows instead (see :class:`MergeListBuild`)."""
        return None


class ExploreSession(Session):
    """A trainer on a corpus, plus the explorer's bookkeeping around it (explore)."""

    def __init__(
        self,
        trainer: Trainer,
        preview: str | None = None,
        paths: list[str] | None = None,
        errors: str = "strict",
        counts: bool = False,
        start: MergeTable | None = None,
        workers: int | None = None,
        dask: str | None = None,
        records: RecordOptions | None = None,
        read_note: str | None = None,
    ) -> None:
        super().__init__()
        self.trainer = trainer
        self.preview = preview
        #: The corpus files the trainer's words were counted from (None: given otherwise), how
        #: their bad bytes were handled and whether they were word counts: switching lowercase
        #: or the pre-tokenizer counts them again.
        self.paths = paths
        self.errors = errors
        self.counts = counts
        #: Where they were counted: worker processes (None: by size) or a Dask scheduler; a
        #: recount under new rules counts the same way.
        self.workers = workers
        self.dask = dask
        #: How a dataset's records gave documents (the text field; bad records skipped?), and
        #: what the reading skipped (shown when the corpus opens), None if nothing.
        self.records = records or RecordOptions()
        self.read_note = read_note
        #: The table the trainer went on from (``bpe-tui CORPUS --from TABLE``), or None.
        self.start = start
        self.lock = threading.RLock()
        #: Every merge seen, up to the furthest step reached: undone merges stay listed
        #: (dimmed) so the history can re-apply them.
        self.timeline: list[MergeEvent] = []
        self._table: MergeTable | None = None
        self._table_step = -1
        self._order: list[int] | None = None
        self._order_stage = False  # whether _order lists SuperBPE's chunks
        #: The step last saved: merges are the same at the same step, so a save at step k
        #: covers the trainer whenever it stands at k again. A start table's merges are
        #: saved already.
        self.saved_step = self.first_step

    @property
    def languages(self) -> tuple[str, ...]:
        """Parity-aware BPE's languages, in the order given (empty for any other trainer)."""
        variant = self.trainer.variant
        return variant.languages if isinstance(variant, ParityAware) else ()

    @property
    def first_step(self) -> int:
        """The merges a start table brought (``--from``; 0 normally): the timeline, undo and
        go to never go below them, and new merges number on from them."""
        return self.trainer.first_step

    @property
    def name(self) -> str:
        return self.trainer.name

    @property
    def end_of_word(self) -> str | None:
        return self.trainer.config.end_of_word

    @property
    def unsaved(self) -> int:
        if self.trainer.steps_done == self.saved_step:
            return 0
        return self.trainer.steps_done - self.first_step

    @property
    def step(self) -> int:
        return self.trainer.steps_done

    def table(self) -> MergeTable | None:
        """The trainer's merges so far.

        While busy this is the last table built while idle (possibly a few steps old).
        """
        if self.busy:
            return self._table
        if self._table_step != self.trainer.steps_done or self._table is None:
            # the last table's indices are reused where its merges still lead (one step on)
            self._table = MergeTable.from_trainer(self.trainer, like=self._table)
            self._table_step = self.trainer.steps_done
        return self._table

    def history_row(self, index: int) -> HistoryRow | None:
        try:
            ev = self.timeline[index]
        except IndexError:
            return None
        return HistoryRow(
            ev.step, ev.pair[0], ev.pair[1], ev.new_token, ev.new_id, ev.count, ev.step > self.trainer.steps_done,
            ties=ev.tie_count, manual=ev.manual, event=ev, language=getattr(ev.reason, "language", None),
        )

    def merge_counts(self) -> list[int]:
        """The counts of the merges applied (while busy: of every merge seen so far)."""
        k = self.trainer.steps_done - self.first_step if not self.busy else len(self.timeline)
        return [ev.count for ev in self.timeline[:k]]

    def token_totals(self, step: int) -> list[int]:
        """Corpus tokens at step 0, 1, ... ``step``."""
        return [self.trainer.initial_total_tokens] + [ev.total_tokens for ev in self.timeline[: step - self.first_step]]

    def word_order(self) -> list[int]:
        """All word indices, most frequent first (computed once per corpus: counts never
        change, but past SuperBPE's transition the corpus is chunks, not words)."""
        stage = self.trainer.in_superword_stage
        if self._order is None or self._order_stage != stage:
            self._order = self.trainer.words_by_frequency()
            self._order_stage = stage
        return self._order

    # ------------------------------------------------------------------ moving (any thread)

    def _record(self, events: list[MergeEvent]) -> None:
        tl = self.timeline
        for ev in events:
            i = ev.step - 1 - self.first_step  # the timeline holds the merges after a start table's
            if i < len(tl) and tl[i].pair == ev.pair:
                tl[i] = ev
            else:
                del tl[i:]
                tl.append(ev)

    def advance(
        self,
        max_steps: int,
        respect_target: bool = True,
        deadline: float | None = None,
        stop: Callable[[], bool] | None = None,
    ) -> int:
        """Apply up to ``max_steps`` merges (until ``deadline`` / ``stop()``); return how many.

        ``respect_target=False`` goes past the configured target (as ``goto`` does).
        """
        tr = self.trainer
        start = tr.steps_done - tr.first_step  # an index into tr.history (not the start table's merges)
        done = 0
        with self.lock:
            while done < max_steps:
                if respect_target:
                    if tr.step() is None:
                        break
                else:
                    before = tr.steps_done
                    tr.goto(before + 1)
                    if tr.steps_done == before:
                        break
                done += 1
                if (stop is not None and stop()) or (deadline is not None and time.monotonic() >= deadline):
                    break
            if done:
                self._record(tr.history[start:])
        return done

    def word_counts(self) -> dict[str, int]:
        """The trainer's words and their counts, in order of first appearance (to train anew
        on the same words under other rules)."""
        tr = self.trainer
        return {tr.word_text(w): tr.word_frequency(w) for w in range(tr.word_count)}

    def merged_pairs(self) -> list[tuple]:
        """The pairs merged so far (surfaces), in order (after a start table's merges)."""
        return [ev.pair for ev in self.timeline[: self.trainer.steps_done - self.first_step]]

    def merge_by_hand(self, pair: tuple) -> MergeEvent | None:
        """Merge ``pair`` (surfaces) now instead of the leader; the merges that followed this
        step before are replaced. BPEError (one line) when the pair cannot be merged now."""
        tr = self.trainer
        start = tr.steps_done - tr.first_step
        with self.lock:
            event = tr.step(pair=pair)
            if event is not None:
                self._record(tr.history[start:])
        return event

    def retreat(self, n: int, deadline: float | None = None, stop: Callable[[], bool] | None = None) -> int:
        """Undo up to ``n`` merges; return how many were undone."""
        done = 0
        with self.lock:
            while done < n and self.trainer.steps_done > self.first_step:
                self.trainer.undo()
                done += 1
                if (stop is not None and stop()) or (deadline is not None and time.monotonic() >= deadline):
                    break
        return done

    def pair_counts_then(self, then: int, now: Mapping[tuple, int]) -> dict[tuple, int] | None:
        """The counts the pairs of ``now`` (pair -> count at the trainer's step) had at step
        ``then`` (0: the pair did not occur), from the merges between the two steps: each
        event says which pair counts it changed, from what to what. None when that cannot be
        known: SuperBPE's transition lies between (it cuts the corpus anew), or the merges
        between are no longer in the timeline. Call while the trainer is idle."""
        step, first, timeline = self.trainer.steps_done, self.first_step, self.timeline
        lo, hi = min(then, step), max(then, step)
        k = self.trainer.config.superwords_after
        if lo < first or hi - first > len(timeline) or (k is not None and lo < k <= hi):
            return None
        events = timeline[lo - first : hi - first]
        counts = dict(now)
        wanted = set(counts)
        if then < step:
            # A pair of a token made since (a merge that grew the vocabulary made it) did not
            # occur then: no need to look for it.
            made = set()
            size = timeline[lo - first - 1].vocab_size if lo > first else None
            for ev in events:
                if (ev.vocab_size > size) if size is not None else ev.new_id == ev.vocab_size - 1:
                    made.add(ev.new_token)
                size = ev.vocab_size
            for pair in [p for p in wanted if p[0] in made or p[1] in made]:
                counts[pair] = 0
                wanted.discard(pair)
        # Forward to now: a pair's count before the first merge that changed it. After an
        # undo: its count after the last merge undone that changed it. Else as it is now.
        side, ordered = (0, events) if then < step else (1, events[::-1])
        for ev in ordered:
            if not wanted:
                break
            changes = ev.pair_changes
            for pair in changes.keys() & wanted:
                counts[pair] = changes[pair][side]
                wanted.discard(pair)
        return counts

    def snapshot(self, words: list[int] | None = None) -> Snapshot:
        """The panes' view of the state (call where the trainer may be read)."""
        tr = self.trainer
        with self.lock:
            top = tr.top_pairs(TOP_PAIRS)
            ties = 0
            if top:
                ties = max(0, tr.pairs_with_count(top[0][1]) - 1)
            finished = tr.finished  # also sets tr.stop_reason
            forbidden = tr.forbidden_pair_count()
            k = tr.steps_done
            order = words if words is not None else self.word_order()[:SNAPSHOT_WORDS]
            segs = {w: tr.segmentation(w) for w in order}
            freqs = {w: tr.word_frequency(w) for w in order}
            texts = {w: tr.word_text(w) for w in order}
            planned = tr.planned_pair() if not finished else None
            variant = tr.variant
            parity = None
            next_pair = None
            if isinstance(variant, ParityAware):
                parity = ParityView(variant.languages, variant.score_history(), variant.ratio_form, variant.next_language())
                next_pair = variant.next_pair(tr) if not finished and planned is None else None
            return Snapshot(
                step=k,
                target=tr.target_steps,
                vocab_size=tr.vocab_size,
                total_tokens=tr.total_tokens,
                initial_tokens=tr.initial_total_tokens,
                corpus_chars=tr.corpus_chars,
                finished=finished,
                stop_reason=tr.stop_reason,
                top_pairs=top,
                leader_ties=ties,
                forbidden=forbidden,
                last_event=self.timeline[k - 1 - self.first_step] if 0 < k - self.first_step <= len(self.timeline) else None,
                timeline_len=len(self.timeline),
                segmentations=segs,
                frequencies=freqs,
                texts=texts,
                superwords=tr.in_superword_stage,
                transition=tr.transition,
                planned=planned,
                planned_count=tr.pair_count(planned) if planned is not None else 0,
                next_pair=next_pair,
                next_count=tr.pair_count(next_pair) if next_pair is not None else 0,
                parity=parity,
            )


class InspectSession(Session):
    """A saved merge table, to browse, search and encode with, whole or cut (inspect)."""

    def __init__(self, table: MergeTable, source: str | None = None) -> None:
        super().__init__()
        self.full_table = table
        self.source = source
        #: Encode with the first ``cut`` merges only (None: the whole table).
        self.cut: int | None = None
        self._cut_tables: dict[int, MergeTable] = {}
        self._rank_index: dict | None = None
        #: How far the building of the merge list has come (a rank file's; see merges_note).
        self.build = MergeListBuild()

    @property
    def name(self) -> str:
        return os.path.basename(os.path.normpath(self.source or self.full_table.source or "table"))

    @property
    def end_of_word(self) -> str | None:
        return self.full_table.end_of_word

    @property
    def step(self) -> int:
        return self.full_table.num_merges if self.cut is None else self.cut

    def table(self) -> MergeTable:
        """The saved table, cut after ``cut`` merges if a cut is set."""
        if self.cut is None or self.cut >= self.full_table.num_merges:
            return self.full_table
        if self.cut not in self._cut_tables:
            if len(self._cut_tables) > 8:
                self._cut_tables.clear()
            self._cut_tables[self.cut] = self.full_table.truncated(self.cut)
        return self._cut_tables[self.cut]

    def lookup_table(self) -> MergeTable:
        """The whole saved table (a token past the cut still has its details)."""
        return self.full_table

    def merges_note(self) -> str | None:
        if self.full_table.merges_built:
            return None
        return self.build.note()

    def rank_index(self) -> dict:
        """``(left_id, right_id) -> rank`` of the saved table (made whole, then kept: the
        merges worker makes it, and the UI thread may ask at the same time)."""
        if self._rank_index is None:
            index: dict = {}
            for rank, (a, b, _) in enumerate(self.full_table.merge_ids):
                index.setdefault((a, b), rank)
            self._rank_index = index
        return self._rank_index

    def history_row(self, index: int) -> HistoryRow | None:
        table = self.full_table
        if not table.merges_built or not 0 <= index < table.num_merges:
            return None
        a, b, new = table.merge_at(index)
        counts = table.counts
        count = counts[index] if counts is not None and index < len(counts) else None
        future = self.cut is not None and index >= self.cut
        manual = index in table.manual_ranks
        return HistoryRow(merge_number(index), table.surface(a), table.surface(b), table.surface(new), new, count, future, manual=manual)

    def merge_counts(self) -> list[int]:
        """The counts the table stored (every merge's, whatever the cut; often none)."""
        return list(self.full_table.counts or [])
