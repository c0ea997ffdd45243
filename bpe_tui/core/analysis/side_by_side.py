"""Tables side by side: what each table of an evaluation does across all its corpora.

:func:`~bpe_tui.core.analysis.evaluate.evaluate` measures every table on every corpus; a
researcher comparing a BPE variant with plain BPE also asks questions of a table as a whole,
which :func:`side_by_side` answers from the same evaluation:

bytes per token
    Per corpus (as the evaluation has it), and over all the corpora together (their bytes
    over their tokens).
parity across the corpora (two corpora or more)
    On parallel text (the same sentences in several languages) a language's tokens are what
    it pays for the same content. With ``tokens[c]`` the tokens of corpus c:

    * **premium spread**: the largest token premium minus the smallest, the premium being
      ``tokens[c] / tokens[0]`` (the evaluation's, against the first corpus);
    * **worst/best**: ``max(tokens) / min(tokens)``, the premium of the language served
      worst over the one served best, whatever corpus came first (1.0: parity);
    * **Gini**: the Gini coefficient of the token counts,
      ``sum over c, d of |tokens[c] - tokens[d]| / (2 n^2 mean(tokens))``: 0 when every
      language pays the same, towards 1 when one language pays for all (the measure
      parity-aware BPE, Foroutan et al. 2025, reports for its fairness).

    On corpora that are not parallel these say how long the corpora are, not how fair the
    table is.
scaffold share
    The audit's ``intermediate`` tokens (:func:`~bpe_tui.core.analysis.audit.intermediate_tokens`)
    on all the corpora together, over the vocabulary size: tokens that exist to build longer
    ones and hardly ever stand alone (what PickyBPE sets out to remove).
unused share
    The audit's ``unused`` tokens (:func:`~bpe_tui.core.analysis.audit.unused_tokens`): tokens
    no corpus's encoding gives, over the vocabulary size.
superword share
    The audit's ``superword`` tokens (:func:`~bpe_tui.core.analysis.audit.superword_tokens`):
    tokens that span a space, over the vocabulary size (what SuperBPE sets out to make).

The vocabulary sizes are part of the answer: a variant compared with plain BPE at another
size is a comparison of sizes as much as of algorithms (:func:`size_note` says so in a line).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..tables.table import MergeTable
from .audit import intermediate_tokens, superword_tokens, unused_tokens
from .evaluate import Evaluation

__all__ = ["Parity", "TableSummary", "gini", "parity", "rows", "side_by_side", "size_note"]


def gini(values: Sequence[float]) -> float:
    """The Gini coefficient of non-negative ``values``: their mean absolute difference over
    twice their mean (0: all equal; 0 for no values or values all 0)."""
    n, total = len(values), sum(values)
    if not n or not total:
        return 0.0
    ordered = sorted(values)
    # sum over pairs of |x_i - x_j| = 2 * sum_k (2k - n + 1) x_(k) for the sorted values
    return float(sum((2 * k - n + 1) * x for k, x in enumerate(ordered)) / (n * total))


@dataclass(frozen=True)
class Parity:
    """How evenly a table serves parallel corpora (module docstring)."""

    premium_spread: float
    worst_best: float
    gini: float


def parity(tokens: Sequence[int]) -> Parity | None:
    """The parity measures of the token counts of two corpora or more (None for fewer, or
    when a corpus encodes to no token)."""
    if len(tokens) < 2 or min(tokens) <= 0:
        return None
    premiums = [t / tokens[0] for t in tokens]
    return Parity(max(premiums) - min(premiums), max(tokens) / min(tokens), gini(tokens))


@dataclass(frozen=True)
class TableSummary:
    """One table across all the corpora of an evaluation (module docstring)."""

    table: str
    vocab_size: int
    corpora: tuple[str, ...]
    bytes_per_token: tuple[float, ...]  # per corpus
    overall_bytes_per_token: float  # all corpora together
    parity: Parity | None
    scaffold: int
    unused: int
    superwords: int

    def share(self, count: int) -> float:
        return count / self.vocab_size if self.vocab_size else 0.0

    @property
    def scaffold_share(self) -> float:
        return self.share(self.scaffold)

    @property
    def unused_share(self) -> float:
        return self.share(self.unused)

    @property
    def superword_share(self) -> float:
        return self.share(self.superwords)

    def as_dict(self) -> dict[str, Any]:
        """The table's numbers across the corpora, for JSON."""
        p = self.parity
        return {
            "vocab_size": self.vocab_size,
            "bytes_per_token_all": round(self.overall_bytes_per_token, 6),
            "premium_spread": None if p is None else round(p.premium_spread, 6),
            "worst_best": None if p is None else round(p.worst_best, 6),
            "gini": None if p is None else round(p.gini, 6),
            "scaffold_tokens": self.scaffold,
            "scaffold_share": round(self.scaffold_share, 6),
            "unused_tokens": self.unused,
            "unused_share": round(self.unused_share, 6),
            "superword_tokens": self.superwords,
            "superword_share": round(self.superword_share, 6),
        }


def side_by_side(tables: Sequence[MergeTable], result: Evaluation) -> list[TableSummary]:
    """Each table of an evaluation across all its corpora (module docstring).

    Args:
        tables: The tables, in the order ``result`` evaluated them.
        result: Their evaluation.

    Returns:
        One summary per table: sizes, bytes per token, parity, scaffold, unused and
        superword tokens.
    """
    out = []
    for t, table in enumerate(tables):
        row = result.metrics[t]
        emitted: Counter[int] = Counter()
        for m in row:
            emitted.update(m.counts)
        tokens = sum(m.tokens for m in row)
        out.append(
            TableSummary(
                result.tables[t],
                len(table),
                result.corpora,
                tuple(m.bytes_per_token for m in row),
                sum(m.bytes for m in row) / tokens if tokens else 0.0,
                parity([m.tokens for m in row]),
                len(intermediate_tokens(table, emitted)),
                len(unused_tokens(table, emitted)),
                len(superword_tokens(table)),
            )
        )
    return out


def size_note(summaries: Sequence[TableSummary]) -> str | None:
    """One line when the tables' vocabulary sizes differ (None when they agree)."""
    sizes = {s.vocab_size for s in summaries}
    if len(sizes) < 2:
        return None
    listed = ", ".join(f"{s.table} {s.vocab_size:,}" for s in summaries)
    return f"the vocabulary sizes differ ({listed}): the tables are not compared at the same size"


def rows(result: Evaluation, summaries: Sequence[TableSummary]) -> list[dict[str, Any]]:
    """The evaluation's rows (one per table x corpus, :meth:`Evaluation.rows`), each with its
    table's numbers across the corpora added (the same on every row of a table)."""
    per_table = len(result.corpora)
    return [{**row, **summaries[k // per_table].as_dict()} for k, row in enumerate(result.rows())]
