"""One registry of DUT and lab kinds (issue 13): the runner finds every kind there and
imports no DUT module; no DUT module imports the runner."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

from p4tester.config.topology import DUT_KINDS as CONFIG_DUT_KINDS
from p4tester.config.topology import LAB_KINDS as CONFIG_LAB_KINDS
from p4tester.lab import kinds
from p4tester.lab.netdev import LabError
from p4tester.lab.state import LabState

LAB = Path(__file__).resolve().parents[1] / "p4tester" / "lab"


def imported_modules(path: Path) -> set[str]:
    """Every module a file imports, at the top or inside a function."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
        elif isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
    return names


def test_every_configured_kind_is_registered() -> None:
    assert sorted(kinds.DUT_KINDS) == sorted(CONFIG_DUT_KINDS)
    assert ["veth", *kinds.LAB_KINDS] == list(CONFIG_LAB_KINDS)


def test_the_runner_imports_no_dut_module_and_no_dut_module_the_runner() -> None:
    dut_modules = {"p4tester.lab.bmv2_dut", "p4tester.lab.linux_dut", "p4tester.lab.bridge_dut",
                   "p4tester.lab.mininet"}
    runner = imported_modules(LAB / "runner.py")
    assert not {m for m in runner if m.startswith(tuple(dut_modules))}, runner
    mininet = sorted((LAB / "mininet").glob("*.py"))
    for path in (LAB / "bmv2_dut.py", LAB / "linux_dut.py", LAB / "bridge_dut.py", *mininet):
        assert "p4tester.lab.runner" not in imported_modules(path), path


def test_unknown_kinds_name_the_known_ones() -> None:
    with pytest.raises(LabError, match=r"DUT kind 'tofino' has no starter; known: \['bmv2', "):
        kinds.dut_kind("tofino")
    with pytest.raises(LabError, match="lab kind 'docker' unknown; known: veth, mininet"):
        kinds.lab_kind("docker")


def test_loopback_and_external_start_nothing(tmp_path: Path) -> None:
    from p4tester.config.topology import load_topology

    topology = load_topology(LAB.parents[2] / "topologies/loopback.yaml")
    assert kinds.dut_kind("loopback")(topology, tmp_path, False) == kinds.DutStarted()
    assert kinds.dut_kind("external")(topology, tmp_path, False) == kinds.DutStarted()


def test_a_state_file_without_a_kind_is_a_veth_lab(tmp_path: Path) -> None:
    """State files written before lab kinds existed still load (and go down as veth)."""
    (tmp_path / "state.json").write_text(json.dumps(
        {"topology": "t.yaml", "links": ["p4lt1"], "netns": [], "pids": [7]}))
    assert LabState.load(tmp_path) == LabState("t.yaml", ["p4lt1"], [], [7], "veth")
    LabState("m.yaml", pids=[9], kind="mininet").save(tmp_path)
    assert LabState.load(tmp_path) == LabState("m.yaml", [], [], [9], "mininet")
    LabState.remove(tmp_path)
    assert LabState.load(tmp_path) is None
