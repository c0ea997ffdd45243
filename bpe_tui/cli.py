"""The ``bpe-tui`` command: the explorer, and headless subcommands over the same engine.

::

    bpe-tui [CORPUS...] [training options]   open the explorer (the demo corpus if none given)
    bpe-tui open TABLE [--compare TABLE_B]   inspect a saved merge table in the explorer
    bpe-tui train CORPUS... -o OUT           train and save a merge table
    bpe-tui encode -t TABLE [TEXT]           encode TEXT (or stdin) with a table
    bpe-tui decode -t TABLE [IDS...]         token ids (or stdin) back to text
    bpe-tui trace -t TABLE WORD              the merges applied to WORD, and what each beat
    bpe-tui inspect TABLE [--token T]        summarise a table, or show how a token was built
    bpe-tui convert IN OUT --to FORMAT       convert a table between formats
    bpe-tui count CORPUS... -o counts.tsv    write word counts that `train --counts` reads
    bpe-tui compare TABLE_A TABLE_B [TEXT]   how two tables split the same text, and where they differ
    bpe-tui audit TABLE [--corpus FILE...]   tokens a table never or hardly uses: unreachable, partial UTF-8, ...
    bpe-tui eval TABLE... --corpus [L=]FILE  bytes/token, fertility, Rényi efficiency, premium per table x corpus
    bpe-tui learn [--stop N]                 a guided tour of BPE on the worked examples

Every error is one line on stderr and exit status 2; the core raises ``BPEError`` for bad
input and this module prints it. Subcommands only call the core, never the other way round.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
from collections.abc import Sequence

from . import __version__
from .core.engine.config import EXPLORER_MAX_TOKEN_LENGTH, PRESETS, TrainerConfig
from .core.engine.units import visible
from .core.errors import BPEError
from .core.tables.table import merge_number
from .core.types import TIE_BREAKS, UNITS
from .core.wording import plural

SUBCOMMANDS = ("train", "encode", "decode", "trace", "inspect", "open", "convert", "count", "compare", "audit", "eval", "learn")


# ---------------------------------------------------------------------- options


def add_training_options(p: argparse.ArgumentParser) -> None:
    """The options that decide which merges are learned (shared by train and the explorer)."""
    g = p.add_argument_group("training rules (each overrides the preset)")
    g.add_argument("--preset", choices=list(PRESETS), help="rule set to start from (default gpt2)")
    g.add_argument("--units", choices=list(UNITS), help="base symbols: characters or UTF-8 bytes")
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
    g.add_argument("--errors", choices=["strict", "replace"], default="strict", help="invalid UTF-8: stop (strict) or substitute U+FFFD")
    g.add_argument("--workers", type=int, metavar="N", help="processes counting words (default: CPU count for inputs of 8 MB or more, else 1)")
    g.add_argument(
        "--dask", metavar="ADDRESS",
        help="count words on a Dask cluster: a scheduler address (tcp://host:8786), or 'local' for a "
        "LocalCluster with one worker per CPU (--workers N sets how many); needs bpe-tui[dask]",
    )


def dask_from_args(args: argparse.Namespace) -> str | None:
    """``--dask``'s address, once dask is known to be installed (else a one-line error)."""
    if args.dask is None:
        return None
    if args.counts:
        raise BPEError("--dask counts text on a cluster and --counts reads count files here: give one of them")
    from .core.text.distributed import require_distributed

    require_distributed()
    return args.dask


def add_table_rules(p: argparse.ArgumentParser) -> None:
    """Options that correct what a table file does not record (a tiktoken file nobody knows)."""
    g = p.add_argument_group("table rules (what the file does not record)")
    g.add_argument("--pretokenizer", metavar="NAME", help="pre-tokenizer to encode with: whitespace, gpt2, gpt4, o200k, or regex:PATTERN")
    g.add_argument("--special", action="append", default=[], metavar="TOKEN", help="add a special token (repeatable)")


def load_table(args: argparse.Namespace, path: str):
    """``load(path)``, with the --pretokenizer and --special the command line gave."""
    from .core.tables.formats import load

    table = load(path)
    if getattr(args, "pretokenizer", None) or getattr(args, "special", None):
        table = table.with_rules(args.pretokenizer, args.special)
    return table


