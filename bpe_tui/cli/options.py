"""The options the commands share, and how they become a TrainerConfig or a loaded table.

Training rules (``add_training_options``, ``config_from_args``, ``start_from_args`` for ``--from``),
the rules a table file does not record (``add_table_rules``, ``load_table``), the evaluation
options, and the one-line parser every command uses.
"""

from __future__ import annotations

import argparse
import os

from .. import __version__
from ..core.engine.merge_core import engine_info
from ..core.engine.config import EXPLORER_MAX_TOKEN_LENGTH, PRESETS, TrainerConfig
from ..core.errors import BPEError
from ..core.types import TIE_BREAKS, UNITS
from .variants import add_variant_options, built_in_fields, checked_config, preset_asked, preset_takes_no_limit, variant_requested
from .terminal import say

#: The subcommands, in the order the help lists them; any other first word opens the explorer.
SUBCOMMANDS = ("train", "encode", "decode", "trace", "inspect", "open", "convert", "count", "compare", "audit", "eval", "learn", "serve")


def add_training_options(p: argparse.ArgumentParser) -> None:
    """The options that decide which merges are learned (shared by train and the explorer)."""
    g = p.add_argument_group("training rules (each overrides the preset)")
    g.add_argument(
        "--preset", choices=list(PRESETS),
        help="rule set to start from (default gpt2, or the one a variant's options ask for; each preset is described "
        "in the docs)",
    )
    g.add_argument("--units", choices=list(UNITS), help="base symbols: characters or UTF-8 bytes")
    g.add_argument(
        "--pretokenizer", metavar="NAME", help="whitespace, gpt2, gpt4, o200k, clip, or regex:PATTERN"
    )
    eow = g.add_mutually_exclusive_group()
    eow.add_argument("--end-of-word", metavar="TEXT", help="marker appended to every word (e.g. '</w>')")
    eow.add_argument("--no-end-of-word", action="store_true", help="no end-of-word marker")
    g.add_argument("--lowercase", action="store_true", help="lowercase the corpus first")
    g.add_argument("--special", action="append", default=[], metavar="TOKEN", help="a special token (repeatable)")
    g.add_argument("--tie-break", choices=list(TIE_BREAKS), help="which pair wins a tie")
    size = g.add_mutually_exclusive_group()
    size.add_argument("--vocab-size", type=int, metavar="N", help="stop at this vocabulary size (default 1000)")
    size.add_argument("--merges", type=int, metavar="N", help="stop after N merges")
    g.add_argument("--min-frequency", type=int, metavar="N", help="stop when the best pair occurs fewer than N times (default 1, or the preset's)")
    g.add_argument(
        "--max-token-length", type=int, metavar="N",
        help=f"never make a token longer than N bytes/characters (0 = no limit; default: none for train, {EXPLORER_MAX_TOKEN_LENGTH} in the explorer)",
    )
    g.add_argument(
        "--no-merge-across", metavar="CLASS",
        help=r"a regex character class (\d, \s, \p{P} ...): no token may mix characters in it with others",
    )
    g.add_argument(
        "--from", dest="from_table", metavar="TABLE",
        help="go on from a saved table (any readable format with merges): its merges first, its ids kept; its units, "
        "pre-tokenizer, end-of-word marker, lowercase and special tokens rule (default target: 1,000 new merges)",
    )
    g.add_argument("--counts", action="store_true", help="inputs are word<TAB>count files, not text")
    add_record_options(g)
    g.add_argument("--errors", choices=["strict", "replace"], default="strict", help="invalid UTF-8: stop (strict) or substitute U+FFFD")
    g.add_argument("--workers", type=int, metavar="N", help="processes counting words (default: CPU count for inputs of 8 MB or more, else 1)")
    g.add_argument(
        "--dask", metavar="ADDRESS",
        help="count words on a Dask cluster: a scheduler address (tcp://host:8786), or 'local' for a "
        "LocalCluster with one worker per CPU (--workers N sets how many); needs bpe-tui[dask]",
    )
    add_variant_options(p)


def add_record_options(g) -> None:
    """How JSON lines and Parquet files give their documents (train, count, the explorer)."""
    g.add_argument(
        "--text-field", default="text", metavar="NAME",
        help="JSON lines / Parquet: the field (column) holding each record's text; a dotted path for a nested one "
        "(meta.body; default text)",
    )
    g.add_argument(
        "--skip-bad-records", action="store_true",
        help="JSON lines / Parquet: skip records without the text (not JSON, no such field, not a string), counted and "
        "reported at the end (default: the first is an error)",
    )


