"""End to end: the installed bpe-tui in tmux opens tinyshakespeare as a .jsonl.gz from its open
dialog, and a nested-field .jsonl.zst from its command line; a Parquet file without the column
asked for is said, with the columns it has."""

from __future__ import annotations

import time

from tests.dataset_files import tinyshakespeare_lines, write_jsonl, write_parquet
from tests.e2e.test_tmux import pytestmark, tmux, wait_exit  # noqa: F401  (the tmux fixture and skips)


def test_a_jsonl_gz_opens_from_the_dialog(tmux, tmp_path):  # noqa: F811
    path = write_jsonl(tmp_path / "tinyshakespeare.jsonl.gz", tinyshakespeare_lines())
    tmux.start()  # the demo corpus first
    tmux.wait_for("step 0/744")
    tmux.keys("o")
    tmux.wait_for("Open a corpus or a merge table")
    time.sleep(0.3)  # (the path box has the focus once the dialog is up)
    tmux.keys(str(path), literal=True)
    tmux.wait_for("tinyshakespeare.jsonl.gz")
    tmux.keys("Enter")
    screen = tmux.wait_for("tinyshakespeare.jsonl.gz │", timeout=60)
    assert "step 0/744" in screen and "cannot open" not in screen
    tmux.keys("N")
    tmux.wait_for("step 10/744")
    tmux.keys("C-q")
    tmux.wait_for("Quit")  # ten unsaved merges: it asks
    tmux.keys("y")
    wait_exit(tmux)


def test_nested_jsonl_zst_and_parquet_from_the_command_line(tmux, tmp_path):  # noqa: F811
    lines = tinyshakespeare_lines()
    nested = write_jsonl(tmp_path / "ts.jsonl.zst", lines, field="meta.body")
    tmux.start(str(nested), "--text-field", "meta.body")
    screen = tmux.wait_for("step 0/744", timeout=60)
    assert "ts.jsonl.zst" in screen
    tmux.keys("C-q")
    wait_exit(tmux)
    write_parquet(tmp_path / "ts.parquet", lines)
    tmux.start(str(tmp_path / "ts.parquet"), "--text-field", "body")  # no such column: said, with the columns there are
    tmux.wait_for("no column 'body'", timeout=60)
    deadline = time.monotonic() + 20
    while "(itscolumns:id,text)" not in _joined(tmux.screen()) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert "(itscolumns:id,text)" in _joined(tmux.screen()), tmux.screen()  # the notification, wrapped in its box
    tmux.keys("C-q")
    wait_exit(tmux)


def _joined(screen: str) -> str:
    """The screen's characters without whitespace or the notification's left edge."""
    return "".join(c for c in screen if not c.isspace() and c not in "▌▏")
