"""The library and the headless CLI load no UI code: ``import bpe_tui``, ``bpe_tui.core`` and
``bpe_tui.cli`` (and running a headless command) bring in neither textual nor rich.

Each check runs in a fresh interpreter, since this test process has imported the UI already.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.conftest import CORPORA

UI_PACKAGES = ("textual", "rich")


def modules_after(code: str) -> set[str]:
    """The top-level packages in ``sys.modules`` after running ``code`` in a new interpreter."""
    probe = code + "\nimport json, sys\nprint(json.dumps(sorted({m.split('.')[0] for m in sys.modules})))"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, check=True)
    return set(json.loads(out.stdout.strip().splitlines()[-1]))


@pytest.mark.parametrize(
    "code",
    [
        "import bpe_tui",
        "import bpe_tui.core",
        "import bpe_tui.core.teaching.educational",
        "import bpe_tui.core.teaching.lessons",
        "import bpe_tui.cli",
        "import bpe_tui.core.tables.formats",
    ],
)
def test_importing_loads_no_ui(code):
    loaded = modules_after(code)
    assert "bpe_tui" in loaded
    assert not loaded & set(UI_PACKAGES), f"{code} loaded {sorted(loaded & set(UI_PACKAGES))}"


def test_headless_work_loads_no_ui(tmp_path):
    """Train, save, load and encode through the library: still no textual, no rich."""
    out = tmp_path / "t.json"
    code = (
        "import bpe_tui\n"
        f"t = bpe_tui.train({str(CORPORA / 'demo.txt')!r}, vocab_size=300)\n"
        f"bpe_tui.save(t, {str(out)!r})\n"
        f"bpe_tui.load({str(out)!r}).encode('hello world')\n"
    )
    loaded = modules_after(code)
    assert not loaded & set(UI_PACKAGES), sorted(loaded & set(UI_PACKAGES))


def test_headless_cli_loads_no_ui(tmp_path):
    """``bpe-tui train`` and ``bpe-tui encode`` run without the UI packages."""
    out = tmp_path / "t.json"
    code = (
        "from bpe_tui.cli import main\n"
        "for argv in ([" + repr("train") + ", " + repr(str(CORPORA / "demo.txt")) + ", '--vocab-size', '300', '-o', " + repr(str(out)) + "],\n"
        "             ['encode', '-t', " + repr(str(out)) + ", 'hello world']):\n"
        "    try:\n"
        "        main(argv)\n"
        "    except SystemExit as exit:\n"
        "        assert not exit.code, exit.code\n"
    )
    loaded = modules_after(code)
    assert out.exists()
    assert not loaded & set(UI_PACKAGES), sorted(loaded & set(UI_PACKAGES))


def test_core_sources_never_name_textual_or_rich():
    """A textual/rich import inside a function would escape the checks above until called."""
    from pathlib import Path

    import bpe_tui.core

    root = Path(bpe_tui.core.__file__).parent
    offenders = []
    for path in sorted(root.rglob("*.py")):
        for lineno, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            words = line.strip().split()
            if words[:1] in (["import"], ["from"]) and len(words) > 1 and words[1].split(".")[0] in UI_PACKAGES:
                offenders.append(f"{path.relative_to(root)}:{lineno}: {line.strip()}")
    assert not offenders, offenders



def test_the_table_does_not_import_the_formats():
    """Format modules build tables; the table module never imports them, not even inside a
    function (``formats.save``, ``bpe_tui.save``, is the one way to write a table).
    ``import bpe_tui`` loads both, so this reads table.py's imports."""
    import ast

    import bpe_tui.core.tables.table

    tree = ast.parse(open(bpe_tui.core.tables.table.__file__, encoding="utf-8").read())
    top_level = [n for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom))]
    assert top_level and not [n for n in top_level if "formats" in ast.unparse(n)]
    inside = [f.name for f in ast.walk(tree) if isinstance(f, ast.FunctionDef)
              for n in ast.walk(f) if isinstance(n, ast.ImportFrom) and "formats" in (n.module or "")]
    assert inside == []