def record_options(args: argparse.Namespace):
    """``--text-field`` and ``--skip-bad-records`` as RecordOptions (a bad field name: one line)."""
    from ..core.text.datasets.records import RecordOptions

    return RecordOptions(args.text_field, args.skip_bad_records)


def report_skipped(report) -> None:
    """After reading a corpus: what was assumed or left out, and the bad records skipped, as
    notes on stderr, one line each (nothing if none)."""
    print_notes(report.said())


def print_notes(notes) -> None:
    """Notes on stderr, one ``bpe-tui: note:`` line each (escaped: see terminal.say)."""
    for note in notes:
        say(f"note: {note}")


def dask_from_args(args: argparse.Namespace) -> str | None:
    """``--dask``'s address, once dask is known to be installed (else a one-line error)."""
    if args.dask is None:
        return None
    if args.counts:
        raise BPEError("--dask counts text on a cluster and --counts reads count files here: give one of them")
    from ..core.text.distributed import require_distributed

    require_distributed()
    return args.dask


def add_table_rules(p: argparse.ArgumentParser) -> None:
    """Options that correct what a table file does not record (a tiktoken file nobody knows)."""
    g = p.add_argument_group("table rules (what the file does not record)")
    g.add_argument("--pretokenizer", metavar="NAME", help="pre-tokenizer to encode with: whitespace, gpt2, gpt4, o200k, clip, or regex:PATTERN")
    g.add_argument("--special", action="append", default=[], metavar="TOKEN", help="add a special token (repeatable)")


def load_table(args: argparse.Namespace, path: str):
    """``load(path)``, with the --pretokenizer and --special the command line gave."""
    from ..core.tables.formats import load

    table = load(path)
    if getattr(args, "pretokenizer", None) or getattr(args, "special", None):
        table = table.with_rules(args.pretokenizer, args.special)
    return table


def config_from_args(args: argparse.Namespace, default_vocab: int | None = 1000, default_max_length: int | None = None) -> TrainerConfig:
    """A TrainerConfig from parsed options: the preset, overridden by what was given (the
    variants' options each checked by their own variant; messages name the flags)."""
    preset = args.preset or preset_asked(args) or "gpt2"
    kw: dict = {"preset": preset, "lowercase": args.lowercase}
    if args.special or not PRESETS[preset].get("special_tokens"):  # (a preset may bring special tokens of its own)
        kw["special_tokens"] = args.special
    if args.min_frequency is not None:
        kw["min_frequency"] = args.min_frequency
    kw.update(built_in_fields(args))
    # (a variant that takes no length limit does not get the explorer's default put on it)
    limitless = any(not cls.takes_length_limit for cls in variant_requested(args)) or preset_takes_no_limit(preset)
    limit = args.max_token_length if args.max_token_length is not None or limitless else default_max_length
    kw["max_token_length"] = limit or None  # 0: no limit
    kw["no_merge_across"] = args.no_merge_across
    if args.units:
        kw["units"] = args.units
    if args.pretokenizer:
        kw["pretokenizer"] = args.pretokenizer
    if args.no_end_of_word:
        kw["end_of_word"] = None
    elif args.end_of_word is not None:
        kw["end_of_word"] = args.end_of_word
    if args.tie_break:
        kw["tie_break"] = args.tie_break
    if args.merges is not None:
        kw["merges"] = args.merges
    else:
        kw["vocab_size"] = args.vocab_size if args.vocab_size is not None else default_vocab
    return checked_config(kw)


#: The options a start table decides (--from): option -> (TrainerConfig field, what it says).
TABLE_DECIDES = {
    "--preset": "preset",
    "--units": "units",
    "--pretokenizer": "pretokenizer",
    "--end-of-word": "end_of_word",
    "--no-end-of-word": "no_end_of_word",
    "--lowercase": "lowercase",
    "--special": "special",
}