def config_from_args(args: argparse.Namespace, default_vocab: int | None = 1000, default_max_length: int | None = None) -> TrainerConfig:
    """A TrainerConfig from parsed options: the preset, overridden by what was given."""
    kw: dict = {"preset": args.preset or "gpt2", "lowercase": args.lowercase, "special_tokens": args.special, "min_frequency": args.min_frequency}
    limit = args.max_token_length if args.max_token_length is not None else default_max_length
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
    return TrainerConfig(**kw)


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
    from .core.engine.trainer import table_config
    from .core.tables.formats import load

    given = [opt for opt, name in TABLE_DECIDES.items() if getattr(args, name) not in (None, False, [])]
    if given:
        raise BPEError(
            f"{given[0]} does not go with --from: the table's units, pre-tokenizer, end-of-word marker, lowercase "
            "and special tokens decide how the corpus is split (use --tie-break for the rule)"
        )
    table = load(args.from_table)
    cfg, _ = table_config(table, None)
    changes: dict = {"min_frequency": args.min_frequency, "no_merge_across": args.no_merge_across}
    limit = args.max_token_length if args.max_token_length is not None else default_max_length
    changes["max_token_length"] = limit or None
    if args.tie_break:
        changes["tie_break"] = args.tie_break
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
    return table, TrainerConfig(**values)


def build_parser() -> argparse.ArgumentParser:
    from .core.tables.formats import writers

    p = OneLineParser(prog="bpe-tui", description="Watch Byte Pair Encoding learn; inspect merge tables.")
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
    out.add_argument("--json", action="store_true", help='print {"ids": [...], "tokens": [...], "bytes": [...]} (tokens as text, bytes as \\xNN escapes)')
    e.add_argument("--dropout", type=float, default=0.0, metavar="P", help="BPE-dropout: skip each merge with probability P")
    e.add_argument("--seed", type=int, metavar="S", help="random seed for --dropout")
    add_table_rules(e)

    d = sub.add_parser("decode", help="turn token ids back into text")
    d.add_argument("-t", "--table", required=True, help="a merge table (any readable format)")
    d.add_argument("ids", nargs="*", help="token ids (default: read from stdin, separated by spaces, commas or lines)")
    add_table_rules(d)

    r = sub.add_parser("trace", help="show the merges applied to a word, in order, and what each beat")
    r.add_argument("-t", "--table", required=True, help="a merge table (any readable format)")
    r.add_argument("word", help="one pre-token (quote it to keep a leading space)")
    add_table_rules(r)

    i = sub.add_parser("inspect", help="summarise a merge table, or show how a token was built")
    i.add_argument("table")
    tok = i.add_mutually_exclusive_group()
    tok.add_argument("--token", help="a token (its text, or its id) whose merge tree to show")
    tok.add_argument("--id", type=int, metavar="N", help="a token id whose merge tree to show")
    add_table_rules(i)

    o = sub.add_parser("open", help="open a merge table in the explorer")
    o.add_argument("table")
    o.add_argument("--compare", metavar="TABLE_B", help="open the comparison view of TABLE and TABLE_B on the same text")
    add_table_rules(o)

    le = sub.add_parser("learn", help="a guided tour of BPE on the worked examples, in the explorer")
    le.add_argument("--stop", type=int, default=1, metavar="N", help="begin at stop N (default 1)")

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

    a = sub.add_parser("audit", help="list a table's unreachable, partial, scaffold, unused ... tokens")
    a.add_argument("table")
    a.add_argument("--corpus", nargs="+", action="extend", default=[], metavar="FILE", help="encode these files to find intermediate and unused tokens (repeatable)")
    a.add_argument("--json", action="store_true", help="print the categories as JSON (lists of ids) with a summary")
    a.add_argument("--limit", type=int, default=10, metavar="N", help="tokens shown per category (default 10; 0 = all)")
    a.add_argument("--long", type=int, default=None, metavar="N", help="tokens of N characters or more are 'very long' (default 16)")
    add_eval_options(a)

    v = sub.add_parser("eval", help="measure tables on corpora: bytes/token, fertility, Rényi efficiency, premium")
    v.add_argument("tables", nargs="+", metavar="TABLE")
    v.add_argument("--corpus", nargs="+", action="extend", required=True, metavar="[LABEL=]FILE", help="corpora (repeatable); on parallel text the first is the premium's reference")
    out = v.add_mutually_exclusive_group()
    out.add_argument("--json", action="store_true", help="print one JSON object per table x corpus, in a list")
    out.add_argument("--markdown", action="store_true", help="print a Markdown table")
    add_eval_options(v)
    return p


