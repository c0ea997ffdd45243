"""The Textual explorer (imported only by the CLI's interactive commands).

Entry points live in :mod:`bpe_tui.ui.app`: ``run_explorer(paths, config)`` and
``run_inspect(table_path)``. Nothing here is imported by the core; importing this package
does not import textual. It does teach rich the terminal's width of a spacing mark (see
:mod:`bpe_tui.ui.widths`), before anything of the explorer is drawn or measured.
"""

from .widths import agree_with_the_terminal

agree_with_the_terminal()
