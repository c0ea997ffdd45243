"""The trainer now against an older revision of itself (run by hand; not part of the test suite).

    python benchmarks/against.py --rev 40a2ac0                 # CPU time, 7 rounds
    python benchmarks/against.py --rev 40a2ac0 --callgrind     # instruction counts too
    python benchmarks/against.py --rev 40a2ac0 --callgrind --rounds 0 --job step

The old revision is unpacked with ``git archive`` into a temporary directory; each measurement
runs in a fresh Python process that imports bpe_tui from one tree or the other (this
worktree's files, committed or not, are "new"). Two jobs, both on tinyshakespeare with the
gpt2 preset and vocab_size 10,000 (``--preset`` picks another), after the trainer is built
(reading, counting and indexing are not measured):

* ``train``: ``for _ in trainer.run(): pass`` (to 10k);
* ``step``:  1,000 ``trainer.step()``, then ``goto(0)``, then ``goto(1000)``.

**CPU time** (``time.process_time`` around the job): old and new run in turns, the order
swapped every round, and the report gives each side's median and the median of the per-round
ratios new/old. On a machine shared with other jobs these move by several percent from run to
run.

**Instructions** (``--callgrind``): one run of each side under ``valgrind --tool=callgrind``,
collecting only inside the job (it is called through ``operator.call``, and callgrind toggles
collection on entering and leaving CPython's ``_operator_call``, which nothing else here calls;
``exec`` would not do: imports run modules through it), with ``PYTHONHASHSEED=0``. The count is the
same from run to run (to a few thousand instructions), whatever else the machine does, so small
differences are real: decide by instructions, confirm with CPU time. ``--keep DIR`` keeps the
callgrind files for ``callgrind_annotate``.
"""

from __future__ import annotations

import argparse
import json
import operator
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
SHARED = REPO.parent / "shared"
TINY = SHARED / "corpora" / "tinyshakespeare.txt"



def train(trainer) -> None:
    for _ in trainer.run():
        pass


def step(trainer) -> None:
    for _ in range(1000):
        trainer.step()
    trainer.goto(0)
    trainer.goto(1000)


JOBS = {
    "train": (train, "for _ in trainer.run(): pass"),
    "step": (step, "1,000 x trainer.step(), goto(0), goto(1000)"),
}


# ---------------------------------------------------------------------- the measured process


def child(root: str, job: str, preset: str, vocab: int) -> None:
    """Build the trainer from the tree at ``root``, run ``job``, print one JSON line."""
    sys.path.insert(0, root)
    import bpe_tui
    from bpe_tui.core.engine.config import TrainerConfig
    from bpe_tui.core.engine.trainer import Trainer

    where = Path(bpe_tui.__file__).resolve()
    if not where.is_relative_to(Path(root).resolve()):
        raise SystemExit(f"bpe_tui came from {where}, not from {root}")
    trainer = Trainer.from_files(str(TINY), TrainerConfig(preset=preset, vocab_size=vocab))
    work = JOBS[job][0]
    started = time.process_time()
    operator.call(work, trainer)  # under callgrind, only what runs inside this call is counted
    cpu = time.process_time() - started
    print(json.dumps({"cpu": cpu, "steps": trainer.steps_done, "last": repr(trainer.history[-1].pair)}))


def run_child(root: Path, job: str, args, callgrind_out: Path | None = None) -> dict:
    cmd = [sys.executable, str(Path(__file__).resolve()), "--child", str(root), "--job", job,
           "--preset", args.preset, "--vocab", str(args.vocab)]
    if callgrind_out is not None:
        cmd = ["valgrind", "--tool=callgrind", "--collect-atstart=no", "--toggle-collect=_operator_call",
               f"--callgrind-out-file={callgrind_out}", *cmd]
    env = dict(os.environ, PYTHONHASHSEED="0")
    done = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=str(root))
    if done.returncode:
        raise SystemExit(f"{' '.join(cmd)} failed:\n{done.stderr[-3000:]}")
    result = json.loads(done.stdout.strip().splitlines()[-1])
    if callgrind_out is not None:
        text = callgrind_out.read_text()
        found = re.search(r"^(?:summary|totals):\s*(\d+)", text, re.M)
        if not found:
            raise SystemExit(f"no instruction count in {callgrind_out}")
        result["instructions"] = int(found.group(1))
    return result


# ---------------------------------------------------------------------- the comparison


