"""docs/internals/architecture.md stays true to the package: its map is generated from the
modules (docs/hooks/generate.py, ``package_map``), and every file and name its "Where to look
first" table points at is there (the table once sent readers to the encoder's old home)."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

from tests.conftest import REPO

PAGE = REPO / "docs" / "internals" / "architecture.md"
IDENTIFIER = re.compile(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)?")


def _rows() -> list[str]:
    text = PAGE.read_text(encoding="utf-8")
    table = text[text.index("| to find | open |"):].split("\n\n")[0]
    return table.splitlines()[2:]


def _resolve(name: str, seen: list[Path]) -> Path | None:
    """A path as the table writes it: from the repository, from bpe_tui/, or beside a path
    named before it in the row (``history.tcss`` beside ``history.py``)."""
    candidates = [REPO / name, REPO / "bpe_tui" / name]
    for earlier in seen:
        candidates += [earlier.parent / name, *(parent / name for parent in earlier.parents if REPO in parent.parents)]
    return next((c for c in candidates if c.is_file()), None)


def _defines(files: list[Path], name: str) -> bool:
    """Whether one of ``files`` defines ``name`` (a function, a class, a constant; ``A.b``: a
    class A with a method or attribute b)."""
    *owner, last = name.split(".")
    for path in files:
        text = path.read_text(encoding="utf-8")
        if owner and not re.search(rf"^class {owner[0]}\b", text, re.M):
            continue
        if re.search(rf"^\s*(?:def|class) {last}\b|^\s*{last}\s*(?::[^=\n]*)?=", text, re.M):
            return True
    return False


def test_every_file_and_name_the_page_points_at_is_there():
    for row in _rows():
        where = row.strip("|").split(" | ", 1)[1]  # the "open" column (the first says what is sought)
        quoted = re.findall(r"`([^`]+)`", where)
        files: list[Path] = []
        for name in quoted:
            if re.search(r"\.(py|tcss)$", name):
                found = _resolve(name, files)
                assert found is not None, f"architecture.md points at {name}, which is not there ({row[:60]}...)"
                files.append(found)
        for name in quoted:
            if IDENTIFIER.fullmatch(name) and not name.endswith((".py", ".tcss")):
                assert _defines(files, name), f"architecture.md names {name}, which none of {[f.name for f in files]} defines"


def test_the_package_map_is_generated_and_names_every_module():
    assert "<!-- generated: package_map -->" in PAGE.read_text(encoding="utf-8")
    spec = importlib.util.spec_from_file_location("docs_generate", REPO / "docs" / "hooks" / "generate.py")
    generate = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(generate)
    made = generate.package_map()
    for module in (REPO / "bpe_tui").rglob("*.py"):
        if module.name not in ("__init__.py", "__main__.py"):
            assert f"`{module.parent.relative_to(REPO).as_posix()}/`" in made and f"| `{module.stem}` |" in made, module
