"""How README.md and the pages of docs/ are executed: every ```console and ```python block.

A page is read with sybil (https://sybil.readthedocs.io) and its examples run top to bottom,
in one scratch directory per page that stands where a reader stands after cloning the
repository: it holds ``corpora/`` as the clone does, and ``../shared`` beside it is this
machine's shared data when there is one.

The blocks a page may hold:

* ```console: ``$ command`` lines, each followed by what it prints (stdout and stderr as they
  come). A line ``...`` stands for any number of lines, and ``...`` inside a line for any text.
  A command ending in ``\\`` goes on on the next line, and so does one followed by a ``> ``
  line (the shell's second prompt). Trailing spaces are not compared.
* ```python: run in one namespace per page (a block sees the names of the blocks before it);
  a block starting with ``>>>`` is a doctest, compared with what it shows.
* ``<!-- invisible-code-block: console`` (or ``python``) ... ``-->``: the same, not shown on the
  page: what a reader would have done already (fetched GPT-2's files, say).
* ``<!-- skip: start if(not SHARED, reason="...") -->`` ... ``<!-- skip: end -->``: examples
  that need ../shared (the real tables and corpora), skipped where it is absent.
* ``<!-- until: TEXT -->`` before a console block: its command runs until it prints TEXT (a
  server), then gets Ctrl+C; what it printed up to that line is compared.
* ``<!-- screen: TEXT -->`` before a console block: its command opens the explorer; it runs in
  tmux at 120x40 until the screen shows TEXT, then ctrl+q ends it (the block shows no output).

Any other fence (```text, ```sh for a template with placeholders) is shown, not run.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from sybil import Example, Sybil
from sybil.parsers.markdown import CodeBlockParser, PythonCodeBlockParser, SkipParser

from tests.conftest import REPO, SHARED

#: Where a command's program comes from: the virtualenv running the tests.
BIN = Path(sys.executable).parent
#: How long one command may run before it counts as hung (not a speed limit).
HANG_GUARD = 600


def workspace(root: Path) -> Path:
    """A scratch copy of where a reader stands: ``root/work`` with corpora/ in it as a clone
    has it (its links into bpe_tui/data kept, so bpe_tui/data is copied too), benchmarks/ and
    examples/ (read only: linked), and ``root/shared`` pointing at the machine's shared data when it
    has some."""
    work = root / "work"
    shutil.copytree(REPO / "corpora", work / "corpora", symlinks=True)
    (work / "benchmarks").symlink_to(REPO / "benchmarks", target_is_directory=True)
    (work / "examples").symlink_to(REPO / "examples", target_is_directory=True)
    shutil.copytree(REPO / "bpe_tui" / "data", work / "bpe_tui" / "data", ignore=shutil.ignore_patterns("__pycache__"))
    if SHARED.is_dir():
        (root / "shared").symlink_to(SHARED, target_is_directory=True)
    return work


def _commands(source: str) -> list[tuple[str, list[str]]]:
    """A console block as (command, expected output lines) pairs."""
    runs: list[tuple[str, list[str]]] = []
    lines = source.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        if not line.startswith("$ "):
            if runs:
                runs[-1][1].append(line)
            elif line.strip():
                raise ValueError(f"a console block must start with '$ ': {line!r}")
            i += 1
            continue
        command = line[2:]
        while i + 1 < len(lines) and (command.endswith("\\") or lines[i + 1].startswith("> ")):
            i += 1
            command = command + "\n" + lines[i].removeprefix("> ")  # bash reads "\\<newline>" as one line
        runs.append((command, []))
        i += 1
    return runs


def _line_pattern(expected: str) -> re.Pattern[str]:
    return re.compile(".*".join(re.escape(part) for part in expected.split("...")) + r"\Z", re.S)


def matches(expected: list[str], actual: list[str]) -> bool:
    """Whether ``actual`` lines are what ``expected`` shows (``...`` lines and ``...`` in a line
    stand for anything; trailing spaces and trailing blank lines do not count)."""
    want = [line.rstrip() for line in expected]
    got = [line.rstrip() for line in actual]
    while want and not want[-1]:
        want.pop()
    while got and not got[-1]:
        got.pop()
    return _match(want, 0, got, 0)


def _match(want: list[str], i: int, got: list[str], j: int) -> bool:
    while i < len(want):
        if want[i] == "...":
            return any(_match(want, i + 1, got, k) for k in range(j, len(got) + 1))
        if j >= len(got):
            return False
        if want[i] != got[j] and not ("..." in want[i] and _line_pattern(want[i]).match(got[j])):
            return False
        i += 1
        j += 1
    return j == len(got)


def environment() -> dict[str, str]:
    """What a command sees: the test's environment, this virtualenv's programs first, and no
    terminal (so no colours and no progress bars, as in a pipe)."""
    env = dict(os.environ)
    env["PATH"] = f"{BIN}{os.pathsep}{env.get('PATH', '')}"
    env["COLUMNS"] = "80"
    env.pop("FORCE_COLOR", None)
    return env


def run_console(example: Example) -> str | None:
    """Run each command of a console block in the page's directory; a mismatch is the failure."""
    cwd = example.namespace["WORK"]
    until = example.namespace.pop("UNTIL", None)
    screen = example.namespace.pop("SCREEN", None)
    for command, expected in _commands(example.parsed):
        if screen is not None:
            return _on_screen(command, cwd, screen)
        status, actual = _run_until(command, cwd, until) if until else _run(command, cwd)
        if not matches(expected, actual):
            return (f"$ {command}\n--- the page shows:\n" + "\n".join(expected)
                    + f"\n--- it printed (exit status {status}):\n" + "\n".join(actual))
    return None


