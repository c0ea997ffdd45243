"""The Evaluate view: the current table measured on corpora, as bar charts and curves.

By default the corpora are the parallel text set shipped in corpora/parallel (the same 30
sentences in 12 languages, English first), so the bars compare languages: bytes per token,
fertility, the token premium over English, and the other metrics of
:mod:`bpe_tui.core.analysis.evaluate` (← → switch the metric). Below the bars, one curve per language
shows the metric over merge steps -- the table cut after k merges for a few k from 0 to now
(in explore mode: how each language's bytes per token rose as training went on) -- and the
merges that saved each language the most tokens. ctrl+o measures another corpus instead.
The bars and the curves are charts with axes (:mod:`bpe_tui.charts.evaluation`); each bar's
label carries its value, each curve's legend entry its first and last value. Under the bars,
the table across all the corpora (:mod:`bpe_tui.core.analysis.side_by_side`, as ``bpe-tui
eval`` prints it): vocabulary size, bytes per token, the premium measures, and the shares of
scaffold, unused and space-spanning tokens.

A variant's table (any but plain BPE's) is measured against the plain table its words give at
the same vocabulary size (trained in the worker): the bars become columns, the two tables side
by side under each language. A variant that trains on languages of its own measures those
first (its ``measure_languages``); l shows every shipped language, and back.

Everything is computed in a thread worker with a progress bar; escape cancels it (and, when
nothing runs, goes back).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from functools import partial

from rich.style import Style
from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Footer, Static

from ...charts import evaluation as charts
from ...core.analysis.audit import Cancelled
from ...core.analysis.evaluate import (
    Corpus,
    Evaluation,
    evaluate,
    parallel_set,
    parse_corpus,
    savings,
)
from ...core.analysis.reports import format_side_by_side
from ...core.analysis.side_by_side import TableSummary, side_by_side
from ...core.engine.config import TrainerConfig
from ...core.engine.trainer import plain_counterpart
from ...core.errors import BPEError
from ...core.tables.table import MergeTable
from ...core.wording import plural
from ..keys import bindings_for
from ..widgets.plot import Chart
from ..widgets.render import (
    CHIP_CLASSES,
    ChipStyles,
    redraw_on_theme_change,
)
from ..widgets.render import label as token_label
from ..widgets.workbar import WorkBar, WorkScreen

#: (attribute of Metrics, or "premium"; label; what higher means)
METRICS = [
    ("bytes_per_token", "bytes per token", "more text per token"),
    ("chars_per_token", "characters per token", "more text per token"),
    ("fertility", "fertility (tokens per whitespace word)", "words cut into more pieces"),
    ("premium", "token premium over the first corpus", "the same content costs more tokens"),
    ("continued_share", "continued words (split into 2+ tokens)", "more words split"),
    ("kept_whole_share", "distinct words kept whole", "more words are one token"),
    ("renyi_efficiency", "Rényi efficiency (alpha 2.5)", "a more even use of the vocabulary"),
    ("tokens", "tokens", "longer sequences"),
]
#: Points on each curve (the table cut after k merges, k from 0 to all).
CURVE_POINTS = 9
#: Merges listed per corpus as the ones that saved it most tokens.
TOP_MERGES = 3


def metric_value(result: Evaluation, t: int, c: int, attr: str) -> float | None:
    if attr == "premium":
        return result.premium(t, c) if len(result.corpora) > 1 else None
    return getattr(result.get(t, c), attr)


def _fmt(attr: str, value: float | None) -> str:
    if value is None:
        return "n/a"
    if attr == "tokens":
        return f"{value:,.0f}"
    if attr in ("continued_share", "kept_whole_share"):
        return f"{value:.1%}"
    return f"{value:.3f}"


class EvalScreen(WorkScreen):
    """Measure ``table`` on corpora (the shipped parallel set unless given)."""

    WORK_GROUP = "evaluate"
    WORK_NAME = "evaluation"
    CSS_PATH = ["evaluate.tcss", "../widgets/workbar.tcss"]
    KIND = "evaluate"
    BINDINGS = bindings_for(KIND)
    #: The title, bars, curves and tokens take their colours from the theme.
    COMPONENT_CLASSES = CHIP_CLASSES

    def __init__(
        self, table: MergeTable, name: str, corpora: list[Corpus] | None = None, origin: str = "",
        plain: tuple[Mapping[str, int], TrainerConfig] | None = None, own_languages: tuple[str, ...] = (), mark: str = "",
    ) -> None:
        """``plain``: the words and rules of a variant's trainer, to train the plain table
        at the same vocabulary size and draw its bars beside this table's. ``own_languages``:
        the languages the variant trained on, measured first (l: all of them); ``mark``: the
        variant's mark, shown in the title."""
        super().__init__()
        self.plain = plain
        self.own_languages = own_languages
        self.mark = mark
        #: Every shipped language, when the default corpora are the variant's own (l toggles).
        self.all_corpora: list[Corpus] | None = None
        self.table = table
        self.table_name = name
        self.origin = origin
        self.corpora = corpora
        self.metric = 0
        self.result: Evaluation | None = None
        self.steps: list[int] = []
        self.curves: list[Evaluation] = []
        self.helped: list[list[tuple[int, int]]] = []
        self.summaries: list[TableSummary] = []  # each table across the corpora
        self.bar_lines: list[str] = []  # plain text of what is drawn (for tests)
        self.curve_lines: list[str] = []

    def compose(self) -> ComposeResult:
        yield Static("", id="eval-title", markup=False)
        with VerticalScroll(id="eval-body"):
            yield Static("", id="eval-metric", markup=False)
            yield Chart(id="eval-bars")
            yield Static("", id="eval-side", markup=False)
            yield Chart(id="eval-curves")
            yield Static("", id="eval-legend", markup=False)
            yield Static("", id="eval-helped", markup=False)
        yield WorkBar(id="eval-work")
        yield Footer()

    def on_mount(self) -> None:
        if self.corpora is None:
            try:
                self.corpora = parallel_set()
            except BPEError as exc:
                self.notify(str(exc), title="no parallel text", severity="warning", timeout=10)
                self.corpora = []
            own = [c for c in self.corpora if c.label in self.own_languages]
            if own and len(own) < len(self.corpora):  # the variant's own languages first
                self.all_corpora, self.corpora = self.corpora, own
        self._title()
        redraw_on_theme_change(self, self._redraw)
        if self.corpora:
            self.run_evaluation()
        else:
            self.query_one("#eval-metric", Static).update(Text("no corpus: ctrl+o picks one", style="dim"))

    def _redraw(self) -> None:
        """Everything coloured again, in the theme's colours."""
        self._title()
        self.render_metric()

    def _title(self) -> None:
        head = Text(end="")  # wraps onto a second line on a narrow screen (evaluate.tcss)
        head.append("Evaluate ", "bold")
        head.append(self.table_name, ChipStyles.of(self).name)
        if self.origin:
            head.append(f"  {self.origin}")
        head.append(f"  · {plural(len(self.table), 'token')} · on {plural(len(self.corpora or []), 'corpus', 'corpora')}", "dim")
        if self.all_corpora is not None:
            mine = len(self.corpora or []) < len(self.all_corpora)
            head.append(f" ({'its own languages; l: all' if mine else 'all; l: its own'})", "dim")
        if self.plain is not None:
            mark = f"{self.mark} " if self.mark else ""
            head.append(f"  · {mark}vs plain BPE at the same size", "dim")
        self.query_one("#eval-title", Static).update(head)

    # ------------------------------------------------------------------ the worker

    def run_evaluation(self) -> None:
        self.show_work("encoding…", None)
        self._worker(list(self.corpora or []))

    @work(thread=True, exclusive=True, group="evaluate")
    def _worker(self, corpora: list[Corpus]) -> None:
        from textual.worker import get_current_worker

        worker = get_current_worker()
        stop = lambda: worker.is_cancelled  # noqa: E731
        post = self.app.call_from_thread
        try:
            tables, names = [self.table], [self.table_name]
            if self.plain is not None:
                post(self.show_work, "training the plain table at the same size…", None)
                words, config = self.plain
                tables.append(plain_counterpart(words, config, len(self.table)))
                names.append("plain BPE")
            result = evaluate(
                tables, corpora, names, workers=1, should_stop=stop,
                progress=lambda done, total: post(self.show_work, "encoding the corpora…", total, done),
            )
            post(self.show_work, "the tables across the corpora…", None)
            summaries = side_by_side(tables, result)
            helped = [savings(self.table, result.get(0, c).counts)[:TOP_MERGES] for c in range(len(corpora))]
            n = self.table.num_merges
            steps = sorted({round(k * n / (CURVE_POINTS - 1)) for k in range(CURVE_POINTS)})
            curves = []
            for k, step in enumerate(steps):
                post(self.show_work, f"curves: the table cut after {step:,} merges…", len(steps), k)
                cut = self.table if step == n else self.table.truncated(step)
                curves.append(evaluate([cut], corpora, [f"{step}"], workers=1, should_stop=stop))
        except Cancelled:
            post(self.work_cancelled)
            return
        except (BPEError, OSError) as exc:
            post(self.work_failed, str(exc))
            return
        post(self._done, result, summaries, steps, curves, helped)

    def _done(self, result: Evaluation, summaries: list[TableSummary], steps: list[int], curves: list[Evaluation], helped) -> None:
        self.hide_work()
        self.result, self.summaries, self.steps, self.curves, self.helped = result, summaries, steps, curves, helped
        self._title()
        self.render_metric()
        self.render_side()

    def render_side(self) -> None:
        """The tables across the corpora, as ``bpe-tui eval`` prints them (the bytes per token
        of each corpus are the bars above: here all corpora together)."""
        side = Text(end="")
        side.append(f"across the {plural(len(self.summaries[0].corpora), 'corpus', 'corpora')}\n", "bold")
        side.append(format_side_by_side(self.summaries, per_corpus=False))
        self.query_one("#eval-side", Static).update(side)

    # ------------------------------------------------------------------ drawing

    def render_metric(self) -> None:
        result = self.result
        if result is None:
            return
        attr, title, higher = METRICS[self.metric]
        look = ChipStyles.of(self)
        head = Text(end="")
        head.append(f"◀ {title} ▶", look.note + Style(bold=True))
        head.append(f"  higher: {higher}", "dim")
        self.query_one("#eval-metric", Static).update(head)

        width = max(len(c) for c in result.corpora)
        values = [metric_value(result, 0, c, attr) for c in range(len(result.corpora))]
        self.bar_lines = [f"{label:<{width}} {_fmt(attr, value)}" for label, value in zip(result.corpora, values)]
        bars = self.query_one("#eval-bars", Chart)
        short = title.split(" (")[0]  # plotext leaves out a title wider than the chart
        if len(result.tables) > 1:  # a variant's table beside its plain counterpart: columns
            plain = [metric_value(result, 1, c, attr) for c in range(len(result.corpora))]
            self.bar_lines = [
                line for c, bar_line in enumerate(self.bar_lines) for line in (bar_line, f"{'':<{width}} {_fmt(attr, plain[c])} plain")
            ]
            bars.styles.height = 16
            bars.draw(partial(charts.metric_bars, labels=result.corpora, values=[values, plain], title=short, series=result.tables))
        else:
            bars.styles.height = charts.bars_height(len(result.corpora))
            bars.draw(partial(charts.metric_bars, labels=self.bar_lines, values=values, title=short))

        series = [[metric_value(e, 0, c, attr) for e in self.curves] for c in range(len(result.corpora))]
        legend = []
        for label, s in zip(result.corpora, series):
            known = [v for v in s if v is not None]
            ends = f"{_fmt(attr, known[0])}→{_fmt(attr, known[-1])}" if known else "n/a"
            legend.append(f"{label:<{width}} {ends}")
        heading = f"over merges (the table cut after {', '.join(f'{s:,}' for s in self.steps)})"
        self.curve_lines = [heading, *legend]
        curves = self.query_one("#eval-curves", Chart)
        curves.styles.height = max(16, len(result.corpora) + 8)
        curves.draw(partial(charts.metric_curves, steps=self.steps, labels=legend, series=series, title=f"{short} over merges", legend=False))
        self.query_one("#eval-legend", Static).update(curves.legend(legend))

        helped = Text(end="")
        helped.append("\nmerges that saved each corpus the most tokens:\n", "bold")
        for c, label in enumerate(result.corpora):
            helped.append(f"{label:<{width}} ", "bold")
            for k, (rank, saved) in enumerate(self.helped[c]):
                new = self.table.merge_at(rank)[2]
                helped.append(("  " if k else "") + token_label(self.table.surface(new), self.table.end_of_word), look.name)
                helped.append(f" (merge {rank + 1:,}, −{saved:,})", "dim")
            helped.append("\n")
        self.query_one("#eval-helped", Static).update(helped)

    # ------------------------------------------------------------------ actions

    def action_metric(self, delta: int) -> None:
        self.metric = (self.metric + delta) % len(METRICS)
        self.render_metric()

    def action_languages(self) -> None:
        """The variant's own languages, or every shipped one (when it has languages of its own)."""
        if self.all_corpora is None:
            self.notify("this table's trainer has no languages of its own: it is measured on every shipped one", timeout=5)
            return
        own = [c for c in self.all_corpora if c.label in self.own_languages]
        self.corpora = list(self.all_corpora) if len(self.corpora or []) < len(self.all_corpora) else own
        self._title()
        self.run_evaluation()

    def action_corpus(self) -> None:
        from ..screens.dialogs import PathScreen

        def chosen(path: str | None) -> None:
            if not path:
                return
            try:
                self.corpora = [parse_corpus(os.path.expanduser(path))]
                self.all_corpora = None  # (another corpus: no languages to switch between)
            except BPEError as exc:
                self.notify(str(exc), title="cannot evaluate", severity="error", timeout=10)
                return
            self._title()
            self.run_evaluation()

        self.app.push_screen(PathScreen("Evaluate on a corpus ([LABEL=]file or directory)", ""), chosen)