def add_eval_options(p: argparse.ArgumentParser) -> None:
    """Options shared by audit and eval (which encode corpora)."""
    p.add_argument("--workers", type=int, metavar="N", help="processes encoding (default: CPU count for 8 MB or more of work, else 1)")
    p.add_argument("--errors", choices=["strict", "replace"], default="strict", help="invalid UTF-8: stop (strict) or substitute U+FFFD")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress bar")


def build_explorer_parser() -> argparse.ArgumentParser:
    p = OneLineParser(
        prog="bpe-tui",
        description="Open the explorer on a corpus (the built-in demo corpus if none is given). "
        f"Subcommands: {', '.join(SUBCOMMANDS)} (bpe-tui COMMAND --help).",
    )
    p.add_argument("--version", action="version", version=f"bpe-tui {__version__}")
    p.add_argument("corpus", nargs="*", help="text files, directories, or - for stdin")
    add_training_options(p)
    return p


# ---------------------------------------------------------------------- commands


def stderr_progress(unit: str = "items"):
    """A rich progress bar on stderr that disappears when done (use it as a context manager);
    amounts read as sizes for ``unit="bytes"``, as ``1,234/5,678`` otherwise. A task whose
    unit changes as it goes (train: counting bytes, then merging) says so in its ``unit`` field."""
    from rich.console import Console
    from rich.filesize import decimal
    from rich.progress import (
        BarColumn,
        Progress,
        ProgressColumn,
        TextColumn,
        TimeElapsedColumn,
    )
    from rich.text import Text

    class Amount(ProgressColumn):
        def render(self, task) -> Text:
            done, total = int(task.completed), task.total
            if task.fields.get("unit", unit) == "bytes":
                return Text(decimal(done) + (f"/{decimal(int(total))}" if total else ""), style="progress.download")
            return Text(f"{done:,}" + (f"/{int(total):,}" if total else ""), style="progress.download")

    return Progress(TextColumn("{task.description}"), BarColumn(), Amount(), TimeElapsedColumn(), console=Console(stderr=True), transient=True)


@contextlib.contextmanager
def progress_bar(description: str, quiet: bool, unit: str = "bytes"):
    """A ``progress(done, total)`` callback drawing a bar on stderr (None when stderr is not
    a terminal, or with --quiet); ctrl+c stops the work (exit 130, see :func:`main`)."""
    if not sys.stderr.isatty() or quiet:
        yield None
        return
    with stderr_progress(unit) as bar:
        task = bar.add_task(description, total=None)
        yield lambda done, total: bar.update(task, completed=done, total=total or None)


def counting_label(dask: str | None) -> str:
    """What the counting progress counts: bytes read here, or blocks counted on Dask."""
    return f"counting on dask {dask} (blocks)" if dask else "counting words (bytes)"


def check_target_before_counting(cfg: TrainerConfig, paths: list[str]) -> None:
    """A vocabulary size below a byte-level alphabet is exit 2 before a corpus is counted
    (a chars alphabet is known only after counting: the trainer checks it then)."""
    if cfg.units == "bytes":
        from .core.engine.config import check_vocab_size
        from .core.text.corpus import corpus_where

        check_vocab_size(cfg.vocab_size, 256 + (cfg.end_of_word is not None), len(cfg.special_tokens), corpus_where(paths))


def refuse_overwrite(path: str, force: bool) -> None:
    """Fail early on an output path that would be refused anyway (the write checks again)."""
    from .core.atomic import resolve_target

    resolve_target(path, overwrite=force)


