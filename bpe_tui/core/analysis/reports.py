"""An evaluation as text: an aligned table for the terminal and a Markdown table for a README.

One row per table x corpus, one column per metric of :class:`~bpe_tui.core.analysis.evaluate.Metrics`
(``COLUMNS`` says each column's label, how to read it and its format); the premium column only
when there are two corpora or more to compare.
"""

from __future__ import annotations

from .evaluate import Evaluation

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
    head = headers(result)
    widths = [max(len(r[k]) for r in rows + [head]) for k in range(len(head))]

    def line(r: list[str]) -> str:
        return "  ".join(v.ljust(w) if k < 2 else v.rjust(w) for k, (v, w) in enumerate(zip(r, widths))).rstrip()

    return "\n".join([line(head), line(["-" * w for w in widths])] + [line(r) for r in rows])


def format_markdown(result: Evaluation) -> str:
    """The same as a Markdown table (GitHub flavour), numbers right-aligned."""
    head = headers(result)
    out = ["| " + " | ".join(head) + " |", "|" + "|".join(":---" if k < 2 else "---:" for k in range(len(head))) + "|"]
    for t in range(len(result.tables)):
        for c in range(len(result.corpora)):
            row = [result.tables[t], result.corpora[c]] + cells(result, t, c)
            out.append("| " + " | ".join(v.replace("|", "\\|") for v in row) + " |")
    return "\n".join(out)
