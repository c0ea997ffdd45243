"""``bpe-tui serve``: the explorer in web browsers, one explorer process per browser tab.

::

    bpe-tui serve [CORPUS... | --open TABLE] [training options] [--host 127.0.0.1] [--port 8000]

Each tab that opens the page gets its own explorer: the explorer's own command line
(``python -m bpe_tui CORPUS...`` or ``... open TABLE``) run by textual-serve, the optional extra
``bpe-tui[web]`` (without it: one line naming the extra, exit 2). Everything the explorer would
refuse is refused here, once, before the server listens (not in every student's tab); the port is
bound here too, so that a port in use is one line naming it (exit 2), and ``--port 0`` takes any
free one (the line printed says which). The default host is loopback; another address gets a
warning, since whoever reaches it can read every file the explorer can open. Ctrl+C ends every
explorer (see :mod:`.webserver`), then the server, which prints ``stopped: every explorer has
ended`` and exits 0; SIGTERM does the same, then ends as every command ends on SIGTERM:
``bpe-tui: terminated``, exit status 143. ``--max-tabs`` caps the
explorers running at once, ``--idle-minutes`` ends those whose tabs have gone quiet.
"""

from __future__ import annotations

import argparse
import errno
import signal
import socket
import sys

from ..core.errors import BPEError
from ..core.wording import one_line
from .options import add_training_options
from .terminal import Terminated, say, show

#: The words ``serve`` takes for itself; the others go to each tab's explorer.
OWN_OPTIONS = ("--host", "--port", "--open", "--max-tabs", "--idle-minutes")

#: Explorers at once, by default: a class on a 2-CPU, 24 GB machine. Measured at 120 x 40: an
#: explorer takes 56 MB on the demo corpus, 72 MB on tinyshakespeare, 243 MB with o200k open,
#: and 0.5-1.4 s of CPU to its first screen, so 40 take 2-10 GB, and when 40 students open the
#: page at once the last one waits some 10-30 s on two CPUs.
DEFAULT_MAX_TABS = 40
#: Minutes without a key, a click or a resize from its tab after which an explorer ends.
DEFAULT_IDLE_MINUTES = 60

#: What ``serve --open`` hands on to ``bpe-tui open`` besides the table.
OPEN_OPTIONS = ("--compare", "--pretokenizer", "--special")


def add_serve_parser(sub) -> None:
    """``bpe-tui serve``: its options (the explorer's training options pass through)."""
    s = sub.add_parser(
        "serve",
        help="serve the explorer to web browsers, one explorer per tab (needs bpe-tui[web])",
        description="Serve the explorer to web browsers: each tab that opens the page gets its own explorer "
        "on the corpus (the demo corpus if none is given) or, with --open, on the table. Needs bpe-tui[web].",
        allow_abbrev=False,  # the words are handed on: each option is spelled out
    )
    s.add_argument("corpus", nargs="*", help="text files or directories each tab's explorer opens")
    s.add_argument("--open", metavar="TABLE", help="open this merge table in each tab instead (bpe-tui open TABLE)")
    s.add_argument("--compare", metavar="TABLE_B", help="with --open: the comparison view of TABLE and TABLE_B")
    s.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1: this machine only)")
    s.add_argument("--port", type=int, default=8000, help="port to listen on (default 8000; 0: any free port)")
    s.add_argument(
        "--max-tabs", type=int, default=DEFAULT_MAX_TABS, metavar="N",
        help=f"explorers at once (default {DEFAULT_MAX_TABS}: a class on a 2-CPU, 24 GB machine; each takes 60-250 MB); "
        "the next tab gets a page saying the room is full",
    )
    s.add_argument(
        "--idle-minutes", type=float, default=DEFAULT_IDLE_MINUTES, metavar="M",
        help=f"end an explorer whose tab sent no key, click or resize for M minutes (default {DEFAULT_IDLE_MINUTES}; 0: never)",
    )
    add_training_options(s)
    s.set_defaults(run=cmd_serve)


def require_textual_serve() -> None:
    """One line naming the extra when textual-serve is not installed."""
    try:
        import textual_serve.server  # noqa: F401
    except ImportError:
        raise BPEError("serve needs textual-serve: pip install 'bpe-tui[web]'") from None


def explorer_words(words: list[str], table: str | None) -> list[str]:
    """The explorer's command line from ``serve``'s words: ``serve``'s own options taken out,
    ``open TABLE`` in front when a table is served."""
    out: list[str] = []
    it = iter(words)
    for word in it:
        if word == "--":
            out.append(word)
            out.extend(it)
            break
        if word in OWN_OPTIONS:
            next(it, None)
        elif not word.startswith(tuple(f"{o}=" for o in OWN_OPTIONS)):
            out.append(word)
    return ["open", table, *out] if table is not None else out