def cmd_train(args: argparse.Namespace) -> int:
    from .core.engine.trainer import Trainer

    start = None
    if args.from_table is not None:
        start, cfg = start_from_args(args)
    else:
        cfg = config_from_args(args)
    from .core.tables.formats import check_save

    # Everything that would stop the save is checked now, not after a long run.
    check_save(args.output, args.format, cfg.units, overwrite=args.force, **save_options(args, args.format))
    if start is None:
        check_target_before_counting(cfg, args.corpus)
    dask = dask_from_args(args)
    show = sys.stderr.isatty() and not args.quiet
    if show:
        with stderr_progress() as bar:
            task = bar.add_task(counting_label(dask), total=None, unit="blocks" if dask else "bytes")
            options = dict(
                errors=args.errors, counts=args.counts, workers=args.workers, client=dask,
                progress=lambda done, total: bar.update(task, completed=done, total=total or None),
            )
            if start is not None:
                trainer = Trainer.from_table(start, args.corpus, cfg, **options)
            else:
                trainer = Trainer.from_files(args.corpus, cfg, **options)
            target = trainer.target_steps
            bar.update(task, description="merging", completed=trainer.first_step, total=target, unit="merges")
            for event in trainer.run():
                if event.step % 50 == 0:
                    bar.update(task, completed=event.step)
                    stop_if_interrupted()
    else:
        options = dict(errors=args.errors, counts=args.counts, workers=args.workers, client=dask)
        if start is not None:
            trainer = Trainer.from_table(start, args.corpus, cfg, **options)
        else:
            trainer = Trainer.from_files(args.corpus, cfg, **options)
        for event in trainer.run():
            if event.step % 50 == 0:
                stop_if_interrupted()
    stop_if_interrupted()
    table = trainer.table
    table.save(args.output, format=args.format, overwrite=args.force, **save_options(args, args.format))
    if not args.quiet:
        ratio = trainer.corpus_chars / max(1, trainer.total_tokens)
        print(f"{trainer.name}: {trainer.word_count:,} distinct words, {trainer.corpus_chars:,} characters")
        if start is not None:
            print(f"from {args.from_table}: {start.num_merges:,} merges, {len(start):,} tokens kept; " + "; ".join(trainer.table_rules))
            new = trainer.steps_done - trainer.first_step
            print(plural(new, "new merge") + (f" (merges {trainer.first_step + 1:,}-{trainer.steps_done:,})" if new else ""))
        print(f"{trainer.steps_done:,} merges, vocabulary {trainer.vocab_size:,} ({cfg.describe()})")
        print(f"tokens {trainer.initial_total_tokens:,} -> {trainer.total_tokens:,} ({ratio:.2f} characters per token)")
        if trainer.stop_reason and "reached" not in trainer.stop_reason:
            print(f"stopped early: {trainer.stop_reason}")
        print(f"wrote {args.output} ({args.format})")
    return 0


def read_stdin_text() -> str:
    """All of stdin as UTF-8 text (one-line error naming the byte where it is not)."""
    data = sys.stdin.buffer.read()
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise BPEError(f"stdin: not valid UTF-8 at byte {exc.start}") from None


def iter_stdin_text(block: int = 1 << 16):
    """stdin as UTF-8 text in pieces, decoded incrementally (memory stays flat)."""
    import codecs

    decoder = codecs.getincrementaldecoder("utf-8")()
    done = 0
    while True:
        data = sys.stdin.buffer.read(block)
        try:
            text = decoder.decode(data, final=not data)
        except UnicodeDecodeError as exc:
            raise BPEError(f"stdin: not valid UTF-8 at byte {done + exc.start}") from None
        done += len(data)
        if text:
            yield text
        if not data:
            return


