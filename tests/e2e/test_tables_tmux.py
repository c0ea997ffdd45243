"""End to end: a 200,000-token table in the installed ``bpe-tui`` in tmux. It opens, Find
answers while typing (the search runs in a worker), and the encode box encodes."""

from __future__ import annotations

import time

import bpe_tui
from tests.conftest import SHARED, need

from .test_tmux import ENCODE_BOX, Tmux, tmux, wait_exit  # noqa: F401  (tmux is a fixture)


def test_o200k_opens_and_answers_find_and_encode(tmux: Tmux):
    path = need(SHARED / "tables" / "o200k" / "o200k_base.tiktoken")
    tmux.start("open", str(path))
    tmux.wait_for("200,000 tokens", timeout=60)
    tmux.focus("/", "token text or id")  # before "g" could mean Go to
    tmux.keys("ings", literal=True)
    screen = tmux.wait_for("tokens match", timeout=30)
    assert "ings" in screen
    tmux.keys("Escape")
    time.sleep(0.3)
    tmux.focus("e", ENCODE_BOX)
    text = "Hello wörld 日本語 tokenizers"
    tmux.keys(text, literal=True)
    table = bpe_tui.load(str(path))
    ids = table.encode(text)
    screen = tmux.wait_for(f"{len(ids)} tokens · ", timeout=20)
    assert " ".join(str(i) for i in ids[:2]) in screen.replace("  ", " ") or str(ids[0]) in screen
    tmux.keys("C-q")
    wait_exit(tmux)


def test_o200k_shows_before_its_merge_list_then_fills_in(tmux: Tmux, tmp_path):
    """With an empty merges cache, the installed ``bpe-tui open o200k`` shows the table while
    it builds the merge list behind the panes (a replay of seconds), encodes meanwhile, then
    lists the 199,742 merges."""
    path = need(SHARED / "tables" / "o200k" / "o200k_base.tiktoken")
    tmux.env["BPE_TUI_CACHE"] = str(tmp_path / "cache")
    tmux.start("open", str(path))
    first = tmux.wait_for("200,000 tokens", timeout=60)
    assert "merges: building…" in first and "building the merge list…" in first
    tmux.focus("e", ENCODE_BOX)
    tmux.keys("Hello tokenizers", literal=True)
    tmux.wait_for("3 tokens · ", timeout=30)
    screen = tmux.wait_for("199,742 merges · enter", timeout=180)
    assert "merge 23,968 iz+ers" in screen  # the trace of " tokenizers" filled in
    tmux.keys("C-q")
    wait_exit(tmux)