def start_from_args(args: argparse.Namespace, default_max_length: int | None = None):
    """``(table, config)`` for ``--from TABLE``: the table read (one-line errors), and the
    rules to go on with: the table's for how the corpus is split and spelled (an option that
    would change them is an error), the command line's for the rest. Without a target the
    run adds 1,000 merges."""
    from ..core.engine.start import table_config
    from ..core.tables.formats import load

    given = [opt for opt, name in TABLE_DECIDES.items() if getattr(args, name) not in (None, False, [])]
    if given:
        raise BPEError(
            f"{given[0]} does not go with --from: the table's units, pre-tokenizer, end-of-word marker, lowercase "
            "and special tokens decide how the corpus is split (use --tie-break for the rule)"
        )
    built_in_fields(args, 0)  # (what the variants refuse with any start table: said before the table is read)
    table = load(args.from_table)
    cfg, _ = table_config(table, None)
    changes: dict = {"min_frequency": args.min_frequency if args.min_frequency is not None else 1, "no_merge_across": args.no_merge_across}
    limit = args.max_token_length if args.max_token_length is not None else default_max_length
    changes["max_token_length"] = limit or None
    if args.tie_break:
        changes["tie_break"] = args.tie_break
    changes.update(built_in_fields(args, table.num_merges))
    if args.merges is not None:
        changes.update(merges=args.merges, vocab_size=None)
    elif args.vocab_size is not None:
        changes.update(vocab_size=args.vocab_size, merges=None)
    else:
        changes.update(merges=table.num_merges + 1000, vocab_size=None)
    values = cfg.to_dict()
    values.update(changes)
    if args.merges is not None and args.merges < table.num_merges:
        raise BPEError(
            f"--merges {args.merges:,} is below the {table.num_merges:,} merges the start table already has "
            f"(--merges counts them all: --merges {table.num_merges + args.merges:,} adds {args.merges:,})"
        )
    if args.vocab_size is not None and args.vocab_size < len(table):
        raise BPEError(f"--vocab-size {args.vocab_size:,} is smaller than the {len(table):,} tokens the start table already has")
    return table, checked_config(values)


def add_eval_options(p: argparse.ArgumentParser) -> None:
    """Options shared by audit and eval (which encode corpora)."""
    p.add_argument("--workers", type=int, metavar="N", help="processes encoding (default: CPU count for 8 MB or more of work, else 1)")
    p.add_argument("--errors", choices=["strict", "replace"], default="strict", help="invalid UTF-8: stop (strict) or substitute U+FFFD")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress bar")


def version_line() -> str:
    """What ``bpe-tui --version`` prints: the version, and which merge loop encodes (the
    compiled core, or pure Python and why)."""
    return f"bpe-tui {__version__}, {engine_info()}"


class VersionAction(argparse.Action):
    """``--version``: :func:`version_line` on one line, unwrapped (argparse's own wraps it)."""

    def __init__(self, option_strings: list[str], dest: str = argparse.SUPPRESS, **kwargs: object):
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, help="show the version and which merge loop encodes, then exit")

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: object, option_string: str | None = None) -> None:
        print(version_line())
        parser.exit()


class OneLineParser(argparse.ArgumentParser):
    """argparse, but a usage error is one line and a hint, not a screen of usage."""

    def error(self, message: str):
        hint = f"{self.prog} --help"
        raise BPEError(f"{message} (see {hint})")


#: Notes said once the command has done its work (see :func:`check_workers`); a command that
#: is refused says only why, in one line.
HELD_NOTES: list[str] = []


def check_workers(args: argparse.Namespace) -> None:
    """--workers beyond the machine's CPUs is clamped, and the user told so (once the command
    has worked: a note before a refusal made it two lines)."""
    workers = getattr(args, "workers", None)
    if workers is None:
        return
    if workers < 1:
        raise BPEError(f"--workers must be 1 or more, not {workers}")
    cpus = os.cpu_count() or 1
    if workers > cpus:
        HELD_NOTES.append(f"--workers {workers} is more than this machine's {cpus} CPUs; used {cpus}")
        args.workers = cpus


def refuse_overwrite(path: str, force: bool) -> None:
    """Fail early on an output path that would be refused anyway (the write checks again)."""
    from ..core.atomic import resolve_target

    resolve_target(path, overwrite=force)


def save_options(args: argparse.Namespace, fmt: str) -> dict:
    """Writer options from the command line (--legacy-merges is for the hf format only)."""
    if not getattr(args, "legacy_merges", False):
        return {}
    if fmt != "hf":
        raise BPEError(f"--legacy-merges applies to the hf format, not {fmt}")
    return {"legacy_merges": True}
