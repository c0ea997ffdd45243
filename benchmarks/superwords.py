"""Superword BPE (SuperBPE) against plain BPE on the same corpus (run by hand; not a test).

    python benchmarks/superwords.py                          # tinyshakespeare, 10k, K = 5,000
    python benchmarks/superwords.py --vocab-size 3000 --k 1500 --corpus FILE

Each side runs in a fresh Python process (so that its peak memory is its own), trains from
the corpus file to ``--vocab-size`` with the gpt2 preset, and reports:

* time to count the corpus and build the trainer (SuperBPE counts it twice: words and chunks),
  and time to train (SuperBPE's includes the transition: the K merges replayed over the chunks);
* peak resident memory of the process (``ru_maxrss``) and the peak of Python's own allocations
  (``tracemalloc``, which slows both sides alike);
* distinct units trained on (words; for SuperBPE words, then chunks);
* bytes per token encoding the corpus itself and each text of the shipped parallel set
  (English first), with the ratio superword / plain (above 1: fewer tokens for the same text).

Both tables have the same vocabulary size: the comparison the SuperBPE paper makes.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
TINYSHAKESPEARE = REPO.parent / "shared" / "corpora" / "tinyshakespeare.txt"

_CHILD = r"""
import json, resource, sys, time, tracemalloc
from bpe_tui import Trainer, TrainerConfig
from bpe_tui.core.analysis.evaluate import evaluate, parallel_set, Corpus

corpus, vocab, k, trace = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4] == "1"
k = None if k == "none" else int(k)
if trace:
    tracemalloc.start()
t0 = time.perf_counter()
trainer = Trainer.from_files([corpus], TrainerConfig(vocab_size=vocab, superwords_after=k), workers=1)
t1 = time.perf_counter()
words = trainer.word_count
for _ in trainer.run():
    pass
t2 = time.perf_counter()
out = {"count_s": t1 - t0, "train_s": t2 - t1, "units": [words] + ([trainer.word_count] if k is not None else [])}
out["maxrss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
if trace:
    out["py_peak_mb"] = tracemalloc.get_traced_memory()[1] / 2**20
    tracemalloc.stop()
table = trainer.table
result = evaluate([table], [Corpus("corpus", (corpus,))] + parallel_set(), ["t"], workers=1)
out["bytes_per_token"] = {m.corpus: m.bytes_per_token for m in result.metrics[0]}
out["vocab"] = len(table)
print(json.dumps(out))
"""


def run(corpus: str, vocab: int, k: int | None, trace: bool) -> dict:
    env = dict(os.environ, PYTHONPATH=str(REPO))
    cmd = [sys.executable, "-c", _CHILD, corpus, str(vocab), "none" if k is None else str(k), "1" if trace else "0"]
    done = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", default=str(TINYSHAKESPEARE))
    ap.add_argument("--vocab-size", type=int, default=10_000)
    ap.add_argument("--k", type=int, default=5_000, help="the transition: merges of ordinary BPE first")
    ap.add_argument("--no-tracemalloc", action="store_true", help="time without tracemalloc's overhead (no Python peak)")
    args = ap.parse_args()
    if not os.path.exists(args.corpus):
        print(f"{args.corpus}: no such corpus (../shared is not part of a fresh clone)", file=sys.stderr)
        return 2
    trace = not args.no_tracemalloc
    plain = run(args.corpus, args.vocab_size, None, trace)
    sw = run(args.corpus, args.vocab_size, args.k, trace)
    name = os.path.basename(args.corpus)
    print(f"{name} -> vocabulary {args.vocab_size:,} (gpt2 preset); SuperBPE's transition after merge {args.k:,}")
    print(f"{'':26}{'plain':>12}{'superword':>12}{'ratio':>9}")

    def row(label: str, a: float, b: float, fmt: str = "{:.2f}") -> None:
        print(f"{label:26}{fmt.format(a):>12}{fmt.format(b):>12}{b / a if a else float('nan'):>9.2f}")

    row("count + build (s)", plain["count_s"], sw["count_s"])
    row("train (s)", plain["train_s"], sw["train_s"])
    row("peak RSS (MB)", plain["maxrss_mb"], sw["maxrss_mb"], "{:.0f}")
    if trace:
        row("peak Python alloc (MB)", plain["py_peak_mb"], sw["py_peak_mb"], "{:.0f}")
    print(f"{'distinct units':26}{plain['units'][0]:>12,}{' -> '.join(f'{u:,}' for u in sw['units']):>20}")
    print("bytes per token (higher: fewer tokens); ratio superword / plain")
    for corpus, value in plain["bytes_per_token"].items():
        row(f"  {corpus}", value, sw["bytes_per_token"][corpus], "{:.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