def argv_text(text: str, what: str) -> str:
    """A command-line argument as text: bytes that are not UTF-8 are a one-line error."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raw = os.fsencode(text)
        try:
            raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise BPEError(f"{what}: not valid UTF-8 at byte {exc.start}") from None
    return text


def token_fields(table, token_id: int, surface) -> dict:
    """What --json says about a token: its text, and for bytes tables its exact bytes."""
    if isinstance(surface, bytes):
        text = surface.decode("utf-8", "replace")
        return {"text": text, "bytes": "".join(f"\\x{b:02x}" for b in surface)}
    return {"text": surface}


def cmd_encode(args: argparse.Namespace) -> int:
    from .core.tables.table import UNK_ID, check_dropout

    table = load_table(args, args.table)
    check_dropout(args.dropout)
    out = sys.stdout
    if args.text is not None:
        chunks = iter([argv_text(args.text, "TEXT")])
    else:
        if sys.stdin.isatty():  # (a person at a terminal, not a pipe: say what is awaited)
            print("bpe-tui: reading the text to encode from the terminal; ctrl+d ends it (or give TEXT)", file=sys.stderr)
        chunks = iter_stdin_text()
    if args.ids and not args.dropout:
        # Streamed: ids are written as they are made, memory stays flat on any input size.
        first = True
        line: list[str] = []
        for token_id in table.encode_iterable(chunks):
            line.append(str(token_id))
            if len(line) >= 4096:
                out.write(("" if first else " ") + " ".join(line))
                first = False
                line = []
        out.write(("" if first else " ") + " ".join(line) + "\n")
        return 0
    unk = table.unk_id
    if not args.json and not args.dropout and not args.ids:
        read = [0]  # characters of input seen, for the summary

        def counted(chunks):
            for chunk in chunks:
                stop_if_interrupted()
                read[0] += len(chunk)
                yield chunk

        return write_pieces(table, table.pieces_iterable(counted(chunks)), out, read)
    text = "".join(chunks)
    pieces = table.pieces(text, dropout=args.dropout, seed=args.seed)
    ids = [unk if i == UNK_ID else i for i, _ in pieces]
    if args.ids:
        print(" ".join(map(str, ids)))
        return 0
    if args.json:
        tokens = [token_fields(table, i, s) for i, s in pieces]
        record = {"ids": ids, "tokens": [t["text"] for t in tokens]}
        if table.units == "bytes":
            record["bytes"] = [t["bytes"] for t in tokens]
        print(json.dumps(record, ensure_ascii=False))
        return 0
    return write_pieces(table, iter(pieces), out, [len(text)])


def write_pieces(table, pieces, out, chars_read: list[int]) -> int:
    """Write tokens as they come: piped, one ``id<TAB>token`` per line; on a terminal, coloured
    tokens in batches, then a summary. Memory stays flat on any input size."""
    from .core.tables.table import UNK_ID

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
            raise BPEError(f"id {n + 1}: {word[:30]!r} is not a whole number") from None
    sys.stdout.write(table.decode(ids))
    if sys.stdout.isatty():
        sys.stdout.write("\n")
    return 0


def cmd_trace(args: argparse.Namespace) -> int:
    table = load_table(args, args.table)
    word = argv_text(args.word, "WORD")
    steps = table.trace(word)
    show = lambda s: visible(s, table.end_of_word)  # noqa: E731
    start = table.initial_symbols(word.lower() if table.lowercase else word)
    print(f"{show(word if table.units == 'chars' else word)!s}: {plural(len(start), 'symbol')} -> {plural(len(start) - len(steps), 'token')} in {plural(len(steps), 'merge')}")
    print("  start  " + " ".join(show(s) for s in start))
    before = list(start)
    for step in steps:
        rivals = rival_merges(table, before, step.rank)
        beat = f"  beat {', '.join(rivals[:3])}" + (f" (+{len(rivals) - 3} more)" if len(rivals) > 3 else "") if rivals else ""
        a, b = step.pair
        print(f"  merge {merge_number(step.rank):>6}: {show(a)} + {show(b)} -> {show(step.new_token)}{beat}")
        before = list(step.symbols)
    print("  end    " + " ".join(show(s) for s in before))
    return 0


def rival_merges(table, symbols: list, chosen_rank: int) -> list[str]:
    """The other merges possible in ``symbols`` that the chosen (lower-ranked) one beat, as 'merge N a+b'."""
    found = set()
    for left, right in zip(symbols, symbols[1:]):
        a, b = table.token_id(left), table.token_id(right)
        rank = table.pair_rank(a, b) if a is not None and b is not None else None
        if rank is not None and rank != chosen_rank:
            found.add((rank, left, right))
    return [f"merge {merge_number(r)} {visible(x, table.end_of_word)}+{visible(y, table.end_of_word)}" for r, x, y in sorted(found)]


def cmd_inspect(args: argparse.Namespace) -> int:
    table = load_table(args, args.table)
    if args.id is not None:
        if args.id not in table.vocab:
            raise BPEError(f"token id {args.id} is not in the vocabulary (ids 0..{max(table.vocab)})")
        return print_token_tree(table, str(args.id), by_id=True)
    if args.token is not None:
        return print_token_tree(table, args.token)
    d = table.describe()
    print(f"{args.table}: {d['format']} merge table, {d['units']}, pre-tokenizer {describe_pretokenizer(d['pretokenizer'])}")
    print(f"vocabulary {d['vocab_size']:,} tokens, {d['merges']:,} merges" + (f", tie-break {d['tie_break']}" if d["tie_break"] else ""))
    if d["end_of_word"]:
        print(f"end-of-word marker {d['end_of_word']!r}" + (", lowercase" if d["lowercase"] else ""))
    if d["prefix_space"]:
        where = {"first": "the text", "always": "each segment", "prepend": "each segment, always"}[d["prefix_space"]]
        print(f"prefix space: a space is put before {where} ({d['prefix_space']})")
    if d["special_tokens"]:
        print(describe_specials(d["special_tokens"]))
    if d["notes"]:
        print("notes (what the reader recognised, assumed or could not apply):")
        for note in d["notes"]:
            print(f"  - {note}")
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


def describe_pretokenizer(name: str) -> str:
    """A pre-tokenizer's name for one line: named ones as they are, long regexes shortened."""
    from .core.text.pretokenize import PIPELINE

    if name.startswith(PIPELINE):
        return f"a pipeline of {name.count('pattern')} split steps"
    return name if len(name) <= 60 else name[:57] + "..."


