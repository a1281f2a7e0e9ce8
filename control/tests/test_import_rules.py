"""Imports point down (issue 22): no two modules of the package import each other,
directly or round a circle; nothing below the front ends (the CLI, the web server,
the OTG server) imports one of them; the front ends never import each other (they
meet only in the program above them, p4tester.program, and in the application layer
below them, p4tester.runs). Read from the sources (every import, at the top
or inside a function), so a rule broken anywhere fails here."""

from __future__ import annotations

import ast
from collections.abc import Mapping
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "p4tester"
FRONT_ENDS = ("p4tester.cli", "p4tester.server", "p4tester.otg")
# Above the front ends: the program that puts their commands side by side.
PROGRAM = ("p4tester.program", "p4tester.__main__")


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
              if not module.startswith(FRONT_ENDS) and module not in PROGRAM}
    assert {module: found for module, found in upward.items() if found} == {}


def front_end_of(module: str) -> str | None:
    return next((f for f in FRONT_ENDS if module == f or module.startswith(f + ".")), None)


def test_the_front_ends_never_import_each_other() -> None:
    across = {module: sorted(m for m in imported
                             if front_end_of(m) not in (None, front_end_of(module)))
              for module, imported in import_graph().items() if front_end_of(module)}
    assert {module: found for module, found in across.items() if found} == {}


def test_the_front_ends_stand_on_the_application_layer() -> None:
    """The web server runs experiments through runs/, not through the CLI's bodies."""
    graph = import_graph()
    assert "p4tester.runs.execute" in graph["p4tester.server.jobs"]
    assert "p4tester.runs.execute" in graph["p4tester.cli.experiment_cmds"]
    assert {"p4tester.cli.main", "p4tester.server.cli", "p4tester.otg.cli"} <= \
        graph["p4tester.program"]


def test_the_graph_sees_imports_inside_functions() -> None:
    graph = import_graph()
    # The Mininet keeper imports the network builder inside main() (under Mininet only).
    assert "p4tester.lab.mininet.build" in graph["p4tester.lab.mininet.keeper"]
    assert {"p4tester.config.tutorials", "p4tester.config.p4app"} <= \
        graph["p4tester.config.network_file"]


def test_the_tester_core_is_target_neutral() -> None:
    """tester/ (the one trial loop, self-checks, stream plans) imports no target and
    no lab: targets and labs supply their reads and writes to it (issue 22)."""
    found = {module: sorted(m for m in imported
                            if m.startswith(("p4tester.targets", "p4tester.lab")))
             for module, imported in import_graph().items()
             if module.startswith("p4tester.tester")}
    assert {module: names for module, names in found.items() if names} == {}
    assert "p4tester.tester.trial_loop" in import_graph()["p4tester.targets.bmv2_trials"]
    assert "p4tester.tester.trial_loop" in import_graph()["p4tester.targets.tofino.runner"]
