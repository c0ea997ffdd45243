"""The look every chart shares: the palette (colours and markers) and data sampling.

Colours come from the caller (the explorer reads them from the theme; the command line lets
plotext choose); markers differ from series to series, so a chart still reads under NO_COLOR
or in a ``.txt`` file, where colours are gone.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence, TypeVar

import plotext._utility as _plotext_utility


def _first_seen(data: Any) -> list:
    """``data`` without duplicates, in first-seen order."""
    return list(dict.fromkeys(data))


# plotext (5.3) removes duplicate points and ticks with list(set(...)): their order, and so
# which of two labels or points sharing a cell is drawn, then depends on the string hashes
# of the process (PYTHONHASHSEED): the same chart came out with "9" or "10" under its last
# column from one run to the next. The same values in first-seen order (plotext's own
# commented-out alternative) make a chart the same every time: the screen, --plot, snapshots.
_plotext_utility.no_duplicates = _first_seen

#: A colour plotext understands: an (r, g, b) triple, or None for plotext's own choice.
RGB = tuple[int, int, int] | None

#: Markers of line/scatter series, one per series: dots of braille, then visible glyphs.
LINE_MARKERS = ("braille", "•", "x", "+", "o", "*", "#", "@", "%", "&", "=", "~")
#: Fill characters of bar series, one per series (solid, then shaded).
BAR_MARKERS = ("█", "▒", "░", "▓")
#: The most points a curve is drawn with: a terminal is at most a few hundred cells wide
#: (two braille dots per cell), so more points only cost time (GPT-2 has 50,000 merges).
MAX_POINTS = 600


@dataclass(frozen=True)
class Palette:
    """The colours of a chart's series, of the current-step mark and of what is muted (the
    undone merges, the unused tail). None everywhere: plotext's defaults (headless)."""

    series: tuple[RGB, ...] = (None,)
    mark: RGB = None
    muted: RGB = None

    def color(self, index: int) -> RGB:
        return self.series[index % len(self.series)]


def line_marker(index: int) -> str:
    return LINE_MARKERS[index % len(LINE_MARKERS)]


def marker_glyph(index: int) -> str:
    """The character series ``index`` of a line chart is drawn with (for a legend of our own
    beside the chart: braille dots show as ⠿)."""
    marker = line_marker(index)
    return "⠿" if marker == "braille" else marker


def bar_marker(index: int) -> str:
    return BAR_MARKERS[index % len(BAR_MARKERS)]


T = TypeVar("T")


def sample(points: Sequence[T], limit: int = MAX_POINTS) -> list[T]:
    """At most ``limit`` of ``points``, evenly spaced, the first and the last always kept
    (a curve keeps its ends; the current step stays where it is)."""
    n = len(points)
    if n <= limit:
        return list(points)
    stride = (n - 1) / (limit - 1)
    return [points[round(i * stride)] for i in range(limit)]


def sample_log(points: Sequence[T], limit: int = MAX_POINTS) -> list[T]:
    """At most about ``limit`` of ``points``, spaced evenly on a log scale (for a log x axis:
    the head, where the first ranks are far apart, keeps every point), first and last kept."""
    n = len(points)
    if n <= limit:
        return list(points)
    picks = {0, n - 1}
    picks.update(min(n - 1, round(n ** (k / (limit - 1))) - 1) for k in range(limit))
    return [points[i] for i in sorted(picks)]


def start(plt: Any, title: str, xlabel: str = "", ylabel: str = "") -> None:
    """A clean figure with a title and axis labels (a chart's first call)."""
    plt.clear_figure()
    plt.title(title)
    if xlabel:
        plt.xlabel(xlabel)
    if ylabel:
        plt.ylabel(ylabel)


def empty(plt: Any, title: str, why: str) -> None:
    """A chart with nothing to draw yet says why, in its title (axes of nothing mislead)."""
    start(plt, f"{title}: {why}")


def log_ticks(top: float) -> list[int]:
    """Powers of ten from 1 up to ``top``: the ticks of a log axis, read as counts."""
    ticks = [1]
    while ticks[-1] * 10 <= top:
        ticks.append(ticks[-1] * 10)
    return ticks


def count_ticks(plt: Any, top: int, axis: str = "y", bottom: int = 0, side: str | None = None) -> None:
    """Whole-number ticks (at most five) from ``bottom`` to ``top`` on an axis of counts or
    merges (``side``: plotext's "left"/"right" or "lower"/"upper"; None: the first): plotext's
    own would read 30.3, 60.7 tokens or merge 27.5."""
    if top <= bottom:
        return
    ticks = sorted({bottom + round((top - bottom) * k / 4) for k in range(5)})
    labels = [tick_label(t) for t in ticks]
    if axis == "y":
        plt.yticks(ticks, labels, yside=side)
    else:
        plt.xticks(ticks, labels, xside=side)


def tick_label(n: float) -> str:
    """A tick's number, short where it is round: 1, 10, 1k, 50k, 2M; else 1,372 or 0.5."""
    if n >= 1_000_000 and n % 1_000_000 == 0:
        return f"{n / 1_000_000:g}M"
    if n >= 1000 and n % 1000 == 0:
        return f"{n / 1000:g}k"
    if n == int(n):
        return f"{int(n):,}"
    return f"{n:g}"
