"""The readers' hostile inputs through the explorer's open dialog (issue 33), one per class:
a damaged compressed stream (a corpus, a table, a folder holding one), a valid file that looks
like something else, a Parquet file gone wrong, a decompression bomb, a folder holding files
no reader takes. Each ends in a notification that says what is wrong (or what was assumed),
never a "reading ..." that does not end, and what was open stays open.

The inputs are the CLI sweep's (tests/hostile_inputs.py). No timed assertions.
"""

from __future__ import annotations

import pytest

import bpe_tui
from bpe_tui.core.engine.config import TrainerConfig
from bpe_tui.core.engine.trainer import Trainer
from bpe_tui.ui.session.sessions import InspectSession
from tests import hostile_inputs as hostile

from .conftest import demo_app, settle, settle_until
from .conftest import said as notifications_said
from .test_datasets_ui import open_from_dialog

pytest.importorskip("zstandard", reason="the zstd extra is not installed")
pytest.importorskip("pyarrow", reason="the parquet extra is not installed")


@pytest.fixture(scope="module")
def inputs(tmp_path_factory):
    return hostile.make_all(tmp_path_factory.mktemp("hostile-open"))


def said(app, severity: str | None = None) -> list[str]:
    return [n.message for n in notifications_said(app) if severity is None or n.severity == severity]


async def refused(app, pilot, path, fragment: str) -> None:
    """Open ``path`` from the dialog: an error notification holding ``fragment``, and the
    demo corpus still open, the progress row gone."""
    await open_from_dialog(app, pilot, path)
    await settle_until(app, pilot, lambda: any(fragment in m for m in said(app, "error")), f"no notification saying {fragment!r}: {said(app)}")
    assert app.session.name == "demo.txt"
    assert not app.query_one("#progress-row").display


@pytest.mark.parametrize(
    "name, fragment",
    [
        ("dam.txt.gz", "dam.txt.gz: damaged gzip data after 0 decompressed bytes"),
        ("dam.txt.zst", "dam.txt.zst: damaged zstd data after 0 decompressed bytes"),
        ("dam.tiktoken.gz", "dam.tiktoken.gz: damaged gzip data"),
        ("folder", "b.txt.gz: damaged gzip data"),
        ("two.parquet", "two.parquet: 2 columns are named 'text'"),
        ("flip.parquet", "flip.parquet: damaged Parquet data in row group 2"),
    ],
    ids=["damaged-corpus", "damaged-zstd-corpus", "damaged-table", "folder-with-damaged", "two-text-columns", "page-checksum"],
)
async def test_a_damaged_or_ambiguous_file_is_a_notification(inputs, name, fragment):
    app = demo_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        await refused(app, pilot, inputs / name, fragment)


async def test_a_table_stays_open_when_a_damaged_one_is_opened(inputs, tmp_path):
    trainer = Trainer.from_text(hostile.TEXT.decode() * 4, TrainerConfig(vocab_size=300))
    list(trainer.run())
    bpe_tui.save(trainer.table, str(tmp_path / "t.json"))
    app = demo_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        await open_from_dialog(app, pilot, tmp_path / "t.json")
        await settle_until(app, pilot, lambda: isinstance(app.session, InspectSession), "the table did not open")
        table = app.session
        await open_from_dialog(app, pilot, inputs / "dam.tiktoken.gz")
        await settle_until(app, pilot, lambda: any("dam.tiktoken.gz: damaged gzip data" in m for m in said(app, "error")), "no notification")
        assert app.session is table


async def test_bombs_are_refused_in_one_notification(tmp_path, monkeypatch):
    table = hostile.run_of("gzip", tmp_path / "bomb.tiktoken.gz", b"A", 24, before=hostile.tiktoken_lines())
    record = hostile.zstd_run(tmp_path / "bomb.jsonl.zst", [(b'{"text": "', 1), (b"a" * hostile.MB, 3), (b'"}\n', 1)])
    monkeypatch.setenv("BPE_TUI_MAX_TABLE_MB", "16")
    monkeypatch.setenv("BPE_TUI_MAX_RECORD_MB", "2")
    app = demo_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        await refused(app, pilot, table, "more than 16 MB once gzip-decompressed, and a merge table is read whole (BPE_TUI_MAX_TABLE_MB=64 raises the limit)")
        await refused(app, pilot, record, "bomb.jsonl.zst:1: a record longer than 2 MB (from byte 0)")


@pytest.mark.parametrize(
    "name, note",
    [
        ("par1.txt", "par1.txt: starts with PAR1 as Parquet files do, but does not end with it: read as text"),
        ("mixed", "left out 1 file the readers cannot take: b.parquet.gz (gzip-compressed Parquet"),
        ("padded.txt.xz", None),
    ],
    ids=["looks-like-parquet", "folder-with-what-no-reader-takes", "xz-stream-padding"],
)
async def test_a_valid_file_opens_and_what_was_assumed_is_said(inputs, name, note):
    app = demo_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        await open_from_dialog(app, pilot, inputs / name)
        await settle_until(app, pilot, lambda: app.session.name == name, f"{name} did not open: {said(app)}")
        assert not said(app, "error")
        if note is not None:
            assert any(note in m for m in said(app)), said(app)
