"""Does the Stats tab slow a run? The explorer runs to a target on tinyshakespeare with the
History tab shown, then again with the Stats tab's charts shown (redrawn at most every 200 ms
from the merge events while the run goes on), headless; the time of each run and the ratio.

    PYTHONPATH=. python benchmarks/stats_redraw.py [MERGES]
"""

from __future__ import annotations

import asyncio
import sys
import time
from pathlib import Path

from textual.widgets import TabbedContent

from bpe_tui import Trainer, TrainerConfig
from bpe_tui.ui.app import ExplorerApp

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpora" / "tinyshakespeare.txt"


async def run(tab: str, merges: int, trainer_args) -> tuple[float, int]:
    trainer = Trainer.from_files(*trainer_args)
    app = ExplorerApp(trainer=trainer)
    async with app.run_test(size=(120, 40)) as pilot:
        await app.workers.wait_for_complete()
        app.query_one(TabbedContent).active = f"tab-{tab}"
        await pilot.pause()
        start = time.perf_counter()
        await pilot.press("r")
        while not (trainer.finished and not app.session.busy):
            await pilot.pause(0.05)
        return time.perf_counter() - start, trainer.steps_done


def main() -> None:
    merges = int(sys.argv[1]) if len(sys.argv) > 1 else 3000
    if not CORPUS.is_file():
        sys.exit(f"{CORPUS} is absent (the shared data directory)")
    args = ([str(CORPUS)], TrainerConfig(preset="gpt2", vocab_size=256 + merges))
    times = {}
    for tab in ("history", "stats", "history", "stats"):  # twice each, interleaved: a noisy machine
        seconds, done = asyncio.run(run(tab, merges, args))
        times.setdefault(tab, []).append(seconds)
        print(f"{tab:<8} {done:,} merges in {seconds:.2f} s")
    best = {tab: min(t) for tab, t in times.items()}
    print(f"best of two: history {best['history']:.2f} s, stats {best['stats']:.2f} s, stats/history {best['stats'] / best['history']:.2f}x")


if __name__ == "__main__":
    main()
