"""Charts of an evaluation: one metric per corpus (bars), and over merges (one curve each)."""

from __future__ import annotations

from typing import Any, Sequence

from .figure import Palette, bar_marker, count_ticks, empty, line_marker, start


def metric_bars(
    plt: Any, palette: Palette, labels: Sequence[str], values: Sequence[Any], title: str, series: Sequence[str] = ()
) -> None:
    """The metric per corpus on a value axis. ``values``: one value per corpus (None: none,
    as the premium of the reference itself): horizontal bars, each half of two rows (give the
    chart :func:`bars_height` rows: a terminal row is too coarse for a bar of one); or, with ``series`` (one name per table), one list of
    values per table: columns side by side under each corpus, each table its own fill and
    a legend entry (a terminal row is too coarse to group bars across)."""
    rows = [list(v) for v in values] if series else [list(values)]
    keep = [c for c in range(len(labels)) if any(r[c] is not None for r in rows)]
    if not keep:
        empty(plt, title, "no value")
        return
    start(plt, title)
    names = [labels[c] for c in keep]
    data = [[r[c] or 0 for c in keep] for r in rows]
    if len(data) == 1:
        plt.bar(names[::-1], data[0][::-1], orientation="h", width=0.5, marker=bar_marker(0), color=palette.color(0))
    else:
        plt.multiple_bar(
            names, data, marker=[bar_marker(t) for t in range(len(data))], color=[palette.color(t) for t in range(len(data))],
            labels=list(series),
        )


def bars_height(bars: int) -> int:
    """The rows a chart of ``bars`` horizontal bars needs: two a bar, with the title, the
    frame and the ticks (at another height plotext rounds bars into their neighbours' rows)."""
    return 2 * bars + 4


def metric_curves(
    plt: Any,
    palette: Palette,
    steps: Sequence[int],
    labels: Sequence[str],
    series: Sequence[Sequence[float | None]],
    title: str,
    legend: bool = True,
    mark: int | None = None,
    whole: bool = False,
) -> None:
    """The metric over merges, one curve per corpus with its own marker (the table cut after
    each of ``steps`` merges), and plotext's legend inside the chart; ``legend=False`` leaves
    it to the caller (twelve languages' legend would cover the early merges, where the curves
    rise: the Evaluate view lists them under the chart, see :func:`marker_glyph`); ``mark``:
    a step to mark with a vertical line (the trainer's current one); ``whole``: the values are
    counts (whole-number ticks)."""
    if not steps or not labels:
        empty(plt, title, "no curve")
        return
    start(plt, title, xlabel="merges")
    for c, (label, values) in enumerate(zip(labels, series)):
        points = [(s, v) for s, v in zip(steps, values) if v is not None]
        if points:
            plt.plot(
                [s for s, _ in points], [v for _, v in points], marker=line_marker(c), color=palette.color(c),
                label=label if legend else None,
            )
    if mark is not None:
        plt.vline(mark, color=palette.mark)
    every = [x for xs in series for x in xs if x is not None]
    if whole and every:
        count_ticks(plt, int(max(every)), "y", int(min(every)))
    if steps[-1] == steps[0]:
        plt.xlim(steps[0] - 1, steps[0] + 1)
    else:
        count_ticks(plt, steps[-1], "x", steps[0])
