"""Every example in README.md and docs/ runs and shows what it prints (see examples.py); a page
whose examples all skip fails."""

from __future__ import annotations

import warnings
from pathlib import Path
from unittest import SkipTest

import pytest
from sybil.example import NotEvaluated

from tests.conftest import REPO, SHARED

from .examples import PAGES, is_code, pages, workspace


def run_page(page: Path, tmp_path: Path, shared: bool) -> tuple[int, list[str]]:
    """Run every example of ``page`` in a fresh workspace: how many code examples (console,
    python) ran, and why the others skipped (the skip and screen directives are not counted)."""
    document = PAGES.parse(page)
    document.namespace.update(WORK=workspace(tmp_path), SHARED=shared)
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
        ran += is_code(example)
    return ran, skipped


def judge(name: str, ran: int, skipped: list[str]) -> None:
    """A page whose every example skipped proved nothing: a failure, never a pass. (So every
    page keeps at least one example that runs without ../shared and without tmux.)"""
    if skipped and not ran:
        pytest.fail(f"{name}: every example skipped ({len(skipped)}), none ran: {skipped[0]}", pytrace=False)
    if skipped:
        warnings.warn(f"{name}: {len(skipped)} examples skipped ({skipped[0]})", stacklevel=1)


@pytest.mark.parametrize("page", pages(), ids=lambda p: str(p.relative_to(REPO)))
def test_every_example_on_the_page_runs(page, tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    judge(page.name, *run_page(page, tmp_path, SHARED.is_dir()))


def test_a_page_whose_every_example_skips_fails(tmp_path):
    page = tmp_path / "page.md"
    page.write_text(
        'Text.\n\n<!-- skip: start if(not SHARED, reason="needs ../shared") -->\n\n'
        "```console\n$ echo hi\nhi\n```\n\n<!-- skip: end -->\n",
        encoding="utf-8",
    )
    ran, skipped = run_page(page, tmp_path / "ws", shared=False)
    assert (ran, len(skipped)) == (0, 1)
    with pytest.raises(pytest.fail.Exception, match="every example skipped"):
        judge(page.name, ran, skipped)
    assert run_page(page, tmp_path / "ws2", shared=True) == (1, [])


def test_the_own_variant_page_shows_the_example_file_as_it_is():
    """docs/variants/your-own.md shows examples/min_words.py in full, and runs it: the two
    cannot drift apart."""
    page = (REPO / "docs" / "variants" / "your-own.md").read_text(encoding="utf-8")
    source = (REPO / "examples" / "min_words.py").read_text(encoding="utf-8")
    blocks = [b.split("\n", 1)[1] for b in page.split("```python")[1:]]
    assert any(block.split("```", 1)[0] == source for block in blocks)
