"""``bpe-tui encode``, ``decode`` and ``trace``: text to ids and back with a table, and the merges
applied to one word.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator
from itertools import islice

from ..core.engine.units import visible
from ..core.errors import BPEError, UndecodableToken
from ..core.tables.special_policy import POLICIES
from ..core.tables.table import UNK_ID, merge_number
from ..core.wording import plural
from .options import add_table_rules, load_table
from .terminal import argv_text, iter_stdin_text, read_stdin_text, say, stop_if_interrupted


def token_fields(table, token_id: int, surface) -> dict:
    """What --json says about a token: its text, and for bytes tables its exact bytes."""
    if isinstance(surface, bytes):
        text = surface.decode("utf-8", "replace")
        return {"text": text, "bytes": "".join(f"\\x{b:02x}" for b in surface)}
    return {"text": surface}


def cmd_encode(args: argparse.Namespace) -> int:
    from ..core.errors import DisallowedSpecial

    try:
        return _encode(args)
    except DisallowedSpecial as exc:
        where = "TEXT" if args.text is not None else "stdin"
        raise BPEError(
            f"{where}: the special token {exc.token!r} at character {exc.offset + 1} (offset {exc.offset}) is refused (--specials refuse); "
            "--specials recognise encodes it as its id, --specials ordinary as text"
        ) from None


def _encode(args: argparse.Namespace) -> int:
    from ..core.tables import special_policy
    from ..core.tables.table import check_dropout

    table = load_table(args, args.table)
    check_dropout(args.dropout)
    allowed, disallowed = special_policy.policy_arguments(args.specials)
    policy = {"allowed_special": allowed, "disallowed_special": disallowed}
    out = sys.stdout
    if args.text is not None:
        chunks = iter([argv_text(args.text, "TEXT")])
    else:
        if sys.stdin.isatty():  # (a person at a terminal, not a pipe: say what is awaited)
            say("reading the text to encode from the terminal; ctrl+d ends it (or give TEXT)")
        chunks = iter_stdin_text()
    if args.specials == "refuse":
        # refused before anything is written: the whole text is read first
        text = "".join(chunks)
        special_policy.check(text, table.resolve_specials(allowed, disallowed)[1])
        chunks = iter([text])
    if args.ids and not args.dropout:
        write_ids(table, table.encode_iterable(chunks, **policy), out)
        return 0
    unk = table.unk_id
    if not args.json and not args.dropout and not args.ids:
        read = [0]  # characters of input seen, for the summary

        def counted(chunks):
            for chunk in chunks:
                stop_if_interrupted()
                read[0] += len(chunk)
                yield chunk

        return write_pieces(table, table.pieces_iterable(counted(chunks), **policy), out, read)
    text = "".join(chunks)
    pieces = table.pieces(text, dropout=args.dropout, seed=args.seed, **policy)
    ids = [unk if i == UNK_ID else i for i, _ in pieces]
    if args.ids:
        print(" ".join(map(str, ids)))
        return 0
    if args.json:
        from ..core.tables.context import context_of

        tokens = [token_fields(table, i, s) for i, s in pieces]
        record: dict[str, object] = {"ids": ids, "tokens": [t["text"] for t in tokens]}
        if table.units == "bytes":
            record["bytes"] = [t["bytes"] for t in tokens]
        _, spans = table.encode_with_offsets(text, dropout=args.dropout, seed=args.seed, **policy)
        record["offsets"] = [list(span) for span in spans]
        context = context_of(table)
        if context is not None:  # CLIP: the text encoder's window, and how much of it the text takes
            record["context"] = {"length": context.length, "wrap": list(context.wrap), "used": context.used(len(ids))}
        print(json.dumps(record, ensure_ascii=False))
        return 0
    return write_pieces(table, iter(pieces), out, [len(text)])


#: Ids written at a time by ``--ids`` (taken from the stream in C, joined in C).
IDS_AT_ONCE = 1 << 16


def write_ids(table, ids: Iterator[int], out) -> None:
    """Write a stream of ids on one line, as they come: memory stays flat on any input size.
    They are taken in runs (``islice``, in C) and each run written at once; an id's text is
    looked up in a list made once (``str()`` per id cost the command a tenth of its time),
    whose last entry is UNK_ID's, -1: a list's index -1."""
    text_of = ([str(i) for i in range(table.n_vocab)] + [str(UNK_ID)]).__getitem__
    first = True
    while True:
        run = list(islice(ids, IDS_AT_ONCE))
        if not run:
            break
        out.write(("" if first else " ") + " ".join(map(text_of, run)))
        first = False
    out.write("\n")


def write_pieces(table, pieces, out, chars_read: list[int]) -> int:
    """Write tokens as they come: piped, one ``id<TAB>token`` per line; on a terminal, coloured
    tokens in batches, then a summary. Memory stays flat on any input size."""
    unk = table.unk_id
    eow = table.end_of_word
    if not out.isatty():
        for token_id, surface in pieces:
            out.write(f"{unk if token_id == UNK_ID else token_id}\t{visible(surface, eow)}\n")
        return 0
    from rich.console import Console
    from rich.text import Text

    console = Console()
    ids: list[int] = []
    line = Text()
    for n, (token_id, surface) in enumerate(pieces):
        style = "bold white on red" if token_id == UNK_ID else ("black on #8fbcbb" if n % 2 == 0 else "black on #ebcb8b")
        line.append(visible(surface, eow), style=style)
        ids.append(unk if token_id == UNK_ID else token_id)
        if len(line) > 4096:
            console.print(line, end="")
            line = Text()
    console.print(line)
    chars = chars_read[0]
    print(f"{plural(len(ids), 'token')}, {plural(chars, 'character')}, {chars / max(1, len(ids)):.2f} characters per token")
    print(" ".join(map(str, ids)))
    from ..core.tables.context import context_note, context_of

    context = context_of(table)
    if context is not None:
        print(context_note(context, len(ids)))
    return 0


def cmd_decode(args: argparse.Namespace) -> int:
    import re

    table = load_table(args, args.table)
    words = args.ids if args.ids else re.split(r"[\s,\[\]]+", read_stdin_text())
    ids = []
    for n, word in enumerate(w for w in words if w):
        try:
            ids.append(int(word))
        except ValueError:
            hint = "; on the command line ids are separated by spaces (standard input also takes commas)" if args.ids else ""
            raise BPEError(f"id {n + 1}: {word[:30]!r} is not a whole number{hint}") from None
    try:
        text = table.decode(ids, errors=args.errors)
    except UndecodableToken as exc:
        raise BPEError(
            f"token id {exc.token_id} (position {exc.position + 1}) does not decode: its bytes {exc.data!r} are not valid "
            "UTF-8 there (--errors replace writes U+FFFD instead)"
        ) from None
    sys.stdout.write(text)
    if sys.stdout.isatty():
        sys.stdout.write("\n")
    return 0


def cmd_trace(args: argparse.Namespace) -> int:
    table = load_table(args, args.table)
    word = argv_text(args.word, "WORD")
    steps = table.trace(word)
    show = lambda s: visible(s, table.end_of_word)  # noqa: E731
    start = table.initial_symbols(word.lower() if table.lowercase else word)
    end = steps[-1].symbols if steps else start
    merges = sum(not step.split for step in steps)
    removals = f" and {plural(len(steps) - merges, 'removal')}" if merges < len(steps) else ""
    print(f"{show(word)!s}: {plural(len(start), 'symbol')} -> {plural(len(end), 'token')} in {plural(merges, 'merge')}{removals}")
    print("  start  " + " ".join(show(s) for s in start))
    before = list(start)
    for step in steps:
        if step.split:  # PickyBPE: a token removed right after merge rank + 1, split into its parts
            print(f"  after {merge_number(step.rank):>6}: removed {show(step.new_token)} -> {' + '.join(show(p) for p in step.split)}")
            before = list(step.symbols)
            continue
        rivals = rival_merges(table, before, step.rank)
        beat = f"  beat {', '.join(rivals[:3])}" + (f" (+{len(rivals) - 3} more)" if len(rivals) > 3 else "") if rivals else ""
        a, b = step.pair
        print(f"  merge {merge_number(step.rank):>6}: {show(a)} + {show(b)} -> {show(step.new_token)}{beat}")
        before = list(step.symbols)
    print("  end    " + " ".join(show(s) for s in before))
    return 0


def rival_merges(table, symbols: list, chosen_rank: int) -> list[str]:
    """The other merges possible in ``symbols`` that the chosen (lower-ranked) one beat, as 'merge N a+b'
    (a table with removals replays its events in order: merges before the chosen one are past)."""
    found = set()
    for left, right in zip(symbols, symbols[1:]):
        a, b = table.token_id(left), table.token_id(right)
        rank = table.pair_rank(a, b) if a is not None and b is not None else None
        if rank is not None and rank > chosen_rank:
            found.add((rank, left, right))
    return [f"merge {merge_number(r)} {visible(x, table.end_of_word)}+{visible(y, table.end_of_word)}" for r, x, y in sorted(found)]


def add_encode_parser(sub) -> None:
    """``bpe-tui encode``: its options."""
    e = sub.add_parser("encode", help="encode text with a merge table")
    e.add_argument("-t", "--table", required=True, help="a merge table (any readable format)")
    e.add_argument("text", nargs="?", help="text to encode (default: stdin)")
    out = e.add_mutually_exclusive_group()
    out.add_argument("--ids", action="store_true", help="print token ids only")
    out.add_argument(
        "--json", action="store_true",
        help='print {"ids": [...], "tokens": [...], "bytes": [...], "offsets": [[start, end], ...]} (tokens as text, bytes as \\xNN escapes, '
        "each token's characters in the text)",
    )
    e.add_argument(
        "--specials", choices=POLICIES, default="recognise",
        help="special tokens' text: recognise (encode to their ids; the default), ordinary (as plain text), "
        "refuse (exit 2 naming the first one and its character offset)",
    )
    e.add_argument("--dropout", type=float, default=0.0, metavar="P", help="BPE-dropout: skip each merge with probability P")
    e.add_argument("--seed", type=int, metavar="S", help="random seed for --dropout")
    add_table_rules(e)
    e.set_defaults(run=cmd_encode)


def add_decode_parser(sub) -> None:
    """``bpe-tui decode``: its options."""
    d = sub.add_parser("decode", help="turn token ids back into text")
    d.add_argument("-t", "--table", required=True, help="a merge table (any readable format)")
    d.add_argument("ids", nargs="*", help="token ids (default: read from stdin, separated by spaces, commas or lines)")
    d.add_argument(
        "--errors", choices=("replace", "strict"), default="replace",
        help="bytes that are not UTF-8: replace (U+FFFD, the default) or strict (exit 2 naming the first id whose bytes do not decode)",
    )
    add_table_rules(d)
    d.set_defaults(run=cmd_decode)


def add_trace_parser(sub) -> None:
    """``bpe-tui trace``: its options."""
    r = sub.add_parser("trace", help="show the merges applied to a word, in order, and what each beat")
    r.add_argument("-t", "--table", required=True, help="a merge table (any readable format)")
    r.add_argument("word", help="one pre-token (quote it to keep a leading space)")
    add_table_rules(r)
    r.set_defaults(run=cmd_trace)
