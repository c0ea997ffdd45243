"""The house's rules, checked: no import circles, and no module too long to read without a reason.

The import graph is read from the sources (``ast``), so an import inside a function or under
``if TYPE_CHECKING:`` counts like one at the top: a circle that only closes at call time is a
circle a newcomer has to hold in their head all the same. The layer contracts (core never
imports ui or cli, formats do not import each other, ...) are import-linter's, in pyproject.toml,
and run by the README's test command (``lint-imports``).
"""

from __future__ import annotations

import ast
from pathlib import Path

import bpe_tui

PACKAGE = Path(bpe_tui.__file__).parent
#: A module longer than this says why at its top (a line starting "Why this module is long:").
MAX_LINES = 600
REASON = "Why this module is long:"


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_graph() -> dict[str, set[str]]:
    """module -> the bpe_tui modules it imports (anywhere in its source)."""
    modules = {module_name(p): p for p in PACKAGE.rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        is_package = path.name == "__init__.py"
        found: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                found.update(a.name for a in node.names)
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = name.split(".") if is_package else name.split(".")[:-1]
                    base = base[: len(base) - (node.level - 1)]
                    target = ".".join(base + ([node.module] if node.module else []))
                else:
                    target = node.module or ""
                for alias in node.names:  # "from pkg import module" imports the module
                    found.add(f"{target}.{alias.name}" if f"{target}.{alias.name}" in modules else target)
        graph[name] = {m for m in found if m in modules and m != name}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_the_cycle_finder_finds_a_cycle():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_the_graph_sees_imports_inside_functions():
    graph = import_graph()
    # bpe_tui.cli.explorer imports the App only inside the command that opens it
    assert "bpe_tui.ui.app" in graph["bpe_tui.cli.explorer"]


def test_no_import_circles():
    found = cycles(import_graph())
    assert not found, "import circles:\n" + "\n".join(" <-> ".join(c) for c in found)


def test_long_modules_say_why():
    """No module over 600 lines without a reason written at its top (in its docstring)."""
    unexplained = []
    for path in sorted(PACKAGE.rglob("*.py")):
        source = path.read_text(encoding="utf-8")
        lines = source.count("\n")
        if lines > MAX_LINES and REASON not in (ast.get_docstring(ast.parse(source)) or ""):
            unexplained.append(f"{path.relative_to(PACKAGE.parent)}: {lines} lines")
    assert not unexplained, f"over {MAX_LINES} lines with no '{REASON}' in the docstring:\n" + "\n".join(unexplained)
