"""Topology files for a Tofino tester: front_panel per port, required for target
tofino and refused for bmv2; the shipped 32x100G example validates."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from p4tester.cli import exit_codes
from p4tester.config.errors import ConfigError
from p4tester.config.profile import load_profile
from p4tester.config.topology import load_topology, topology_from_dict
from p4tester.program import main

REPO = Path(__file__).resolve().parents[2]
TOPOLOGY = REPO / "topologies/tofino-32x100g.yaml"
PROFILE = REPO / "topologies/profiles/tofino-32x100g.yaml"


def tofino(**ports: Any) -> dict[str, Any]:
    return {"name": "t", "switch": {"grpc": "10.0.0.9:50052", "target": "tofino"},
            "ports": {1: {"line_rate": "100Gbps", "front_panel": "1/0"},
                      2: {"line_rate": "100Gbps", "front_panel": "2/0"},
                      **{int(k[1:]): v for k, v in ports.items()}},
            "dut": {"kind": "external"}}


def test_shipped_32x100g_topology_and_profile() -> None:
    topology = load_topology(TOPOLOGY)
    profile = load_profile(PROFILE, topology)
    assert topology.switch.target == "tofino"
    assert topology.switch.grpc == "127.0.0.1:50052"
    assert [p.front_panel for p in topology.ports] == [f"{n}/0" for n in range(1, 33)]
    assert {p.line_rate_bps for p in topology.ports} == {100e9}
    assert len(profile.streams) == 32
    assert sorted(s.tx_port for s in profile.streams) == list(range(1, 33))
    assert sorted(s.rx_port for s in profile.streams) == list(range(1, 33))
    assert all(s.tx_port != s.rx_port for s in profile.streams)
    assert profile.frame_sizes == (64,)


def test_validate_accepts_the_tofino_files(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["validate", "-t", str(TOPOLOGY), "-p", str(PROFILE)]) == exit_codes.OK
    out = capsys.readouterr().out
    assert "target tofino, switch 127.0.0.1:50052" in out
    assert "148809523.8" in out
    assert out.rstrip().endswith("valid")


def test_front_panel_names_are_kept() -> None:
    topology = topology_from_dict(tofino(), "t.yaml")
    assert topology.port(2).front_panel == "2/0"


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (tofino(p3={"line_rate": "100Gbps"}),
         'port 3: target tofino needs front_panel, the switch\'s name of the port such as "1/0" '
         "(got '')"),
        (tofino(p3={"line_rate": "100Gbps", "front_panel": "Ethernet3"}),
         "port 3: target tofino needs front_panel"),
        (tofino(p3={"line_rate": "100Gbps", "front_panel": "1/0"}),
         "ports 1 and 3 are both front_panel '1/0'; each front-panel port once"),
        (tofino(p3={"line_rate": "100Gbps", "front_panel": "3/0", "lane": 1}),
         "port 3: unknown key 'lane'"),
        ({"name": "b", "ports": {1: {"line_rate": "1Gbps", "front_panel": "1/0"}}},
         "port 1: front_panel is for target tofino (this switch is bmv2); drop it"),
    ],
)
def test_front_panel_errors(data: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigError) as caught:
        topology_from_dict(data, "t.yaml")
    assert message in str(caught.value)
    assert str(caught.value).startswith("t.yaml: ports: port")


def test_bmv2_topologies_still_load_without_front_panel() -> None:
    for path in sorted((REPO / "topologies").glob("*.yaml")):
        topology = load_topology(path)
        if topology.switch.target == "bmv2":
            assert all(p.front_panel == "" for p in topology.ports)