def describe_specials(specials: dict[str, int], shown: int = 8) -> str:
    """Special tokens on one line, readable (whitespace visible), long lists cut in the middle."""
    items = [f"{visible(s)} = {i}" for s, i in sorted(specials.items(), key=lambda kv: kv[1])]
    if len(items) > shown + 2:
        items = items[: shown - 2] + [f"… {len(items) - shown} more …"] + items[-2:]
    return f"special tokens ({len(specials):,}): " + ", ".join(items)


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
    from .core.tables.formats import check_save, load, save

    check_save(args.output, args.to, overwrite=args.force, **save_options(args, args.to))
    table = load(args.input)
    check_save(args.output, args.to, table.units, overwrite=args.force, **save_options(args, args.to))
    for warning in conversion_losses(table, args.to):
        print(f"note: {warning}", file=sys.stderr)
    save(table, args.output, args.to, overwrite=args.force, **save_options(args, args.to))
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
    from .core.analysis.compare import compare, format_comparison
    from .core.tables.formats import load

    table_a, table_b = load(args.table_a), load(args.table_b)
    text = argv_text(args.text, "TEXT") if args.text is not None else read_stdin_text()
    result = compare(table_a, table_b, text)
    name_a = f"A {args.table_a} ({table_a.source_format})"
    name_b = f"B {args.table_b} ({table_b.source_format})"
    print(format_comparison(result, name_a, name_b, limit=args.limit or None))
    return 0


def conversion_losses(table, fmt: str) -> list[str]:
    """What a target format cannot carry over from this table (reported, not fatal)."""
    from .core.tables import formats

    lost = formats.writers()[fmt].losses(table)
    if table.manual_ranks and fmt != "native":
        n = len(table.manual_ranks)
        lost.append(f"which merges were chosen by hand ({plural(n, 'merge')}; only the native format records it)")
    return lost


def cmd_count(args: argparse.Namespace) -> int:
    from .core.text.corpus import read_count_files, write_count_file
    from .core.text.distributed import count_words

    refuse_overwrite(args.output, args.force)
    cfg = config_from_args(args, default_vocab=None)
    dask = dask_from_args(args)
    if args.counts:
        counts = read_count_files(args.corpus)
    else:
        with progress_bar(counting_label(dask), quiet=False, unit="blocks" if dask else "bytes") as progress:
            counts = count_words(args.corpus, cfg, client=dask, errors=args.errors, workers=args.workers, progress=progress)
    stop_if_interrupted()
    write_count_file(counts, args.output, overwrite=args.force)
    print(f"wrote {args.output}: {len(counts):,} distinct words, {sum(counts.values()):,} in all")
    return 0


def cmd_open(args: argparse.Namespace) -> int:
    from .core.tables.formats import load
    from .ui.app import run_inspect

    table = load_table(args, args.table)  # read here: errors are one line, before the screen opens
    if args.compare is not None:
        load(args.compare)
    return run_inspect(args.table, compare_path=args.compare, table=table)


def cmd_learn(args: argparse.Namespace) -> int:
    from .core.teaching.lessons import STOPS

    if not 1 <= args.stop <= len(STOPS):
        raise BPEError(f"--stop {args.stop}: the tour has stops 1 to {len(STOPS)}")
    STOPS[args.stop - 1].example.trainer()  # a missing worked example: one line, before the screen opens
    from .ui.views.tour import run_tour

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
    from .core.text.corpus import expand_sources

    if args.corpus:
        expand_sources(args.corpus)  # a missing file is a one-line error, not a broken screen
    if start is None:
        check_target_before_counting(cfg, args.corpus or ["demo.txt"])
    if args.workers is not None:
        from .core.text.corpus import resolve_workers

        resolve_workers(args.workers, 0)  # a bad --workers is a one-line error too
    from .ui.app import run_explorer

    options: dict = dict(errors=args.errors, counts=args.counts, workers=args.workers, dask=dask)
    if start is not None:
        import inspect

        if "start" not in inspect.signature(run_explorer).parameters:
            raise BPEError("--from: this explorer cannot open a start table yet (the UI half of #14 is not merged); use `bpe-tui train CORPUS --from TABLE -o OUT`")
        options["start"] = start  # the table to go on from (ui: run_explorer(..., start=MergeTable))
    return run_explorer(args.corpus or None, cfg, **options)


