"""The explorer on real work (issue 10): rewinding a long run, corpora big enough to be counted
by worker processes, and a status that says what really happened.

No timed assertions: every test waits on states (workers finished, a message seen) and
asserts counts and states.
"""

from __future__ import annotations

import multiprocessing
import threading
import time

import pytest

from bpe_tui import Trainer, TrainerConfig
from bpe_tui.core.text import corpus as core_corpus
from bpe_tui.core.text import distributed as core_distributed
from bpe_tui.ui.app import ExplorerApp, default_config
from bpe_tui.ui.messages import LoadCancelled, LoadFailed, LoadProgressed
from bpe_tui.ui.screens.dialogs import GotoScreen

from .conftest import SHARED, classic_app, demo_app, settle

TINYSHAKESPEARE = SHARED / "corpora" / "tinyshakespeare.txt"
FROM_FILES = Trainer.from_files  # as it is, before a test wraps it


async def go(app, pilot, k: int) -> None:
    """Press g, type k, press enter: what a person does."""
    await pilot.press("g")
    await pilot.pause()
    assert isinstance(app.screen, GotoScreen)
    await pilot.press(*str(k), "enter")
    await settle(app, pilot)


def event_answers(event) -> tuple:
    return (event.step, event.pair, event.new_token, event.count, event.ties, dict(event.pair_changes), dict(event.pair_changes_by_id))


# ---------------------------------------------------------------------- item 1: rewinding


async def test_run_rewind_and_jump_keep_the_app_alive_and_every_event_whole():
    app = demo_app(vocab_size=1000)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        tr = app.session.trainer
        await pilot.press("r")
        await settle(app, pilot)
        assert tr.steps_done == 744
        events = list(app.session.timeline)
        # what each event answered at the end of the run, read from copies (nothing cached)
        import copy

        when_new = [event_answers(copy.copy(e)) for e in events]
        await go(app, pilot, 0)
        assert tr.steps_done == 0
        # the whole run is still in the history, and every event of it answers as it did
        assert app.history.view.count == 744
        assert [event_answers(e) for e in events] == when_new
        await go(app, pilot, 300)
        assert tr.steps_done == 300 and app.status.text.count("300") >= 1
        # enter on an old (future) history row re-applies up to it
        view = app.history.view
        view.focus()
        view.move_cursor(599)
        await pilot.press("enter")
        await settle(app, pilot)
        assert tr.steps_done == 600
        await go(app, pilot, 100)
        assert tr.steps_done == 100
        # the pair table shows the changes of merge 100, named by the surfaces of the time
        last = app.session.timeline[99]
        assert app.pairs.caption_text
        assert dict(last.pair_changes)[last.pair] == (last.count, 0)
        assert [event_answers(e) for e in events] == when_new


async def test_goto_zero_after_a_long_run_on_tinyshakespeare():
    if not TINYSHAKESPEARE.is_file():
        pytest.skip(f"{TINYSHAKESPEARE} is absent (the shared data directory is not here)")
    cfg = TrainerConfig(preset="gpt2", vocab_size=3000)
    app = ExplorerApp(trainer=Trainer.from_files([str(TINYSHAKESPEARE)], cfg))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        tr = app.session.trainer
        await go(app, pilot, 2500)
        assert tr.steps_done == 2500
        await go(app, pilot, 0)
        assert tr.steps_done == 0
        await go(app, pilot, 100)
        assert tr.steps_done == 100
        assert app.history.view.count == 2500
        late = app.session.timeline[-1]
        assert dict(late.pair_changes)[late.pair] == (late.count, 0)


# ---------------------------------------------------------------------- item 6: true status


async def test_goto_past_the_end_says_where_it_stopped():
    app = classic_app()
    notes = []
    async with app.run_test(size=(120, 40)) as pilot:
        real = app.notify
        app.notify = lambda message, **kw: (notes.append(message), real(message, **kw))[1]
        await settle(app, pilot)
        tr = app.session.trainer
        await go(app, pilot, 1000)
        end = tr.steps_done
        assert 0 < end < 1000
        assert f"stopped at step {end:,}: nothing left to merge" in " | ".join(notes)
        assert "done: nothing left to merge" in app.status.text
        assert "reached" not in app.status.text


async def test_min_frequency_stop_says_so():
    app = classic_app(min_frequency=3)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await pilot.press("r")
        await settle(app, pilot)
        tr = app.session.trainer
        assert tr.stop_reason.startswith("best pair occurs ") and tr.stop_reason.endswith("below min_frequency 3")
        assert "nothing left" not in app.status.text
        assert "below min_frequency 3" in app.status.text


async def test_vocab_size_below_the_alphabet_is_reported_not_opened(tmp_path):
    path = tmp_path / "c.txt"
    path.write_text("hello world\n" * 10, encoding="utf-8")
    app = ExplorerApp(paths=[str(path)], config=TrainerConfig(preset="gpt2", vocab_size=100))
    failed = []
    async with app.run_test(size=(120, 40), message_hook=lambda m: failed.append(m) if isinstance(m, LoadFailed) else None) as pilot:
        await settle(app, pilot)
        assert app.session is None
        assert failed and "smaller than the base alphabet" in failed[0].message and "257" not in failed[0].message
        assert "256 base symbols" in failed[0].message


