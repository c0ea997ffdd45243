"""Shared test helpers: where the repository's corpora and the read-only ../shared data live."""

from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
CORPORA = REPO / "corpora"
SHARED = REPO.parent / "shared"
GPT2_DIR = SHARED / "tables" / "gpt2"
TINYSHAKESPEARE = SHARED / "corpora" / "tinyshakespeare.txt"
TAYLORSWIFT = SHARED / "corpora" / "taylorswift.txt"


def need(path: Path) -> Path:
    """Skip the calling test (with the reason) when a ../shared file is absent."""
    if not path.exists():
        pytest.skip(f"{path} is absent (../shared data is not part of a fresh clone)")
    return path


@pytest.fixture(autouse=True, scope="session")
def _merges_cache_of_our_own(tmp_path_factory):
    """The rank-file merges cache goes to a directory of the test run, not ~/.cache."""
    import os

    previous = os.environ.get("BPE_TUI_CACHE")
    os.environ["BPE_TUI_CACHE"] = str(tmp_path_factory.mktemp("bpe-tui-cache"))
    yield
    if previous is None:
        os.environ.pop("BPE_TUI_CACHE", None)
    else:
        os.environ["BPE_TUI_CACHE"] = previous