def run_evaluation(tables, names, corpora, args):
    """Encode the corpora with the tables, with a progress bar on a terminal."""
    from .core.analysis.evaluate import evaluate

    with progress_bar(f"encoding ({plural(len(tables), 'table')})", args.quiet) as progress:
        return evaluate(tables, corpora, names, errors=args.errors, workers=args.workers, progress=progress)


def table_label(path: str) -> str:
    """A short name for a table path: its file or directory name."""
    return os.path.basename(os.path.normpath(path))


def cmd_eval(args: argparse.Namespace) -> int:
    from .core.analysis.evaluate import format_markdown, format_table, parse_corpus
    from .core.tables.formats import load

    corpora = [parse_corpus(spec) for spec in args.corpus]
    tables = [load(path) for path in args.tables]
    result = run_evaluation(tables, [table_label(p) for p in args.tables], corpora, args)
    if args.json:
        print(json.dumps(result.rows(), ensure_ascii=False, indent=1))
    elif args.markdown:
        print(format_markdown(result))
    else:
        print(format_table(result))
    return 0


def cmd_audit(args: argparse.Namespace) -> int:
    from .core.analysis.audit import LONG_TOKEN_CHARS, audit, tree_text
    from .core.analysis.evaluate import parse_corpus
    from .core.tables.formats import load

    if args.limit < 0:
        raise BPEError(f"--limit must be 0 or more, not {args.limit}")
    if args.long is not None and args.long < 1:
        raise BPEError(f"--long must be 1 or more, not {args.long}")
    table = load(args.table)
    emitted = None
    if args.corpus:
        corpora = [parse_corpus(spec) for spec in args.corpus]
        from .core.analysis.evaluate import Corpus

        # All files together are one corpus for the audit.
        merged = Corpus("+".join(c.label for c in corpora), tuple(p for c in corpora for p in c.paths))
        result = run_evaluation([table], [table_label(args.table)], [merged], args)
        emitted = result.get(0, 0).counts
    with progress_bar("checking every token encodes to itself", args.quiet, unit="tokens") as progress:
        report = audit(table, emitted, long_chars=args.long or LONG_TOKEN_CHARS, progress=progress)
    if args.json:
        out: dict = {"table": args.table, "summary": report.summary()}
        listed: set[int] = set()
        for c in report.categories:
            out[c.key] = list(c.ids) if c.computed else None
            if c.key != "unused":
                listed.update(c.ids)
        out["notes"] = {c.key: {str(i): n for i, n in c.notes.items()} for c in report.categories if c.notes}
        out["tokens"] = {str(i): {"text": table.display(i), "tree": tree_text(table, i)} for i in sorted(listed)}
        print(json.dumps(out, ensure_ascii=False, indent=1))
        return 0
    d = table.describe()
    print(f"{args.table}: {d['format']} table, {d['units']}, vocabulary {len(table):,}, {table.num_merges:,} merges")
    if report.corpus_tokens is not None:
        print(f"corpus {', '.join(args.corpus)}: {report.corpus_tokens:,} tokens, {report.used:,} distinct ids used ({report.utilization:.1%} of the vocabulary)")
    width = max(len(c.title) for c in report.categories)
    print()
    for c in report.categories:
        count = f"{len(c):>8,}" if c.computed else "       –"
        print(f"  {c.title:<{width}}  {count}  {c.meaning if c.computed else 'needs --corpus'}")
    limit = args.limit or None
    for c in report.categories:
        if not c.computed or not c.ids:
            continue
        print(f"\n{c.title} ({len(c):,}): {c.meaning}")
        shown = c.ids[:limit] if limit else c.ids
        for i in shown:
            note = c.notes.get(i, "")
            print(f"  {i:>7}  {table.display(i):<18}  {tree_text(table, i):<28}  {note}".rstrip())
        if len(shown) < len(c.ids):
            print(f"  … {len(c.ids) - len(shown):,} more (--limit 0 shows all, --json lists every id)")
    return 0