def check_served(args: argparse.Namespace, argv: list[str]) -> str:
    """Refuse here what each tab's explorer would refuse, reading what it would read; return
    what is served, for the page's title."""
    from .explorer import explore_checked, open_checked

    if "-" in args.corpus:
        raise BPEError("serve cannot read a corpus from stdin (each tab starts its own explorer): give a file")
    if args.open is None:
        if args.compare is not None:
            raise BPEError("--compare goes with --open TABLE")
        explore_checked(argv)
        from ..core.text.sources import corpus_name

        return corpus_name(args.corpus) if args.corpus else "the demo corpus"
    if args.corpus:
        raise BPEError(f"give a corpus or --open TABLE, not both ({args.corpus[0]!r} and --open {args.open!r})")
    given = [w.split("=", 1)[0] for w in argv[2:] if w.startswith("--") and w.split("=", 1)[0] not in OPEN_OPTIONS]
    if given:
        raise BPEError(f"{given[0]} does not go with --open: a table brings its own rules (--open takes {', '.join(OPEN_OPTIONS)})")
    open_checked(_parse_open(argv))
    return args.open


def _parse_open(argv: list[str]) -> argparse.Namespace:
    """``bpe-tui open ...`` parsed by the open command's own parser."""
    from .explorer import add_open_parser
    from .options import OneLineParser

    parser = OneLineParser(prog="bpe-tui")
    add_open_parser(parser.add_subparsers())
    return parser.parse_args(argv)


def listen(host: str, port: int) -> socket.socket:
    """A socket listening on ``host:port``; a port in use, or one this user may not take, is
    one line naming it."""
    if not 0 <= port <= 65535:
        raise BPEError(f"--port {port}: a port is 0 to 65535 (0: any free port)")
    try:
        family, kind, proto, _, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)[0]
    except socket.gaierror as exc:
        raise BPEError(f"--host {host}: {exc.strerror}") from None
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # a port a stopped server left in TIME_WAIT
        sock.bind(address)
        sock.listen(128)
    except OSError as exc:
        sock.close()
        if exc.errno == errno.EADDRINUSE:
            raise BPEError(f"port {port} is in use on {host} (another server is listening there): pick another with --port") from None
        if exc.errno == errno.EACCES:
            raise BPEError(f"port {port}: permission denied (ports below 1024 need privileges): pick another with --port") from None
        raise BPEError(f"cannot listen on {host} port {port}: {exc.strerror or exc}") from None
    return sock


def cmd_serve(args: argparse.Namespace) -> int:
    require_textual_serve()
    if args.max_tabs < 1:
        raise BPEError(f"--max-tabs {args.max_tabs}: give 1 or more")
    if not args.idle_minutes >= 0:  # (nan too)
        raise BPEError(f"--idle-minutes {args.idle_minutes:g}: give 0 (never) or more")
    words = list(args.words)
    explorer = explorer_words(words, args.open)
    what = check_served(args, explorer)
    sock = listen(args.host, args.port)
    from .webserver import ExplorerServer, is_loopback, is_unspecified

    bound_host, bound_port = sock.getsockname()[:2]
    shown = f"[{bound_host}]:{bound_port}" if ":" in bound_host else f"{bound_host}:{bound_port}"
    if not is_loopback(bound_host):
        say(
            f"warning: listening on {shown}, not this machine only: anyone who can reach it can use the "
            "explorer, and through it read every file this user can read"
        )
    server = ExplorerServer(
        [sys.executable, "-m", "bpe_tui", *explorer], sock, title=f"bpe-tui · {one_line(what)}",
        max_tabs=args.max_tabs, idle_minutes=args.idle_minutes,
    )
    if is_loopback(bound_host):
        where = f"at http://localhost:{bound_port}"
    elif is_unspecified(bound_host):
        where = f"on port {bound_port} of every address of this machine, e.g. http://{socket.gethostname()}:{bound_port}"
    else:
        where = f"at http://{shown}"

    def started() -> None:
        show(f"serving the explorer on {what} {where} (each tab gets its own explorer; ctrl+c stops)")
        sys.stdout.flush()

    server.started = started
    try:
        server.run()
    finally:
        sock.close()
    print("stopped: every explorer has ended", flush=True)
    if server.stopped_by == signal.SIGTERM:  # a service manager's stop: then the conventional ending
        raise Terminated()
    return 0
