"""The Audit view: which tokens of the current table are unreachable, partial, scaffolding, unused.

Left, the categories of :mod:`bpe_tui.core.analysis.audit` with their counts; right, the tokens of the
selected category (id, token, note); below, the selected token's merge tree (the explorer's
:class:`~bpe_tui.ui.panes.detail.TokenDetail`). At the bottom, charts
(:mod:`bpe_tui.charts.vocabulary`): the count of every category as bars, and the selected
category's token lengths and, with a corpus, how often its tokens are used. The audit runs in a thread worker with a progress
bar; escape cancels it (and, when nothing runs, goes back to the explorer).

Which corpus: in explore mode, the corpus being trained on (its words, segmented as the
trainer has them now); in inspect mode none until you pick one with ctrl+o, which encodes
that file in the worker (:func:`bpe_tui.core.analysis.evaluate.evaluate`).
"""

from __future__ import annotations

import os
from collections import Counter
from functools import partial

from rich.cells import cell_len
from rich.style import Style
from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widgets import Footer, Static

from ...charts import vocabulary as charts
from ...core.analysis.audit import Audit, Cancelled, audit, tree_text
from ...core.errors import BPEError
from ...core.tables.table import MergeTable
from ...core.wording import one_line, plural
from ..keys import bindings_for
from ..panes.detail import TokenDetail
from ..widgets.plot import Chart
from ..widgets.render import CHIP_CLASSES, ChipStyles, label, redraw_on_theme_change
from ..widgets.vlist import VirtualList
from ..widgets.workbar import WorkBar, WorkScreen


class CategoryList(VirtualList):
    """One row per audit category: title and count (– where a corpus is needed)."""

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.report: Audit | None = None

    def render_row(self, index: int) -> Text:
        assert self.report is not None  # (rows exist once there is a report)
        c = self.report.categories[index]
        width = max(8, min(31, (self.size.width or 40) - 12))
        text = Text(no_wrap=True, end="")
        title = c.title if len(c.title) <= width else c.title[: width - 1] + "…"
        text.append(f"{index + 1:>2} ", "dim")  # the number of its bar in the chart below
        text.append(f"{title:<{width}}", "bold" if c.ids else "dim")
        text.append(f"{len(c):>8,}" if c.computed else "       –", self.chip_styles.note + Style(bold=True) if c.ids else "dim")
        return text

    def show(self, report: Audit) -> None:
        self.report = report
        self.set_count(len(report.categories))

    def on_resize(self, event) -> None:
        self.invalidate()  # titles are cut to the width


class TokenList(VirtualList):
    """The tokens of one category: id, readable token, and the category's note."""

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.table: MergeTable | None = None
        self.ids: tuple[int, ...] = ()
        self.notes: dict = {}

    def render_row(self, index: int) -> Text:
        assert self.table is not None  # (rows exist once a category is shown)
        token_id = self.ids[index]
        text = Text(no_wrap=True, overflow="ellipsis", end="")
        text.append(f"{token_id:>7} ", "dim")
        name = label(self.table.surface(token_id), self.table.end_of_word) if token_id >= 0 else self.table.display(token_id)
        text.append(name, self.chip_styles.name)
        text.append(" " * max(0, 20 - cell_len(name)))
        note = self.notes.get(token_id)
        text.append(f" {note}" if note else f" {tree_text(self.table, token_id)}", "dim")
        return text

    def show(self, table: MergeTable, ids: tuple[int, ...], notes) -> None:
        self.table, self.ids, self.notes = table, ids, notes
        self.set_count(len(ids), cursor=0)