COMMANDS = {
    "train": cmd_train,
    "encode": cmd_encode,
    "decode": cmd_decode,
    "trace": cmd_trace,
    "inspect": cmd_inspect,
    "open": cmd_open,
    "convert": cmd_convert,
    "count": cmd_count,
    "compare": cmd_compare,
    "audit": cmd_audit,
    "eval": cmd_eval,
    "learn": cmd_learn,
}


class OneLineParser(argparse.ArgumentParser):
    """argparse, but a usage error is one line and a hint, not a screen of usage."""

    def error(self, message: str):
        hint = f"{self.prog} --help"
        raise BPEError(f"{message} (see {hint})")


def check_workers(args: argparse.Namespace) -> None:
    """--workers beyond the machine's CPUs is clamped, and the user told so."""
    workers = getattr(args, "workers", None)
    if workers is None:
        return
    if workers < 1:
        raise BPEError(f"--workers must be 1 or more, not {workers}")
    cpus = os.cpu_count() or 1
    if workers > cpus:
        print(f"bpe-tui: note: --workers {workers} is more than this machine's {cpus} CPUs; using {cpus}", file=sys.stderr)
        args.workers = cpus


def misspelt_command(word: str) -> str | None:
    """The subcommand ``word`` is probably a typo of (a corpus path that exists is not one)."""
    import difflib

    if os.path.exists(word) or word.startswith("-") or os.sep in word or "." in word:
        return None
    close = difflib.get_close_matches(word, SUBCOMMANDS, n=1, cutoff=0.6)
    return close[0] if close else None


class _Interrupt:
    """Ctrl+C in the CLI: KeyboardInterrupt at once, and remembered. Python swallows an
    exception raised inside a finalizer ("Exception ignored in ..."), and Ctrl+C can land just
    while a worker pool is being cleaned up: the long loops then ask
    :func:`stop_if_interrupted`, so the interrupt is not lost."""

    seen = False

    @classmethod
    def handler(cls, signum, frame) -> None:
        cls.seen = True
        raise KeyboardInterrupt


def stop_if_interrupted() -> None:
    """Raise KeyboardInterrupt if Ctrl+C came and was swallowed somewhere."""
    if _Interrupt.seen:
        raise KeyboardInterrupt


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    import signal
    import threading

    previous = None
    _Interrupt.seen = False
    if threading.current_thread() is threading.main_thread() and signal.getsignal(signal.SIGINT) is signal.default_int_handler:
        previous = signal.signal(signal.SIGINT, _Interrupt.handler)
    try:
        return _run(argv)
    finally:
        if previous is not None:
            signal.signal(signal.SIGINT, previous)


def _run(argv: list[str]) -> int:
    """main's work: one line on stderr and its exit status for everything that goes wrong."""
    try:
        code = _main(argv)
        sys.stdout.flush()
        return code
    except BPEError as exc:
        print(f"bpe-tui: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("bpe-tui: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        _silence_stdout()
        return 0
    except OSError as exc:  # writing the output failed (a full disk, /dev/full)
        _silence_stdout()
        print(f"bpe-tui: error: cannot write output: {exc.strerror or exc}", file=sys.stderr)
        return 2


def _silence_stdout() -> None:
    """Point stdout at /dev/null so the interpreter's final flush cannot fail a second time."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):
        pass


def _main(argv: list[str]) -> int:
    """Dispatch: a subcommand, a misspelt one, top-level help, or the explorer."""
    if argv and argv[0] in SUBCOMMANDS:
        args = build_parser().parse_args(argv)
        check_workers(args)
        return COMMANDS[args.command](args)
    if argv and not os.path.exists(argv[0]) and (guess := misspelt_command(argv[0])):
        raise BPEError(f"unknown command {argv[0]!r}: did you mean {guess}? (see bpe-tui --help)")
    if argv and argv[0] in ("-h", "--help") and len(argv) == 1:
        build_parser().print_help()
        print("\nWith no COMMAND, bpe-tui opens the explorer: bpe-tui [CORPUS...] [training options]")
        return 0
    return cmd_explore(argv)


if __name__ == "__main__":
    sys.exit(main())
