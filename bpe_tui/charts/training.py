"""Charts of training (the explorer's Stats tab, explore mode): compression and vocabulary over
merges, the distribution of pair counts, and the merge at which watched words become one token."""

from __future__ import annotations

from typing import Any, Sequence

from .figure import (
    Palette,
    count_ticks,
    empty,
    line_marker,
    log_ticks,
    sample,
    sample_log,
    start,
    tick_label,
)


#: How many dots draw the vocabulary's dotted line: few enough that dots stand apart on the
#: narrowest Stats tab (about 60 braille columns), many enough to read as a line.
DOTTED_POINTS = 30


def compression(
    plt: Any,
    palette: Palette,
    merges: Sequence[int],
    per_token: Sequence[float],
    vocab: Sequence[int],
    step: int,
    unit: str = "characters",
) -> None:
    """``unit`` per token (left axis) and the vocabulary size (right axis) after each merge in
    ``merges`` (the first entry: before any merge), the current ``step`` marked by a vertical
    line. Merges after ``step`` (undone, still re-doable) are drawn muted."""
    short = "chars" if unit == "characters" else unit
    if not merges:
        empty(plt, f"{short}/token, vocabulary", "no corpus")
        return
    # titles and legends short: plotext leaves out what does not fit (the Stats tab at 80x24)
    start(plt, f"{short}/token, vocabulary · step {step:,}", xlabel="merges")
    rows = list(zip(merges, per_token, vocab))
    done = sample([r for r in rows if r[0] <= step])
    undone = sample([r for r in rows if r[0] >= step])
    # Both lines in braille dots, the finest a terminal cell can draw (2 x 4 dots); without
    # colour they differ by pattern: chars/token a solid line, the vocabulary a dotted one.
    if done:
        xs = [r[0] for r in done]
        plt.plot(xs, [r[1] for r in done], marker="braille", color=palette.color(0), label=f"{short}/token")
        dots = sample([r for r in rows if r[0] <= step], DOTTED_POINTS)
        plt.scatter([r[0] for r in dots], [r[2] for r in dots], marker="braille", color=palette.color(1), label="vocabulary (dotted)", yside="right")
        count_ticks(plt, done[-1][2], "y", done[0][2], side="right")
    if len(undone) > 1:  # undone merges: muted, right of the current step's mark
        plt.plot([r[0] for r in undone], [r[1] for r in undone], marker="braille", color=palette.muted, label="undone")
    plt.vline(step, color=palette.mark)
    if merges[-1] == merges[0]:  # one point: give the x axis a width
        plt.xlim(merges[0] - 1, merges[0] + 1)
    else:
        count_ticks(plt, merges[-1], "x", merges[0])


def pair_counts(plt: Any, palette: Palette, histogram: dict[int, int]) -> None:
    """How many distinct pairs occur k times, for each k (log-log): the long tail of pairs seen
    once or twice that late merges choose among."""
    title = "pairs occurring k times"
    points = sorted((k, n) for k, n in histogram.items() if k > 0 and n > 0)
    if not points:
        empty(plt, title, "no pairs left")
        return
    start(plt, f"{title} (log-log)", xlabel=f"k · {sum(n for _, n in points):,} pairs in all", ylabel="pairs")
    plt.xscale("log")
    plt.yscale("log")
    points = sample_log(points)
    plt.scatter([k for k, _ in points], [n for _, n in points], marker=line_marker(1), color=palette.color(0))
    _log_ticks(plt, max(k for k, _ in points), max(n for _, n in points))


def _log_ticks(plt: Any, xtop: float, ytop: float) -> None:
    xs = log_ticks(xtop)
    ys = log_ticks(ytop)
    if len(xs) > 1:
        plt.xticks(xs, [tick_label(x) for x in xs])
    if len(ys) > 1:
        plt.yticks(ys, [tick_label(y) for y in ys])


def word_timeline(plt: Any, palette: Palette, words: Sequence[tuple[str, int | None]], step: int) -> None:
    """The merge at which each watched word became one token (seed 001's picture), one row per
    word; a word not yet one token has no point and says so in its label."""
    title = "when each word becomes one token"
    if not words:
        empty(plt, "words", "watch some above")
        return
    start(plt, title, xlabel="merge")
    rows = list(range(len(words), 0, -1))  # the first word on top
    plt.yticks(rows, [w if m is not None else f"{w} (not yet)" for w, m in words])
    done = [(m, y) for (_, m), y in zip(words, rows) if m is not None]
    if done:
        plt.scatter([m for m, _ in done], [y for _, y in done], marker=line_marker(4), color=palette.color(0))
    plt.vline(step, color=palette.mark)
    plt.ylim(0.5, len(words) + 0.5)
    right = max([step, 1] + [m for m, _ in done])
    plt.xlim(0, right)
    count_ticks(plt, right, "x")


def merge_counts(
    plt: Any, palette: Palette, counts: Sequence[int], step: int | None, why: str, recut_from: int | None = None
) -> None:
    """How often each merged pair occurred when it was merged (merge 1 first; log count axis):
    the falling curve that says when merges start to matter little. ``step`` marks the
    current merge (None: no mark); ``why`` is said when there are no counts.
    ``recut_from``: the first merge of SuperBPE's second stage, where the corpus the
    counts come from changed (words became chunks): said in the x label."""
    title = "merge counts"
    if not counts:
        empty(plt, title, why)
        return
    xlabel = "merge" if recut_from is None else f"merge (superwords from merge {recut_from:,})"
    start(plt, f"{title}: {counts[0]:,} → {counts[-1]:,}", xlabel=xlabel, ylabel="count")
    if min(counts) > 0:  # a log axis (a count of 0, which a stored table may hold, has no place on it)
        plt.yscale("log")
        ys = log_ticks(max(counts))
        if len(ys) > 1:
            plt.yticks(ys, [tick_label(y) for y in ys])
    points = sample(list(enumerate(counts, 1)))
    plt.plot([m for m, _ in points], [c for _, c in points], marker=line_marker(0), color=palette.color(0))
    if step is not None:
        plt.vline(step, color=palette.mark)
    if len(counts) == 1:
        plt.xlim(0, 2)
    else:
        count_ticks(plt, len(counts), "x", 1)
