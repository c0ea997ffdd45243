"""The test suite on a busy machine (run by hand; not part of the test suite, nor of CI).

    python benchmarks/stress_suite.py                          # the README's test command, once, beside 8 busy loops
    python benchmarks/stress_suite.py --busy 8 --repeat 5 tests/core/test_cli_interrupt.py tests/ui/test_steer.py
    python benchmarks/stress_suite.py --busy 0 --repeat 3 -k auto_play tests/ui   # idle, for comparison

The README promises that its test command passes on a loaded machine: the tests wait on the
conditions they need, never for a fixed time (docs/internals/architecture.md, "Tests on a busy
machine"). This script
checks the promise. It starts ``--busy`` busy loops (``stress-ng --cpu N`` when stress-ng is
installed, else Python processes that spin), so that a 2-core machine runs at a load of about
N + 2, then runs the tests ``--repeat`` times, each time in a clean environment as a new user's
shell would (``env -i HOME=$HOME PATH=$PATH``: no PYTHONUNBUFFERED, no virtualenv activated),
and reports how many runs passed, which tests failed in how many runs, and the load average
seen. The busy loops are ended by their own process ids when the runs are over.

With no test paths, each run is the README's test command after its install step, read from
README.md (mypy, the parallel half, the serial half, the pure-Python path): the whole suite, which takes an hour or more at load 10 on 2 cores. With paths (or
``-k``), each run is ``pytest -q -p no:cacheprovider -n WORKERS`` over them: the way to run the
tests that wait on signals, toasts or timers many times under load.
"""

from __future__ import annotations

import argparse
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PYTHON = REPO / ".venv" / "bin" / "python"
def readme_steps() -> list[str]:
    """The README's test command after its install step (its venv and pip commands), one shell
    command per ``&&``: read from README.md itself, so this runs what a new user runs."""
    for line in (REPO / "README.md").read_text(encoding="utf-8").splitlines():
        if line.startswith("python3 -m venv") and "pytest" in line:
            return [step.strip() for step in line.split(" && ")][2:]
    raise SystemExit("README.md holds no test command (a line starting 'python3 -m venv' that runs pytest)")


def start_busy_loops(n: int) -> list[subprocess.Popen]:
    """``n`` processes that keep a CPU busy each: stress-ng's, or plain Python spinning."""
    if n <= 0:
        return []
    if shutil.which("stress-ng"):
        return [subprocess.Popen(["stress-ng", "--cpu", str(n), "--quiet"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)]
    spin = "while True: pass"
    return [subprocess.Popen([sys.executable, "-c", spin], start_new_session=True) for _ in range(n)]


def stop_busy_loops(loops: list[subprocess.Popen]) -> None:
    """End the busy loops (each started in a session of its own: its group is its alone)."""
    for proc in loops:
        try:
            os.killpg(proc.pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
    for proc in loops:
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


class LoadWatch:
    """The 1-minute load average, sampled every few seconds while the tests run."""

    def __init__(self, every: float = 5.0) -> None:
        self.samples: list[float] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, args=(every,), daemon=True)

    def _run(self, every: float) -> None:
        while not self._stop.wait(every):
            self.samples.append(os.getloadavg()[0])

    def __enter__(self) -> "LoadWatch":
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()

    def said(self) -> str:
        if not self.samples:
            return "load average not sampled"
        s = sorted(self.samples)
        return f"load average (1 min) median {s[len(s) // 2]:.1f}, min {s[0]:.1f}, max {s[-1]:.1f} over {len(s)} samples"


def clean_env() -> dict[str, str]:
    """What ``env -i HOME=$HOME PATH=$PATH`` leaves a command."""
    return {"HOME": os.environ.get("HOME", "/root"), "PATH": os.environ.get("PATH", "/usr/bin:/bin")}


FAILED = re.compile(r"^(?:FAILED|ERROR) (\S+)", re.M)


def run_once(steps: list[str], log: Path) -> tuple[bool, list[str], float]:
    """Run ``steps`` in turn (stopping at the first that fails, as the README's ``&&`` does):
    whether all passed, the failed test ids, and the wall time."""
    started = time.monotonic()
    failed: list[str] = []
    ok = True
    with open(log, "w") as out:
        for step in steps:
            out.write(f"$ {step}\n")
            out.flush()
            written = out.tell()
            # the step's output goes to the log as it comes (tail -f it to follow a long run)
            code = subprocess.run(["bash", "-c", step], cwd=REPO, env=clean_env(), stdout=out, stderr=subprocess.STDOUT).returncode
            out.flush()
            with open(log) as back:
                back.seek(written)
                failed += FAILED.findall(back.read())
            if code != 0:
                ok = False
                break
    return ok, failed, time.monotonic() - started


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("tests", nargs="*", help="test paths (node ids) to run; none: the README's test command")
    p.add_argument("-k", dest="keyword", help="pytest -k expression (with test paths, or alone over tests/)")
    p.add_argument("--busy", type=int, default=8, help="busy loops beside the tests (default 8: load ~10 on 2 cores)")
    p.add_argument("--repeat", type=int, default=1, help="how many runs (default 1)")
    p.add_argument("--workers", default="2", help="pytest -n for test paths (default 2)")
    p.add_argument("--logs", default=None, help="folder for each run's output (default: a temporary folder)")
    args = p.parse_args()
    if not PYTHON.exists():
        p.error(f"{PYTHON} is not there: make the virtualenv as the README says first")
    if args.tests or args.keyword:
        step = [str(PYTHON), "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", args.workers, *(args.tests or ["tests"])]
        steps = [shlex.join(step + (["-k", args.keyword] if args.keyword else []))]
    else:
        steps = readme_steps()
    logs = Path(args.logs) if args.logs else Path(os.environ.get("TMPDIR", "/tmp")) / f"stress-suite-{os.getpid()}"
    logs.mkdir(parents=True, exist_ok=True)
    loops = start_busy_loops(args.busy)
    results = []
    try:
        time.sleep(2 if loops else 0)  # (the load average follows the loops over a minute; the runs start at once)
        with LoadWatch() as load:
            for n in range(1, args.repeat + 1):
                ok, failed, seconds = run_once(steps, logs / f"run-{n}.txt")
                results.append((ok, failed))
                print(f"run {n}: {'passed' if ok else 'FAILED'} in {seconds / 60:.1f} min" + (f": {', '.join(failed)}" if failed else ""), flush=True)
    finally:
        stop_busy_loops(loops)
    passes = sum(ok for ok, _ in results)
    print(f"\n{passes} passes of {len(results)} runs, beside {args.busy} busy loops; {load.said()}")
    for test, times in Counter(t for _, failed in results for t in failed).most_common():
        print(f"  failed in {times} of {len(results)}: {test}")
    print(f"each run's output: {logs}")
    return 0 if passes == len(results) else 1


if __name__ == "__main__":
    sys.exit(main())
