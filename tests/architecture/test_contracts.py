"""The layer contracts in pyproject.toml ([tool.importlinter]) hold, and would catch a breach.

import-linter reads the imports of the installed package (grimp) and checks each contract:
cli -> ui -> core, core without textual/rich, the engine without formats/analysis/teaching,
each file format alone, panes and views below the screens.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import bpe_tui

REPO = Path(__file__).resolve().parents[2]
PACKAGE = Path(bpe_tui.__file__).parent


def lint_imports(root: Path) -> subprocess.CompletedProcess:
    """Run import-linter with the repository's contracts over the bpe_tui package in ``root``."""
    script = Path(sys.executable).with_name("lint-imports")
    if not script.exists():
        pytest.skip("import-linter is not installed (pip install -e '.[test]')")
    env = {"PYTHONPATH": str(root), "PATH": "/usr/bin:/bin"}
    return subprocess.run(
        [str(script), "--config", str(REPO / "pyproject.toml"), "--no-cache"],
        cwd=root, env=env, capture_output=True, text=True, timeout=300,
    )


def test_the_contracts_hold():
    done = lint_imports(PACKAGE.parent)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert "BROKEN" not in done.stdout and done.stdout.count("KEPT") >= 6


def test_a_breach_is_caught(tmp_path):
    """A copy of the package where core imports the UI breaks two contracts."""
    copy = tmp_path / "bpe_tui"
    shutil.copytree(PACKAGE, copy, ignore=shutil.ignore_patterns("__pycache__"))
    wording = copy / "core" / "wording.py"
    wording.write_text(wording.read_text() + "\n\ndef _breach():\n    from ..ui import app  # noqa\n")
    done = lint_imports(tmp_path)
    assert done.returncode != 0
    assert "bpe_tui.core.wording -> bpe_tui.ui.app" in done.stdout


def test_a_view_importing_a_variant_and_a_variant_importing_the_trainer_are_caught(tmp_path):
    """The variants' two contracts: outside the engine, only the registry is imported; a
    variant sees the trainer only as the seam's Bench."""
    copy = tmp_path / "bpe_tui"
    shutil.copytree(PACKAGE, copy, ignore=shutil.ignore_patterns("__pycache__"))
    status = copy / "ui" / "panes" / "status.py"
    status.write_text(status.read_text() + "\n\ndef _breach():\n    from ...core.engine.variants import picky  # noqa\n")
    plain = copy / "core" / "engine" / "variants" / "plain.py"
    plain.write_text(plain.read_text() + "\n\ndef _breach():\n    from ..trainer import Trainer  # noqa\n")
    done = lint_imports(tmp_path)
    assert done.returncode != 0
    assert "bpe_tui.ui.panes.status -> bpe_tui.core.engine.variants.picky" in done.stdout
    assert "bpe_tui.core.engine.variants.plain -> bpe_tui.core.engine.trainer" in done.stdout
