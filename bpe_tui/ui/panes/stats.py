"""Stats: charts of how BPE learns, and "watch a word".

Explore mode: characters per token and the vocabulary size over merges (the compression a
merge buys, the size it costs), the count of each merge, and how many pairs occur k times
(log-log: the long tail late merges choose among). First, under a variant that follows a
measure of its own (its ``series``: each language's development text in tokens, say), that
measure over merges, one curve per label, and whose turn is next. Inspect mode: the merge counts when the
table stored them, how long its tokens are, in bytes and in characters, and, once a corpus
file is named in the box below them, the Zipf plot of token use on it (rank vs count, log-log,
the unused tail marked), encoded in a thread worker with a progress bar (escape cancels).

"Watch a word" answers: at which merge does this word become a single token? It replays the
word through the table as it stands (MergeTable.trace), so it also works in inspect mode; the
chart below the lines puts each word on the merge axis (seed 001's picture).

The charts are textual-plotext plots (:class:`~bpe_tui.ui.widgets.plot.Chart`) fed by
:mod:`bpe_tui.charts`. While a run goes on, they are drawn again at most every
:data:`REDRAW_EVERY` seconds from what the session already holds (the merge events), so the
run is not slowed; the pair count distribution (a question to the trainer) waits for the run
to stop.
"""

from __future__ import annotations

import os
import time
from functools import partial

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.timer import Timer
from textual.widgets import Input, Static

from ...charts import evaluation, training, vocabulary
from ...core.analysis.audit import Cancelled
from ...core.errors import BPEError
from ...core.tables.table import MergeTable, merge_number
from ...core.look import one_cell_each
from ...core.wording import plural
from ..session.sessions import ExploreSession, InspectSession, Session
from ...core.engine.registry import Series
from ..widgets.plot import Chart
from ..widgets.render import (
    CHIP_CLASSES,
    ChipStyles,
    chips,
    label,
    redraw_on_theme_change,
)
from ..widgets.workbar import WorkBar

#: Seconds between two redraws of the charts while a run goes on.
REDRAW_EVERY = 0.2
#: The worker group of the Zipf plot's encoding (escape cancels it: SessionScreen.cancel_work).
USAGE_GROUP = "usage"


