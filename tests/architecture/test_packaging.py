"""What a user installs: the wheel, built from the sources and installed in a clean
virtualenv, holds the ``py.typed`` marker (PEP 561), the data files the package reads at run
time, the licence, the compiled merge core (where the machine has a C compiler), and the
metadata a package index shows; its ``bpe-tui`` command runs. Built where the compiler fails
(``CC=false``), the wheel still builds, installs and runs, on the pure-Python path, and says so."""

from __future__ import annotations

import email
import os
import shutil
import subprocess
import sys
import sysconfig
import venv
import zipfile
from pathlib import Path

import pytest

import bpe_tui
from tests.conftest import REPO


def _setuptools_builds_wheels() -> bool:
    """Whether this environment's setuptools builds wheels by itself (70.1 and later)."""
    try:
        import setuptools
    except ImportError:
        return False
    major, minor = (int(p) for p in setuptools.__version__.split(".")[:2])
    return (major, minor) >= (70, 1)


def _build_wheel(tmp_path: Path, env: dict[str, str] | None = None) -> Path:
    """The wheel, built from a copy of the sources (as a package index would get it)."""
    source = tmp_path / "src"
    source.mkdir()
    for name in ("pyproject.toml", "setup.py", "README.md", "LICENSE"):
        shutil.copy(REPO / name, source / name)
    shutil.copytree(REPO / "bpe_tui", source / "bpe_tui", ignore=shutil.ignore_patterns("__pycache__", "*.so"))
    command = [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(tmp_path / "dist"), str(source)]
    if _setuptools_builds_wheels():
        command.insert(5, "--no-build-isolation")  # (no index needed)
    done = subprocess.run(command, capture_output=True, text=True, timeout=600, env={**os.environ, **(env or {})})
    if done.returncode != 0 and "Could not find a version that satisfies" in done.stderr:
        pytest.skip("the build backend (setuptools>=68, wheel) is not installed and no package index answers")
    assert done.returncode == 0, done.stderr[-2000:]
    (built,) = (tmp_path / "dist").glob("bpe_tui-*.whl")
    return built


def _has_compiler() -> bool:
    compiler = (os.environ.get("CC") or sysconfig.get_config_var("CC") or "cc").split()[0]
    return shutil.which(compiler) is not None


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    return _build_wheel(tmp_path_factory.mktemp("wheel"))


def _installed(wheel: Path, env_dir: Path) -> Path:
    """A clean virtualenv (no site packages) with the wheel alone; its dependencies are this
    environment's, put on its path by a .pth file (no index needed). Its python."""
    venv.create(env_dir, with_pip=True)
    python = env_dir / "bin" / "python"
    done = subprocess.run([str(python), "-m", "pip", "install", "-q", "--no-deps", "--no-index", str(wheel)], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    site = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], capture_output=True, text=True).stdout.strip()
    (Path(site) / "dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    return python


def test_the_wheel_ships_the_type_marker_data_and_licence(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    assert "bpe_tui/py.typed" in names
    assert "bpe_tui/data/demo.txt" in names and "bpe_tui/ui/panes/encode.tcss" in names
    assert any(n.endswith(".dist-info/LICENSE") or n.endswith("/licenses/LICENSE") for n in names)


def test_the_wheel_holds_the_compiled_merge_core(wheel):
    if not _has_compiler():
        pytest.skip("no C compiler here: the wheel is pure Python (test_a_machine_without_a_compiler_... covers it)")
    names = zipfile.ZipFile(wheel).namelist()
    assert [n for n in names if n.startswith("bpe_tui/core/engine/_merge_core.") and n.endswith((".so", ".pyd"))], names


def test_the_metadata_says_what_an_index_page_shows(wheel):
    with zipfile.ZipFile(wheel) as archive:
        (path,) = [n for n in archive.namelist() if n.endswith(".dist-info/METADATA")]
        metadata = email.message_from_bytes(archive.read(path))
    assert metadata["Name"] == "bpe-tui" and metadata["Version"] == bpe_tui.__version__
    classifiers = metadata.get_all("Classifier")
    assert "License :: OSI Approved :: MIT License" in classifiers and "Typing :: Typed" in classifiers
    assert "Project-URL" not in metadata  # none invented: the project has no public address yet
    assert metadata.get_payload().lstrip().startswith("# bpe-tui")  # README.md is the long description


def test_the_wheel_installs_and_its_command_runs(wheel, tmp_path):
    env_dir = tmp_path / "clean"
    python = _installed(wheel, env_dir)
    site = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], capture_output=True, text=True).stdout.strip()
    command = env_dir / "bin" / "bpe-tui"
    version = subprocess.run([str(command), "--version"], capture_output=True, text=True, timeout=120, cwd=tmp_path)
    engine = "compiled core (C): the merge loop" if _has_compiler() else "pure Python (the compiled core is not built"
    assert version.stdout.startswith(f"bpe-tui {bpe_tui.__version__}, {engine}"), version.stderr
    # from another directory than this checkout's, which `python -c` would import first
    where = subprocess.run(
        [str(python), "-c", "import bpe_tui; print(bpe_tui.__file__, bpe_tui.demo_corpus_path())"], capture_output=True, text=True, timeout=120, cwd=tmp_path
    )
    package, demo = where.stdout.split()
    assert package.startswith(site) and demo.startswith(site)  # the installed copy, not this checkout
    trained = subprocess.run([str(command), "train", demo, "--merges", "10", "-o", str(tmp_path / "t.json")], capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert trained.returncode == 0 and trained.stdout.splitlines()[-1] == f"wrote {tmp_path / 't.json'} (native)", trained.stderr


def test_a_machine_without_a_compiler_installs_and_runs_pure_python(tmp_path):
    """CC=false: the compiler fails; the optional extension is left out, the wheel still builds
    and installs, and bpe-tui says (once, in --version) that it runs pure Python."""
    built = _build_wheel(tmp_path, {"CC": "false", "LDSHARED": "false"})
    assert not [n for n in zipfile.ZipFile(built).namelist() if n.endswith((".so", ".pyd"))]
    env_dir = tmp_path / "clean"
    python = _installed(built, env_dir)
    version = subprocess.run([str(env_dir / "bin" / "bpe-tui"), "--version"], capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert version.stdout == f"bpe-tui {bpe_tui.__version__}, pure Python (the compiled core is not built: no C compiler when bpe-tui was installed)\n"
    encoded = subprocess.run(
        [str(python), "-c", "import bpe_tui; t = bpe_tui.train(bpe_tui.demo_corpus_path(), merges=50); print(t.decode(t.encode('the baker')), bpe_tui.engine_info())"],
        capture_output=True, text=True, timeout=300, cwd=tmp_path,
    )
    assert encoded.stdout.startswith("the baker pure Python"), encoded.stderr[-2000:]


def test_the_readme_test_command_is_what_ci_runs():
    """README's "Run the tests" command and .ci/run's are one command, word for word."""
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    command = readme.split("Run the tests", 1)[1].split("```sh\n", 1)[1].split("\n```", 1)[0]
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert ci[ci.index('# README: "Run the tests"') + 1] == command
    assert "BPE_TUI_PURE=1" in command  # the encoder's tests on the pure-Python path too
