"""An evaluation as text: an aligned table for the terminal and a Markdown table for a README.

One row per table x corpus, one column per metric of :class:`~bpe_tui.core.analysis.evaluate.Metrics`
(``COLUMNS`` says each column's label, how to read it and its format); the premium column only
when there are two corpora or more to compare.

Then the tables side by side (:mod:`~bpe_tui.core.analysis.side_by_side`): one column per
table, one row per measure across the corpora (``SIDE_ROWS``), and a line when the tables'
vocabulary sizes differ.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from .evaluate import Evaluation
from .side_by_side import TableSummary, size_note

#: (label, how to read it, Metrics attribute or "premium", format)
COLUMNS = [
    ("tokens", "tokens", "tokens", "{:,}"),
    ("bytes/tok", "bytes per token", "bytes_per_token", "{:.4f}"),
    ("chars/tok", "characters per token", "chars_per_token", "{:.4f}"),
    ("fertility", "tokens per whitespace word", "fertility", "{:.3f}"),
    ("cont.", "share of words split into 2+ tokens", "continued_share", "{:.1%}"),
    ("whole", "share of distinct words always one token", "kept_whole_share", "{:.1%}"),
    ("used", "distinct ids emitted", "used", "{:,}"),
    ("util.", "used / vocabulary size", "utilization", "{:.1%}"),
    ("rényi", "Rényi efficiency, alpha 2.5", "renyi_efficiency", "{:.4f}"),
    ("premium", "tokens / first corpus's tokens", "premium", "{:.3f}"),
]


def cells(result: Evaluation, t: int, c: int) -> list[str]:
    """The formatted cells of one row (``n/a`` where a number is unknown)."""
    m = result.get(t, c)
    out = []
    for _, _, attr, fmt in COLUMNS:
        if attr == "premium":
            if len(result.corpora) < 2:
                continue
            value = result.premium(t, c)
        else:
            value = getattr(m, attr)
        out.append("n/a" if value is None else fmt.format(value))
    return out


def headers(result: Evaluation) -> list[str]:
    return ["table", "corpus"] + [label for label, _, attr, _ in COLUMNS if attr != "premium" or len(result.corpora) > 1]


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


#: The side-by-side rows after the vocabulary size and the bytes per token: (label, how to
#: read it, a function of a TableSummary giving the cell; None: not known).
SIDE_ROWS: list[tuple[str, str, Callable[[TableSummary], str | None]]] = [
    ("premium spread", "largest token premium - smallest", lambda s: None if s.parity is None else f"{s.parity.premium_spread:.3f}"),
    ("worst/best", "tokens of the worst-served corpus / the best-served", lambda s: None if s.parity is None else f"{s.parity.worst_best:.3f}"),
    ("gini", "Gini coefficient of the token counts", lambda s: None if s.parity is None else f"{s.parity.gini:.4f}"),
    ("scaffold", "intermediate tokens (the audit's) / vocabulary", lambda s: f"{s.scaffold_share:.1%} ({s.scaffold:,})"),
    ("unused", "tokens no corpus gives / vocabulary", lambda s: f"{s.unused_share:.1%} ({s.unused:,})"),
    ("superwords", "tokens spanning a space / vocabulary", lambda s: f"{s.superword_share:.1%} ({s.superwords:,})"),
]


def side_rows(summaries: Sequence[TableSummary], per_corpus: bool = True) -> list[list[str]]:
    """The side-by-side block as rows of cells: a measure's label, then one cell per table.
    ``per_corpus``: a bytes-per-token row per corpus (else only all corpora together); the
    parity rows only with two corpora or more."""
    corpora = summaries[0].corpora if summaries else ()
    rows = [["vocabulary"] + [f"{s.vocab_size:,}" for s in summaries]]
    if per_corpus:
        rows += [[f"bytes/tok {label}"] + [f"{s.bytes_per_token[c]:.4f}" for s in summaries] for c, label in enumerate(corpora)]
    if len(corpora) > 1 or not per_corpus:
        rows.append(["bytes/tok all" if len(corpora) > 1 else "bytes/tok"] + [f"{s.overall_bytes_per_token:.4f}" for s in summaries])
    for label, _, cell in SIDE_ROWS:
        values = [cell(s) for s in summaries]
        if any(v is not None for v in values):
            rows.append([label] + ["n/a" if v is None else v for v in values])
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
