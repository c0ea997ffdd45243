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
from dataclasses import dataclass

from ...core.engine.registry import MergedElsewhere
from ...core.engine.trainer import MergeEvent, Trainer
from ...core.tables.table import MergeTable, merge_number
from ...core.text.datasets.records import RecordOptions
from ...core.text.parts import preview_text
from ...core.wording import one_line
from ..keys import key_for
from .rows import HistoryRow, TableRemoval, row_place, row_starts
from .snapshot import Snapshot

#: Pairs shown in the pair table.
TOP_PAIRS = 50
#: Words whose segmentation a snapshot carries (what the corpus pane shows while busy).
SNAPSHOT_WORDS = 300
#: Characters of the corpus kept for the running-text view.
PREVIEW_CHARS = 4000


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
    def shown_name(self) -> str:
        """The name as the screen shows it: a file name's control characters escaped (a
        corpus named with ESC[2J must not clear the terminal), on one line."""
        return one_line(self.name)

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

    def row_count(self, merges: int) -> int:
        """How many rows the history has for its first ``merges`` merges (one each, unless a
        variant's events after a merge have rows of their own)."""
        return merges

    def row_of(self, merge: int) -> int:
        """The row of the ``merge``-th merge of the history (0-based)."""
        return merge

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
        #: With a variant's events after merges (a removal, say) each has a row under its
        #: merge's: the row of each timeline merge, made when first asked after a change
        #: (None: one row per merge, nothing to look up).
        self._rows: list[int] | None = None
        self._rows_of: list[MergeEvent] = []  # the timeline _rows was made for
        self._table: MergeTable | None = None
        self._table_step = -1
        self._order: list[int] | None = None
        self._order_stage = False  # whether _order lists a variant's new cut of the corpus (chunks)
        #: The step last saved: merges are the same at the same step, so a save at step k
        #: covers the trainer whenever it stands at k again. A start table's merges are
        #: saved already.
        self.saved_step = self.first_step

    @property
    def languages(self) -> tuple[str, ...]:
        """The languages the variant trains on and measures first, in the order given
        (empty for a trainer of one corpus: its ``measure_languages``)."""
        return self.trainer.variant.measure_languages()

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
        sub = -1
        if self.trainer.variant.acts_after_merge:
            place = row_place(self._row_index(), index)
            if place is None:
                return None
            index, sub = place
        try:
            ev = self.timeline[index]
        except IndexError:
            return None
        future = ev.step > self.trainer.steps_done
        if sub >= 0:
            if sub >= len(ev.after):
                return None
            after = ev.after[sub]
            token_id = getattr(after, "token_id", ev.new_id)
            return HistoryRow(ev.step, getattr(after, "token", None), None, getattr(after, "parts", None), token_id,
                              getattr(after, "freq", None), future, event=ev, after=after)
        return HistoryRow(
            ev.step, ev.pair[0], ev.pair[1], ev.new_token, ev.new_id, ev.count, future,
            ties=ev.tie_count, manual=ev.manual, event=ev, dropped=ev.step in self.trainer.dropped_merges,
            language=getattr(ev.reason, "language", None), joined=isinstance(ev.reason, MergedElsewhere),
        )

    def _row_index(self) -> list[int]:
        """The row of each merge of the timeline (built again when the timeline changed)."""
        timeline = self.timeline
        rows = self._rows
        if rows is None or len(self._rows_of) != len(timeline) or (timeline and self._rows_of[-1] is not timeline[-1]):
            rows = row_starts([len(ev.after) for ev in timeline])
            self._rows, self._rows_of = rows, list(timeline)
        return rows

    def row_count(self, merges: int) -> int:
        if not self.trainer.variant.acts_after_merge:
            return merges
        rows = self._row_index()
        return rows[min(merges, len(rows) - 1)]

    def row_of(self, merge: int) -> int:
        if not self.trainer.variant.acts_after_merge or merge < 0:
            return merge
        rows = self._row_index()
        return rows[min(merge, len(rows) - 1)]

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
        stage = self.trainer.transition is not None
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
            try:
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
            finally:  # (a variant that fails mid-way: the merges made before it are recorded all the same)
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
        recut = self.trainer.transition
        k = recut.step if recut is not None else self.trainer.variant.recut_step()
        if lo < first or hi - first > len(timeline) or (k is not None and lo < k <= hi):
            return None
        events = timeline[lo - first : hi - first]
        counts = dict(now)
        wanted = set(counts)
        if then < step and not any(ev.after for ev in events):  # (a restore makes an old token again)
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
            next_pair = variant.next_pick(tr) if not finished and planned is None else None
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
                forbidden_by=tr.forbidden_by() if forbidden else {},
                last_event=self.timeline[k - 1 - self.first_step] if 0 < k - self.first_step <= len(self.timeline) else None,
                timeline_len=len(self.timeline),
                segmentations=segs,
                frequencies=freqs,
                texts=texts,
                recut=tr.transition is not None,
                transition=tr.transition,
                planned=planned,
                planned_count=tr.pair_count(planned) if planned is not None else 0,
                next_pair=next_pair,
                next_count=tr.pair_count(next_pair) if next_pair is not None else 0,
                turn=variant.turn() if next_pair is not None else None,
                series=variant.series(),
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
        #: A table with removals (PickyBPE's): each has a row under its merge's.
        self._after: dict[int, list[TableRemoval]] = {}
        for k, token, parts in table.removals:
            self._after.setdefault(k - 1, []).append(TableRemoval(k, table.surface(token), token, tuple(table.surface(p) for p in parts)))
        self._rows = row_starts([len(self._after.get(r, ())) for r in range(table.num_merges)]) if self._after else None

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

    def row_count(self, merges: int) -> int:
        return self._rows[min(merges, len(self._rows) - 1)] if self._rows is not None else merges

    def row_of(self, merge: int) -> int:
        return self._rows[min(merge, len(self._rows) - 1)] if self._rows is not None and merge >= 0 else merge

    def history_row(self, index: int) -> HistoryRow | None:
        table = self.full_table
        if self._rows is not None:
            place = row_place(self._rows, index)
            if place is None:
                return None
            index, sub = place
            if sub >= 0:
                removal = self._after[index][sub]
                return HistoryRow(removal.step, removal.token, None, removal.parts, removal.token_id, None,
                                  self.cut is not None and index >= self.cut, after=removal)
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
