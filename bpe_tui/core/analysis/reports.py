"""An evaluation as text: an aligned table for the terminal and a Markdown table for a README.

One row per table x corpus, one column per metric of :class:`~bpe_tui.core.analysis.evaluate.Metrics`
(:data:`COLUMNS` says each column's label, what it is and its format); the premium column only
when there are two corpora or more to compare.

Then the tables side by side (:mod:`~bpe_tui.core.analysis.side_by_side`): one column per
table, one row per measure across the corpora (:data:`SIDE_ROWS`), and a line when the tables'
vocabulary sizes differ.

What each column and row is, said once: :data:`NAMING_COLUMNS`, :data:`COLUMNS`,
:data:`SIDE_ROWS` hold the definitions that ``bpe-tui eval --explain`` prints
(:func:`format_legend`) and the guide shows (:func:`legend_markdown`), so the two cannot part.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from .evaluate import Evaluation
from .side_by_side import TableSummary, size_note


@dataclass(frozen=True)
class Column:
    """A column of eval's rows: its label, what it is (one line), and for a measured one the
    :class:`~bpe_tui.core.analysis.evaluate.Metrics` attribute (or ``"premium"``) and format."""

    label: str
    meaning: str
    attr: str = ""
    fmt: str = "{}"


@dataclass(frozen=True)
class SideRow:
    """A row of the side-by-side block: its label, what it is (one line), and the function of
    a :class:`~bpe_tui.core.analysis.side_by_side.TableSummary` giving its cell (None: not
    known; no function: a row :func:`side_rows` fills itself)."""

    label: str
    meaning: str
    cell: Callable[[TableSummary], str | None] | None = None


#: The columns that name a row.
NAMING_COLUMNS = [
    Column("table", "the table: its file or directory name"),
    Column("corpus", "the corpus: its LABEL= if given, else its file name"),
]

#: The measured columns, in order.
COLUMNS = [
    Column("tokens", "tokens the corpus encodes to (special tokens in the text included)", "tokens", "{:,}"),
    Column("bytes/tok", "UTF-8 bytes of the corpus per token: how much text a token holds (higher: shorter sequences)", "bytes_per_token", "{:.4f}"),
    Column("chars/tok", "characters of the corpus per token", "chars_per_token", "{:.4f}"),
    Column("fertility", "tokens per whitespace word (1.000: a token a word); not comparable for scripts without spaces", "fertility", "{:.3f}"),
    Column("cont.", "continued words: the share of word occurrences split into 2 tokens or more", "continued_share", "{:.1%}"),
    Column("whole", "the share of distinct words that are one token at every occurrence", "kept_whole_share", "{:.1%}"),
    Column("used", "distinct token ids the corpus's encoding gives", "used", "{:,}"),
    Column("util.", "utilization: used / the vocabulary size", "utilization", "{:.1%}"),
    Column("rényi", "Rényi efficiency at alpha 2.5 (Zouhar et al. 2023): how evenly the tokens are used, 0 to 1", "renyi_efficiency", "{:.4f}"),
    Column("premium", "token premium (Petrov et al. 2023): tokens / the first corpus's tokens, on parallel text (two corpora or more)", "premium", "{:.3f}"),
]

#: The side-by-side rows: the first three filled by :func:`side_rows` itself, then each
#: measure with the function giving its cell.
SIDE_ROWS: list[SideRow] = [
    SideRow("vocabulary", "the table's vocabulary size (compare variants at the same size: a line says when they differ)"),
    SideRow("bytes/tok LABEL", "UTF-8 bytes per token on each corpus (as in the rows above)"),
    SideRow("bytes/tok all", "UTF-8 bytes per token on all the corpora together: their bytes / their tokens"),
    SideRow(
        "premium spread", "the largest token premium - the smallest (two corpora or more)",
        lambda s: None if s.parity is None else f"{s.parity.premium_spread:.3f}",
    ),
    SideRow(
        "worst/best", "tokens of the corpus served worst / those of the corpus served best (1.000: parity)",
        lambda s: None if s.parity is None else f"{s.parity.worst_best:.3f}",
    ),
    SideRow(
        "gini", "the Gini coefficient of the corpora's token counts: 0 when every corpus pays the same",
        lambda s: None if s.parity is None else f"{s.parity.gini:.4f}",
    ),
    SideRow(
        "scaffold", "the audit's intermediate tokens on these corpora (made to build longer ones, seldom alone) / vocabulary",
        lambda s: f"{s.scaffold_share:.1%} ({s.scaffold:,})",
    ),
    SideRow("unused", "tokens no corpus's encoding gives (special tokens aside) / vocabulary", lambda s: f"{s.unused_share:.1%} ({s.unused:,})"),
    SideRow("superwords", "tokens that span a space (SuperBPE makes them) / vocabulary", lambda s: f"{s.superword_share:.1%} ({s.superwords:,})"),
]

#: The line under eval's tables: where each column and row is defined.
WHERE_DEFINED = "what each column and row is: bpe-tui eval --explain (the guide: Auditing, evaluating, comparing)"


def cells(result: Evaluation, t: int, c: int) -> list[str]:
    """The formatted cells of one row (``n/a`` where a number is unknown)."""
    m = result.get(t, c)
    out = []
    for column in COLUMNS:
        if column.attr == "premium":
            if len(result.corpora) < 2:
                continue
            value = result.premium(t, c)
        else:
            value = getattr(m, column.attr)
        out.append("n/a" if value is None else column.fmt.format(value))
    return out


def headers(result: Evaluation) -> list[str]:
    return [c.label for c in NAMING_COLUMNS] + [c.label for c in COLUMNS if c.attr != "premium" or len(result.corpora) > 1]


def format_table(result: Evaluation) -> str:
    """An aligned plain-text table, one row per table x corpus, numbers right-aligned."""
    rows = [[result.tables[t], result.corpora[c]] + cells(result, t, c) for t in range(len(result.tables)) for c in range(len(result.corpora))]
    return "\n".join(aligned(headers(result), rows, left=2))


def aligned(head: list[str], rows: list[list[str]], left: int) -> list[str]:
    """Lines of an aligned text table: the header, a rule, the rows; the first ``left``
    columns left-aligned, the others (numbers) right-aligned, two spaces between columns."""
    widths = [max(len(r[k]) for r in rows + [head]) for k in range(len(head))]

    def line(r: list[str]) -> str:
        return "  ".join(v.ljust(w) if k < left else v.rjust(w) for k, (v, w) in enumerate(zip(r, widths))).rstrip()

    return [line(head), line(["-" * w for w in widths])] + [line(r) for r in rows]


def format_markdown(result: Evaluation) -> str:
    """The same as a Markdown table (GitHub flavour), numbers right-aligned."""
    head = headers(result)
    out = [markdown_row(head), "|" + "|".join(":---" if k < 2 else "---:" for k in range(len(head))) + "|"]
    for t in range(len(result.tables)):
        for c in range(len(result.corpora)):
            row = [result.tables[t], result.corpora[c]] + cells(result, t, c)
            out.append(markdown_row(row))
    return "\n".join(out)


def markdown_row(cells: list[str]) -> str:
    """A row of a Markdown table, a ``|`` inside a cell escaped."""
    return "| " + " | ".join(v.replace("|", "\\|") for v in cells) + " |"


def side_rows(summaries: Sequence[TableSummary], per_corpus: bool = True) -> list[list[str]]:
    """The side-by-side block as rows of cells: a measure's label, then one cell per table.
    ``per_corpus``: a bytes-per-token row per corpus (else only all corpora together); the
    parity rows only with two corpora or more."""
    corpora = summaries[0].corpora if summaries else ()
    vocabulary, per_label, overall = (row.label for row in SIDE_ROWS[:3])
    rows = [[vocabulary] + [f"{s.vocab_size:,}" for s in summaries]]
    if per_corpus:
        rows += [[per_label.replace("LABEL", label)] + [f"{s.bytes_per_token[c]:.4f}" for s in summaries] for c, label in enumerate(corpora)]
    if len(corpora) > 1 or not per_corpus:
        rows.append([overall if len(corpora) > 1 else COLUMNS[1].label] + [f"{s.overall_bytes_per_token:.4f}" for s in summaries])
    for row in SIDE_ROWS:
        if row.cell is None:
            continue
        values = [row.cell(s) for s in summaries]
        if any(v is not None for v in values):
            rows.append([row.label] + ["n/a" if v is None else v for v in values])
    return rows


def format_side_by_side(summaries: Sequence[TableSummary], per_corpus: bool = True) -> str:
    """The tables side by side as aligned text: a column per table, numbers right-aligned,
    and a last line when the vocabulary sizes differ."""
    out = aligned(["side by side"] + [s.table for s in summaries], side_rows(summaries, per_corpus), left=1)
    note = size_note(summaries)
    return "\n".join(out + ([note] if note else []))


def format_side_by_side_markdown(summaries: Sequence[TableSummary]) -> str:
    """The same as a Markdown table, and the line on differing sizes under it."""
    head = ["measure"] + [s.table for s in summaries]
    out = [markdown_row(head), "|:---|" + "---:|" * len(summaries)]
    out += [markdown_row(r) for r in side_rows(summaries)]
    note = size_note(summaries)
    return "\n".join(out + (["", note] if note else []))


def legend() -> list[tuple[str, str, list[tuple[str, str]]]]:
    """Every column and side-by-side row eval prints, with what it is: ``(heading, "column" or
    "row", [(label, meaning), ...])`` per block."""
    return [
        ("the columns of the rows (a row per table x corpus)", "column", [(c.label, c.meaning) for c in NAMING_COLUMNS + COLUMNS]),
        ("the rows of the side-by-side block (a column per table, measured across all the corpora)", "row", [(r.label, r.meaning) for r in SIDE_ROWS]),
    ]


def format_legend() -> str:
    """The legend as text (``bpe-tui eval --explain``): a heading per block, a line per label."""
    out: list[str] = []
    for heading, _, entries in legend():
        width = max(len(label) for label, _ in entries)
        out += ([""] if out else []) + [heading[0].upper() + heading[1:] + ":"] + [f"  {label:<{width}}  {meaning}" for label, meaning in entries]
    return "\n".join(out)


def legend_markdown(kinds: Sequence[str] = ("column", "row")) -> str:
    """The legend as Markdown: a table per block, under its heading (the guide's); ``kinds``:
    the blocks shown, ``"column"`` (the rows' columns) and/or ``"row"`` (side by side)."""
    out: list[str] = []
    for heading, kind, entries in legend():
        if kind not in kinds:
            continue
        out += ([""] if out else []) + [heading[0].upper() + heading[1:] + ":", "", markdown_row([kind, "what it is"]), "|---|---|"]
        out += [markdown_row([f"`{label}`", meaning]) for label, meaning in entries]
    return "\n".join(out)
