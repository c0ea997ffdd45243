"""Charts of a vocabulary: how long its tokens are, and how often a corpus uses each (Zipf)."""

from __future__ import annotations

from typing import Any, Sequence

from .figure import (
    Palette,
    bar_marker,
    count_ticks,
    empty,
    line_marker,
    log_ticks,
    sample_log,
    start,
    tick_label,
)

#: Lengths from this one up share the last bar ("16+").
LONGEST = 16
#: A column's width, as a share of its slot: a gap between neighbours (plotext's 0.8 lets
#: columns of three cells touch).
BAR_WIDTH = 0.6


def length_bins(lengths: Sequence[int]) -> dict[int, int]:
    """Token lengths counted per length, ``LONGEST`` and up together."""
    out: dict[int, int] = {}
    for n in lengths:
        n = min(n, LONGEST)
        out[n] = out.get(n, 0) + 1
    return out


def token_lengths(plt: Any, palette: Palette, series: Sequence[tuple[str, Sequence[int]]], title: str, axes: bool = True) -> None:
    """A histogram of token lengths, one bar series per way of measuring (``("bytes",
    lengths), ("characters", lengths)``): side by side, each its own fill."""
    bins = [(name, length_bins(lengths)) for name, lengths in series]
    total = max((sum(b.values()) for _, b in bins), default=0)
    if not total:
        empty(plt, title, "no tokens")
        return
    start(plt, f"{title} · {total:,} tokens", *(("length", "tokens") if axes else ()))
    keys = sorted({n for _, b in bins for n in b})
    names = [f"{n}+" if n == LONGEST else str(n) for n in keys]
    values = [[b.get(n, 0) for n in keys] for _, b in bins]
    count_ticks(plt, max(max(v) for v in values))
    if len(values) == 1:  # one series: the title names it, a legend would cover the bars
        plt.bar(names, values[0], width=BAR_WIDTH, marker=bar_marker(0), color=palette.color(0))
    else:
        plt.multiple_bar(
            names, values, marker=[bar_marker(i) for i in range(len(values))], color=[palette.color(i) for i in range(len(values))],
            labels=[name for name, _ in bins],
        )


def zipf(plt: Any, palette: Palette, counts: Sequence[int], vocab_size: int, corpus: str = "") -> None:
    """Token use by rank (rank 1: the most used token), log-log: Zipf's law as a falling line.
    The ids never used have no point on a log axis: a vertical line marks where the used ones
    end, an x at the vocabulary's size where the unused tail would end, and the title says
    how many are left unused. (No legend: it would sit on the head of the curve.)"""
    used = sorted((c for c in counts if c > 0), reverse=True)
    title = "Zipf: uses by rank"
    if not used:
        empty(plt, title, "no token used")
        return
    unused = max(0, vocab_size - len(used))
    start(plt, f"{title} · {unused:,} unused (x)", xlabel=f"rank on {corpus}" if corpus else "rank", ylabel="uses")
    plt.xscale("log")
    plt.yscale("log")
    ranked = sample_log(list(enumerate(used, 1)))
    plt.plot([r for r, _ in ranked], [c for _, c in ranked], marker=line_marker(0), color=palette.color(0))
    if unused:
        plt.vline(len(used), color=palette.muted)
        plt.scatter([max(vocab_size, len(used) + 1)], [1], marker="x", color=palette.muted)
    xs, ys = log_ticks(max(vocab_size, 1)), log_ticks(used[0])
    if len(xs) > 1:
        plt.xticks(xs, [tick_label(x) for x in xs])
    if len(ys) > 1:
        plt.yticks(ys, [tick_label(y) for y in ys])


#: The bins of a usage histogram, by tens: (label, lowest count, highest count or None).
USAGE_BINS = (("0", 0, 0), ("1", 1, 1), ("2+", 2, 9), ("10+", 10, 99), ("100+", 100, 999), ("1k+", 1000, 9999), ("10k+", 10000, None))


def usage(plt: Any, palette: Palette, counts: Sequence[int] | None, title: str) -> None:
    """How often the tokens of a set are used on the corpus, in bins of tens (0, 1, 2-9, ...)."""
    if counts is None:
        empty(plt, title, "no corpus (^o)")
        return
    if not counts:
        empty(plt, title, "no tokens")
        return
    start(plt, f"{title} · {len(counts):,} tokens")
    values = [sum(1 for c in counts if low <= c and (high is None or c <= high)) for _, low, high in USAGE_BINS]
    count_ticks(plt, max(values))
    plt.bar([name for name, _, _ in USAGE_BINS], values, width=BAR_WIDTH, marker=bar_marker(0), color=palette.color(0))


def category_counts(plt: Any, palette: Palette, counts: Sequence[int | None], title: str) -> None:
    """Tokens per audit category, one bar each, numbered 1, 2, ... as the categories are
    listed beside the chart (names do not fit under bars in a terminal; numbers do). A
    category that needs a corpus which was not given has no bar, and the title says so."""
    if not counts:
        empty(plt, title, "no categories")
        return
    missing = [str(k) for k, n in enumerate(counts, 1) if n is None]
    start(plt, f"{title} · {','.join(missing)}: no corpus" if missing else title)
    count_ticks(plt, max(n or 0 for n in counts))
    plt.bar([str(k) for k in range(1, len(counts) + 1)], [n or 0 for n in counts], width=BAR_WIDTH, marker=bar_marker(0), color=palette.color(0))