class StatsPane(VerticalScroll):
    #: "Watch a word" takes its colours from the theme.
    COMPONENT_CLASSES = CHIP_CLASSES

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.session: Session | None = None
        self.watch_lines: list[str] = []
        #: What the charts show (for tests): merge counts, corpus tokens after each step.
        self.counts: list[int] = []
        self.totals: list[int] = []
        #: The watched words and the merge at which each became one token (None: not yet).
        self.watched: list[tuple[str, int | None]] = []
        #: The Zipf plot's corpus: its name, the table it was encoded with, id -> uses.
        self.usage: tuple[str, MergeTable, dict[int, int]] | None = None
        self._step = 0
        self._drawn = 0.0
        self._timer: Timer | None = None
        #: The measure the variant follows over the merges, as the latest snapshot said (None: none).
        self.series: Series | None = None

    def compose(self) -> ComposeResult:
        yield Chart(id="variant-plot")
        yield Static("", id="variant-legend", markup=False)
        yield Chart(id="compression-plot")
        yield Chart(id="counts-plot")
        yield Chart(id="pairs-plot")
        yield Chart(id="lengths-plot")
        yield Input(placeholder="Zipf plot: a corpus file to encode (enter)", id="zipf-input", compact=True)
        yield WorkBar(id="zipf-work", classes="-hidden")
        yield Chart(id="zipf-plot")
        yield Input(placeholder="watch words: low lower newest", id="watch-input", compact=True)
        yield Static("", id="watch-body", markup=False)
        yield Chart(id="watch-plot")

    def on_mount(self) -> None:
        redraw_on_theme_change(self, self._watch)

    # ------------------------------------------------------------------ explore

    def show(self, session: ExploreSession, step: int, idle: bool = True, series: Series | None = None) -> None:
        """A trainer at ``step``. ``idle`` False: a run's batch (the trainer is busy): the
        charts follow at most every REDRAW_EVERY seconds, without asking the trainer.
        ``series``: the measure the variant follows (its languages' tokens, say; None: none)."""
        self.session = session
        self._step = step
        self.series = series
        self._mode(explore=True)
        if idle:
            self._cancel_timer()
            self._draw_training(session, step, idle=True)
            return
        wait = REDRAW_EVERY - (time.monotonic() - self._drawn)
        if wait <= 0:
            self._draw_training(session, step, idle=False)
        elif self._timer is None:
            self._timer = self.set_timer(wait, self._deferred)

    def _deferred(self) -> None:
        self._timer = None
        if isinstance(self.session, ExploreSession):
            self._draw_training(self.session, self._step, idle=False)

    def _cancel_timer(self) -> None:
        if self._timer is not None:
            self._timer.stop()
            self._timer = None

    def _draw_training(self, session: ExploreSession, step: int, idle: bool) -> None:
        self._drawn = time.monotonic()
        trainer = session.trainer
        first = session.first_step
        timeline = list(session.timeline)  # every merge seen, undone ones too (a copy: a run appends)
        totals = [trainer.initial_total_tokens] + [ev.total_tokens for ev in timeline]
        self.totals = totals[: step - first + 1]
        self.counts = [ev.count for ev in timeline[: step - first]]
        start_vocab = timeline[0].vocab_size - 1 if timeline else trainer.vocab_size
        vocab = [start_vocab] + [ev.vocab_size for ev in timeline]
        chars = trainer.corpus_chars
        per_token = [chars / t if t else 0.0 for t in totals]
        merges = list(range(first, first + len(totals)))
        self.query_one("#compression-plot", Chart).draw(
            partial(training.compression, merges=merges, per_token=per_token, vocab=vocab, step=step)
        )
        transition = trainer.transition  # a variant's new cut: where the curve's corpus changed
        recut_from = transition.step + 1 if transition is not None and step > transition.step else None
        self.query_one("#counts-plot", Chart).draw(
            partial(
                training.merge_counts, counts=[ev.count for ev in timeline], step=step if timeline else None,
                why="no merges yet", recut_from=recut_from,
            )
        )
        if idle:  # a question to the trainer: only while it is idle
            self.query_one("#pairs-plot", Chart).draw(partial(training.pair_counts, histogram=trainer.pair_count_histogram()))
        self._draw_series(first, step)
        self._watch()

    def _draw_series(self, first: int, step: int) -> None:
        """The measure the variant follows over the merges, one line per label (each
        language's, say), or nothing."""
        chart, legend = self.query_one("#variant-plot", Chart), self.query_one("#variant-legend", Static)
        followed = self.series
        chart.display = legend.display = followed is not None
        if followed is None:
            return
        history = followed.history
        steps = list(range(first, first + len(history)))
        lines = [[row[i] for row in history] for i in range(len(followed.labels))]
        turn = f" · {followed.turn}'s turn" if followed.turn else ""
        chart.draw(partial(
            evaluation.metric_curves, steps=steps, labels=list(followed.labels), series=lines,
            title=f"{followed.title}{turn}", legend=False, mark=step, whole=followed.whole,
        ))
        legend.update(chart.legend(list(followed.labels)))

    # ------------------------------------------------------------------ inspect

    def show_table(self, session: InspectSession) -> None:
        """A saved table: the merge counts it stored (if any) and how long its tokens are."""
        self.session = session
        self._mode(explore=False)
        self.counts = session.merge_counts()
        counts = self.query_one("#counts-plot", Chart)
        counts.display = bool(self.counts)  # most files do not store them: no empty frame
        counts.draw(partial(training.merge_counts, counts=self.counts, step=session.cut, why="not stored in this table"))
        table = session.full_table
        tokens = [table.surface(i) for i in table.vocab if not table.is_special(i)]
        series = [("bytes", [len(t.encode("utf-8")) if isinstance(t, str) else len(t) for t in tokens])]
        series.append(("characters", [len(t) if isinstance(t, str) else len(t.decode("utf-8", "replace")) for t in tokens]))
        self.query_one("#lengths-plot", Chart).draw(partial(vocabulary.token_lengths, series=series, title="token lengths"))
        self._watch()

    def _mode(self, explore: bool) -> None:
        if explore:
            self.query_one("#counts-plot", Chart).display = True
        for name in ("compression", "pairs"):
            self.query_one(f"#{name}-plot", Chart).display = explore
        if not explore:
            self.query_one("#variant-plot", Chart).display = self.query_one("#variant-legend", Static).display = False
        for name in ("#lengths-plot", "#zipf-input"):
            self.query_one(name).display = not explore
        self.query_one("#zipf-plot", Chart).display = not explore and self.usage is not None

    # ------------------------------------------------------------------ inspect: Zipf on a corpus

    @on(Input.Submitted, "#zipf-input")
    def _zipf_wanted(self, event: Input.Submitted) -> None:
        event.stop()
        path = os.path.expanduser(event.value.strip())
        if not path or not isinstance(self.session, InspectSession):
            return
        table = self.session.table()
        self.query_one("#zipf-work", WorkBar).show(f"encoding {os.path.basename(path)}…")
        self._zipf_worker(table, path)

    @work(thread=True, exclusive=True, group=USAGE_GROUP)
    def _zipf_worker(self, table: MergeTable, path: str) -> None:
        from textual.worker import get_current_worker

        from ...core.analysis.evaluate import evaluate, parse_corpus

        worker = get_current_worker()
        post = self.app.call_from_thread
        name = os.path.basename(os.path.normpath(path))
        try:
            corpus = parse_corpus(path)
            result = evaluate(
                [table], [corpus], ["table"], workers=1, should_stop=lambda: worker.is_cancelled,
                progress=lambda done, total: post(self.query_one("#zipf-work", WorkBar).show, f"encoding {name}…", total, done),
            )
        except Cancelled:
            post(self._zipf_ended, "Zipf plot: encoding cancelled", None)
            return
        except (BPEError, OSError) as exc:
            post(self._zipf_ended, str(exc), None)
            return
        post(self._zipf_ended, None, (name, table, dict(result.get(0, 0).counts)))

    def _zipf_ended(self, problem: str | None, usage: tuple[str, MergeTable, dict[int, int]] | None) -> None:
        self.query_one("#zipf-work", WorkBar).hide()
        if problem is not None:
            self.notify(problem, title="Zipf plot", severity="error" if "cancelled" not in problem else "information", timeout=10)
            return
        assert usage is not None
        self.usage = usage
        name, table, counts = usage
        chart = self.query_one("#zipf-plot", Chart)
        chart.display = True
        chart.draw(partial(vocabulary.zipf, counts=list(counts.values()), vocab_size=len(table), corpus=name))

    # ------------------------------------------------------------------ watch a word

    def _watch(self) -> None:
        body = self.query_one("#watch-body", Static)
        chart = self.query_one("#watch-plot", Chart)
        session = self.session
        table = session.table() if session is not None else None
        words = self.query_one("#watch-input", Input).value.replace(",", " ").split()
        if table is None or session is None or not words:
            self.watch_lines = []
            self.watched = []
            body.update(Text("name words above to see when each becomes one token", style="dim", end=""))
            chart.draw(partial(training.word_timeline, words=[], step=0))
            return
        out = Text(end="")
        lines = []
        watched: list[tuple[str, int | None]] = []
        # The trace needs the merge list, and so does a rank file's step (its number of merges):
        # while the list is being built, neither is asked for (asking would build it here, on
        # the UI thread).
        pending = session.merges_note()
        step = session.step if pending is None else 0
        look = ChipStyles.of(self)
        for word in words:
            forms = [word]
            if table.pretokenizer != "whitespace" and not word.startswith(" "):
                forms.append(" " + word)
            for form in forms:
                if pending is None:
                    line, merge = self._watch_line(table, form, look)
                    watched.append((label(form), merge))
                else:
                    line = Text(f"{label(form)}: {pending}", end="")
                lines.append(line.plain)
                if out.plain:
                    out.append("\n")
                out.append_text(line)
        if not all(one_cell_each(name) for name, _ in watched):
            # the chart puts one character in each cell: a word whose marks or wide characters
            # do not take one cell each would shift its row, so the chart names words by number
            watched = [(str(n), merge) for n, (_, merge) in enumerate(watched, 1)]
            numbered = Text(end="")
            for n, line in enumerate(out.split("\n"), 1):
                if n > 1:
                    numbered.append("\n")
                numbered.append(f"{n} ", "dim")
                numbered.append_text(line)
            out = numbered
            lines = [f"{n} {line}" for n, line in enumerate(lines, 1)]
        self.watch_lines = lines
        self.watched = watched
        body.update(out)
        chart.styles.height = max(8, len(watched) + 6)
        chart.draw(partial(training.word_timeline, words=watched, step=step))

    @staticmethod
    def _watch_line(table: MergeTable, word: str, look: ChipStyles) -> tuple[Text, int | None]:
        """The line of one watched word, and the merge at which it became one token (or None)."""
        line = Text(f"{label(word)}: ", style="bold", end="")
        trace = table.trace(word)
        if trace and len(trace[-1].symbols) == 1:
            merge = merge_number(trace[-1].rank)
            line.append(f"one token since merge {merge:,}", look.good)
            return line, merge
        symbols = trace[-1].symbols if trace else table.initial_symbols(word.lower() if table.lowercase else word)
        line.append(f"{plural(len(symbols), 'token')} now ", look.note)
        body, _ = chips(symbols, table.end_of_word, look.pair, sep=" ", whole=look.whole)
        line.append_text(body)
        return line, None

    def show_merges_state(self) -> None:
        """The merge list's build moved on (or ended): watch the words again."""
        self._watch()

    @on(Input.Changed, "#watch-input")
    def _watch_changed(self, event: Input.Changed) -> None:
        event.stop()
        self._watch()
