"""The explorer opens datasets as shipped: a .jsonl.gz from the open dialog, a nested text field
set in the dialog, bad records skipped or named with the fields that exist, progress in records
and bytes, escape that stops the reading at once, and a retrain that counts the records again.

No timed assertions: every test waits on states (workers finished, a message seen).
"""

from __future__ import annotations

import gzip
import threading

import pytest
from textual.widgets import Input, Static

import bpe_tui
from bpe_tui import TrainerConfig
from bpe_tui.core.text import blocks
from bpe_tui.ui.app import ExplorerApp, default_config
from bpe_tui.ui.messages import LoadCancelled, LoadFailed, LoadProgressed
from bpe_tui.ui.screens.opening import OpenScreen
from bpe_tui.ui.widgets.toggle import Checkbox
from tests.dataset_files import write_jsonl, write_parquet

from .conftest import demo_app, open_settings, said, settle, settle_until
from .test_real_work import record_reports

pytest.importorskip("pyarrow", reason="the parquet extra is not installed")

TEXTS = [f"record {i}: the quick brown fox jumps over the lazy dog {i % 7}\n" for i in range(300)]


async def open_from_dialog(app, pilot, path, field: str | None = None, skip: bool | None = None) -> None:
    """Press o, fill the dialog as a person would, press enter."""
    await pilot.press("o")
    await pilot.pause()
    assert isinstance(app.screen, OpenScreen)
    app.screen.query_one("#path-input", Input).value = str(path)
    if field is not None:
        app.screen.query_one("#text-field", Input).value = field
    if skip is not None:
        app.screen.query_one("#skip-bad", Checkbox).value = skip
    app.screen.query_one("#path-input", Input).focus()
    await pilot.press("enter")


async def test_a_jsonl_gz_opens_from_the_dialog(tmp_path):
    path = write_jsonl(tmp_path / "web.jsonl.gz", TEXTS)
    app = demo_app()
    progress: list[LoadProgressed] = []
    hook = lambda m: progress.append(m) if isinstance(m, LoadProgressed) else None  # noqa: E731
    async with app.run_test(size=(120, 40), message_hook=hook) as pilot:
        await settle(app, pilot)
        await open_from_dialog(app, pilot, path)
        await settle_until(app, pilot, lambda: app.session.name == "web.jsonl.gz", "the dataset did not open")
        expected = bpe_tui.count_words(iter(TEXTS), default_config(None))
        assert app.session.trainer.corpus_counts()[0] == expected
        assert app.session.preview.startswith(TEXTS[0] + TEXTS[1])  # the running text: documents, not JSON
        await pilot.press("N")
        await settle(app, pilot)
        assert app.session.step == 10
        errors = [n for n in said(app) if n.severity == "error"]
        assert not errors, [n.message for n in errors]


async def test_a_nested_field_set_in_the_dialog_and_a_missing_one_named(tmp_path):
    path = write_parquet(tmp_path / "nested.parquet", TEXTS, column="meta.body")
    app = demo_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await open_from_dialog(app, pilot, path)  # the default field, "text", is not there
        await settle(app, pilot)
        failed = [n.message for n in said(app) if n.severity == "error"]
        assert any("no column 'text' (its columns: id, meta)" in m for m in failed), failed
        assert app.session.name == "demo.txt"  # what was open stays open
        await open_from_dialog(app, pilot, path, field="meta.body")
        await settle_until(app, pilot, lambda: app.session.name == "nested.parquet", "the nested field did not open")
        assert app.session.records.text_field == "meta.body"
        await pilot.press("o")
        await pilot.pause()
        assert app.screen.query_one("#text-field", Input).value == "meta.body"  # remembered for the next open
        await pilot.press("escape")


async def test_a_bad_field_name_is_said_in_the_dialog(tmp_path):
    app = demo_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await open_from_dialog(app, pilot, tmp_path / "x.jsonl", field="meta..body")
        await pilot.pause()
        assert isinstance(app.screen, OpenScreen)  # stays open
        assert "an empty name between dots" in str(app.screen.query_one("#open-error", Static).render())


