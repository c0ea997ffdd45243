"""The commands that open the explorer: ``bpe-tui [CORPUS...]``, ``bpe-tui open TABLE`` and
``bpe-tui learn``. The Textual app is imported only here, and only when one of them runs.
"""

from __future__ import annotations

import argparse
import shlex
from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..core.engine.config import EXPLORER_MAX_TOKEN_LENGTH, TrainerConfig
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
    VersionAction,
)
from .languages import languages_from_args
from .variants import own_variant, variant_requested
from .terminal import explorer_ended
from .train import check_target_before_counting

if TYPE_CHECKING:
    from ..core.tables.table import MergeTable


def build_explorer_parser() -> argparse.ArgumentParser:
    p = OneLineParser(
        prog="bpe-tui",
        description="Open the explorer on a corpus (the built-in demo corpus if none is given). "
        f"Subcommands: {', '.join(SUBCOMMANDS)} (bpe-tui COMMAND --help).",
    )
    p.add_argument("--version", action=VersionAction)
    p.add_argument("corpus", nargs="*", help="text files (.gz .bz2 .xz .zst too), JSON lines, Parquet, directories, globs, or - for stdin")
    add_training_options(p)
    return p


def open_checked(args: argparse.Namespace):
    """``bpe-tui open``'s tables, read: errors are one line, before a screen opens (``serve``
    checks the same before it listens)."""
    from ..core.tables.formats import load

    table = load_table(args, args.table)
    if args.compare is not None:
        load(args.compare)
    return table


def cmd_open(args: argparse.Namespace) -> int:
    from ..ui.app import run_inspect

    table = open_checked(args)
    return explorer_ended(run_inspect(args.table, compare_path=args.compare, table=table))


def cmd_learn(args: argparse.Namespace) -> int:
    from ..core.teaching.lessons import STOPS

    if not 1 <= args.stop <= len(STOPS):
        raise BPEError(f"--stop {args.stop}: the tour has stops 1 to {len(STOPS)}")
    STOPS[args.stop - 1].example.trainer()  # a missing worked example: one line, before the screen opens
    from ..ui.app import run_tour

    return explorer_ended(run_tour(args.stop - 1))


def explore_checked(argv: Sequence[str]) -> tuple[argparse.Namespace, TrainerConfig, MergeTable | None]:
    """The explorer's arguments parsed and checked, its start table (``--from``) read: every
    error is one line, before a screen opens (``serve`` checks the same before it listens)."""
    args = build_explorer_parser().parse_args(argv)
    check_workers(args)
    start = None
    if args.from_table is not None:  # read here: errors are one line, before the screen opens
        start, cfg = start_from_args(args, default_max_length=EXPLORER_MAX_TOKEN_LENGTH)
    else:
        cfg = config_from_args(args, default_max_length=EXPLORER_MAX_TOKEN_LENGTH)
    dask_from_args(args)  # --dask without dask installed: one line
    record_options(args)  # a bad --text-field: one line
    from ..core.text.sources import expand_sources

    if args.corpus:
        expand_sources(args.corpus)  # a missing file is a one-line error, not a broken screen
        refuse_tables(args.corpus)
    languages = checked_languages(args)
    own_variant(args)  # --variant MODULE:CLASS: loaded and made now, its errors one line
    if start is None:
        check_target_before_counting(cfg, args.corpus or list(languages or ()) or ["demo.txt"])
    if args.workers is not None:
        from ..core.text.corpus import resolve_workers

        resolve_workers(args.workers, 0)  # a bad --workers is a one-line error too
    return args, cfg, start


def refuse_tables(paths: Sequence[str]) -> None:
    """A merge table given where a corpus goes (``bpe-tui tables/llama3``) would be trained on
    as text: one line saying how to open it instead."""
    from ..core.tables.formats import table_not_corpus

    for path in paths:
        if path == "-" or "://" in path:
            continue
        found = table_not_corpus(path)
        if found is not None:
            raise BPEError(f"{path}: a merge table ({found.NAME}), not a corpus: open it with bpe-tui open {shlex.quote(path)} (or train on from it with --from)")


def languages_asked(args: argparse.Namespace) -> bool:
    """Whether the command line asks for the variant that trains on a corpus per language."""
    return any(cls.takes_languages for cls in variant_requested(args))


def checked_languages(args: argparse.Namespace) -> dict[str, list[str]] | None:
    """The languages of a variant that trains on one corpus per language (``--language``):
    checked, their files there (one-line errors before the screen opens); None without them."""
    from ..core.text.sources import expand_sources

    if not languages_asked(args):
        return None
    if args.counts or args.dask:
        raise BPEError(f"{'--counts' if args.counts else '--dask'} does not go with --language: each language's text is read here")
    corpora, dev, _ = languages_from_args(args)
    for paths in corpora.values():
        expand_sources(paths)
    for path in (dev or {}).values():
        expand_sources([path])
    return corpora


def cmd_explore(argv: Sequence[str]) -> int:
    args, cfg, start = explore_checked(argv)
    from ..ui.app import run_explorer

    options: dict = dict(errors=args.errors, counts=args.counts, workers=args.workers, dask=args.dask, records=record_options(args))
    if start is not None:
        options["start"] = start  # the table to go on from
    if languages_asked(args):
        options["languages"] = languages_from_args(args)  # (checked by explore_checked)
    if args.variant:
        options["variant"] = lambda: own_variant(args)  # (a fresh one for each trainer the explorer builds)
    if args.check_variant:
        options["check_variant"] = True
    return explorer_ended(run_explorer(args.corpus or None, cfg, **options))


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
