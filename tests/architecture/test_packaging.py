"""What a user installs: the wheel holds the ``py.typed`` marker (PEP 561), so a user's type
checker reads bpe-tui's annotations, and the data files the package reads at run time."""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile

import pytest

from tests.conftest import REPO


def _setuptools_builds_wheels() -> bool:
    """Whether this environment's setuptools builds wheels by itself (70.1 and later)."""
    try:
        import setuptools
    except ImportError:
        return False
    major, minor = (int(p) for p in setuptools.__version__.split(".")[:2])
    return (major, minor) >= (70, 1)


def test_the_wheel_ships_the_type_marker(tmp_path):
    source = tmp_path / "src"
    source.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(REPO / name, source / name)
    shutil.copytree(REPO / "bpe_tui", source / "bpe_tui", ignore=shutil.ignore_patterns("__pycache__"))
    command = [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(tmp_path / "dist"), str(source)]
    if _setuptools_builds_wheels():
        command.insert(5, "--no-build-isolation")  # (no index needed)
    done = subprocess.run(command, capture_output=True, text=True, timeout=600)
    if done.returncode != 0 and "Could not find a version that satisfies" in done.stderr:
        pytest.skip("the build backend (setuptools>=68, wheel) is not installed and no package index answers")
    assert done.returncode == 0, done.stderr[-2000:]
    (wheel,) = (tmp_path / "dist").glob("bpe_tui-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    assert "bpe_tui/py.typed" in names
    assert "bpe_tui/data/demo.txt" in names and "bpe_tui/ui/panes/encode.tcss" in names
