"""docs/api.md lists every public name: the package's, MergeTable's and Trainer's (a name
added to the library without a line on the page fails here)."""

from __future__ import annotations

import re

import bpe_tui
from tests.conftest import REPO

PAGE = REPO / "docs" / "api.md"


def _names_on_the_page() -> set[str]:
    text = PAGE.read_text(encoding="utf-8")
    return set(re.findall(r"`([A-Za-z_][A-Za-z0-9_]*)", text)) | set(re.findall(r"`[^`]*?\b([a-z_][a-z0-9_]*)\(", text)) | set(
        re.findall(r"(?:, |`)([a-z_][a-z0-9_]*)(?=[`(,])", text)
    )


def test_the_page_lists_every_public_name():
    listed = _names_on_the_page()
    public = set(bpe_tui.__all__)
    for cls in (bpe_tui.MergeTable, bpe_tui.Trainer):
        public |= {n for n in dir(cls) if not n.startswith("_")}
    missing = sorted(public - listed)
    assert not missing, f"docs/api.md does not list: {', '.join(missing)}"


def test_the_readme_links_the_page():
    assert "docs/api.md" in (REPO / "README.md").read_text(encoding="utf-8")