class AuditScreen(WorkScreen):
    """Audit one table; with a ``trainer`` (explore mode), on the corpus it trains on."""

    WORK_GROUP = "audit"
    WORK_NAME = "audit"
    CSS_PATH = ["audit.tcss", "../widgets/workbar.tcss"]
    KIND = "audit"
    BINDINGS = bindings_for(KIND)
    #: The title's table name takes its colour from the theme (the lists have their own).
    COMPONENT_CLASSES = CHIP_CLASSES

    def __init__(self, table: MergeTable, name: str, trainer=None) -> None:
        super().__init__()
        self.table = table
        self.table_name = name
        self.trainer = trainer  # the screen is modal: the trainer stays idle while it is up
        self.corpus_name = one_line(trainer.name) if trainer is not None else None  # (as shown: escaped)
        self.report: Audit | None = None
        self.corpus_path: str | None = None
        #: How often the audited corpus used each token id (None: no corpus).
        self.usage: Counter | None = None

    def compose(self) -> ComposeResult:
        yield Static("", id="audit-title", markup=False)
        with Horizontal(id="audit-body"):
            yield CategoryList(id="audit-categories")
            with Vertical(id="audit-right"):
                yield Static("", id="audit-meaning", markup=False)
                yield TokenList(id="audit-tokens")
                yield TokenDetail("select a token in the list above", id="audit-detail")
        with Horizontal(id="audit-charts"):
            yield Chart(id="audit-counts")
            yield Chart(id="audit-lengths")
            yield Chart(id="audit-usage")
        yield WorkBar(id="audit-work")
        yield Footer()

    def on_mount(self) -> None:
        self._title()
        redraw_on_theme_change(self, self._title)
        self.query_one(CategoryList).focus()
        self.run_audit()

    def _title(self) -> None:
        head = Text(end="")  # wraps onto a second line on a narrow screen (audit.tcss)
        head.append("Audit ", "bold")
        head.append(self.table_name, ChipStyles.of(self).name)
        head.append(f"  {plural(len(self.table), 'token')} · {plural(self.table.num_merges, 'merge')}")
        if self.report is not None and self.report.used is not None:
            head.append(f" · on {self.corpus_name}: {self.report.used:,} ids used ({self.report.utilization:.1%})")
        elif self.trainer is None and self.corpus_path is None:
            head.append("  · no corpus (ctrl+o picks one)", "dim")
        self.query_one("#audit-title", Static).update(head)

    # ------------------------------------------------------------------ the worker

    def run_audit(self) -> None:
        self.show_work("auditing the vocabulary…", None)
        self._audit_worker()

    @work(thread=True, exclusive=True, group="audit")
    def _audit_worker(self) -> None:
        from textual.worker import get_current_worker

        worker = get_current_worker()
        stop = lambda: worker.is_cancelled  # noqa: E731
        try:
            counts = None
            if self.trainer is not None:
                self.app.call_from_thread(self.show_work, f"segmenting {self.corpus_name}…", None)
                counts = words_counts(self.trainer)
            if self.corpus_path is not None:
                from ...core.analysis.evaluate import evaluate, parse_corpus

                self.app.call_from_thread(self.show_work, f"encoding {self.corpus_name}…", None)
                corpus = parse_corpus(self.corpus_path)
                result = evaluate(
                    [self.table], [corpus], [self.table_name], workers=1, should_stop=stop,
                    progress=lambda done, total: self.app.call_from_thread(self.show_work, f"encoding {self.corpus_name}…", total, done),
                )
                counts = Counter(result.get(0, 0).counts)
            report = audit(
                self.table, counts, should_stop=stop,
                progress=lambda done, total: self.app.call_from_thread(self.show_work, "checking every token encodes to itself…", total, done),
            )
        except Cancelled:
            self.app.call_from_thread(self.work_cancelled)
            return
        except (BPEError, OSError) as exc:
            self.app.call_from_thread(self._failed, str(exc))
            return
        self.app.call_from_thread(self._done, report, counts)

    def _failed(self, message: str) -> None:
        self.corpus_path = None
        self.work_failed(message)

    def _done(self, report: Audit, usage: Counter | None) -> None:
        self.hide_work()
        self.report = report
        self.usage = usage
        self._title()
        shown = report.categories
        self.query_one("#audit-counts", Chart).draw(partial(
            charts.category_counts, counts=[len(c) if c.computed else None for c in shown], title="tokens per category" if report.used is not None else "tokens",
        ))
        categories = self.query_one(CategoryList)
        categories.show(report)
        self._select(categories.cursor)

    # ------------------------------------------------------------------ selection

    def _select(self, index: int) -> None:
        if self.report is None:
            return
        c = self.report.categories[index]
        meaning = Text(end="")  # wraps (audit.tcss): the meaning is said nowhere else
        meaning.append(f"{c.title}: ", "bold")
        meaning.append(c.meaning if c.computed else "needs a corpus (ctrl+o)")
        if c.key == "unused" and self.report.used is not None:
            meaning.append(f" · {self.report.used:,} of {self.report.vocab_size:,} used", "dim")
        self.query_one("#audit-meaning", Static).update(meaning)
        tokens = self.query_one(TokenList)
        tokens.show(self.table, c.ids, c.notes)
        unit = "bytes" if self.table.units == "bytes" else "characters"
        lengths = [len(self.table.surface(i)) for i in c.ids]
        self.query_one("#audit-lengths", Chart).draw(partial(charts.token_lengths, series=[(unit, lengths)], title=f"{index + 1}: {unit}", axes=False))
        usage = None if self.usage is None else [self.usage.get(i, 0) for i in c.ids]
        self.query_one("#audit-usage", Chart).display = usage is not None  # no corpus: room for the others
        self.query_one("#audit-usage", Chart).draw(partial(charts.usage, counts=usage, title=f"{index + 1}: uses"))
        if c.ids:
            self.query_one(TokenDetail).show(self.table, c.ids[0])

    def on_virtual_list_highlighted(self, event: VirtualList.Highlighted) -> None:
        event.stop()
        if isinstance(event.vlist, CategoryList):
            self._select(event.index)
        elif isinstance(event.vlist, TokenList) and event.index < len(event.vlist.ids):
            self.query_one(TokenDetail).show(self.table, event.vlist.ids[event.index])

    def on_virtual_list_chosen(self, event: VirtualList.Chosen) -> None:
        event.stop()
        if isinstance(event.vlist, CategoryList):
            self.query_one(TokenList).focus()

    # ------------------------------------------------------------------ actions

    def action_corpus(self) -> None:
        from ..screens.dialogs import PathScreen

        def chosen(path: str | None) -> None:
            if not path:
                return
            path = os.path.expanduser(path)
            self.corpus_path = path
            self.trainer = None
            self.corpus_name = one_line(os.path.basename(os.path.normpath(path)))
            self.run_audit()

        self.app.push_screen(PathScreen("Audit on a corpus (a text file or directory)", self.corpus_path or ""), chosen)

    @property
    def category_lines(self) -> list[str]:
        """Plain text of the category rows (for tests)."""
        view = self.query_one(CategoryList)
        return [view.row_text(i) for i in range(view.count)]

    @property
    def token_lines(self) -> list[str]:
        view = self.query_one(TokenList)
        return [view.row_text(i) for i in range(view.count)]


def words_counts(trainer) -> Counter:
    """Token ids emitted on a trainer's corpus right now: each word's segmentation x its count."""
    counts: Counter = Counter()
    for index in range(trainer.word_count):
        n = trainer.word_frequency(index)
        for token_id in trainer.segmentation_ids(index):
            counts[token_id] += n
    return counts
