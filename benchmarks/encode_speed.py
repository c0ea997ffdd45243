"""Encoding speed on the real tables, side by side with tiktoken in one run (run by hand; not a test).

    python benchmarks/encode_speed.py                  # gpt2, cl100k, o200k, llama3; 3 rounds
    python benchmarks/encode_speed.py --quick          # one round
    python benchmarks/encode_speed.py o200k llama3     # some tables
    python benchmarks/encode_speed.py --only encode    # one part: encode, batch, guard, cli

Two corpora, made at run time (nothing is downloaded, nothing is written into the repository):

* **mix**: ``--mb`` MB (default 8) of tinyshakespeare and taylorswift (../shared/corpora), the 12
  parallel texts (corpora/parallel), about 1 MB of the Python installation's documentation files
  (.txt, .rst, .md) and, for the rest, the standard library's own .py files, in sorted order;
* **12 languages**: the parallel texts alone (26 KB, 8 scripts), encoded ``--passes`` times, each
  pass with an empty pieces cache: text whose words seldom repeat, where the cache cannot help.

Parts (``--only``):

* **encode**: ``encode_ordinary`` of each corpus by a freshly loaded table (its load not timed)
  and by tiktoken's own engine on the same ranks and regex (``table.to_tiktoken()``), in turns,
  every round; CPU seconds of this process and wall seconds, medians; the ratio is tiktoken's
  time over ours (above 1: ours is faster), the median of the per-round ratios. ``split`` is
  our pre-tokenizer's split of the same text alone, the floor under everything else: the best
  ratio the encoder could reach if looking pieces up and merging them cost nothing. ``cached``
  is the same text encoded again, every piece in the pieces cache (the split and a lookup per
  piece): the floor of a cold run, whose difference, ``new pieces``, is the merging of the
  pieces the cache did not hold, in Python.
* **batch**: ``encode_ordinary_batch`` of the mix's lines on 2 worker processes against
  tiktoken's ``encode_ordinary_batch`` (its default 8 threads), and of its files (fewer, longer
  texts); CPU includes the worker processes.
* **guard**: the time limit bpe-tui puts on a regex it does not know (a file's own, guarding
  against catastrophic backtracking), against the same regex without it, on the mix.
* **cli**: ``bpe-tui encode -t TABLE --ids`` reading the mix from stdin, against a process that
  loads the table and calls ``table.encode`` on the same text (both timed from the process's
  start, load included), and the command's peak memory on the mix and on four times it.

Ids are checked equal to tiktoken's (and the command line's to the library's) before anything
is printed. Timings on a shared machine move from one minute to the next: compare the ratios.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from compare import REPO, SHARED, TAYLOR, TINY  # noqa: E402  (benchmarks/compare.py)

PARALLEL = REPO / "corpora" / "parallel"

#: name -> (path under ../shared/tables, the issue's goal for encode_ordinary vs tiktoken)
TABLES = {
    "gpt2": ("gpt2", 1.0),
    "cl100k": ("cl100k/cl100k_base.tiktoken", 1.0),
    "o200k": ("o200k/o200k_base.tiktoken", 0.6),
    "llama3": ("llama3/tokenizer.model", 0.6),
}


# ---------------------------------------------------------------------- corpora, made here


def parallel_text() -> str:
    """The 12 parallel texts, one after the other (sorted by file name)."""
    return "".join(p.read_text(encoding="utf-8") for p in sorted(PARALLEL.glob("*.txt")))


def _files(roots: list[str], suffixes: tuple[str, ...], skip: tuple[str, ...] = ()) -> list[Path]:
    found = []
    for root in dict.fromkeys(roots):
        for dirpath, dirnames, filenames in os.walk(root):
            dirnames[:] = sorted(d for d in dirnames if d not in skip)
            found += [Path(dirpath) / n for n in sorted(filenames) if n.endswith(suffixes)]
    return found


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def mix_documents(size: int) -> list[str]:
    """The mix as documents (one per file or corpus), about ``size`` bytes of UTF-8 in all."""
    docs = [TINY.read_text(encoding="utf-8"), TAYLOR.read_text(encoding="utf-8")]
    docs += [p.read_text(encoding="utf-8") for p in sorted(PARALLEL.glob("*.txt"))]
    paths = sysconfig.get_paths()
    budget = 1_000_000
    for path in _files([paths["stdlib"], paths["purelib"]], (".txt", ".rst", ".md")):
        text = _read(path)
        if text and budget > 0:
            docs.append(text)
            budget -= len(text.encode("utf-8"))
    total = sum(len(d.encode("utf-8")) for d in docs)
    for path in _files([paths["stdlib"]], (".py",), skip=("site-packages", "dist-packages", "__pycache__")):
        if total >= size:
            break
        text = _read(path)
        if text:
            docs.append(text)
            total += len(text.encode("utf-8"))
    return docs


# ---------------------------------------------------------------------- measuring


def cpu_seconds() -> float:
    """CPU time of this process and of its children that have ended (worker processes)."""
    me = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + children.ru_utime + children.ru_stime


def timed(run) -> tuple[object, float, float]:
    """``(result, cpu, wall)`` of ``run()``."""
    cpu, wall = cpu_seconds(), time.perf_counter()
    result = run()
    return result, cpu_seconds() - cpu, time.perf_counter() - wall


def median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def record(rows: dict[str, list[float]], **values: float) -> None:
    """Append each named measurement to its list in ``rows`` (a round's)."""
    for key, value in values.items():
        rows.setdefault(key, []).append(value)


def split_of(table):
    """Our pre-tokenizer's split of an ordinary text, as the encoder runs it (no special tokens)."""
    return table._encoder.words


def forget_pieces(table) -> None:
    """Empty the table's pieces cache (what a freshly loaded table has)."""
    table._encoder.cache.clear()


def load(name: str):
    import bpe_tui

    return bpe_tui.load(str(SHARED / "tables" / TABLES[name][0]))


def part_encode(names: list[str], rounds: int, mix: str, passes: int) -> None:
    languages = parallel_text()
    mb_mix = len(mix.encode("utf-8")) / 1e6
    mb_lang = len(languages.encode("utf-8")) * passes / 1e6
    print(f"\nencode_ordinary, ours vs tiktoken (CPU s / wall s, medians of {rounds}; ratio = tiktoken's time / ours, above 1: ours faster)")
    print("(split: our pre-tokenizer alone, CPU s, and the ratio if nothing else cost anything; cached: the same text "
          "again, every piece in the cache, and its ratio; new pieces: what working out the pieces not seen before cost)")
    print(f"{'table':<8} {'corpus':<13} {'ours CPU':>8} {'wall':>6} {'MB/s':>6}  {'tiktoken':>8} {'wall':>6} {'MB/s':>6}  "
          f"{'ratio CPU':>9} {'wall':>5}  {'split':>5} {'floor':>6}  {'cached':>6} {'floor':>5}  {'new pcs':>8}  goal")
    for name in names:
        goal = TABLES[name][1]
        enc = load(name).to_tiktoken()
        for corpus, text, reps, mb in (("mix", mix, 1, mb_mix), ("12 languages", languages, passes, mb_lang)):
            rows: dict[str, list[float]] = {}
            for _ in range(rounds):
                table = load(name)
                split = split_of(table)

                def ours():
                    out = None
                    for _ in range(reps):
                        forget_pieces(table)
                        out = table.encode_ordinary(text)
                    return out

                def theirs():
                    out = None
                    for _ in range(reps):
                        out = enc.encode_ordinary(text)
                    return out

                def split_only():
                    for _ in range(reps):
                        split(text)

                def warm():  # the same text again: every piece in the cache already
                    for _ in range(reps):
                        table.encode_ordinary(text)

                ids, oc, ow = timed(ours)
                ref, tc, tw = timed(theirs)
                _, sc, _ = timed(split_only)
                _, hc, _ = timed(warm)
                assert ids == ref, f"{name} on {corpus}: the ids differ from tiktoken's"
                record(rows, oc=oc, ow=ow, tc=tc, tw=tw, sc=sc, hc=hc, rc=tc / oc, rw=tw / ow)
            oc, ow, tc, tw, sc, hc = (median(rows[k]) for k in ("oc", "ow", "tc", "tw", "sc", "hc"))
            ratio, floor, cached = median(rows["rc"]), tc / sc, tc / hc
            verdict = "met" if ratio >= goal else ("below the floor" if min(floor, cached) < goal else "missed")
            print(
                f"{name:<8} {corpus:<13} {oc:>8.2f} {ow:>6.2f} {mb / oc:>6.2f}  {tc:>8.2f} {tw:>6.2f} {mb / tc:>6.2f}  "
                f"{ratio:>8.2f}x {median(rows['rw']):>4.2f}x  {sc:>5.2f} {floor:>5.2f}x  {hc:>5.2f} {cached:>5.2f}x  {oc - hc:>8.2f}  "
                f">= {goal:g}x: {verdict}",
                flush=True,
            )


def part_batch(names: list[str], rounds: int, docs: list[str]) -> None:
    lines = [line for doc in docs for line in doc.splitlines(keepends=True)]
    mb = sum(len(d.encode("utf-8")) for d in docs) / 1e6
    print(f"\nencode_ordinary_batch on {os.cpu_count()} CPUs: ours with 2 worker processes vs tiktoken (8 threads); "
          f"{mb:.1f} MB as {len(lines):,} lines and as {len(docs):,} files (medians of {rounds}; ratio = tiktoken's wall / ours)")
    print(f"{'table':<8} {'texts':<7} {'ours wall':>9} {'CPU':>6}  {'tiktoken wall':>13} {'CPU':>6}  {'ratio wall':>10}  goal")
    for name in names:
        enc = load(name).to_tiktoken()
        for kind, texts in (("lines", lines), ("files", docs)):
            rows: dict[str, list[float]] = {}
            for _ in range(rounds):
                table = load(name)
                ids, c1, w1 = timed(lambda: table.encode_ordinary_batch(texts, workers=2))
                ref, c2, w2 = timed(lambda: enc.encode_ordinary_batch(texts))
                assert ids == ref, f"{name}: the batch's ids differ from tiktoken's"
                record(rows, ow=w1, oc=c1, tw=w2, tc=c2, rw=w2 / w1)
            ow, oc, tw, tc, ratio = (median(rows[k]) for k in ("ow", "oc", "tw", "tc", "rw"))
            print(f"{name:<8} {kind:<7} {ow:>9.2f} {oc:>6.2f}  {tw:>13.2f} {tc:>6.2f}  "
                  f"{ratio:>9.2f}x  ahead: {'met' if ratio > 1 else 'missed'}", flush=True)


def part_guard(rounds: int, mix: str) -> None:
    import regex

    from bpe_tui.core.tables.formats.tiktoken_known import LLAMA3_PATTERN
    from bpe_tui.core.text.pretokenize import compile_pattern

    # Llama 3's regex in a group of its own: the same splits, but not a pattern bpe-tui knows.
    unknown = "(?:" + LLAMA3_PATTERN + ")"
    guarded = compile_pattern("regex:" + unknown, unknown)
    plain = regex.compile(unknown)
    g, p, r = [], [], []
    for _ in range(rounds):
        a, gc, _ = timed(lambda: guarded.findall(mix))
        b, pc, _ = timed(lambda: plain.findall(mix))
        assert a == b
        g.append(gc)
        p.append(pc)
        r.append(gc / pc)
    cost = median(r) - 1
    print(f"\nthe guard on a regex bpe-tui does not know (Llama 3's, in a group), splitting the mix (CPU s, medians of {rounds})")
    print(f"guarded {median(g):.2f} s, plain {median(p):.2f} s: the guard costs {cost:+.0%} of the split "
          f"(goal <= 10%: {'met' if cost <= 0.10 else 'missed'}); {type(guarded).__name__}")


CHILD_LIBRARY = r"""
import sys, time
import bpe_tui
table = bpe_tui.load(sys.argv[1])
text = open(sys.argv[2], encoding="utf-8").read()
ids = table.encode(text)
sys.stdout.write(" ".join(map(str, ids)) + "\n")
"""


def _child(argv: list[str], stdin_path: Path | None) -> tuple[bytes, float, float, float]:
    """``(stdout, cpu, wall, peak RSS MB)`` of a child process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    wall = time.perf_counter()
    with open(stdin_path, "rb") if stdin_path else open(os.devnull, "rb") as stdin:
        proc = subprocess.run(argv, stdin=stdin, capture_output=True, check=True)
    wall = time.perf_counter() - wall
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    return proc.stdout, cpu, wall, after.ru_maxrss / 1024


def _peak_rss(argv: list[str], stdin_path: Path) -> float:
    """Peak RSS (MB) of one run of a command (a shell of its own, so the peak is its alone)."""
    code = (
        "import resource, subprocess, sys\n"
        "subprocess.run(sys.argv[2:], stdin=open(sys.argv[1], 'rb'), stdout=subprocess.DEVNULL, check=True)\n"
        "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024)\n"
    )
    out = subprocess.run([sys.executable, "-c", code, str(stdin_path), *argv], capture_output=True, text=True, check=True)
    return float(out.stdout.strip())


def part_cli(names: list[str], rounds: int, mix: str, work: Path) -> None:
    text_path = work / "mix.txt"
    text_path.write_text(mix, encoding="utf-8")
    big = work / "mix4.txt"
    big.write_text(mix * 4, encoding="utf-8")
    mb = len(mix.encode("utf-8")) / 1e6
    exe = [sys.executable, "-m", "bpe_tui.cli"] if not (Path(sys.executable).parent / "bpe-tui").exists() else [str(Path(sys.executable).parent / "bpe-tui")]
    print(f"\nbpe-tui encode --ids, stdin, against table.encode in a process of its own (both from the process's start, "
          f"load included; {mb:.1f} MB; medians of {rounds})")
    print(f"{'table':<8} {'command CPU':>11} {'wall':>6}  {'library CPU':>11} {'wall':>6}  {'command/library speed':>21}  "
          f"{'peak MB (x1, x4 input)':>22}  goal")
    for name in names:
        table_path = str(SHARED / "tables" / TABLES[name][0])
        rows: dict[str, list[float]] = {}
        for _ in range(rounds):
            out1, c1, w1, _ = _child([*exe, "encode", "-t", table_path, "--ids"], text_path)
            out2, c2, w2, _ = _child([sys.executable, "-c", CHILD_LIBRARY, table_path, str(text_path)], None)
            assert out1.split() == out2.split(), f"{name}: the command's ids differ from the library's"
            record(rows, cc=c1, cw=w1, lc=c2, lw=w2, r=c2 / c1)
        cc, cw, lc, lw, ratio = (median(rows[k]) for k in ("cc", "cw", "lc", "lw", "r"))
        peaks = [_peak_rss([*exe, "encode", "-t", table_path, "--ids"], p) for p in (text_path, big)]
        print(f"{name:<8} {cc:>11.2f} {cw:>6.2f}  {lc:>11.2f} {lw:>6.2f}  {ratio:>20.0%}   "
              f"{peaks[0]:>10.0f} {peaks[1]:>10.0f}  >= 80%: {'met' if ratio >= 0.8 else 'missed'}", flush=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", help=f"tables (default: {', '.join(TABLES)})")
    parser.add_argument("--quick", action="store_true", help="one round instead of three")
    parser.add_argument("--mb", type=float, default=8, help="size of the mix in MB (default 8)")
    parser.add_argument("--passes", type=int, default=40, help="cold passes over the 12 languages (default 40)")
    parser.add_argument("--only", choices=("encode", "batch", "guard", "cli"), action="append", help="run only these parts")
    args = parser.parse_args()
    for path in (TINY, TAYLOR, SHARED / "tables"):
        if not path.exists():
            print(f"{path} is absent: this benchmark needs ../shared", file=sys.stderr)
            return 2
    names = args.names or list(TABLES)
    unknown = [n for n in names if n not in TABLES]
    if unknown:
        parser.error(f"unknown table {unknown[0]!r}; choose from {', '.join(TABLES)}")
    parts = args.only or ["encode", "batch", "guard", "cli"]
    rounds = 1 if args.quick else 3

    import tiktoken

    import bpe_tui

    docs = mix_documents(int(args.mb * 1e6))
    mix = "".join(docs)
    load_avg = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"mix: {len(mix.encode('utf-8')) / 1e6:.1f} MB in {len(docs):,} documents; 12 languages: "
          f"{len(parallel_text().encode('utf-8')) / 1e3:.0f} KB x {args.passes} cold passes")
    print(f"{os.cpu_count()} CPUs, load average {load_avg:.1f}; Python {sys.version.split()[0]}, "
          f"bpe-tui {bpe_tui.__version__ if hasattr(bpe_tui, '__version__') else ''} from {Path(bpe_tui.__file__).parent}, "
          f"tiktoken {tiktoken.__version__ if hasattr(tiktoken, '__version__') else ''}")
    if "encode" in parts:
        part_encode(names, rounds, mix, args.passes)
    if "batch" in parts:
        part_batch(names, rounds, docs)
    if "guard" in parts:
        part_guard(rounds, mix)
    if "cli" in parts:
        with tempfile.TemporaryDirectory() as work:
            part_cli(names, rounds, mix, Path(work))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
