"""Stats: the falling curve of merge counts, the compression curve, and "watch a word".

"Watch a word" answers: at which step does this word become a single token? It replays the
word through the table as it stands (MergeTable.trace), so it also works in inspect mode.

A saved table has no corpus, and often no merge counts: inspect mode shows what the table can
support instead of empty charts -- the merge counts when the file stored them, and how long
its tokens are (a histogram of token lengths).
"""

from __future__ import annotations

from collections import Counter

from rich.style import Style
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Input, Sparkline, Static

from ...core.tables.table import MergeTable, merge_number
from ...core.wording import plural
from ..session.sessions import ExploreSession, InspectSession, Session
from ..widgets.render import (
    CHIP_CLASSES,
    SUPERWORD_MARK,
    ChipStyles,
    chips,
    label,
    redraw_on_theme_change,
)


class StatsPane(VerticalScroll):
    #: "Watch a word" and the token length bars take their colours from the theme.
    COMPONENT_CLASSES = CHIP_CLASSES

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.session: Session | None = None
        self.watch_lines: list[str] = []
        self.counts: list[int] = []
        self.totals: list[int] = []
        self.lengths_text = ""

    def compose(self) -> ComposeResult:
        yield Static("", id="counts-label", markup=False)
        yield Sparkline([], id="counts-spark")
        yield Static("", id="totals-label", markup=False)
        yield Sparkline([], id="totals-spark")
        yield Static("", id="lengths", markup=False)
        yield Input(placeholder="watch words: low lower newest", id="watch-input", compact=True)
        yield Static("", id="watch-body", markup=False)

    def on_mount(self) -> None:
        redraw_on_theme_change(self, self._redraw)

    def _redraw(self) -> None:
        """The coloured parts again, in the theme's colours (the sparklines follow by themselves)."""
        if isinstance(self.session, InspectSession):
            self._lengths(self.session)
        self._watch()

    def show(self, session: ExploreSession, step: int) -> None:
        """A trainer at ``step``: its merge counts and the corpus tokens after each merge."""
        self.session = session
        transition = session.trainer.transition
        note = ""
        if transition is not None and step > transition.step:  # SuperBPE: where the curve's corpus changed
            note = f" · {SUPERWORD_MARK} superwords from merge {transition.step + 1:,}"
        self._counts(session.merge_counts()[:step], "merge counts: no merges yet", note)
        totals = session.token_totals(step)
        self.totals = totals
        if len(totals) > 1:
            saved = 1 - totals[-1] / totals[0] if totals[0] else 0
            head = f"corpus tokens: {totals[0]:,} → {totals[-1]:,} (−{saved:.1%}) over {plural(len(totals) - 1, 'merge')}"
        else:
            head = f"corpus tokens: {totals[0]:,} at step 0"
        self.query_one("#totals-label", Static).update(Text(head, end=""))
        self.query_one("#totals-spark", Sparkline).data = totals or [0]
        self._watch()

    def show_table(self, session: InspectSession) -> None:
        """A saved table: the merge counts it stored (if any) and how long its tokens are."""
        self.session = session
        self._counts(session.merge_counts(), "merge counts: not stored in this table")
        self._lengths(session)
        self._watch()

    def _lengths(self, session: InspectSession) -> None:
        histogram = length_histogram(session.full_table, ChipStyles.of(self).bar)
        self.lengths_text = histogram.plain
        self.query_one("#lengths", Static).update(histogram)

    def _counts(self, counts: list[int], none: str, note: str = "") -> None:
        self.counts = counts
        if counts:
            head = f"counts of merges 1–{len(counts):,}: first {counts[0]:,}, last {counts[-1]:,}{note}"
        else:
            head = none
        self.query_one("#counts-label", Static).update(Text(head, end=""))
        spark = self.query_one("#counts-spark", Sparkline)
        spark.data = counts or [0]
        spark.set_class(not counts, "-empty")

    def _watch(self) -> None:
        body = self.query_one("#watch-body", Static)
        session = self.session
        table = session.table() if session is not None else None
        words = self.query_one("#watch-input", Input).value.replace(",", " ").split()
        if table is None or not words:
            self.watch_lines = []
            body.update(Text("name words above to see when each becomes one token", style="dim", end=""))
            return
        out = Text(end="")
        lines = []
        pending = session.merges_note() if session is not None else None  # the trace needs the merge list
        look = ChipStyles.of(self)
        for word in words:
            forms = [word]
            if table.pretokenizer != "whitespace" and not word.startswith(" "):
                forms.append(" " + word)
            for form in forms:
                line = self._watch_line(table, form, look) if pending is None else Text(f"{label(form)}: {pending}", end="")
                lines.append(line.plain)
                if out.plain:
                    out.append("\n")
                out.append_text(line)
        self.watch_lines = lines
        body.update(out)

    @staticmethod
    def _watch_line(table: MergeTable, word: str, look: ChipStyles) -> Text:
        line = Text(f"{label(word)}: ", style="bold", end="")
        trace = table.trace(word)
        if trace and len(trace[-1].symbols) == 1:
            line.append(f"one token since merge {merge_number(trace[-1].rank):,}", look.good)
            return line
        symbols = trace[-1].symbols if trace else table.initial_symbols(word.lower() if table.lowercase else word)
        line.append(f"{plural(len(symbols), 'token')} now ", look.note)
        body, _ = chips(symbols, table.end_of_word, look.pair, sep=" ")
        line.append_text(body)
        return line

    def show_merges_state(self) -> None:
        """The merge list's build moved on (or ended): watch the words again."""
        self._watch()

    @on(Input.Changed, "#watch-input")
    def _watch_changed(self, event: Input.Changed) -> None:
        event.stop()
        self._watch()


#: Bars of the token length histogram are at most this wide (cells).
BAR_WIDTH = 24
#: Lengths from this one up are counted in one last row ("16+").
LONGEST_ROW = 16


def length_histogram(table: MergeTable, bar: Style) -> Text:
    """How many tokens of the vocabulary have each length (in the table's units), as bars
    drawn in ``bar`` (``ChipStyles.bar``)."""
    unit = "bytes" if table.units == "bytes" else "characters"
    lengths = Counter(min(len(table.surface(i)), LONGEST_ROW) for i in table.vocab if not table.is_special(i))
    text = Text(f"token lengths ({unit}) of {plural(sum(lengths.values()), 'token')}", end="")
    top = max(lengths.values(), default=1)
    for n in range(1, LONGEST_ROW + 1):
        if n not in lengths:
            continue
        name = f"{n}+" if n == LONGEST_ROW else str(n)
        text.append(f"\n{name:>3} ")
        text.append("█" * max(1, round(lengths[n] / top * BAR_WIDTH)), bar)
        text.append(f" {lengths[n]:,}", "dim")
    return text
