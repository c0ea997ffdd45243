"""Counting on a Dask cluster gives local counting's word counts, in local counting's order.

One LocalCluster of two worker processes serves the whole module. Range sizes of a few bytes
cut the small corpora below into hundreds of ranges, so every boundary case (a line longer
than a range, a file without a final newline, multi-byte characters next to a cut, special
tokens) meets a range boundary somewhere.
"""

from __future__ import annotations

import os
import subprocess
import sys

import dask.distributed
import pytest

import bpe_tui
from bpe_tui import Trainer, TrainerConfig
from bpe_tui.cli import main
from bpe_tui.core.errors import BPEError
from bpe_tui.core.text import blocks
from bpe_tui.core.text.blocks import plan_ranges
from bpe_tui.core.text.corpus import count_files
from bpe_tui.core.text.count_files import write_count_file
from bpe_tui.core.text.distributed import count_words
from tests.conftest import TINYSHAKESPEARE, need
from tests.core.test_scale import (
    LINES,  # the lines local counting's tests cut into ranges
)


@pytest.fixture(scope="module")
def client():
    """A LocalCluster of two single-threaded worker processes, for the whole module."""
    cluster = dask.distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0")
    client = dask.distributed.Client(cluster)
    yield client
    client.close()
    cluster.close()
    stop_dask_helper_threads()


def stop_dask_helper_threads() -> None:
    """Once used, dask keeps two helper threads for the rest of the process. Local counting
    forks its workers only from a process of one thread, and later tests rely on fork carrying
    a monkeypatch into the workers: give the test process back its single thread (dask makes
    the threads again if it is used later)."""
    from concurrent.futures import ThreadPoolExecutor

    import distributed.utils
    from distributed.client import Future

    distributed.utils._offload_executor.shutdown(wait=True)
    distributed.utils._offload_executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="Dask-Offload")
    if Future._cb_executor is not None:
        Future._cb_executor.shutdown(wait=True)
        Future._cb_executor = None


@pytest.fixture
def corpus_dir(tmp_path):
    """Three files: a.txt, an empty one, and b.txt without a final newline."""
    write = lambda name, text: (tmp_path / name).write_bytes(text.encode("utf-8"))  # noqa: E731
    write("a.txt", "\n".join(LINES * 7) + "\n")
    write("b_empty.txt", "")
    write("c.txt", "\n".join(list(reversed(LINES)) * 5 + ["no newline at the end"]))
    return tmp_path


def items(counts: dict) -> list:
    """Words and counts in order: the test compares the order as well as the dict."""
    return list(counts.items())


# ---------------------------------------------------------------------- the same counts


@pytest.mark.parametrize("preset", ["classic", "gpt2", "gpt4", "o200k"])
def test_counts_equal_local_counting_for_every_preset_and_block_size(client, corpus_dir, preset):
    cfg = TrainerConfig(preset=preset, special_tokens=["<|endoftext|>"])
    sources = [str(p) for p in sorted(corpus_dir.iterdir())]
    local = items(count_files(sources, cfg, workers=1))
    for blocksize in (1, 37, 300, None):
        assert items(count_words(sources, cfg, client=client, blocksize=blocksize)) == local, blocksize
    assert len(local) > 30


@pytest.mark.parametrize("config", [
    dict(preset="gpt2", lowercase=True, special_tokens=["<|endoftext|>", "ΣΟΦΙΑ"]),
    dict(preset="gpt2", special_tokens=["line\r\n"]),  # a special token holding a line break
    dict(preset="classic", lowercase=True),
    dict(preset="gpt2", pretokenizer=r"regex:\w+|\s+|[^\w\s]+"),
])
def test_counts_equal_local_counting_with_special_tokens_and_options(client, corpus_dir, config):
    cfg = TrainerConfig(**config)
    sources = [str(corpus_dir / "a.txt"), str(corpus_dir / "c.txt")]
    local = items(count_files(sources, cfg, workers=1))
    for blocksize in (13, 200):
        assert items(count_words(sources, cfg, client=client, blocksize=blocksize)) == local