def _run(command: str, cwd: Path) -> tuple[int, list[str]]:
    done = subprocess.run(
        ["bash", "-c", command], cwd=cwd, env=environment(), stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=HANG_GUARD,
    )
    return done.returncode, done.stdout.splitlines()


def _run_until(command: str, cwd: Path, text: str) -> tuple[int, list[str]]:
    """Run ``command`` until a line of its output holds ``text``, then Ctrl+C (SIGINT) it."""
    import signal

    process = subprocess.Popen(
        ["bash", "-c", f"exec {command}"], cwd=cwd, env=environment(), stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True,
    )
    lines: list[str] = []
    try:
        assert process.stdout is not None
        for line in process.stdout:
            lines.append(line.rstrip("\n"))
            if text in line:
                break
    finally:
        os.killpg(process.pid, signal.SIGINT)
        try:
            status = process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            status = process.wait()
    return status, lines


def _on_screen(command: str, cwd: Path, text: str) -> str | None:
    """Run an explorer command in tmux (120x40) until its screen shows ``text``; ctrl+q ends it."""
    import time
    from unittest import SkipTest

    if shutil.which("tmux") is None:
        raise SkipTest("tmux is not installed (the explorer needs a terminal)")
    session = f"docs-{os.getpid()}-{time.monotonic_ns()}"
    env = environment()
    sockets = Path(tempfile.mkdtemp(prefix="bpe-tmux-"))  # (a server of its own; tmux leaves its socket behind)
    tmux = ["tmux", "-S", str(sockets / "0")]
    subprocess.run([*tmux, "new-session", "-d", "-s", session, "-x", "120", "-y", "40", "-c", str(cwd),
                    "env", f"PATH={env['PATH']}", "bash", "-c", command], check=True, env=env)
    screen = ""
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            screen = subprocess.run([*tmux, "capture-pane", "-p", "-t", session], capture_output=True, text=True).stdout
            if text in screen:
                subprocess.run([*tmux, "send-keys", "-t", session, "C-q"])
                return None
            time.sleep(0.5)
        return f"$ {command}\n--- the screen never showed {text!r}; it showed:\n{screen}"
    finally:
        subprocess.run([*tmux, "kill-server"], capture_output=True)
        shutil.rmtree(sockets, ignore_errors=True)


def _directive(name: str):
    """``<!-- name: TEXT -->``: TEXT is kept for the next console block of the page."""
    from sybil import Region
    from sybil.parsers.markdown.lexers import DirectiveInHTMLCommentLexer

    lexer = DirectiveInHTMLCommentLexer(directive=name, arguments=".+?")

    def evaluate(example: Example) -> None:
        example.namespace[name.upper()] = example.parsed

    def parse(document):
        for region in lexer(document):
            yield Region(region.start, region.end, region.lexemes["arguments"].strip(), evaluate)

    return parse


class _InWorkDir:
    """Run a Python example with the page's directory as the current one."""

    def __init__(self, evaluator):
        self.evaluator = evaluator

    def __call__(self, example: Example):
        before = os.getcwd()
        os.chdir(example.namespace["WORK"])
        try:
            return self.evaluator(example)
        finally:
            os.chdir(before)


class _PythonInWorkDir(PythonCodeBlockParser):
    def __call__(self, document):
        for region in super().__call__(document):
            region.evaluator = _InWorkDir(region.evaluator)
            yield region


PAGES = Sybil(
    parsers=[CodeBlockParser("console", run_console), _PythonInWorkDir(), SkipParser(), _directive("until"), _directive("screen")],
    patterns=["*.md"],
    path=str(REPO),
)


def is_code(example: Example) -> bool:
    """Whether an example is a console or python block (not a skip, until or screen directive)."""
    evaluator = example.region.evaluator
    return evaluator is run_console or isinstance(evaluator, _InWorkDir)


def pages() -> list[Path]:
    """README.md and every page of docs/ (generated pages have no examples)."""
    return [REPO / "README.md", *sorted((REPO / "docs").rglob("*.md"))]
