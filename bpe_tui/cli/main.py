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
    bpe-tui serve [CORPUS... | --open TABLE] the explorer in web browsers, one per tab (needs bpe-tui[web])

Every error is one line on stderr and exit status 2; the core raises ``BPEError`` for bad
input and this module prints it. Subcommands only call the core, never the other way round.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence

from ..core.errors import BPEError
from . import analysis, encoding, explorer, serve, tables, train
from .options import HELD_NOTES, SUBCOMMANDS, OneLineParser, VersionAction, check_workers, print_notes
from .terminal import ending, ending_signals, say

#: Each subcommand's parser, in the order ``bpe-tui --help`` lists them; each module that owns a
#: command family adds its own parsers (and the function that runs them).
PARSERS = {
    "train": train.add_train_parser,
    "encode": encoding.add_encode_parser,
    "decode": encoding.add_decode_parser,
    "trace": encoding.add_trace_parser,
    "inspect": tables.add_inspect_parser,
    "open": explorer.add_open_parser,
    "learn": explorer.add_learn_parser,
    "convert": tables.add_convert_parser,
    "compare": analysis.add_compare_parser,
    "count": train.add_count_parser,
    "audit": analysis.add_audit_parser,
    "eval": analysis.add_eval_parser,
    "serve": serve.add_serve_parser,
}


def build_parser() -> OneLineParser:
    """The subcommands' parser: ``bpe-tui COMMAND ...``."""
    p = OneLineParser(prog="bpe-tui", description="Watch Byte Pair Encoding learn; inspect merge tables.")
    p.add_argument("--version", action=VersionAction)
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    for add_parser in PARSERS.values():
        add_parser(sub)
    return p


def misspelt_command(word: str) -> str | None:
    """The subcommand ``word`` is probably a typo of (a corpus path that exists is not one)."""
    import difflib

    if os.path.exists(word) or word.startswith("-") or os.sep in word or "." in word:
        return None
    close = difflib.get_close_matches(word, SUBCOMMANDS, n=1, cutoff=0.6)
    return close[0] if close else None


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    with ending_signals():
        return _run(argv)


def _run(argv: list[str]) -> int:
    """main's work: one line on stderr and its exit status for everything that goes wrong."""
    HELD_NOTES.clear()
    try:
        code = _main(argv)
        sys.stdout.flush()
        print_notes(HELD_NOTES)
        return code
    except BPEError as exc:
        say(f"error: {exc}")
        return 2
    except KeyboardInterrupt as exc:  # SIGINT (ctrl+c), or SIGTERM (Terminated)
        line, status = ending(exc)
        say(line)
        return status
    except BrokenPipeError:
        _silence_stdout()
        return 0
    except OSError as exc:  # writing the output failed (a full disk, /dev/full)
        _silence_stdout()
        say(f"error: cannot write output: {exc.strerror or exc}")
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
        args.words = argv[1:]  # the command's own words, for one that hands them on (serve)
        check_workers(args)
        return args.run(args)
    if argv and not os.path.exists(argv[0]) and (guess := misspelt_command(argv[0])):
        raise BPEError(f"unknown command {argv[0]!r}: did you mean {guess}? (see bpe-tui --help)")
    if argv and argv[0] in ("-h", "--help") and len(argv) == 1:
        build_parser().print_help()
        print("\nWith no COMMAND, bpe-tui opens the explorer: bpe-tui [CORPUS...] [training options]")
        return 0
    return explorer.cmd_explore(argv)
