"""The files p4tester ships as package data (p4tester.shipped), found through
importlib.resources wherever the program runs: in this checkout (the editable install)
they are p4src/build and topologies/profiles themselves, and the wheel's patterns
(pyproject.toml) take every one of them. A relative path in a topology file is read
beside the topology file when the file is there."""

from __future__ import annotations

import fnmatch
import tomllib
from importlib import resources
from pathlib import Path

import pytest

from p4tester.cli.calibrate_cmd import DEFAULT_PROFILE
from p4tester.config.topology import SwitchConfig, load_topology
from p4tester.lab.bmv2_dut import DUT_JSON, DUT_P4INFO
from p4tester.shipped import profile_file, program_file
from p4tester.targets.tofino.schema import COMMITTED_DIR, committed_path

REPO = Path(__file__).resolve().parents[2]
BUILD = REPO / "p4src" / "build"
PROFILES = REPO / "topologies" / "profiles"


def repo_files(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file())


def test_every_build_output_is_found_through_importlib_resources_byte_for_byte() -> None:
    names = repo_files(BUILD)
    assert "tester.p4info.txt" in names and "tna/tofino.bfrt.json" in names
    for name in names:
        traversable = resources.files("p4tester.shipped").joinpath("build")
        for part in name.split("/"):
            traversable = traversable.joinpath(part)
        assert traversable.read_bytes() == (BUILD / name).read_bytes(), name
        assert program_file(name).read_bytes() == (BUILD / name).read_bytes(), name


def test_every_profile_is_shipped_byte_for_byte() -> None:
    for name in repo_files(PROFILES):
        assert profile_file(name).read_bytes() == (PROFILES / name).read_bytes(), name


def test_the_wheel_takes_every_shipped_file() -> None:
    patterns = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"][
        "package-data"]["p4tester"]
    shipped = [f"shipped/build/{n}" for n in repo_files(BUILD)]
    shipped += [f"shipped/profiles/{n}" for n in repo_files(PROFILES)]
    left_out = [f for f in shipped
                if not any(fnmatch.fnmatchcase(f, pattern) and f.count("/") == pattern.count("/")
                           for pattern in patterns)]
    assert left_out == []


def test_defaults_are_the_shipped_programs_not_paths_from_the_working_directory() -> None:
    switch = SwitchConfig()
    assert Path(switch.p4info) == program_file("tester.p4info.txt") == BUILD / "tester.p4info.txt"
    assert Path(switch.bmv2_json) == BUILD / "tester.json"
    assert Path(DUT_P4INFO) == BUILD / "dut.p4info.txt"
    assert Path(DUT_JSON) == BUILD / "dut.json"
    assert committed_path("tofino2") == COMMITTED_DIR / "tofino2.bfrt.json"
    assert COMMITTED_DIR == BUILD / "tna"
    assert DEFAULT_PROFILE == PROFILES / "one-stream.yaml"
    for path in (switch.p4info, switch.bmv2_json, DUT_P4INFO, DUT_JSON, DEFAULT_PROFILE):
        assert Path(path).is_absolute() and Path(path).is_file()


def test_shipped_topology_loads_from_another_directory(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    topology = load_topology(REPO / "topologies" / "loopback.yaml")
    assert Path(topology.switch.p4info).is_file()
    assert Path(topology.switch.bmv2_json).is_file()


def write_topology(path: Path, switch: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("name: t\n"
                    f"switch: {{{switch}}}\n"
                    "ports: {1: {line_rate: 10Mbps, peer: 'dut:1'}, "
                    "2: {line_rate: 10Mbps, peer: 'dut:2'}}\n")
    return path


def test_relative_paths_are_read_beside_the_topology_file(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    lab = tmp_path / "lab"
    (lab / "out").mkdir(parents=True)
    for name in ("t.p4info.txt", "t.json", "t.o"):
        (lab / "out" / name).write_text("x")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    path = write_topology(lab / "t.yaml", "p4info: out/t.p4info.txt, bmv2_json: out/t.json, "
                          "ebpf_object: out/t.o")
    switch = load_topology(path).switch
    assert (switch.p4info, switch.bmv2_json, switch.ebpf_object) == (
        str(lab / "out/t.p4info.txt"), str(lab / "out/t.json"), str(lab / "out/t.o"))
    # Given relative to the working directory, the topology file beside it: the same file.
    monkeypatch.chdir(tmp_path)
    switch = load_topology(Path("lab/t.yaml")).switch
    assert Path(switch.p4info).resolve() == lab / "out/t.p4info.txt"


def test_relative_paths_not_beside_the_topology_file_stay_the_working_directorys(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    path = write_topology(tmp_path / "topologies" / "t.yaml",
                          f"p4info: build/x.p4info.txt, bmv2_json: {tmp_path}/abs.json")
    switch = load_topology(path).switch
    assert switch.p4info == "build/x.p4info.txt"
    assert switch.bmv2_json == f"{tmp_path}/abs.json"
    assert switch.ebpf_object == "build/ebpf/tester.o"  # the default: a checkout's build
