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


def test_the_own_variant_page_shows_the_example_file_as_it_is():
    """docs/variants/your-own.md shows examples/min_words.py in full, and runs it: the two
    cannot drift apart."""
    page = (REPO / "docs" / "variants" / "your-own.md").read_text(encoding="utf-8")
    source = (REPO / "examples" / "min_words.py").read_text(encoding="utf-8")
    blocks = [b.split("\n", 1)[1] for b in page.split("```python")[1:]]
    assert any(block.split("```", 1)[0] == source for block in blocks)
