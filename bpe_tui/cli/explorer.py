"""The commands that open the explorer: ``bpe-tui [CORPUS...]``, ``bpe-tui open TABLE`` and
``bpe-tui learn``. The Textual app is imported only here, and only when one of them runs.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from .. import __version__
from ..core.engine.config import EXPLORER_MAX_TOKEN_LENGTH
from ..core.errors import BPEError
from .options import (
    SUBCOMMANDS,
    OneLineParser,
    add_table_rules,
    add_training_options,
    check_workers,
    config_from_args,
    dask_from_args,
    load_table,
    record_options,
    start_from_args,
)
from .train import check_target_before_counting


def build_explorer_parser() -> argparse.ArgumentParser:
    p = OneLineParser(
        prog="bpe-tui",
        description="Open the explorer on a corpus (the built-in demo corpus if none is given). "
        f"Subcommands: {', '.join(SUBCOMMANDS)} (bpe-tui COMMAND --help).",
    )
    p.add_argument("--version", action="version", version=f"bpe-tui {__version__}")
    p.add_argument("corpus", nargs="*", help="text files (.gz .bz2 .xz .zst too), JSON lines, Parquet, directories, globs, or - for stdin")
    add_training_options(p)
    return p


def cmd_open(args: argparse.Namespace) -> int:
    from ..core.tables.formats import load
    from ..ui.app import run_inspect

    table = load_table(args, args.table)  # read here: errors are one line, before the screen opens
    if args.compare is not None:
        load(args.compare)
    return run_inspect(args.table, compare_path=args.compare, table=table)


def cmd_learn(args: argparse.Namespace) -> int:
    from ..core.teaching.lessons import STOPS

    if not 1 <= args.stop <= len(STOPS):
        raise BPEError(f"--stop {args.stop}: the tour has stops 1 to {len(STOPS)}")
    STOPS[args.stop - 1].example.trainer()  # a missing worked example: one line, before the screen opens
    from ..ui.app import run_tour

    return run_tour(args.stop - 1)


def cmd_explore(argv: Sequence[str]) -> int:
    args = build_explorer_parser().parse_args(argv)
    check_workers(args)
    start = None
    if args.from_table is not None:  # read here: errors are one line, before the screen opens
        start, cfg = start_from_args(args, default_max_length=EXPLORER_MAX_TOKEN_LENGTH)
    else:
        cfg = config_from_args(args, default_max_length=EXPLORER_MAX_TOKEN_LENGTH)
    dask = dask_from_args(args)
    records = record_options(args)
    from ..core.text.sources import expand_sources

    if args.corpus:
        expand_sources(args.corpus)  # a missing file is a one-line error, not a broken screen
    if start is None:
        check_target_before_counting(cfg, args.corpus or ["demo.txt"])
    if args.workers is not None:
        from ..core.text.corpus import resolve_workers

        resolve_workers(args.workers, 0)  # a bad --workers is a one-line error too
    from ..ui.app import run_explorer

    options: dict = dict(errors=args.errors, counts=args.counts, workers=args.workers, dask=dask, records=records)
    if start is not None:
        import inspect

        if "start" not in inspect.signature(run_explorer).parameters:
            raise BPEError("--from: this explorer cannot open a start table yet (the UI half of #14 is not merged); use `bpe-tui train CORPUS --from TABLE -o OUT`")
        options["start"] = start  # the table to go on from (ui: run_explorer(..., start=MergeTable))
    return run_explorer(args.corpus or None, cfg, **options)


def add_open_parser(sub) -> None:
    """``bpe-tui open``: its options."""
    o = sub.add_parser("open", help="open a merge table in the explorer")
    o.add_argument("table")
    o.add_argument("--compare", metavar="TABLE_B", help="open the comparison view of TABLE and TABLE_B on the same text")
    add_table_rules(o)
    o.set_defaults(run=cmd_open)


def add_learn_parser(sub) -> None:
    """``bpe-tui learn``: its options."""
    le = sub.add_parser("learn", help="a guided tour of BPE on the worked examples, in the explorer")
    le.add_argument("--stop", type=int, default=1, metavar="N", help="begin at stop N (default 1)")
    le.set_defaults(run=cmd_learn)
