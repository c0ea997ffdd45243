"""Counting a big corpus with Dask vs the built-in parallel counting (run by hand, not in tests).

    python benchmarks/dask_count.py                 # 1 GB of varied text, 2 workers each way
    python benchmarks/dask_count.py --size 0.25     # 256 MB (a busy machine)
    python benchmarks/dask_count.py --workers 4 --workdir /data/bench

Three ways to count the same file with the gpt2 preset, each in a fresh process:

* ``local``: ``count_files(..., workers=N)``, the built-in process pool;
* ``dask local``: ``count_words(..., client="local")``, what ``--dask local`` does: a
  LocalCluster of N worker processes started and closed inside the timed call (its scheduler
  runs in the counting process);
* ``dask address``: ``count_words(..., client=ADDRESS)`` against a LocalCluster of N workers
  running in another process, as against a real scheduler: the counting process only plans,
  waits and merges, so its peak RSS is the merging side's memory on the counts.

On one machine with the same cores, Dask cannot beat the pool: both cut the file into the
same line-aligned ranges and count them with the same code; Dask adds a scheduler, task
messages and cluster start-up. Expect parity, not a win: Dask's point is more machines.
The counts are checked identical (words, numbers and order) across the three.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))
from compare import big_corpus  # noqa: E402  (benchmarks/compare.py: the same 1 GB corpus)

SPECIAL = "<|endoftext|>"


def status_mb(field: str) -> float:
    """A memory line of /proc/self/status (VmRSS: now, VmHWM: peak), in MB."""
    for line in open("/proc/self/status"):
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024
    return 0.0


def child(job: dict) -> dict:
    """One measurement, in this (fresh) process."""
    import resource

    from bpe_tui import TrainerConfig, count_words

    if job["how"] != "local":
        import dask.distributed  # noqa: F401  (imported before the baseline, as the CLI would)
    before = status_mb("VmRSS")
    cfg = TrainerConfig(preset="gpt2", special_tokens=[SPECIAL])
    t0 = time.perf_counter()
    if job["how"] == "local":
        counts = count_words([job["path"]], cfg, workers=job["workers"])
    elif job["how"] == "dask local":
        counts = count_words([job["path"]], cfg, client="local", workers=job["workers"])
    else:
        counts = count_words([job["path"]], cfg, client=job["address"])
    seconds = time.perf_counter() - t0
    digest = hashlib.sha256()
    for word, n in counts.items():
        digest.update(f"{word}\t{n}\n".encode("utf-8", "surrogatepass"))
    return {"seconds": seconds, "words": len(counts), "total": sum(counts.values()), "sha": digest.hexdigest()[:16],
            "rss_before_mb": before, "peak_rss_mb": status_mb("VmHWM"),
            "child_rss_mb": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024}


def run_child(job: dict) -> dict:
    env = dict(os.environ, PYTHONHASHSEED="0", PYTHONPATH=str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.run([sys.executable, __file__, "--child", json.dumps(job)], capture_output=True, text=True, env=env)
    for line in proc.stdout.splitlines():
        if line.startswith("RESULT "):
            return json.loads(line[7:])
    raise SystemExit(f"{job['how']} failed: {proc.stderr.strip()[-500:]}")


def median_run(runs: list[dict]) -> dict:
    """The run with the median time (its memory numbers come along)."""
    return sorted(runs, key=lambda r: r["seconds"])[len(runs) // 2]


def serve_cluster(workers: int) -> None:
    """A LocalCluster in its own process: print its address, run until stdin closes."""
    from dask.distributed import LocalCluster

    cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=":0")
    print("ADDRESS " + cluster.scheduler_address, flush=True)
    sys.stdin.read()
    cluster.close()


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--size", type=float, default=1.0, help="corpus size in GB (default 1)")
    p.add_argument("--workers", type=int, default=os.cpu_count() or 1, help="worker processes each way (default: CPU count)")
    p.add_argument("--repeat", type=int, default=1, help="rounds, each running the three in turn; medians (default 1)")
    p.add_argument("--workdir", default="/tmp/bpe-tui-bench", help="where the corpus is written (kept for reruns)")
    p.add_argument("--child", help=argparse.SUPPRESS)
    p.add_argument("--serve", type=int, help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.child:
        print("RESULT " + json.dumps(child(json.loads(args.child))))
        return 0
    if args.serve:
        serve_cluster(args.serve)
        return 0

    Path(args.workdir).mkdir(parents=True, exist_ok=True)
    size = int(args.size * 1e9)
    path = big_corpus(Path(args.workdir) / f"big-{size}.txt", size)
    mb = path.stat().st_size / 1e6
    print(f"{path}: {mb:,.0f} MB, {args.workers} workers each way, {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}")

    server = subprocess.Popen([sys.executable, __file__, "--serve", str(args.workers)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                              env=dict(os.environ, PYTHONPATH=str(REPO)))
    runs: dict[str, list] = {"local": [], "dask local": [], "dask address": []}
    try:
        address = server.stdout.readline().split()[1]
        for _ in range(args.repeat):  # in turns, so a machine that slows down slows all three
            for how in runs:
                runs[how].append(run_child({"how": how, "path": str(path), "workers": args.workers, "address": address}))
    finally:
        server.stdin.close()
        server.wait(timeout=60)
    results = {how: median_run(rs) for how, rs in runs.items()}

    base = results["local"]["seconds"]
    print(f"\n| counting {mb:,.0f} MB (gpt2), median of {args.repeat} | seconds (all runs) | MB/s | vs local | counting process: RSS before -> peak | largest worker |")
    print("|---|---:|---:|---:|---:|---:|")
    for how, r in results.items():
        child_rss = f"{r['child_rss_mb']:.0f} MB" if how != "dask address" else "(another process)"
        every = ", ".join(f"{x['seconds']:.1f}" for x in runs[how])
        print(f"| {how} | {r['seconds']:.1f} ({every}) | {mb / r['seconds']:.0f} | {r['seconds'] / base:.2f}x "
              f"| {r['rss_before_mb']:.0f} -> {r['peak_rss_mb']:.0f} MB | {child_rss} |")
    first = results["local"]
    same = all((r["words"], r["total"], r["sha"]) == (first["words"], first["total"], first["sha"]) for r in results.values())
    print(f"\n{first['words']:,} distinct words, {first['total']:,} in all; counts identical (words, numbers, order): {'yes' if same else 'NO'}")
    print(f"load average after: {os.getloadavg()[0]:.1f}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
