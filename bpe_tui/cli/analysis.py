"""``bpe-tui compare``, ``audit`` and ``eval``: two tables on one text, a table's dead weight, and
tables measured on corpora.
"""

from __future__ import annotations

import argparse
import json
import os

from ..core.errors import BPEError
from ..core.wording import one_line, plural
from .options import add_eval_options, print_notes
from .plot import HEIGHT as PLOT_HEIGHT
from .plot import check_plot_path, say_plot_written, write_plot
from .terminal import argv_text, progress_bar, read_stdin_text, show


def cmd_compare(args: argparse.Namespace) -> int:
    from ..core.analysis.compare import compare, format_comparison
    from ..core.tables.formats import load

    table_a, table_b = load(args.table_a), load(args.table_b)
    text = argv_text(args.text, "TEXT") if args.text is not None else read_stdin_text()
    result = compare(table_a, table_b, text)
    name_a = f"A {one_line(args.table_a)} ({table_a.source_format})"
    name_b = f"B {one_line(args.table_b)} ({table_b.source_format})"
    print(format_comparison(result, name_a, name_b, limit=args.limit or None))
    return 0


def run_evaluation(tables, names, corpora, args):
    """Encode the corpora with the tables, with a progress bar on a terminal."""
    from ..core.analysis.evaluate import evaluate

    with progress_bar(f"encoding ({plural(len(tables), 'table')})", args.quiet) as progress:
        return evaluate(tables, corpora, names, errors=args.errors, workers=args.workers, progress=progress)


def shown_names(result):
    """An evaluation with its table and corpus names as a report shows them: escaped (see
    :func:`~bpe_tui.core.wording.one_line`); the JSON output keeps them as they are."""
    from dataclasses import replace

    return replace(result, tables=tuple(map(one_line, result.tables)), corpora=tuple(map(one_line, result.corpora)))


def table_label(path: str) -> str:
    """A short name for a table path: its file or directory name."""
    return os.path.basename(os.path.normpath(path))


def cmd_eval(args: argparse.Namespace) -> int:
    from dataclasses import replace

    from ..core.analysis.evaluate import parse_corpora
    from ..core.analysis.reports import (
        WHERE_DEFINED,
        format_legend,
        format_markdown,
        format_side_by_side,
        format_side_by_side_markdown,
        format_table,
        legend_markdown,
    )
    from ..core.analysis.side_by_side import rows, side_by_side, size_note
    from ..core.tables.formats import load

    if args.explain and args.json:
        raise BPEError("--explain prints a legend for people: it goes with the text and --markdown output, not --json")
    if args.explain and not args.tables and not args.corpus:  # the legend alone
        print(legend_markdown() if args.markdown else format_legend())
        return 0
    missing = [name for name, given in (("TABLE", args.tables), ("--corpus", args.corpus)) if not given]
    if missing:
        raise BPEError(f"the following arguments are required: {', '.join(missing)} (see bpe-tui eval --help)")
    if args.plot:
        check_plot_path(args.plot)
    corpora = parse_corpora(args.corpus)
    print_notes(note for corpus in corpora for note in corpus.notes)
    tables = [load(path) for path in args.tables]
    names = [table_label(p) for p in args.tables]
    result = run_evaluation(tables, names, corpora, args)
    if args.plot:
        from functools import partial

        from ..charts.evaluation import bars_height, metric_bars

        values = [[result.get(t, c).bytes_per_token for c in range(len(corpora))] for t in range(len(tables))]
        caption = [f"{names[t]}  {label}  {values[t][c]:.3f}" for t in range(len(tables)) for c, label in enumerate(result.corpora)]
        paint = partial(metric_bars, labels=list(result.corpora), values=values, series=names, title="bytes per token")
        height = bars_height(len(corpora)) if len(tables) == 1 else PLOT_HEIGHT // 2  # columns: any height
        write_plot(args.plot, paint, caption, title="bpe-tui eval", height=height)
    summaries = side_by_side(tables, result)
    shown = [replace(s, table=one_line(s.table), corpora=tuple(map(one_line, s.corpora))) for s in summaries]
    if args.json:
        print(json.dumps(rows(result, summaries), ensure_ascii=False, indent=1))
        print_notes(filter(None, [size_note(shown)]))
    else:
        markdown = args.markdown
        print(format_markdown(shown_names(result)) if markdown else format_table(shown_names(result)))
        print()
        print(format_side_by_side_markdown(shown) if markdown else format_side_by_side(shown))
        print()
        print((legend_markdown() if markdown else format_legend()) if args.explain else WHERE_DEFINED)
    if args.plot:
        say_plot_written(args.plot, machine_readable=args.json)
    return 0


