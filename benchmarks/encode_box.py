"""The explorer's encode box, keystroke by keystroke, on a long text (a Pilot benchmark; run by
hand, not a test).

    python benchmarks/encode_box.py                       # o200k, 2,000 characters, 120x40
    python benchmarks/encode_box.py --table gpt2 --size 80x24 --keys 60

The table is opened in the explorer as ``bpe-tui open TABLE`` opens it (``ExplorerApp(table_path=
...)``, headless under Textual's Pilot). The encode box gets a text of ``--chars`` characters
(tinyshakespeare's lines and the 12 parallel texts, in turns), then ``--keys`` keystrokes at its
end: a letter, a backspace, a letter, ... Each keystroke encodes the whole text again, lays its
chips out, counts its pairs for the pair table and traces the word under the cursor, on the
UI thread (texts up to ``LONG_TEXT`` characters are encoded inline, longer ones in a worker).

Per keystroke: the time of the encode box's own work on the UI thread (the handler that runs
for Input.Changed: encode, chips, summary, pairs, trace), CPU and wall, median and 95th
percentile, against a frame (16 ms); and the CPU and wall time from the key to an idle screen
(Pilot's pause: Textual's own layout and rendering included, and Pilot's waiting). The machine
is shared: the CPU columns are the ones to read.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
SHARED = REPO.parent / "shared"
TABLES = {
    "gpt2": "gpt2",
    "cl100k": "cl100k/cl100k_base.tiktoken",
    "o200k": "o200k/o200k_base.tiktoken",
    "llama3": "llama3/tokenizer.model",
}
FRAME = 0.016


def sample_text(chars: int) -> str:
    """``chars`` characters of tinyshakespeare's lines and the parallel texts, in turns."""
    tiny = (SHARED / "corpora" / "tinyshakespeare.txt").read_text(encoding="utf-8").splitlines()
    parallel = [line for p in sorted((REPO / "corpora" / "parallel").glob("*.txt")) for line in p.read_text(encoding="utf-8").splitlines()]
    out: list[str] = []
    size = k = 0
    while size < chars:
        line = (tiny[k] if k % 2 == 0 else parallel[k % len(parallel)]) + " "
        out.append(line)
        size += len(line)
        k += 1
    return "".join(out)[:chars]


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def run(table_path: str, chars: int, keys: int, size: tuple[int, int]) -> dict[str, list[float]]:
    from textual.widgets import Input

    from bpe_tui.ui.app import ExplorerApp
    from bpe_tui.ui.panes.encode import EncodePane

    timings: dict[str, list[float]] = {"cpu": [], "wall": [], "idle": [], "idle_cpu": []}
    original = EncodePane._encode

    def timed(self) -> None:  # the box's own work on the UI thread, per request
        cpu, wall = time.process_time(), time.perf_counter()
        original(self)
        timings["cpu"].append(time.process_time() - cpu)
        timings["wall"].append(time.perf_counter() - wall)

    EncodePane._encode = timed  # type: ignore[method-assign]
    app = ExplorerApp(table_path=table_path)
    async with app.run_test(size=size) as pilot:
        deadline = time.monotonic() + 120
        while not list(app.screen.query(EncodePane)) or app.encode.session is None or app.encode.session.table() is None:
            assert time.monotonic() < deadline, "the table did not open"
            await app.workers.wait_for_complete()
            await pilot.pause()
        box = app.query_one("#encode-input", Input)
        box.focus()
        box.value = sample_text(chars - 1)
        box.cursor_position = len(box.value)
        await app.workers.wait_for_complete()
        await pilot.pause()
        for name in timings:
            timings[name].clear()
        for k in range(keys):
            start, cpu = time.perf_counter(), time.process_time()
            await pilot.press("e" if k % 2 == 0 else "backspace")
            await pilot.pause()
            timings["idle"].append(time.perf_counter() - start)
            timings["idle_cpu"].append(time.process_time() - cpu)
        assert len(box.value) in (chars, chars - 1)
        assert app.encode.ids == app.encode.session.table().encode(box.value)
    EncodePane._encode = original  # type: ignore[method-assign]
    return timings


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--table", choices=sorted(TABLES), default="o200k")
    parser.add_argument("--chars", type=int, default=2000, help="length of the text in the box (default 2,000)")
    parser.add_argument("--keys", type=int, default=40, help="keystrokes timed (default 40)")
    parser.add_argument("--size", default="120x40", help="terminal size, COLSxROWS (default 120x40)")
    args = parser.parse_args()
    path = SHARED / "tables" / TABLES[args.table]
    if not path.exists():
        print(f"{path} is absent: this benchmark needs ../shared", file=sys.stderr)
        return 2
    cols, rows = (int(n) for n in args.size.split("x"))
    timings = asyncio.run(run(str(path), args.chars, args.keys, (cols, rows)))
    cpu, wall, idle, idle_cpu = timings["cpu"][-args.keys :], timings["wall"][-args.keys :], timings["idle"], timings["idle_cpu"]
    print(f"encode box, {args.table}, {args.chars:,} characters, {args.keys} keystrokes at {args.size}")
    print(f"the box's work per keystroke:  CPU median {statistics.median(cpu) * 1000:.1f} ms, p95 {percentile(cpu, 0.95) * 1000:.1f} ms; "
          f"wall median {statistics.median(wall) * 1000:.1f} ms, p95 {percentile(wall, 0.95) * 1000:.1f} ms "
          f"(a frame: {FRAME * 1000:.0f} ms: {'under' if statistics.median(cpu) < FRAME else 'over'})")
    print(f"key to idle screen (Textual's layout and rendering, Pilot's waits): CPU median {statistics.median(idle_cpu) * 1000:.1f} ms, "
          f"p95 {percentile(idle_cpu, 0.95) * 1000:.1f} ms; wall median {statistics.median(idle) * 1000:.1f} ms, p95 {percentile(idle, 0.95) * 1000:.1f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
