"""Parity-aware BPE against plain BPE on the same material (run by hand; not a test).

    python benchmarks/parity.py                               # catalogues, 3,000 merges
    python benchmarks/parity.py --merges 5000 --max-bytes 400000
    python benchmarks/parity.py --reference PATH/parity_aware_learn_bpe.py

The material: one training text per language of corpora/parallel, made from this machine's
gettext catalogues by tests/catalogues.py (``--max-bytes`` per language), and the parallel
texts as development set. Each run is a fresh Python process that reads the languages and
trains ``--merges`` merges under the ``parity`` preset:

* plain BPE on all languages together (the trainer over their words, no variant);
* parity-aware BPE, base, window (100/2) and the hybrid (a third of the merges global);

and reports CPU and wall time of counting and of training, then the tokens each table needs
for each language's development text (the parity the paper measures: its spread, max/min).
With ``--reference``, the authors' script (not part of this project: give the path of a copy)
runs the same base training, timed the same way, for the ratio against it.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests.catalogues import LANGUAGES, build  # noqa: E402

PARALLEL = REPO / "corpora" / "parallel"

_CHILD = r"""
import json, sys, time
from bpe_tui import Trainer, TrainerConfig
from bpe_tui.core.text.languages import read_languages

folder, merges, variant, hybrid = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4])
langs = sys.argv[5].split(",")
corpora = {l: f"{folder}/{l}.txt" for l in langs}
dev = {l: f"{sys.argv[6]}/{l}.txt" for l in langs}
clock = lambda: (time.process_time(), time.perf_counter())
c0 = clock()
if variant == "plain":
    cfg = TrainerConfig(preset="parity", merges=merges)
    read = read_languages(corpora, TrainerConfig(preset="parity", parity="base"), dev=dev)
    trainer = Trainer(read.union(), cfg, name="plain")
else:
    cfg = TrainerConfig(preset="parity", parity=variant, global_merges=hybrid, merges=merges)
    trainer = Trainer.from_languages(corpora, dev=dev, config=cfg)
c1 = clock()
for _ in trainer.run():
    pass
c2 = clock()
table = trainer.table
tokens = {l: sum(len(table.encode(line)) for line in open(dev[l], encoding="utf-8")) for l in langs}
print(json.dumps({"count": [c1[0] - c0[0], c1[1] - c0[1]], "train": [c2[0] - c1[0], c2[1] - c1[1]],
                  "merges": trainer.steps_done, "tokens": tokens}))
"""


def child(folder: str, merges: int, variant: str, hybrid: int) -> dict:
    env = dict(os.environ, PYTHONPATH=str(REPO))
    cmd = [sys.executable, "-c", _CHILD, folder, str(merges), variant, str(hybrid), ",".join(LANGUAGES), str(PARALLEL)]
    done = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def reference(script: str, folder: str, merges: int) -> list[float]:
    """CPU (of the child) and wall seconds of the authors' script, base variant."""
    out = os.path.join(folder, "reference.merges")
    cmd = [sys.executable, script, "--symbols", str(merges), "--variant", "base", "--input", *[f"{folder}/{l}.txt" for l in LANGUAGES],
           "--dev", *[str(PARALLEL / f"{l}.txt") for l in LANGUAGES], "--output", out]
    before = os.times()
    wall = time.perf_counter()
    subprocess.run(cmd, capture_output=True, check=True)
    wall = time.perf_counter() - wall
    after = os.times()
    return [after.children_user + after.children_system - before.children_user - before.children_system, wall]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--merges", type=int, default=3000)
    ap.add_argument("--max-bytes", type=int, default=200_000, help="training text per language (tests/catalogues.py)")
    ap.add_argument("--reference", metavar="SCRIPT", help="the authors' parity_aware_learn_bpe.py, to time it on the same input")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        built = build(Path(folder), args.max_bytes)
        if len(built) < len(LANGUAGES):
            print(f"this machine has catalogues for {len(built)} of the {len(LANGUAGES)} languages (/usr/share/locale)", file=sys.stderr)
            return 2
        size = sum(p.stat().st_size for p in built.values())
        print(f"{len(built)} languages, {size / 1e6:.1f} MB of catalogue text; dev: corpora/parallel; {args.merges:,} merges; "
              f"{os.cpu_count()} CPUs, Python {sys.version.split()[0]}")
        runs = [("plain", "plain", 0), ("base", "base", 0), ("window", "window", 0), ("hybrid", "base", args.merges // 3)]
        results = {name: child(folder, args.merges, variant, hybrid) for name, variant, hybrid in runs}
        plain = results["plain"]["train"]
        print(f"{'':8} {'count CPU':>10} {'train CPU':>10} {'train wall':>10} {'vs plain':>9} {'merges':>7} {'dev tokens max/min':>19}")
        for name, r in results.items():
            tokens = r["tokens"]
            spread = max(tokens.values()) / min(tokens.values())
            print(f"{name:8} {r['count'][0]:9.2f}s {r['train'][0]:9.2f}s {r['train'][1]:9.2f}s {r['train'][0] / plain[0]:8.1f}x "
                  f"{r['merges']:7,} {spread:19.3f}")
        print("dev tokens per language: " + "; ".join(
            f"{name} " + " ".join(f"{l}={r['tokens'][l]}" for l in LANGUAGES) for name, r in results.items()))
        if args.reference:
            cpu, wall = reference(args.reference, folder, args.merges)
            ours = results["base"]
            total = ours["count"][0] + ours["train"][0]
            print(f"reference base (counting and training): {cpu:.2f}s CPU, {wall:.2f}s wall; bpe-tui base {total:.2f}s CPU: "
                  f"{cpu / total:.1f}x faster")
    return 0


if __name__ == "__main__":
    sys.exit(main())
