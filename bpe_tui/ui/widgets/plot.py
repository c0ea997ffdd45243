"""A chart on screen: textual-plotext's :class:`PlotextPlot`, fed by a chart of
:mod:`bpe_tui.charts`, in the theme's colours.

The widget adds three things to PlotextPlot: the series colours come from the theme (the
component classes of ``plot.tcss``, set from theme variables: ctrl+p -> theme redraws the chart
in the new colours, as PlotextPlot's own ``auto`` theme already follows the background and the
text colour); a chart is a function, kept and fed to a fresh figure at every render (plotext's
build turns the data of a log axis into logarithms in place, so a figure built twice would
take the logarithm of a logarithm); and :attr:`Chart.text`, the figure as plain text, what a
person reads (tests).
"""

from __future__ import annotations

from typing import Any, Callable

from rich.style import Style
from rich.text import Text
from textual.app import RenderResult
from textual_plotext import PlotextPlot

from ...charts.figure import RGB, Palette, marker_glyph
from .render import component_style, redraw_on_theme_change

#: How many series colours the theme gives (plot--series-1 .. plot--series-N in plot.tcss).
SERIES = 6
#: Component classes of a chart: its series, the current-step mark, what is muted.
PLOT_CLASSES = {f"plot--series-{n}" for n in range(1, SERIES + 1)} | {"plot--mark", "plot--muted"}

Paint = Callable[[Any, Palette], None]


class Chart(PlotextPlot):
    """A plotext chart whose picture is ``paint(plt, palette)`` (see :meth:`draw`)."""

    COMPONENT_CLASSES = PLOT_CLASSES

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self._paint: Paint | None = None
        self._palette: Palette | None = None

    def on_mount(self) -> None:
        super().on_mount()
        redraw_on_theme_change(self, self.replot)

    def draw(self, paint: Paint) -> None:
        """Show ``paint``'s chart (a function of :mod:`bpe_tui.charts` with its data bound)."""
        self._paint = paint
        self.replot()

    def replot(self) -> None:
        """Draw again (new data, or a new theme's colours)."""
        self._palette = None
        self.refresh()

    def render(self) -> RenderResult:
        if self._paint is not None:
            if self._palette is None:
                self._palette = self.palette()
            self.plt.clear_data()
            self._paint(self.plt, self._palette)
        return super().render()

    def palette(self) -> Palette:
        """The theme's colours for the series, the mark and what is muted."""
        return Palette(
            tuple(self._rgb(f"plot--series-{n}") for n in range(1, SERIES + 1)),
            self._rgb("plot--mark"),
            self._rgb("plot--muted"),
        )

    def series_style(self, index: int) -> Style:
        """The theme's style of series ``index`` (for text beside the chart: a legend)."""
        return component_style(self, f"plot--series-{index % SERIES + 1}")

    def legend(self, entries: list[str]) -> Text:
        """A legend of the curves for under the chart (where plotext's own would cover the
        curves: a dozen languages): each entry after its series' marker, in its style, side
        by side, wrapping between entries only."""
        text = Text(end="")
        for c, entry in enumerate(entries):
            style = self.series_style(c)
            if c:
                text.append("   ")
            text.append(f"{marker_glyph(c)}\u00a0", style + Style(bold=True))
            text.append(entry.replace(" ", "\u00a0"), style)
        return text

    def _rgb(self, name: str) -> RGB:
        color = component_style(self, name).color
        if color is None:
            return None
        triplet = color.get_truecolor()
        return (triplet.red, triplet.green, triplet.blue)

    @property
    def text(self) -> str:
        """The chart as plain text, as drawn at the widget's size (titles, ticks, labels)."""
        return self.plt.uncolorize(self.render().plain)  # type: ignore[union-attr]
