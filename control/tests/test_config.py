"""Topology and profile validation: every invalid input gets one message that
names the problem and the fix."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from p4tester.config.errors import ConfigError
from p4tester.config.profile import load_profile, profile_from_dict
from p4tester.config.topology import load_topology, topology_from_dict

REPO = Path(__file__).resolve().parents[2]


def topology(**changes: Any) -> dict[str, Any]:
    data: dict[str, Any] = {
        "name": "t",
        "switch": {"grpc": "127.0.0.1:9559", "thrift_port": 9090},
        "ports": {1: {"line_rate": "10Gbps"}, 2: {"line_rate": "10Gbps"}},
        "dut": {"kind": "loopback"},
    }
    data.update(changes)
    return data


def profile(**changes: Any) -> dict[str, Any]:
    data: dict[str, Any] = {"name": "p", "streams": [{"id": 0, "tx_port": 1, "rx_port": 2}]}
    data.update(changes)
    return data


def test_shipped_topology_and_profile_load() -> None:
    topo = load_topology(REPO / "topologies/loopback.yaml")
    prof = load_profile(REPO / "topologies/profiles/one-stream.yaml", topo)
    assert [p.number for p in topo.ports] == [1, 2]
    assert topo.port(1).line_rate_bps == 5e6
    assert prof.streams[0].tx_port == 1
    assert prof.frame_sizes == (64, 512, 1518)


def test_line_rate_parses_bit_rates() -> None:
    topo = topology_from_dict(topology(), "t.yaml")
    assert topo.port(2).line_rate_bps == 10e9


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"ports": {1: {"line_rate": "fast"}}}, "t.yaml: ports: port 1: line_rate 'fast'"),
        ({"ports": {1: {"line_rate": "50%"}}}, "must be a bit rate such as 10Gbps"),
        ({"ports": {300: {"line_rate": "1Gbps"}}}, "port 300 must be a number in 0..255"),
        ({"ports": {1: {"peer": "2"}}}, "port 1 needs a line_rate, e.g. {line_rate: 10Gbps}"),
        ({"ports": {1: {"rate": "1Gbps"}}},
         "port 1: missing 'line_rate'; did you mean 'line_rate' instead of 'rate'?"),
        ({"ports": {1: {"line_rte": "1Gbps"}}},
         "t.yaml: ports: port 1: missing 'line_rate'; did you mean 'line_rate' instead of "
         "'line_rte'?"),
        ({"dut": {"kind": "router"}}, "kind 'router' unknown"),
        ({"switch": {"grcp": "x:1"}}, "unknown key 'grcp'; did you mean 'grpc'?"),
        ({"switch": {"grpc": "localhost"}}, "grpc 'localhost' must be host:port"),
        ({"switch": {"target": "tofino2"}}, "target 'tofino2' unknown"),
    ],
)
def test_topology_errors(changes: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigError, match=message.replace("(", r"\(").replace("?", r"\?")):
        topology_from_dict(topology(**changes), "t.yaml")


def test_unknown_port_names_the_known_ones() -> None:
    topo = topology_from_dict(topology(), "t.yaml")
    with pytest.raises(ConfigError, match=r"port 7 is not in the topology \(its ports: 1, 2\)"):
        topo.port(7)


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"streams": [{"id": 64, "tx_port": 1, "rx_port": 2}]},
         "stream id 64 is out of range 0..63"),
        ({"streams": [{"id": 1, "tx_port": 1, "rx_prot": 2}]},
         r"streams\[0\]: missing 'rx_port'; did you mean 'rx_port' instead of 'rx_prot'\?"),
        ({"streams": [{"id": 1, "tx_port": 1, "rx_port": 2},
                      {"id": 1, "tx_port": 2, "rx_port": 1}]},
         r"stream ids \[1\] are used more than once"),
        ({"streams": [{"id": 1, "tx_port": 1, "rx_port": 2, "ipv6": True}],
          "frame_sizes": [64]},
         "stream 1: frame size 64 B is outside 84..9216 B"),
        ({"streams": [{"id": 1, "tx_port": 1, "rx_port": 2, "shares": 1}]},
         "unknown key 'shares'; did you mean 'share'"),
        ({"frame_sizes": [64, 10000]}, "frame size 10000 B is outside 64..9216 B"),
        ({"latency_bins_us": [0, 5, 5]}, "histogram edges must increase strictly"),
        ({"latency_bins_us": list(range(40))}, "39 bins asked, the data plane has 31"),
        ({"trial": {"duration_s": 0}}, "durations must be positive"),
        ({"trial": {"frames_per_pass": 65}},
         r"trial: frames_per_pass 65: give 1\.\.64 \(TX frames per generator loop pass\)"),
        ({"trial": {"frames_per_pass": 0}}, r"frames_per_pass 0: give 1\.\.64"),
        ({"trial": {"reference_pps": 1001}},
         r"trial: reference_pps 1001: give whole frames/s in 0\.\.1000 \(0: no reference"),
        ({"trial": {"reference_pps": 2.5}}, r"reference_pps 2\.5: give whole frames/s"),
        ({"trial": {"reference_pps": True}}, r"reference_pps True: give whole frames/s"),
        ({"search": {"method": "linear"}}, "method 'linear'"),
    ],
)
def test_profile_errors(changes: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        profile_from_dict(profile(**changes), "p.yaml")


def test_profile_against_topology(tmp_path: Path) -> None:
    topo = topology_from_dict(topology(), "t.yaml")
    over = tmp_path / "over.yaml"
    over.write_text(
        "name: over\nstreams:\n"
        "  - {id: 0, tx_port: 1, rx_port: 2, share: 0.7}\n"
        "  - {id: 1, tx_port: 1, rx_port: 2, share: 0.5}\n"
    )
    with pytest.raises(ConfigError, match=r"TX port 1 have shares summing to 1\.2"):
        load_profile(over, topo)
    unknown = tmp_path / "unknown.yaml"
    unknown.write_text("name: u\nstreams:\n  - {id: 0, tx_port: 1, rx_port: 9}\n")
    with pytest.raises(ConfigError, match=r"stream 0: .*port 9 is not in the topology"):
        load_profile(unknown, topo)


def test_unreadable_and_malformed_files(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="cannot read it"):
        load_topology(tmp_path / "missing.yaml")
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: [unclosed\n")
    with pytest.raises(ConfigError, match="not valid YAML"):
        load_topology(bad)
    listed = tmp_path / "list.yaml"
    listed.write_text("- a\n- b\n")
    with pytest.raises(ConfigError, match="expected a mapping at the top level"):
        load_profile(listed)


def test_simple_imix_expands_into_fixed_size_streams_sharing_by_bandwidth() -> None:
    from p4tester.experiments.runner import TrialSpec
    from p4tester.tester.stream_plan import plan_streams

    prof = profile_from_dict(profile(streams=[
        {"id": 10, "tx_port": 1, "rx_port": 2, "imix": "simple", "udp_src_port": 40000}]),
        "p.yaml")
    assert [(s.id, s.frame_size) for s in prof.streams] == [(10, 64), (11, 594), (12, 1518)]
    total = 7 * 84 + 4 * 614 + 1 * 1538
    assert [s.share for s in prof.streams] == pytest.approx(
        [7 * 84 / total, 4 * 614 / total, 1538 / total])
    assert {s.addresses.udp_src_port for s in prof.streams} == {40000}
    # At any load the members send frames in the mix's 7:4:1 proportion.
    topo = topology_from_dict(topology(), "t.yaml")
    plans = plan_streams(prof, topo, TrialSpec("t", 0, 64, 0.5, 1.0))
    line_pps = 0.5 * 10e9 / (total * 8 / 12)
    # Millions of frames/s: four frames per loop pass, rates in multiples of four.
    assert [p.rate_pps for p in plans] == [4 * round(w * line_pps / 12 / 4) for w in (7, 4, 1)]
    assert [p.frames_per_pass for p in plans] == [4, 4, 4]


def test_custom_imix_and_its_errors() -> None:
    prof = profile_from_dict(profile(streams=[
        {"id": 0, "tx_port": 1, "rx_port": 2, "imix": {128: 1, 1024: 1}, "share": 0.5}]),
        "p.yaml")
    assert [s.frame_size for s in prof.streams] == [128, 1024]
    assert sum(s.share for s in prof.streams) == pytest.approx(0.5)
    with pytest.raises(ConfigError, match="imix must be 'simple' or"):
        profile_from_dict(profile(streams=[{"id": 0, "tx_port": 1, "rx_port": 2,
                                            "imix": "fancy"}]), "p.yaml")
    with pytest.raises(ConfigError, match=r"imix: .*frame size 40 B is outside 64\.\.9216 B"):
        profile_from_dict(profile(streams=[{"id": 0, "tx_port": 1, "rx_port": 2,
                                            "imix": {64: 1, 40: 1}}]), "p.yaml")
