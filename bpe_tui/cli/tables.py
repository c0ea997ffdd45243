"""``bpe-tui inspect`` and ``bpe-tui convert``: what a merge table holds, and the same table in another format."""

from __future__ import annotations

import argparse

from ..core.engine.units import visible
from ..core.errors import BPEError
from ..core.tables.context import context_of
from ..core.engine.registry import about_table
from ..core.tables.summary import describe_prefix_space, describe_pretokenizer, describe_specials, summary_ranks
from ..core.tables.table import merge_number
from ..core.wording import plural
from .options import add_table_rules, load_table, save_options
from .terminal import say, show


def cmd_inspect(args: argparse.Namespace) -> int:
    table = load_table(args, args.table)
    if args.id is not None:
        if args.id not in table.vocab:
            raise BPEError(f"token id {args.id} is not in the vocabulary (ids 0..{max(table.vocab)})")
        return print_token_tree(table, str(args.id), by_id=True)
    if args.token is not None:
        return print_token_tree(table, args.token)
    d = table.describe()
    show(f"{args.table}: {d['format']} merge table, {d['units']}, pre-tokenizer {describe_pretokenizer(d['pretokenizer'])}")
    print(f"vocabulary {d['vocab_size']:,} tokens, {d['merges']:,} merges" + (f", tie-break {d['tie_break']}" if d["tie_break"] else ""))
    for label, text in about_table(table.config, d["merges"]):  # what the variant that made it says of it
        print(f"{label}: {text}")
    if d["end_of_word"]:
        print(f"end-of-word marker {d['end_of_word']!r}" + (", lowercase" if d["lowercase"] else ""))
    if d["prefix_space"]:
        print(f"prefix space: {describe_prefix_space(d['prefix_space'])}")
    if d["special_tokens"]:
        print(describe_specials(d["special_tokens"]))
    context = context_of(table)
    if context is not None:
        print(f"context: {context.describe()} (the model reads no more; a longer text is cut)")
    if d["notes"]:
        print("notes (what the reader recognised, assumed or could not apply):")
        for note in d["notes"]:
            print(f"  - {note}")
    merges = table.merge_ids
    first, last = summary_ranks(len(merges))
    for label, ranks in (("first merges", first), ("last merges", last)):
        if ranks:
            print(f"{label}:")
            for r in ranks:
                a, b, new = merges[r]
                count = f"  ({table.counts[r]:,})" if table.counts else ""
                print(f"  {merge_number(r):>6}. {table.display(a)} + {table.display(b)} -> {table.display(new)}  [id {new}]{count}")
    return 0


def print_token_tree(table, token: str, by_id: bool = False) -> int:
    from rich.console import Console
    from rich.text import Text
    from rich.tree import Tree

    token_id = int(token) if by_id else table.token_id(token.encode("utf-8") if table.units == "bytes" else token)
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

    root = table.merge_tree(token_id)
    tree = Tree(label(root))
    todo = [(tree, root)]  # a loop, not recursion: a tree can be thousands of merges deep
    while todo:
        branch, node = todo.pop()
        children = [(branch.add(label(child)), child) for child in (node.left, node.right) if child is not None]
        todo.extend(reversed(children))
    Console().print(tree)
    return 0


def cmd_convert(args: argparse.Namespace) -> int:
    from ..core.engine.registry import table_save_needs
    from ..core.tables.formats import check_save, check_table, load, save

    check_save(args.output, args.to, overwrite=args.force, **save_options(args, args.to))
    table = load(args.input)
    check_save(
        args.output, args.to, table.units, overwrite=args.force, end_of_word=table.end_of_word is not None,
        pretokenizer=table.pretokenizer, **table_save_needs(table), **save_options(args, args.to),
    )
    check_table(table, args.to)
    for warning in conversion_losses(table, args.to):
        say(f"note: {warning}")
    save(table, args.output, args.to, overwrite=args.force, **save_options(args, args.to))
    show(f"{args.input} ({table.source_format}) -> {args.output} ({args.to}): {len(table):,} tokens, {table.num_merges:,} merges")
    return 0


def conversion_losses(table, fmt: str) -> list[str]:
    """What a target format cannot carry over from this table (reported, not fatal)."""
    from ..core.tables import formats

    lost = formats.writers()[fmt].losses(table)
    if table.manual_ranks and fmt != "native":
        n = len(table.manual_ranks)
        lost.append(f"which merges were chosen by hand ({plural(n, 'merge')}; only the native format records it)")
    return lost


def add_inspect_parser(sub) -> None:
    """``bpe-tui inspect``: its options."""
    i = sub.add_parser("inspect", help="summarise a merge table, or show how a token was built")
    i.add_argument("table")
    tok = i.add_mutually_exclusive_group()
    tok.add_argument("--token", help="a token (its text, or its id) whose merge tree to show")
    tok.add_argument("--id", type=int, metavar="N", help="a token id whose merge tree to show")
    add_table_rules(i)
    i.set_defaults(run=cmd_inspect)


def add_convert_parser(sub) -> None:
    """``bpe-tui convert``: its options."""
    from ..core.tables.formats import writers

    c = sub.add_parser("convert", help="convert a merge table to another format")
    c.add_argument("input")
    c.add_argument("output")
    c.add_argument("--to", required=True, choices=sorted(writers()), help="output format")
    c.add_argument("--force", action="store_true", help="overwrite OUTPUT if it exists")
    c.add_argument("--legacy-merges", action="store_true", help='hf format: write merges as "a b" strings (tokenizers < 0.20)')
    c.set_defaults(run=cmd_convert)
