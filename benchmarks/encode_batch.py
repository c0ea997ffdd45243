"""``MergeTable.encode_batch`` in 1 and 2 worker processes beside tiktoken's ``encode_batch``
(run by hand; not part of the test suite).

    python benchmarks/encode_batch.py              # 4 MB of lines, 3 rounds
    python benchmarks/encode_batch.py --mb 8 --rounds 5

The batch is tinyshakespeare's lines (../shared/corpora), repeated to the size asked, one text
per line; the table is GPT-2's (../shared/tables/gpt2), and tiktoken gets the same ranks and
regex. Each row starts cold: a freshly loaded table (bpe-tui remembers pre-tokens it has
encoded), and tiktoken with its default 8 threads. The rows run in turns, every round; the
table gives each row's median wall time and CPU time (this process and its worker processes,
the pool's start and the table's pickling included) and the ratios to tiktoken and to one
worker. The ids of every row are checked equal before anything is printed.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
SHARED = REPO.parent / "shared"
sys.path.insert(0, str(REPO))


def cpu_seconds() -> float:
    """CPU time of this process and of its children that have ended (the pool's workers)."""
    me = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + children.ru_utime + children.ru_stime


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=float, default=4, help="batch size in MB (default 4)")
    parser.add_argument("--rounds", type=int, default=3, help="rounds, rows in turns (default 3)")
    args = parser.parse_args()

    import tiktoken

    import bpe_tui
    from bpe_tui.core.engine.units import gpt2_str_to_bytes
    from bpe_tui.core.text.pretokenize import GPT2_PATTERN

    source = SHARED / "corpora" / "tinyshakespeare.txt"
    table_dir = SHARED / "tables" / "gpt2"
    for path in (source, table_dir):
        if not path.exists():
            print(f"{path} is absent: the benchmark needs ../shared", file=sys.stderr)
            return 2
    lines = source.read_text(encoding="utf-8").splitlines(keepends=True)
    batch: list[str] = []
    total = 0
    while total < args.mb * 1e6:  # whole lines, in order, round and round, to the size asked
        line = lines[len(batch) % len(lines)]
        batch.append(line)
        total += len(line.encode("utf-8"))
    mb = total / 1e6
    repeat = len(batch) / len(lines)

    vocab = json.loads((table_dir / "vocab.json").read_text(encoding="utf-8"))
    ranks = {gpt2_str_to_bytes(s): i for s, i in vocab.items() if s != "<|endoftext|>"}
    enc = tiktoken.Encoding("gpt2-shared", pat_str=GPT2_PATTERN, mergeable_ranks=ranks, special_tokens={"<|endoftext|>": 50256})

    def ours(workers: int):
        table = bpe_tui.load(str(table_dir))  # cold: a fresh pieces cache (not timed)
        return lambda: table.encode_batch(batch, workers=workers)

    rows = {
        "bpe-tui encode_batch, 1 worker (this process)": lambda: ours(1),
        "bpe-tui encode_batch, 2 worker processes": lambda: ours(2),
        "tiktoken encode_batch (8 threads)": lambda: (lambda: enc.encode_batch(batch)),
    }
    walls: dict[str, list[float]] = {name: [] for name in rows}
    cpus: dict[str, list[float]] = {name: [] for name in rows}
    reference = None
    for _ in range(args.rounds):
        for name, make in rows.items():
            run = make()
            cpu0, wall0 = cpu_seconds(), time.perf_counter()
            ids = run()
            walls[name].append(time.perf_counter() - wall0)
            cpus[name].append(cpu_seconds() - cpu0)
            if reference is None:
                reference = ids
            assert ids == reference, f"{name}: the ids differ"
    assert reference is not None
    tokens = sum(map(len, reference))

    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"batch: tinyshakespeare's lines x {repeat:.2f} = {len(batch):,} texts, {mb:.1f} MB, {tokens:,} GPT-2 tokens (ids identical in every row)")
    print(f"{os.cpu_count()} CPUs, load average {load:.1f}; medians of {args.rounds} rounds, rows in turns")
    base_wall = statistics.median(walls["tiktoken encode_batch (8 threads)"])
    one_wall = statistics.median(walls["bpe-tui encode_batch, 1 worker (this process)"])
    print(f"{'row':<48} {'wall s':>8} {'CPU s':>8} {'MB/s':>7} {'wall vs tiktoken':>17} {'wall vs 1 worker':>17}")
    for name in rows:
        wall = statistics.median(walls[name])
        cpu = statistics.median(cpus[name])
        print(f"{name:<48} {wall:>8.2f} {cpu:>8.2f} {mb / wall:>7.2f} {wall / base_wall:>16.2f}x {wall / one_wall:>16.2f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