async def test_bad_records_skipped_are_said_when_the_corpus_opens(tmp_path):
    path = tmp_path / "mixed.jsonl"
    write_jsonl(path, TEXTS)
    with open(path, "a") as f:
        f.write('{"body": "no text"}\nnot json\n')
    app = demo_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await open_from_dialog(app, pilot, path)
        await settle(app, pilot)
        failed = [n.message for n in said(app) if n.severity == "error"]
        assert any("mixed.jsonl:301: no field 'text' (its fields: body)" in m for m in failed), failed
        await open_from_dialog(app, pilot, path, skip=True)
        await settle_until(app, pilot, lambda: app.session.name == "mixed.jsonl", "skipping did not open it")
        notes = [n.message for n in said(app)]
        assert any(m.startswith("skipped 2 bad records of 302") for m in notes), notes


async def test_progress_in_records_and_bytes_and_escape_stops_at_once(tmp_path, monkeypatch):
    texts = [f"{n} {t}" for n in range(500) for t in TEXTS]  # 150,000 records, ~11 MB of JSON lines
    path = write_jsonl(tmp_path / "big.jsonl.gz", texts)
    reads = len(gzip.decompress(path.read_bytes())) // blocks.BLOCK
    assert reads >= 8  # a whole read reports progress this many times
    hold = threading.Event()
    seen = record_reports(monkeypatch, hold)
    messages: list = []
    hook = lambda m: messages.append(m) if isinstance(m, (LoadProgressed, LoadCancelled, LoadFailed)) else None  # noqa: E731
    app = ExplorerApp(paths=[str(path)], config=default_config(None))
    async with app.run_test(size=(120, 40), message_hook=hook) as pilot:
        while not seen or seen[-1][0] == 0:  # until the first block has been read
            await pilot.pause(0.01)
        app.main.on_load_progressed(LoadProgressed(1_500_000, 3_000_000, None, 12_345))
        assert "reading corpus: 1.5 of 3.0 MB · 12,345 records" in str(app.main.query_one("#progress-label", Static).render())
        await pilot.press("escape")
        hold.set()
        await settle(app, pilot)
        assert any(isinstance(m, LoadCancelled) for m in messages) and app.session is None
        assert len(seen) <= 2  # the reading stopped at the next report, not at the end of the file
    # unheld, the reports count records as they go
    monkeypatch.undo()
    messages.clear()
    app = ExplorerApp(paths=[str(path)], config=default_config(None))
    async with app.run_test(size=(120, 40), message_hook=hook) as pilot:
        await settle(app, pilot)
        assert app.session is not None
        records = [m.records for m in messages if isinstance(m, LoadProgressed)]
        assert records == sorted(records) and all(0 <= r <= len(texts) for r in records)


async def test_retraining_under_new_rules_counts_the_records_again(tmp_path):
    path = write_jsonl(tmp_path / "n.jsonl", [t.upper() for t in TEXTS], field="meta.body")
    app = ExplorerApp(paths=[str(path)], config=default_config(TrainerConfig(preset="gpt2", vocab_size=400)), records=_records("meta.body"))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        assert app.session is not None and "RECORD" in app.session.trainer.corpus_counts()[0]
        from bpe_tui.ui.screens.settings import SettingsScreen

        await open_settings(app, pilot)
        assert isinstance(app.screen, SettingsScreen)
        app.screen.query_one("#lowercase", Checkbox).value = True
        await pilot.click("#ok")
        await settle(app, pilot)
        words = app.session.trainer.corpus_counts()[0]
        assert "record" in words and "RECORD" not in words


def _records(field: str):
    from bpe_tui.core.text.datasets.records import RecordOptions

    return RecordOptions(field)


async def test_a_glob_of_shards_opens_from_the_dialog(tmp_path):
    for k in range(3):
        write_parquet(tmp_path / f"train-{k:05d}.parquet", TEXTS[k * 100 : (k + 1) * 100])
    app = demo_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await open_from_dialog(app, pilot, tmp_path / "train-*.parquet")
        await settle_until(app, pilot, lambda: app.session.name == "train-*.parquet", "the glob did not open")
        assert app.session.trainer.corpus_counts()[0] == bpe_tui.count_words(iter(TEXTS), default_config(None))