def old_tree(rev: str, into: Path) -> Path:
    """``rev``'s files (``git archive``) unpacked under ``into``."""
    target = into / f"rev-{rev}"
    target.mkdir()
    archive = subprocess.run(["git", "-C", str(REPO), "archive", rev], capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(target)], input=archive, check=True)
    return target


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--rev", default="40a2ac0", help="the old revision (default 40a2ac0)")
    p.add_argument("--new", help="the new revision, or a directory holding a bpe_tui (default: this worktree's files as they are)")
    p.add_argument("--job", choices=[*JOBS, "both"], default="both")
    p.add_argument("--rounds", type=int, default=7, help="CPU-time rounds (each runs old and new once; 0: none)")
    p.add_argument("--callgrind", action="store_true", help="also count instructions under callgrind (one run a side)")
    p.add_argument("--keep", help="keep the callgrind files in this directory")
    p.add_argument("--sides", default="old,new", help="which sides to run under callgrind (default: old,new, at once)")
    p.add_argument("--preset", default="gpt2")
    p.add_argument("--vocab", type=int, default=10_000)
    p.add_argument("--child", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.child:
        child(args.child, args.job, args.preset, args.vocab)
        return 0
    if not TINY.exists():
        print(f"needs {TINY} (the shared corpora)", file=sys.stderr)
        return 2
    if args.callgrind and shutil.which("valgrind") is None:
        print("--callgrind needs valgrind", file=sys.stderr)
        return 2

    jobs = list(JOBS) if args.job == "both" else [args.job]
    with tempfile.TemporaryDirectory(prefix="bpe-against-") as tmp:
        trees = {"old": old_tree(args.rev, Path(tmp)), "new": REPO}
        if args.new and (Path(args.new) / "bpe_tui").is_dir():  # a copy of the tree, for trying things
            trees["new"] = Path(args.new)
            shown = args.new
        elif args.new:
            trees["new"] = old_tree(args.new, Path(tmp))
            shown = args.new
        else:
            head = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
            dirty = subprocess.run(["git", "-C", str(REPO), "status", "--porcelain", "bpe_tui"], capture_output=True, text=True).stdout.strip()
            shown = f"{head}{' + uncommitted changes' if dirty else ''} (this worktree)"
        print(f"old: {args.rev}   new: {shown}")
        print(f"tinyshakespeare, preset {args.preset}, vocab_size {args.vocab:,}; Python {sys.version.split()[0]}\n")
        for job in jobs:
            print(f"{job}: {JOBS[job][1]}")
            if args.callgrind:
                keep = Path(args.keep) if args.keep else Path(tmp)
                keep.mkdir(parents=True, exist_ok=True)
                sides = args.sides.split(",")
                with ThreadPoolExecutor(len(sides)) as pool:  # the counts do not depend on the load
                    runs = {side: pool.submit(run_child, trees[side], job, args, keep / f"callgrind.{job}.{side}") for side in sides}
                    counts = {side: run.result() for side, run in runs.items()}
                for side, got in counts.items():
                    print(f"  instructions {side}: {got['instructions'] / 1e6:,.1f}M  ({got['steps']:,} steps, last merge {got['last']})")
                if len(counts) == 2:
                    print(f"  instructions new/old: {counts['new']['instructions'] / counts['old']['instructions']:.4f}")
            if args.rounds:
                cpu: dict[str, list[float]] = {"old": [], "new": []}
                ratios = []
                for r in range(args.rounds):
                    order = ("old", "new") if r % 2 == 0 else ("new", "old")
                    got = {side: run_child(trees[side], job, args) for side in order}
                    for side in order:
                        cpu[side].append(got[side]["cpu"])
                    if got["old"]["last"] != got["new"]["last"] or got["old"]["steps"] != got["new"]["steps"]:
                        print(f"  WARNING: old and new end differently: {got['old']} / {got['new']}")
                    ratios.append(got["new"]["cpu"] / got["old"]["cpu"])
                for side in ("old", "new"):
                    xs = cpu[side]
                    print(f"  CPU {side}: median {statistics.median(xs):.3f} s  (min {min(xs):.3f}, max {max(xs):.3f}; {len(xs)} runs)")
                print(f"  CPU new/old: median of per-round ratios {statistics.median(ratios):.3f}; "
                      f"ratio of medians {statistics.median(cpu['new']) / statistics.median(cpu['old']):.3f}")
            print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