def test_every_cut_next_to_multibyte_characters(client, tmp_path):
    """Ranges are cut only at line ends, wherever the planned cut falls inside a character."""
    path = tmp_path / "utf8.txt"
    path.write_bytes("aé中\nΣσς 中文中文\n😀x😀 y\nzz\né".encode("utf-8"))  # no final newline either
    cfg = TrainerConfig(preset="gpt2")
    local = items(count_files([str(path)], cfg, workers=1))
    size = path.stat().st_size
    for blocksize in [*range(1, 16), size // 2, size]:  # cuts planned inside é, 中, 😀 and line ends
        assert items(count_words([str(path)], cfg, client=client, blocksize=blocksize)) == local, blocksize


def test_a_line_longer_than_64_read_blocks_is_cut_as_local_reading_cuts_it(client, tmp_path, monkeypatch):
    """With 16-byte reads (here and on the workers), a 4 KB line is cut in pieces the same way."""
    path = tmp_path / "long.txt"
    path.write_bytes(("\n".join(LINES + [("wörd " * 700).strip()] + LINES) + "\n").encode("utf-8"))
    cfg = TrainerConfig(preset="gpt2")
    monkeypatch.setattr(blocks, "BLOCK", 16)
    client.run(lambda: setattr(blocks, "BLOCK", 16))
    try:
        local = items(count_files([str(path)], cfg, workers=1))
        for blocksize in (40, 1000):
            assert items(count_words([str(path)], cfg, client=client, blocksize=blocksize)) == local
    finally:
        client.run(lambda: setattr(blocks, "BLOCK", 1 << 20))


def test_tinyshakespeare_counts_and_first_seen_merges_equal_local(client):
    path = str(need(TINYSHAKESPEARE))
    cfg = TrainerConfig(preset="gpt2", tie_break="first-seen", merges=200)
    local = Trainer.from_files([path], cfg, workers=1)
    dask = Trainer.from_files([path], cfg, client=client)
    assert [local.word_text(i) for i in range(local.word_count)] == [dask.word_text(i) for i in range(dask.word_count)]
    assert [(e.pair, e.count, e.ties) for e in local.run()] == [(e.pair, e.count, e.ties) for e in dask.run()]


def test_first_seen_merges_equal_local_with_many_ranges(client, corpus_dir):
    """Ties broken by first appearance: the ranges are merged in (file, offset) order."""
    sources = [str(corpus_dir / "c.txt"), str(corpus_dir / "a.txt")]
    cfg = TrainerConfig(preset="gpt2", tie_break="first-seen", merges=120)
    runs = []
    for counts in (count_files(sources, cfg, workers=1), count_words(sources, cfg, client=client, blocksize=50)):
        runs.append([(e.pair, e.count, e.tie_count, e.ties) for e in Trainer.from_counts(counts, cfg).run()])
    assert runs[0] == runs[1]
    assert any(e[2] > 1 for e in runs[0])  # there were ties to break


# ---------------------------------------------------------------------- inputs


def test_directories_globs_and_file_urls_read_the_same_files(client, corpus_dir):
    cfg = TrainerConfig(preset="gpt2")
    local = items(count_files([str(corpus_dir)], cfg, workers=1))
    for inputs in (
        [str(corpus_dir)],
        [str(corpus_dir / "*.txt")],
        [f"file://{corpus_dir}"],  # fsspec: a directory URL
        [f"file://{corpus_dir}/*.txt"],  # fsspec: a glob URL
        [f"file://{corpus_dir / 'a.txt'}", f"file://{corpus_dir / 'b_empty.txt'}", f"file://{corpus_dir / 'c.txt'}"],
    ):
        assert items(count_words(inputs, cfg, client=client, blocksize=64)) == local, inputs
    assert items(count_words(corpus_dir, cfg, client=client, blocksize=64)) == local  # one Path alone


def test_bad_inputs_are_one_line_errors(client, tmp_path):
    cfg = TrainerConfig(preset="gpt2")
    with pytest.raises(BPEError, match="no file matches"):
        count_words([str(tmp_path / "*.nothing")], cfg, client=client)
    with pytest.raises(BPEError, match="no such file"):
        count_words([f"file://{tmp_path}/missing.txt"], cfg, client=client)
    with pytest.raises(BPEError, match="stdin"):
        count_words(["-"], cfg, client=client)
    (tmp_path / "blank.txt").write_text("")
    with pytest.raises(BPEError, match="empty"):
        count_words([str(tmp_path / "blank.txt")], cfg, client=client)
    with pytest.raises(BPEError, match="--workers applies to --dask local only"):
        count_words([str(tmp_path / "blank.txt")], cfg, client=client, workers=2)


def test_errors_on_workers_are_the_errors_of_one_pass(client, tmp_path):
    good = ("\n".join(LINES * 5) + "\n").encode("utf-8")
    bad = tmp_path / "bad.txt"
    bad.write_bytes(good + b"caf\xe9 late in the file\n" + good + b"\xff again\n")
    cfg = TrainerConfig(preset="gpt2")
    with pytest.raises(BPEError) as one:
        count_files([str(bad)], cfg, workers=1)
    with pytest.raises(BPEError) as on_dask:
        count_words([str(bad)], cfg, client=client, blocksize=100)
    assert str(on_dask.value) == str(one.value) and f"at byte {len(good) + 3}" in str(one.value)
    replaced = count_words([str(bad)], cfg, client=client, errors="replace", blocksize=100)
    assert items(replaced) == items(count_files([str(bad)], cfg, errors="replace", workers=1))

    binary = tmp_path / "bin.dat"
    binary.write_bytes(b"text\0" + good)
    with pytest.raises(BPEError, match="binary"):
        count_words([str(binary)], cfg, client=client, blocksize=100)


# ---------------------------------------------------------------------- progress and cancel


def test_progress_counts_blocks_up_to_the_total(client, corpus_dir):
    sources = [str(corpus_dir / "a.txt"), str(corpus_dir / "c.txt")]
    planned = sum(len(plan_ranges(p, (corpus_dir / p).stat().st_size, 200)) for p in sources)
    seen: list = []
    count_words(sources, TrainerConfig(preset="gpt2"), client=client, blocksize=200, progress=lambda d, n: seen.append((d, n)))
    assert planned > 10
    assert seen[0] == (0, planned) and seen[-1] == (planned, planned)
    assert all(n == planned for _, n in seen)
    done = [d for d, _ in seen]
    assert done == sorted(done)


def test_a_progress_callback_that_raises_cancels_the_futures(client, corpus_dir, monkeypatch):
    """The explorer cancels a load by raising from its progress callback: the ranges still
    queued or running on the cluster are cancelled."""
    cancelled: list = []
    real_cancel = client.cancel

    def spy(futures, *args, **kwargs):
        cancelled.extend(futures)
        return real_cancel(futures, *args, **kwargs)

    monkeypatch.setattr(client, "cancel", spy)

    class Stop(Exception):
        pass

    def progress(done, total):
        raise Stop()

    with pytest.raises(Stop):
        count_words([str(corpus_dir / "a.txt")], TrainerConfig(preset="gpt2"), client=client, blocksize=20, progress=progress)
    assert len(cancelled) > 10
    assert {f.status for f in cancelled} == {"cancelled"}


# ---------------------------------------------------------------------- command line and library


def test_cli_count_and_train_against_a_scheduler_address(client, corpus_dir, tmp_path, capsys):
    address = client.scheduler.address
    sources = [str(corpus_dir / "a.txt"), str(corpus_dir / "c.txt")]
    assert main(["count", *sources, "--dask", address, "-o", str(tmp_path / "dask.tsv")]) == 0
    assert main(["count", *sources, "--workers", "1", "-o", str(tmp_path / "local.tsv")]) == 0
    assert (tmp_path / "dask.tsv").read_bytes() == (tmp_path / "local.tsv").read_bytes()

    common = ["--tie-break", "first-seen", "--merges", "80", "-q"]
    assert main(["train", *sources, "--dask", address, "-o", str(tmp_path / "t1.json"), *common]) == 0
    assert main(["train", str(tmp_path / "dask.tsv"), "--counts", "-o", str(tmp_path / "t2.json"), *common]) == 0
    assert main(["train", *sources, "--workers", "1", "-o", str(tmp_path / "t3.json"), *common]) == 0
    assert (tmp_path / "t1.json").read_bytes() == (tmp_path / "t2.json").read_bytes() == (tmp_path / "t3.json").read_bytes()

    assert main(["count", *sources, "--dask", address, "--counts", "-o", str(tmp_path / "x.tsv")]) == 2
    assert main(["count", *sources, "--dask", address, "--workers", "2", "-o", str(tmp_path / "x.tsv")]) == 2
    assert not (tmp_path / "x.tsv").exists()
    err = capsys.readouterr().err
    assert "give one of them" in err and "--workers applies to --dask local only" in err


def test_cli_dask_local_starts_and_closes_its_own_cluster(corpus_dir, tmp_path_factory, monkeypatch):
    started: list = []

    class Recorded(dask.distributed.LocalCluster):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            started.append((self, kwargs))

    monkeypatch.setattr(dask.distributed, "LocalCluster", Recorded)
    results = tmp_path_factory.mktemp("results")
    out = results / "counts.tsv"
    assert main(["count", str(corpus_dir), "--dask", "local", "--workers", "2", "-o", str(out)]) == 0
    expected = results / "expected.tsv"
    write_count_file(count_files([str(corpus_dir)], TrainerConfig(preset="gpt2"), workers=1), str(expected))
    assert out.read_bytes() == expected.read_bytes()
    [(cluster, kwargs)] = started
    assert kwargs["n_workers"] == 2 and kwargs["threads_per_worker"] == 1 and kwargs["processes"]
    assert cluster.status.name == "closed"


def test_without_dask_the_option_names_the_extra(corpus_dir, tmp_path, monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "dask.distributed", None)  # import dask.distributed fails
    out = tmp_path / "counts.tsv"
    for argv in (["count", str(corpus_dir), "--dask", "local", "-o", str(out)],
                 ["train", str(corpus_dir), "--dask", "local", "-o", str(out)],
                 [str(corpus_dir), "--dask", "local"]):  # the explorer: refused before it opens
        assert main(argv) == 2
        err = capsys.readouterr().err.strip()
        assert "pip install 'bpe-tui[dask]'" in err and len(err.splitlines()) == 1
    assert not out.exists()


def test_the_library_imports_without_dask():
    code = "import sys, bpe_tui, bpe_tui.core.text.distributed; assert not [m for m in sys.modules if m.split('.')[0] in ('dask', 'distributed', 'fsspec')]"
    subprocess.run([sys.executable, "-c", code], check=True)
    assert bpe_tui.count_words is count_words and "count_words" in bpe_tui.__all__


def test_count_words_without_a_client_is_local_counting(corpus_dir):
    cfg = TrainerConfig(preset="gpt2")
    local = items(count_files([str(corpus_dir)], cfg))
    assert items(bpe_tui.count_words([str(corpus_dir)], cfg)) == local
    assert items(bpe_tui.count_words(corpus_dir, cfg)) == local  # one path, as a Path
    assert items(bpe_tui.count_words(str(corpus_dir / "a.txt"), cfg)) == items(count_files([str(corpus_dir / "a.txt")], cfg))


# ---------------------------------------------------------------------- the explorer


async def test_the_explorer_counts_on_dask_and_shows_blocks(client, corpus_dir):
    from textual.widgets import Static

    from bpe_tui.ui import app as app_module
    from bpe_tui.ui.app import ExplorerApp
    from bpe_tui.ui.messages import LoadProgressed

    seen: list = []

    class Recording(ExplorerApp):
        CSS_PATH = [os.path.join(os.path.dirname(app_module.__file__), p) for p in ExplorerApp.CSS_PATH]

        def on_load_progressed(self, message: LoadProgressed) -> None:  # the screen's handler runs first
            seen.append((message.done, message.total, message.dask))

    address = client.scheduler.address
    cfg = TrainerConfig(preset="gpt2", vocab_size=300)
    app = Recording(paths=[str(corpus_dir)], config=cfg, dask=address)
    async with app.run_test(size=(120, 40)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        trainer = app.session.trainer
        local = count_files([str(corpus_dir)], cfg, workers=1)
        assert [trainer.word_text(i) for i in range(trainer.word_count)] == list(local)
        app.main.on_load_progressed(LoadProgressed(3, 10, address))
        assert str(app.query_one("#progress-label", Static).render()) == f"counting on dask {address}: 3 of 10 blocks"
    assert seen and all(d == address for _, _, d in seen)
