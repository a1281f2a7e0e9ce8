"""Imports point down (issue 22): no two modules of the package import each other,
directly or round a circle, and nothing below the front ends (the CLI, the web server,
the OTG server) imports one of them. Read from the sources (every import, at the top
or inside a function), so a rule broken anywhere fails here."""

from __future__ import annotations

import ast
from collections.abc import Mapping
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "p4tester"
FRONT_ENDS = ("p4tester.cli", "p4tester.server", "p4tester.otg")


def module_files() -> dict[str, Path]:
    modules = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        modules[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return modules


def imports_of(name: str, path: Path, modules: Mapping[str, Path]) -> set[str]:
    """The package's modules `name` imports (a name imported from a package counts
    as the package, unless it is one of its modules)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parts, *([node.module] if node.module else [])])
            for alias in node.names:
                if f"{base}.{alias.name}" in modules:
                    found.add(f"{base}.{alias.name}")
                elif base in modules:
                    found.add(base)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names if alias.name in modules)
    found.discard(name)
    return found


def import_graph() -> dict[str, set[str]]:
    modules = module_files()
    return {name: imports_of(name, path, modules) for name, path in modules.items()}


def circles(graph: Mapping[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(module: str) -> None:
        index[module] = low[module] = len(index)
        stack.append(module)
        for other in sorted(graph[module]):
            if other not in index:
                visit(other)
                low[module] = min(low[module], low[other])
            elif other in stack:
                low[module] = min(low[module], index[other])
        if low[module] == index[module]:
            group = []
            while True:
                member = stack.pop()
                group.append(member)
                if member == module:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for module in sorted(graph):
        if module not in index:
            visit(module)
    return found


def test_no_modules_import_each_other() -> None:
    assert circles(import_graph()) == []


def test_circles_are_found() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": set()}
    assert circles(graph) == [["a", "b", "c"]]
    assert circles({"a": {"b"}, "b": set()}) == []


def test_nothing_below_the_front_ends_imports_them() -> None:
    upward = {module: sorted(m for m in imported if m.startswith(FRONT_ENDS))
              for module, imported in import_graph().items()
              if not module.startswith(FRONT_ENDS)}
    assert {module: found for module, found in upward.items() if found} == {}


def test_the_graph_sees_imports_inside_functions() -> None:
    graph = import_graph()
    # The Mininet keeper imports the network builder inside main() (under Mininet only).
    assert "p4tester.lab.mininet.build" in graph["p4tester.lab.mininet.keeper"]
    assert {"p4tester.config.tutorials", "p4tester.config.p4app"} <= \
        graph["p4tester.config.network_file"]
