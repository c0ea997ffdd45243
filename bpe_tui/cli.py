"""The ``bpe-tui`` command: the explorer, and headless subcommands over the same engine.

::

    bpe-tui [CORPUS...] [training options]   open the explorer (the demo corpus if none given)
    bpe-tui open TABLE [--compare TABLE_B]   inspect a saved merge table in the explorer
    bpe-tui train CORPUS... -o OUT           train and save a merge table
    bpe-tui encode -t TABLE [TEXT]           encode TEXT (or stdin) with a table
    bpe-tui inspect TABLE [--token T]        summarise a table, or show how a token was built
    bpe-tui convert IN OUT --to FORMAT       convert a table between formats
    bpe-tui count CORPUS... -o counts.tsv    write word counts that `train --counts` reads
    bpe-tui compare TABLE_A TABLE_B [TEXT]   how two tables split the same text, and where they differ

Every error is one line on stderr and exit status 2; the core raises ``BPEError`` for bad
input and this module prints it. Subcommands only call the core, never the other way round.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence

from . import __version__
from .core.config import PRESETS, TIE_BREAKS, TrainerConfig
from .core.errors import BPEError
from .core.units import visible

SUBCOMMANDS = ("train", "encode", "inspect", "open", "convert", "count", "compare")


# ---------------------------------------------------------------------- options


def add_training_options(p: argparse.ArgumentParser) -> None:
    """The options that decide which merges are learned (shared by train and the explorer)."""
    g = p.add_argument_group("training rules (each overrides the preset)")
    g.add_argument("--preset", choices=list(PRESETS), default="gpt2", help="rule set to start from (default gpt2)")
    g.add_argument("--units", choices=["chars", "bytes"], help="base symbols: characters or UTF-8 bytes")
    g.add_argument(
        "--pretokenizer", metavar="NAME", help="whitespace, gpt2, gpt4, o200k, or regex:PATTERN"
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
    g.add_argument("--min-frequency", type=int, default=1, metavar="N", help="stop when the best pair occurs fewer than N times")
    g.add_argument("--counts", action="store_true", help="inputs are word<TAB>count files, not text")
    g.add_argument("--errors", choices=["strict", "replace"], default="strict", help="invalid UTF-8: stop (strict) or substitute U+FFFD")
    g.add_argument("--workers", type=int, metavar="N", help="processes counting words (default: CPU count for inputs of 8 MB or more, else 1)")


def config_from_args(args: argparse.Namespace, default_vocab: int | None = 1000) -> TrainerConfig:
    """A TrainerConfig from parsed options: the preset, overridden by what was given."""
    kw: dict = {"preset": args.preset, "lowercase": args.lowercase, "special_tokens": args.special, "min_frequency": args.min_frequency}
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
    return TrainerConfig(**kw)


def build_parser() -> argparse.ArgumentParser:
    from .core.formats import writers

    p = argparse.ArgumentParser(prog="bpe-tui", description="Watch Byte Pair Encoding learn; inspect merge tables.")
    p.add_argument("--version", action="version", version=f"bpe-tui {__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")

    t = sub.add_parser("train", help="train a merge table and save it")
    t.add_argument("corpus", nargs="+", help="text files, directories, or - for stdin")
    t.add_argument("-o", "--output", required=True, help="where to write the table")
    t.add_argument("--format", default="native", choices=sorted(writers()), help="output format (default native)")
    t.add_argument("--force", action="store_true", help="overwrite OUTPUT if it exists")
    t.add_argument("--legacy-merges", action="store_true", help='hf format: write merges as "a b" strings (tokenizers < 0.20)')
    t.add_argument("-q", "--quiet", action="store_true", help="no progress or summary")
    add_training_options(t)

    e = sub.add_parser("encode", help="encode text with a merge table")
    e.add_argument("-t", "--table", required=True, help="a merge table (any readable format)")
    e.add_argument("text", nargs="?", help="text to encode (default: stdin)")
    out = e.add_mutually_exclusive_group()
    out.add_argument("--ids", action="store_true", help="print token ids only")
    out.add_argument("--json", action="store_true", help='print {"ids": [...], "tokens": [...]}')

    i = sub.add_parser("inspect", help="summarise a merge table, or show how a token was built")
    i.add_argument("table")
    i.add_argument("--token", help="a token (its text, or its id) whose merge tree to show")

    o = sub.add_parser("open", help="open a merge table in the explorer")
    o.add_argument("table")
    o.add_argument("--compare", metavar="TABLE_B", help="open the comparison view of TABLE and TABLE_B on the same text")

    c = sub.add_parser("convert", help="convert a merge table to another format")
    c.add_argument("input")
    c.add_argument("output")
    c.add_argument("--to", required=True, choices=sorted(writers()), help="output format")
    c.add_argument("--force", action="store_true", help="overwrite OUTPUT if it exists")
    c.add_argument("--legacy-merges", action="store_true", help='hf format: write merges as "a b" strings (tokenizers < 0.20)')

    m = sub.add_parser("compare", help="compare how two tables split the same text")
    m.add_argument("table_a")
    m.add_argument("table_b")
    m.add_argument("text", nargs="?", help="text to split (default: stdin)")
    m.add_argument("--limit", type=int, default=20, metavar="N", help="show at most N differing spans (default 20; 0 = all)")

    n = sub.add_parser("count", help="count a corpus's words into a word<TAB>count file")
    n.add_argument("corpus", nargs="+")
    n.add_argument("-o", "--output", required=True)
    n.add_argument("--force", action="store_true")
    add_training_options(n)
    return p


def build_explorer_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="bpe-tui",
        description="Open the explorer on a corpus (the built-in demo corpus if none is given). "
        f"Subcommands: {', '.join(SUBCOMMANDS)} (bpe-tui COMMAND --help).",
    )
    p.add_argument("--version", action="version", version=f"bpe-tui {__version__}")
    p.add_argument("corpus", nargs="*", help="text files, directories, or - for stdin")
    add_training_options(p)
    return p


# ---------------------------------------------------------------------- commands


def refuse_overwrite(path: str, force: bool) -> None:
    if os.path.exists(path) and not force:
        raise BPEError(f"{path}: already exists (use --force to overwrite)")


def cmd_train(args: argparse.Namespace) -> int:
    from .core.trainer import Trainer

    refuse_overwrite(args.output, args.force)
    cfg = config_from_args(args)
    show = sys.stderr.isatty() and not args.quiet
    if show:
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

        with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(), console=Console(stderr=True), transient=True) as bar:
            task = bar.add_task("counting words (bytes)", total=None)
            trainer = Trainer.from_files(
                args.corpus, cfg, errors=args.errors, counts=args.counts, workers=args.workers,
                progress=lambda done, total: bar.update(task, completed=done, total=total or None),
            )
            target = trainer.target_steps
            bar.update(task, description="merging", completed=0, total=target)
            for event in trainer.run():
                if event.step % 50 == 0:
                    bar.update(task, completed=event.step)
    else:
        trainer = Trainer.from_files(args.corpus, cfg, errors=args.errors, counts=args.counts, workers=args.workers)
        for _ in trainer.run():
            pass
    table = trainer.table
    table.save(args.output, format=args.format, **save_options(args, args.format))
    if not args.quiet:
        ratio = trainer.corpus_chars / max(1, trainer.total_tokens)
        print(f"{trainer.name}: {trainer.word_count:,} distinct words, {trainer.corpus_chars:,} characters")
        print(f"{trainer.steps_done:,} merges, vocabulary {trainer.vocab_size:,} ({cfg.describe()})")
        print(f"tokens {trainer.initial_total_tokens:,} -> {trainer.total_tokens:,} ({ratio:.2f} characters per token)")
        if trainer.stop_reason and "reached" not in trainer.stop_reason:
            print(f"stopped early: {trainer.stop_reason}")
        print(f"wrote {args.output} ({args.format})")
    return 0


def cmd_encode(args: argparse.Namespace) -> int:
    from .core.formats import load
    from .core.table import UNK_ID

    table = load(args.table)
    text = args.text if args.text is not None else sys.stdin.read()
    pieces = table.pieces(text)
    ids = [i for i, _ in pieces]
    if args.ids:
        print(" ".join(map(str, ids)))
        return 0
    readable = [visible(s, table.end_of_word) for _, s in pieces]
    if args.json:
        print(json.dumps({"ids": ids, "tokens": readable}, ensure_ascii=False))
        return 0
    from rich.console import Console
    from rich.text import Text

    line = Text()
    for n, ((i, _), shown) in enumerate(zip(pieces, readable)):
        style = "bold white on red" if i == UNK_ID else ("black on #8fbcbb" if n % 2 == 0 else "black on #ebcb8b")
        line.append(shown, style=style)
    Console().print(line)
    chars = len(text)
    print(f"{len(ids)} tokens, {chars} characters, {chars / max(1, len(ids)):.2f} characters per token")
    print(" ".join(map(str, ids)))
    return 0


def cmd_inspect(args: argparse.Namespace) -> int:
    from .core.formats import load
    from .ui.render import merge_number

    table = load(args.table)
    if args.token is not None:
        return print_token_tree(table, args.token)
    d = table.describe()
    print(f"{args.table}: {d['format']} merge table, {d['units']}, pre-tokenizer {d['pretokenizer']}")
    print(f"vocabulary {d['vocab_size']:,} tokens, {d['merges']:,} merges" + (f", tie-break {d['tie_break']}" if d["tie_break"] else ""))
    if d["end_of_word"]:
        print(f"end-of-word marker {d['end_of_word']!r}" + (", lowercase" if d["lowercase"] else ""))
    if d["prefix_space"]:
        where = {"first": "the text", "always": "each segment", "prepend": "each segment, always"}[d["prefix_space"]]
        print(f"prefix space: a space is put before {where} ({d['prefix_space']})")
    if d["special_tokens"]:
        print("special tokens: " + ", ".join(f"{s} = {i}" for s, i in d["special_tokens"].items()))
    merges = table.merge_ids
    shown = list(range(min(10, len(merges))))
    tail = list(range(max(len(shown), len(merges) - 5), len(merges)))
    for label, ranks in (("first merges", shown), ("last merges", tail)):
        if ranks:
            print(f"{label}:")
            for r in ranks:
                a, b, new = merges[r]
                count = f"  ({table.counts[r]:,})" if table.counts else ""
                print(f"  {merge_number(r):>6}. {table.display(a)} + {table.display(b)} -> {table.display(new)}  [id {new}]{count}")
    return 0


def print_token_tree(table, token: str) -> int:
    from rich.console import Console
    from rich.text import Text
    from rich.tree import Tree

    from .ui.render import merge_number

    token_id = table.token_id(token.encode("utf-8") if table.units == "bytes" else token)
    if token_id is None and token.strip().isdigit() and int(token) in table.vocab:
        token_id = int(token)
    if token_id is None:
        hits = table.search(token, limit=5)
        hint = f"; similar: {', '.join(table.display(h) for h in hits)}" if hits else ""
        raise BPEError(f"token {token!r} is not in the vocabulary{hint}")

    def label(node) -> Text:
        where = f"merge {merge_number(node.rank)}" if node.rank is not None else ("special" if table.is_special(node.id) else "base")
        text = Text(visible(node.surface, table.end_of_word), style="bold")
        text.append(f"  (id {node.id}, {where})", style="dim")
        return text

    def grow(tree: Tree, node) -> None:
        for child in (node.left, node.right):
            if child is not None:
                grow(tree.add(label(child)), child)

    root = table.merge_tree(token_id)
    tree = Tree(label(root))
    grow(tree, root)
    Console().print(tree)
    return 0


def cmd_convert(args: argparse.Namespace) -> int:
    from .core.formats import load, save

    refuse_overwrite(args.output, args.force)
    table = load(args.input)
    for warning in conversion_losses(table, args.to):
        print(f"note: {warning}", file=sys.stderr)
    save(table, args.output, args.to, **save_options(args, args.to))
    print(f"{args.input} ({table.source_format}) -> {args.output} ({args.to}): {len(table):,} tokens, {table.num_merges:,} merges")
    return 0


def save_options(args: argparse.Namespace, fmt: str) -> dict:
    """Writer options from the command line (--legacy-merges is for the hf format only)."""
    if not getattr(args, "legacy_merges", False):
        return {}
    if fmt != "hf":
        raise BPEError(f"--legacy-merges applies to the hf format, not {fmt}")
    return {"legacy_merges": True}


def cmd_compare(args: argparse.Namespace) -> int:
    from .core.compare import compare, format_comparison
    from .core.formats import load

    table_a, table_b = load(args.table_a), load(args.table_b)
    text = args.text if args.text is not None else sys.stdin.read()
    result = compare(table_a, table_b, text)
    name_a = f"A {args.table_a} ({table_a.source_format})"
    name_b = f"B {args.table_b} ({table_b.source_format})"
    print(format_comparison(result, name_a, name_b, limit=args.limit or None))
    return 0


def conversion_losses(table, fmt: str) -> list[str]:
    """What a target format cannot carry over from this table (reported, not fatal)."""
    from .core import formats

    module = formats.writers()[fmt]
    losses = getattr(module, "losses", None)
    return list(losses(table)) if losses else []


def cmd_count(args: argparse.Namespace) -> int:
    from .core.corpus import count_files, read_count_files, write_count_file

    refuse_overwrite(args.output, args.force)
    cfg = config_from_args(args, default_vocab=None)
    counts = read_count_files(args.corpus) if args.counts else count_files(args.corpus, cfg, errors=args.errors, workers=args.workers)
    write_count_file(counts, args.output)
    print(f"wrote {args.output}: {len(counts):,} distinct words, {sum(counts.values()):,} in all")
    return 0


def cmd_open(args: argparse.Namespace) -> int:
    from .core.formats import load
    from .ui.app import run_inspect

    load(args.table)  # fail fast, with a one-line message, before the screen opens
    if args.compare is not None:
        load(args.compare)
    return run_inspect(args.table, compare_path=args.compare)


def cmd_explore(argv: Sequence[str]) -> int:
    args = build_explorer_parser().parse_args(argv)
    cfg = config_from_args(args)
    from .core.corpus import expand_sources

    if args.corpus:
        expand_sources(args.corpus)  # a missing file is a one-line error, not a broken screen
    if args.workers is not None:
        from .core import corpus

        corpus.resolve_workers(args.workers, 0)  # a bad --workers is a one-line error too
        corpus.DEFAULT_WORKERS = args.workers  # the explorer's loads count with this many
    from .ui.app import run_explorer

    return run_explorer(args.corpus or None, cfg, errors=args.errors, counts=args.counts)


COMMANDS = {
    "train": cmd_train,
    "encode": cmd_encode,
    "inspect": cmd_inspect,
    "open": cmd_open,
    "convert": cmd_convert,
    "count": cmd_count,
    "compare": cmd_compare,
}


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        if argv and argv[0] in SUBCOMMANDS:
            args = build_parser().parse_args(argv)
            return COMMANDS[args.command](args)
        if argv and argv[0] in ("-h", "--help") and len(argv) == 1:
            build_parser().print_help()
            print("\nWith no COMMAND, bpe-tui opens the explorer: bpe-tui [CORPUS...] [training options]")
            return 0
        return cmd_explore(argv)
    except BPEError as exc:
        print(f"bpe-tui: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("bpe-tui: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