# ---------------------------------------------------------------------- item 2: big corpora


def write_big_corpus(path, megabytes: float = 8.5):
    """Demo-like text, at least ``megabytes`` (>= PARALLEL_MIN_BYTES: workers count it)."""
    from .conftest import DEMO

    text = DEMO.read_text(encoding="utf-8")
    block = "".join(f"{n} {line}\n" for n, line in enumerate(text.splitlines()))  # some variety
    size = int(megabytes * 1_000_000)
    with open(path, "w", encoding="utf-8") as out:
        written = 0
        n = 0
        while written < size:
            chunk = block.replace("the ", f"the{n % 97} ")
            out.write(chunk)
            written += len(chunk.encode("utf-8"))
            n += 1
    assert path.stat().st_size >= core_corpus.PARALLEL_MIN_BYTES
    return path


def record_reports(monkeypatch, hold: threading.Event | None = None) -> list[tuple[int, int]]:
    """Every (done, total) the core hands the Loader's progress callback; with ``hold``, the
    first report with bytes read waits for it (so a test can press escape mid-reading)."""
    seen: list[tuple[int, int]] = []
    real = FROM_FILES.__func__

    def from_files(cls, paths, config=None, **options):
        report = options["progress"]

        def progress(done, total):
            seen.append((done, total))
            if hold is not None and done > 0:
                hold.wait(30)
            report(done, total)

        return real(cls, paths, config, **{**options, "progress": progress})

    monkeypatch.setattr(Trainer, "from_files", classmethod(from_files))
    return seen


async def test_a_big_corpus_opens_with_default_workers(tmp_path, monkeypatch):
    path = write_big_corpus(tmp_path / "big.txt")
    size = path.stat().st_size
    seen = record_reports(monkeypatch)
    messages = []
    app = ExplorerApp(paths=[str(path)], config=default_config(None))
    hook = lambda m: messages.append(m) if isinstance(m, (LoadProgressed, LoadFailed)) else None  # noqa: E731
    async with app.run_test(size=(120, 40), message_hook=hook) as pilot:
        await settle(app, pilot)
        assert not [m for m in messages if isinstance(m, LoadFailed)], [m.message for m in messages]
        assert app.session is not None and app.session.trainer.word_count > 100
        # the counting ran in worker processes, and they are gone
        assert multiprocessing.active_children() == []
        # progress is bytes read, rising to the whole file while the workers read
        done = [d for d, _ in seen]
        assert seen and all(t == size for _, t in seen)
        assert done == sorted(done) and done[-1] == size
        assert any(0 < d < size for d in done)
        assert all(0 <= m.done <= size and m.total == size for m in messages if isinstance(m, LoadProgressed))
        # the words show
        assert app.corpus.words_view.words
    # the same counts as one process
    one = FROM_FILES([str(path)], default_config(None), workers=1)
    assert one.word_count == app.session.trainer.word_count


async def test_escape_cancels_a_parallel_count_and_stops_the_workers(tmp_path, monkeypatch):
    path = write_big_corpus(tmp_path / "big.txt")
    hold = threading.Event()
    seen = record_reports(monkeypatch, hold)
    cancelled, failed = [], []
    app = ExplorerApp(paths=[str(path)], config=default_config(None))

    def hook(message) -> None:
        if isinstance(message, LoadCancelled):
            cancelled.append(message)
        elif isinstance(message, LoadFailed):
            failed.append(message.message)

    async with app.run_test(size=(120, 40), message_hook=hook) as pilot:
        while not failed and (not seen or seen[-1][0] == 0):  # until the workers have read something
            await pilot.pause(0.01)
        assert not failed
        await pilot.press("escape")
        hold.set()
        await settle(app, pilot)
        assert cancelled and app.session is None
        assert "loading cancelled" in app.status.text
        assert not app.query_one("#progress-row").display
        deadline = time.monotonic() + 30  # the stopped workers are reaped: a bound for a loaded machine, not a speed claim
        while multiprocessing.active_children() and time.monotonic() < deadline:
            await pilot.pause(0.05)
        assert multiprocessing.active_children() == []
        # the app is alive and can open something else
        small = tmp_path / "small.txt"
        small.write_text("hello world\n", encoding="utf-8")
        app.open_path(str(small))
        await settle(app, pilot)
        assert app.session is not None and app.session.trainer.word_count == 3  # "hello", " world", "\\n"


async def test_workers_option_reaches_the_loader(tmp_path, monkeypatch):
    path = write_big_corpus(tmp_path / "big.txt")
    asked = []
    real = core_corpus.count_files

    def count_files(paths, config, errors="strict", progress=None, workers=None, **reading):
        asked.append(workers)
        return real(paths, config, errors, progress, workers, **reading)

    monkeypatch.setattr(core_distributed, "count_files", count_files)  # where count_words finds it
    app = ExplorerApp(paths=[str(path)], config=default_config(None), workers=1)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        assert app.session is not None
        assert asked == [1]
