"""The front door and the site: README.md stays short and true to the code, and the
documentation builds with ``mkdocs build --strict`` (a broken link, anchor or reference fails)."""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys

import pytest

from tests.conftest import REPO

README = REPO / "README.md"


def _generate():
    spec = importlib.util.spec_from_file_location("docs_generate", REPO / "docs" / "hooks" / "generate.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_readme_is_a_front_door():
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 250, f"README.md has {len(lines)} lines; the rest belongs in docs/"


def test_the_readme_key_table_is_the_registry():
    """The table is generated from bpe_tui/ui/keys.py: `python docs/hooks/generate.py` writes it."""
    readme = README.read_text(encoding="utf-8")
    assert _generate().README_KEYS.search(readme), "README.md has no generated key table"
    assert readme == _generate().readme_with_keys(readme), "README.md's keys differ from COMMANDS: run python docs/hooks/generate.py"


def test_the_readme_links_go_somewhere():
    readme = README.read_text(encoding="utf-8")
    for target in re.findall(r"\]\(([^)#]+?)(?:#[^)]*)?\)", readme):
        if "://" in target:
            continue
        assert (REPO / target.replace("%5B", "[").replace("%5D", "]")).exists(), f"README.md links to {target}, which is not there"


def test_the_site_builds_strictly(tmp_path):
    pytest.importorskip("mkdocs", reason="the docs extra is not installed")
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
        cwd=REPO, capture_output=True, text=True, timeout=600,
    )
    assert done.returncode == 0, done.stderr[-4000:]
    assert (tmp_path / "site" / "reference" / "cli" / "index.html").is_file()
    keys = (tmp_path / "site" / "reference" / "keys" / "index.html").read_text(encoding="utf-8")
    assert "one merge step" in keys  # generated from COMMANDS
    # the Python reference: a section per class, typed signatures, tables of parameters, and
    # the names the variant pages import
    python = (tmp_path / "site" / "reference" / "python" / "index.html").read_text(encoding="utf-8")
    for name in ("Trainer", "TrainerConfig", "MergeTable", "MergeEvent", "RemovalEvent", "RestoreEvent", "ParityChoice",
                 "TransitionEvent", "Variant", "evaluate", "side_by_side"):
        assert f'id="{name}"' in python or f'.{name}"' in python, name
    assert "Parameters:" in python and "Returns:" in python and "Attributes:" in python
    # pages made when the site is built: the training options, the eval legend, the package map
    cli = (tmp_path / "site" / "cli" / "index.html").read_text(encoding="utf-8")
    assert "--global-merges" in cli and "<code>subword-nmt</code>" in cli and "<code>picky</code>" in cli
    assert "premium spread" in (tmp_path / "site" / "analysis" / "index.html").read_text(encoding="utf-8")
    assert "bpe_tui/core/tables/" in (tmp_path / "site" / "internals" / "architecture" / "index.html").read_text(encoding="utf-8")


def test_every_page_that_describes_a_screen_shows_it():
    """An "In the explorer" section, and any section that opens the explorer in an example
    (``<!-- screen: ... -->``), shows a picture of the screen: a snapshot test's SVG."""
    pictures = _generate().pictures()
    for page in sorted((REPO / "docs").rglob("*.md")):
        text = page.read_text(encoding="utf-8")
        for section in re.split(r"^(?=## )", text, flags=re.M):
            title = section.splitlines()[0] if section.startswith("## ") else "(the top)"
            if title == "## In the explorer" or "<!-- screen:" in section:
                shown = re.findall(r"!\[[^\]]*\]\((?:\.\./)*pictures/([^)]+\.svg)\)", section)
                where = f"{page.relative_to(REPO)}, {title}"
                assert shown, f"{where} describes a screen and shows none"
                for name in shown:
                    assert name in pictures or name.endswith("-plot.svg"), f"{where}: no snapshot makes {name}"


#: How serve ends, said in one sentence wherever serve's ending is told (issue 42: three pages
#: told it three ways, and SIGTERM left out the line it printed on Ctrl+C).
SERVE_ENDING = (
    "Ctrl+C ends every explorer, then the server, which prints `stopped: every explorer has ended` and exits 0; "
    "SIGTERM does the same, then ends as every command ends on SIGTERM: `bpe-tui: terminated`, exit status 143"
)


def test_serve_s_ending_is_one_sentence_wherever_it_is_told():
    told = 0
    for page in sorted((REPO / "docs").rglob("*.md")) + [REPO / "README.md"]:
        text = " ".join(page.read_text(encoding="utf-8").split())
        if "stopped: every explorer has ended" in text:
            told += 1
            assert SERVE_ENDING in text, f"{page.relative_to(REPO)} tells serve's ending in other words"
    assert told >= 3
