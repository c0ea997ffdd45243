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
