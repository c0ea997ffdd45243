"""The Textual explorer (imported only by the CLI's interactive commands).

Entry points live in :mod:`bpe_tui.ui.app`: ``run_explorer(paths, config)`` and
``run_inspect(table_path)``. Nothing here is imported by the core; importing this package
does not import textual.
"""
