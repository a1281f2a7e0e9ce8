"""The Linux router DUT with `ecmp` (lab.linux_ecmp): the commands it runs (recorded
instead of run), and the setting checked with a message naming the fix."""

from __future__ import annotations

from typing import Any

import pytest
from test_neighbors_linux_dut import recorded

from p4tester.config.dut_ecmp import ecmp_paths
from p4tester.config.errors import ConfigError
from p4tester.config.topology import load_topology, topology_from_dict
from p4tester.lab import linux_dut

NS = "[p4t-dut] "


def test_the_router_routes_the_streams_over_its_weighted_paths(
        monkeypatch: pytest.MonkeyPatch) -> None:
    commands = recorded(monkeypatch)
    linux_dut.start_linux_dut(load_topology("topologies/linux-router-ecmp.yaml"))
    moved = [c for c in commands if " netns p4t-dut" in c and c.startswith("[root]")]
    assert moved == ["[root] ip link set p4ld1 netns p4t-dut",
                     "[root] ip link set p4ld2 netns p4t-dut",
                     "[root] ip link set p4ld3 netns p4t-dut"]
    paths = [c for c in commands if "10.99." in c or "multipath" in c]
    assert paths == [
        NS + "ip addr add 10.99.2.254/24 dev p4ld2",
        NS + "ip neigh replace 10.99.2.1 lladdr 02:00:00:00:00:03 dev p4ld2 nud permanent",
        NS + "ip addr add 10.99.3.254/24 dev p4ld3",
        NS + "ip neigh replace 10.99.3.1 lladdr 02:00:00:00:00:03 dev p4ld3 nud permanent",
        NS + "sysctl -qw net.ipv4.fib_multipath_hash_policy=1",
        NS + "sysctl -qw net.ipv4.fib_multipath_hash_seed=1",
        NS + "ip route replace 198.51.100.0/24 nexthop via 10.99.2.1 dev p4ld2 weight 1 "
        "nexthop via 10.99.3.1 dev p4ld3 weight 3",
    ]
    # The streams' destination is routed, not on a link of the router's.
    assert not any("198.51.100.254" in c for c in commands)


def test_paths_and_weights_are_parsed() -> None:
    assert ecmp_paths("2:1,3:3", "dut") == ((2, 1), (3, 3))
    assert ecmp_paths("2, 3, 4:2", "dut") == ((2, 1), (3, 1), (4, 2))


@pytest.mark.parametrize(("text", "message"), [
    ("2", "dut: ecmp '2' names one path; give two or more, e.g. ecmp: \"2,3\""),
    ("2:x,3", "dut: ecmp '2:x,3': '2:x' is not PORT or PORT:WEIGHT; e.g. ecmp: \"2:1,3:3\""),
    ("2,2:3", "dut: ecmp '2,2:3' names a port twice"),
    ("2:0,3", "dut: ecmp '2:0,3': weights are 1..256"),
])
def test_bad_paths_are_refused(text: str, message: str) -> None:
    with pytest.raises(ConfigError) as caught:
        ecmp_paths(text, "dut")
    assert str(caught.value) == message


def router(**dut: Any) -> dict[str, Any]:
    return {"name": "t", "switch": {"grpc": "127.0.0.1:9559", "thrift_port": 9090},
            "ports": {n: {"line_rate": "5Mbps", "peer": f"dut:{n}"} for n in (1, 2, 3)},
            "dut": {"kind": "linux", "ingress": 1, **dut}}


@pytest.mark.parametrize(("dut", "message"), [
    ({"ecmp": "2,4"}, "t.yaml: dut: ecmp: port 4 is not cabled to a tester port (DUT ports "
                      "cabled: [1, 2, 3]); cable it (peer: dut:4)"),
    ({"ecmp": "2,3", "neighbours": "dynamic"},
     "t.yaml: dut: ecmp builds its paths with static neighbours; drop neighbours: dynamic "
     "or ecmp"),
    ({"ecmp": "2,3", "egress": 1, "qdisc": "tbf rate 1mbit burst 3000 limit 3000"},
     "t.yaml: dut: qdisc shapes egress 1, which is not one of the ecmp paths; set egress "
     "to the path it shapes"),
    ({"ecmp_hash": "l3"},
     "t.yaml: dut: ecmp_hash says what an ecmp route hashes; give ecmp too, or drop it"),
    ({"ecmp": "2,3", "ecmp_hash": "l5"},
     "t.yaml: dut: ecmp_hash 'l5': give l4 (addresses, protocol and ports) or l3 "
     "(addresses)"),
])
def test_the_topology_checks_the_paths(dut: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigError) as caught:
        topology_from_dict(router(**dut), "t.yaml")
    assert str(caught.value) == message


def test_an_address_hash_is_policy_0(monkeypatch: pytest.MonkeyPatch) -> None:
    """ecmp_hash: l3 hashes source and destination address only (the kernel's
    fib_multipath_hash_policy 0)."""
    commands = recorded(monkeypatch)
    linux_dut.start_linux_dut(load_topology("topologies/linux-router-ecmp-l3.yaml"))
    assert [c for c in commands if "hash_policy" in c] == [
        NS + "sysctl -qw net.ipv4.fib_multipath_hash_policy=0"]