def cmd_audit(args: argparse.Namespace) -> int:
    from ..core.analysis.audit import LONG_TOKEN_CHARS, audit, tree_text
    from ..core.analysis.evaluate import parse_corpus
    from ..core.tables.formats import load

    if args.limit < 0:
        raise BPEError(f"--limit must be 0 or more, not {args.limit}")
    if args.long is not None and args.long < 1:
        raise BPEError(f"--long must be 1 or more, not {args.long}")
    if args.plot:
        check_plot_path(args.plot)
    table = load(args.table)
    emitted = None
    if args.corpus:
        corpora = [parse_corpus(spec) for spec in args.corpus]
        print_notes(note for corpus in corpora for note in corpus.notes)
        from ..core.analysis.evaluate import Corpus

        # All files together are one corpus for the audit.
        merged = Corpus("+".join(c.label for c in corpora), tuple(p for c in corpora for p in c.paths))
        result = run_evaluation([table], [table_label(args.table)], [merged], args)
        emitted = result.get(0, 0).counts
    with progress_bar("checking every token encodes to itself", args.quiet, unit="tokens") as progress:
        report = audit(table, emitted, long_chars=args.long or LONG_TOKEN_CHARS, progress=progress)
    if args.plot:
        from functools import partial

        from ..charts.vocabulary import category_counts

        counts = [len(c) if c.computed else None for c in report.categories]
        caption = [f"{k:>3}  {c.title}: {len(c):,}" if c.computed else f"{k:>3}  {c.title}: needs --corpus" for k, c in enumerate(report.categories, 1)]
        write_plot(args.plot, partial(category_counts, counts=counts, title=f"{table_label(args.table)}: tokens per audit category"), caption, title="bpe-tui audit")
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
    else:
        print_audit(args, table, report)
    if args.plot:
        say_plot_written(args.plot, machine_readable=args.json)
    return 0


def print_audit(args: argparse.Namespace, table, report) -> None:
    """The audit as text: the table, the corpus, a line per category, then each one's tokens."""
    from ..core.analysis.audit import tree_text

    d = table.describe()
    show(f"{args.table}: {d['format']} table, {d['units']}, vocabulary {len(table):,}, {table.num_merges:,} merges")
    if report.corpus_tokens is not None:
        show(f"corpus {', '.join(args.corpus)}: {report.corpus_tokens:,} tokens, {report.used:,} distinct ids used ({report.utilization:.1%} of the vocabulary)")
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


def add_compare_parser(sub) -> None:
    """``bpe-tui compare``: its options."""
    m = sub.add_parser("compare", help="compare how two tables split the same text")
    m.add_argument("table_a")
    m.add_argument("table_b")
    m.add_argument("text", nargs="?", help="text to split (default: stdin)")
    m.add_argument("--limit", type=int, default=20, metavar="N", help="show at most N differing spans (default 20; 0 = all)")
    m.set_defaults(run=cmd_compare)


def add_audit_parser(sub) -> None:
    """``bpe-tui audit``: its options."""
    a = sub.add_parser("audit", help="list a table's unreachable, partial, scaffold, unused ... tokens")
    a.add_argument("table")
    a.add_argument("--corpus", nargs="+", action="extend", default=[], metavar="FILE", help="encode these files to find intermediate and unused tokens (repeatable)")
    a.add_argument("--json", action="store_true", help="print the categories as JSON (lists of ids) with a summary")
    a.add_argument("--limit", type=int, default=10, metavar="N", help="tokens shown per category (default 10; 0 = all)")
    a.add_argument("--long", type=int, default=None, metavar="N", help="tokens of N characters or more are 'very long' (default 16)")
    a.add_argument("--plot", metavar="FILE", help="also write the category counts as a chart: FILE.svg (a picture) or FILE.txt (text)")
    add_eval_options(a)
    a.set_defaults(run=cmd_audit)


def add_eval_parser(sub) -> None:
    """``bpe-tui eval``: its options."""
    v = sub.add_parser("eval", help="measure tables on corpora: bytes/token, fertility, Rényi efficiency, premium; then the tables side by side (premium, scaffold, unused, tokens that span spaces)")
    v.add_argument("tables", nargs="*", metavar="TABLE")
    v.add_argument("--corpus", nargs="+", action="extend", default=[], metavar="[LABEL=]FILE", help="corpora (repeatable, required); on parallel text the first is the premium's reference")
    out = v.add_mutually_exclusive_group()
    out.add_argument("--json", action="store_true", help="print one JSON object per table x corpus, in a list")
    out.add_argument("--markdown", action="store_true", help="print a Markdown table")
    v.add_argument(
        "--explain", action="store_true",
        help="under the tables, say what every column and side-by-side row is (alone, without TABLE and --corpus: only that)",
    )
    v.add_argument("--plot", metavar="FILE", help="also write bytes per token per corpus (a bar series per table) as a chart: FILE.svg or FILE.txt")
    add_eval_options(v)
    v.set_defaults(run=cmd_eval)
