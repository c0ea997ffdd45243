"""Every example in README.md and docs/ runs and shows what it prints (see examples.py)."""

from __future__ import annotations

import warnings
from unittest import SkipTest

import pytest
from sybil.example import NotEvaluated

from tests.conftest import REPO, SHARED

from .examples import PAGES, pages, workspace


@pytest.mark.parametrize("page", pages(), ids=lambda p: str(p.relative_to(REPO)))
def test_every_example_on_the_page_runs(page, tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    document = PAGES.parse(page)
    document.namespace.update(WORK=workspace(tmp_path), SHARED=SHARED.is_dir())
    skipped = []
    ran = 0
    for example in document:
        try:
            example.evaluate()
        except NotEvaluated:
            continue
        except SkipTest as reason:
            skipped.append(f"line {example.line}: {reason}")
            continue
        ran += 1
    if skipped:
        warnings.warn(f"{page.name}: {len(skipped)} examples skipped ({skipped[0]})", stacklevel=1)
        if not ran:
            pytest.skip(f"every example skipped: {skipped[0]}")
