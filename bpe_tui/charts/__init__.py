"""What each chart shows, as calls on a plotext figure: no drawing code of our own.

A chart here is a function ``paint(plt, palette, data...)`` that feeds data to a plotext figure
(``plt``: the ``Plot`` of a textual-plotext :class:`PlotextPlot`, or a headless one). The same
function draws in the explorer (:mod:`bpe_tui.ui.widgets.plot` hands it the widget's figure and
the theme's colours) and on the command line (:mod:`bpe_tui.cli.plot` builds the figure
headless and writes it as text or SVG): a chart's rule lives in one place.

Why a package of its own, outside ``core``: plotext is a drawing library, and ``core`` is a
library of BPE (no drawing, no terminal); the charts are not Textual either, so the CLI can
draw them without starting an App. Layers: cli -> ui -> charts -> core.
"""
