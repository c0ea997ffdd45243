"""The explorer's run to the target against the same training headless (run by hand; not a test).

    python benchmarks/explorer_run.py --size 0.1          # 100 MB of JSON lines in 8 .gz shards
    python benchmarks/explorer_run.py --size 0.1 --workdir /tmp/bench --keep --rounds 3

The shards are benchmarks/datasets.py's (made at run time: ``--size`` GB of JSON lines before
gzip, ``--shards`` files). Two jobs train to 32,000 merges with the same config (gpt2 preset,
Hugging Face's tie-break), each in a fresh process, in turns:

* **headless**: ``Trainer.from_files(shards)`` (the words counted by the worker processes), then
  ``run()`` to the target, as ``bpe-tui train`` does;
* **explorer**: ``ExplorerApp(paths=shards)`` under Textual's Pilot at 120x40 (everything the
  screen does is done: the panes render each batch), timed to its first screen (the corpus
  counted and the panes up), then ``r`` (run to target) until the run is done; the UI
  thread's own CPU during the run is reported beside it (the rest is the merges' thread).

Each job reports its two phases' wall and CPU seconds (CPU of the process and its workers), and
the explorer's merges are checked equal to the headless ones. The goal: the explorer's run costs
at most 1.2x the headless run's (the same merges), and its first screen about the headless count.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))
from datasets import MERGES, add_shard_arguments, make_shards  # noqa: E402  (benchmarks/datasets.py)


def cpu_seconds() -> float:
    me = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + children.ru_utime + children.ru_stime


def config():
    from bpe_tui import TrainerConfig

    return TrainerConfig(preset="gpt2", merges=MERGES, tie_break="hf")


def job_headless(shards: list[str]) -> dict:
    from bpe_tui import Trainer

    c0, w0 = cpu_seconds(), time.perf_counter()
    trainer = Trainer.from_files(shards, config())
    c1, w1 = cpu_seconds(), time.perf_counter()
    for _ in trainer.run():
        pass
    c2, w2 = cpu_seconds(), time.perf_counter()
    return {"first_wall": w1 - w0, "first_cpu": c1 - c0, "run_wall": w2 - w1, "run_cpu": c2 - c1,
            "merges": [list(m) for m in trainer.merge_list()[-5:]], "steps": trainer.steps_done}


def job_explorer(shards: list[str]) -> dict:
    return asyncio.run(_explorer(shards))


async def _explorer(shards: list[str]) -> dict:
    from bpe_tui.ui.app import ExplorerApp
    from bpe_tui.ui.session.sessions import ExploreSession

    c0, w0 = cpu_seconds(), time.perf_counter()
    app = ExplorerApp(paths=shards, config=config())
    async with app.run_test(size=(120, 40)) as pilot:
        while not isinstance(app.session, ExploreSession):
            await asyncio.sleep(0.01)
        await pilot.pause()
        c1, w1, u1 = cpu_seconds(), time.perf_counter(), time.thread_time()
        session = app.session
        app.main.action_run()
        while session.trainer.steps_done < MERGES or session.busy:
            await asyncio.sleep(0.01)
        await app.workers.wait_for_complete()
        await pilot.pause()
        c2, w2, u2 = cpu_seconds(), time.perf_counter(), time.thread_time()
        trainer = session.trainer
        return {"first_wall": w1 - w0, "first_cpu": c1 - c0, "run_wall": w2 - w1, "run_cpu": c2 - c1, "ui_cpu": u2 - u1,
                "merges": [list(m) for m in trainer.merge_list()[-5:]], "steps": trainer.steps_done}


JOBS = {"headless": job_headless, "explorer": job_explorer}


def run(job: str, shards: list[Path]) -> dict:
    env = dict(os.environ, PYTHONHASHSEED="0")
    spec = json.dumps({"job": job, "shards": [str(p) for p in shards]})
    proc = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--child", spec], capture_output=True, text=True, env=env)
    for line in proc.stdout.splitlines():
        if line.startswith("RESULT "):
            return json.loads(line[7:])
    raise SystemExit(f"{job} failed: {(proc.stderr.strip().splitlines() or ['no output'])[-1]}")


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_shard_arguments(p, 0.1)
    p.add_argument("--rounds", type=int, default=1, help="rounds, the two jobs in turns (default 1)")
    args = p.parse_args()
    if args.child:
        spec = json.loads(args.child)
        print("RESULT " + json.dumps(JOBS[spec["job"]](spec["shards"])), flush=True)
        return 0
    work = Path(args.workdir) if args.workdir else Path(tempfile.mkdtemp(prefix="bpe-explorer-"))
    work.mkdir(parents=True, exist_ok=True)
    shards = make_shards(work, int(args.size * 1e9), args.shards)
    results: dict[str, list[dict]] = {"headless": [], "explorer": []}
    try:
        for _ in range(args.rounds):
            for job in results:
                results[job].append(run(job, shards))
                print(f"  {job}: {results[job][-1]['first_wall']:.1f} s to the first screen, {results[job][-1]['run_wall']:.1f} s to run", flush=True)
    finally:
        if not args.keep and not args.workdir:
            for path in work.iterdir():
                path.unlink()
            work.rmdir()
    head, expl = results["headless"], results["explorer"]
    assert all(r["merges"] == head[0]["merges"] and r["steps"] == MERGES for r in head + expl), "the merges differ"

    def med(rows: list[dict], key: str) -> float:
        return statistics.median(r[key] for r in rows)

    print(f"\n{args.size:g} GB of JSON lines in {args.shards} shards, {MERGES:,} merges; {os.cpu_count()} CPUs, "
          f"load average {os.getloadavg()[0]:.1f}; medians of {args.rounds}")
    print(f"{'job':<10} {'first screen wall':>17} {'CPU':>6}  {'run wall':>8} {'CPU':>6} {'of it the UI thread':>20}")
    for name, rows in results.items():
        ui = f"{med(rows, 'ui_cpu'):>19.1f}s" if "ui_cpu" in rows[0] else ""
        print(f"{name:<10} {med(rows, 'first_wall'):>16.1f}s {med(rows, 'first_cpu'):>5.1f}s  {med(rows, 'run_wall'):>7.1f}s {med(rows, 'run_cpu'):>5.1f}s {ui}")
    ratio = statistics.median(e["run_wall"] / h["run_wall"] for e, h in zip(expl, head))
    print(f"explorer's run / headless run (wall): {ratio:.2f}x (goal <= 1.2x: {'met' if ratio <= 1.2 else 'missed'}); "
          f"first screen / headless count: {statistics.median(e['first_wall'] / h['first_wall'] for e, h in zip(expl, head)):.2f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
