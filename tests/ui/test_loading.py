"""Loading a corpus too big to read at once: the progress row follows the reading, escape cancels.

The corpus here is a few MB (several of corpus.py's 1 MB blocks), so the reading reports
progress more than once; the cancel test holds the reader at its first report until escape has
been pressed, so nothing depends on how fast this machine reads.
"""

from __future__ import annotations

import random
import threading

from textual.widgets import ProgressBar, Static

from bpe_tui import Trainer
from bpe_tui.ui.app import ExplorerApp, default_config
from bpe_tui.ui.screens.layout import MainScreen

from .conftest import DEMO, settle


def write_corpus(path, megabytes: float):
    """Demo lines in a seeded random order until the file is ``megabytes`` long."""
    lines = [line for line in DEMO.read_text(encoding="utf-8").splitlines(keepends=True) if line.strip()]
    rng = random.Random(7)
    size = int(megabytes * 1_000_000)
    written = 0
    with open(path, "w", encoding="utf-8") as out:
        while written < size:
            line = rng.choice(lines)
            out.write(line)
            written += len(line.encode("utf-8"))
    return path


def record_progress(monkeypatch) -> list[tuple[str, float | None, float]]:
    """Every state the progress row of a main screen is put in, as (label, bar total, bar progress)."""
    shown = []
    real = MainScreen.show_progress

    def show(screen, label, total, done=0):
        real(screen, label, total, done)
        bar = screen.query_one(ProgressBar)
        shown.append((label, bar.total, bar.progress))

    monkeypatch.setattr(MainScreen, "show_progress", show)
    return shown


async def test_reading_a_big_corpus_moves_the_progress_bar(tmp_path, monkeypatch):
    corpus = write_corpus(tmp_path / "big.txt", 3.5)
    size = corpus.stat().st_size
    app = ExplorerApp(paths=[str(corpus)], config=default_config(None))
    shown = record_progress(monkeypatch)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        reading = [s for s in shown if s[0].startswith("reading corpus:")]
        assert reading, shown
        label, total, progress = reading[0]
        assert total == size and 0 < progress <= size
        assert label.endswith(f"of {size / 1e6:.1f} MB")
        # done: the row is gone and the corpus is the one that was read
        assert not app.query_one("#progress-row").display
        assert app.session is not None
        assert app.session.trainer.word_count == Trainer.from_files([str(corpus)], default_config(None)).word_count


async def test_escape_cancels_reading_a_big_corpus(tmp_path, monkeypatch):
    corpus = write_corpus(tmp_path / "big.txt", 3.5)
    gate = threading.Event()
    real = Trainer.from_files

    def held_at_first_report(cls, paths, config, **options):
        report = options["progress"]

        def progress(done, total):
            report(done, total)
            gate.wait(30)  # until the test has pressed escape

        return real(paths, config, **{**options, "progress": progress})

    monkeypatch.setattr(Trainer, "from_files", classmethod(held_at_first_report))
    app = ExplorerApp(paths=[str(corpus)], config=default_config(None))
    async with app.run_test(size=(120, 40)) as pilot:
        for _ in range(200):
            await pilot.pause(0.02)
            if str(app.query_one("#progress-label", Static).render()).startswith("reading corpus:"):
                break
        assert app.query_one("#progress-row").display
        await pilot.press("escape")
        gate.set()
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert not app.query_one("#progress-row").display
        assert app.session is None  # nothing half-loaded
