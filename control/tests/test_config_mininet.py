"""lab: mininet topologies and p4lang/tutorials topology.json files: what they build,
and one message naming the key and the fix for each mistake."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from p4tester.config.errors import ConfigError
from p4tester.config.network import Endpoint, InterfaceSpec, LinkSpec, NodeSpec
from p4tester.config.p4app import load_p4app
from p4tester.config.topology import load_topology, topology_from_dict
from p4tester.config.tutorials import load_tutorials_topology

REPO = Path(__file__).resolve().parents[2]


def mininet(**changes: Any) -> dict[str, Any]:
    data: dict[str, Any] = {
        "name": "m", "lab": "mininet",
        "ports": {1: {"line_rate": "5Mbps", "peer": "h1"},
                  2: {"line_rate": "5Mbps", "peer": "r1:2"}},
        "dut": {"kind": "external"},
        "network": {
            "nodes": {
                "h1": {"kind": "host", "interfaces": {0: {"ip": "10.0.1.1/24"}}},
                "r1": {"kind": "router", "interfaces": {1: {"ip": "10.0.1.254/24",
                                                            "mac": "02:00:00:00:00:02"},
                                                        2: {"ip": "10.0.2.254/24"}},
                       "commands": ["tc qdisc add dev eth2 root tbf rate 1mbit burst 1600 "
                                    "limit 600"]},
            },
            "links": [{"a": "h1:0", "b": "r1:1", "bw_mbps": 10}],
        },
    }
    data.update(changes)
    return data


def test_a_host_named_as_peer_is_replaced_by_the_tester_port() -> None:
    topo = topology_from_dict(mininet(), "topologies/m.yaml")
    assert topo.lab == "mininet"
    assert topo.cables == ((1, Endpoint("r1", 1)), (2, Endpoint("r1", 2)))
    assert topo.network is not None
    assert [n.name for n in topo.network.nodes] == ["r1"]  # h1 left out: port 1 is there
    assert topo.network.links == ()
    (router,) = topo.network.nodes
    assert router.interfaces == (InterfaceSpec(1, "10.0.1.254/24", "02:00:00:00:00:02"),
                                 InterfaceSpec(2, "10.0.2.254/24", ""))


def test_veth_is_the_default_lab() -> None:
    topo = load_topology(REPO / "topologies/bmv2-dut.yaml")
    assert (topo.lab, topo.network, topo.cables) == ("veth", None, ())


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"lab": "docker"}, "m.yaml: lab 'docker' unknown; use one of ('veth', 'mininet')"),
        ({"lab": "veth"}, "m.yaml: 'network' is for lab: mininet; add 'lab: mininet'"),
        ({"dut": {"kind": "loopback"}}, "dut: kind 'loopback' has no Mininet form"),
        ({"ports": {1: {"line_rate": "5Mbps", "peer": "h9"}}},
         "port 1: peer 'h9': name a network node as node:port, or a host whose place the "
         "port takes (nodes: h1, r1)"),
        ({"ports": {1: {"line_rate": "5Mbps", "peer": "r1"}}},
         "only a host with one link can be replaced by a tester port (r1 is a router with "
         "1 links); name a port instead"),
        ({"ports": {1: {"line_rate": "5Mbps", "peer": "r1:1"}}},
         "port 1: r1:1 is already cabled; give the tester port a free node port"),
        ({"ports": {1: {"line_rate": "5Mbps", "peer": "dut:1"}}},
         "dut:N needs dut kind bmv2 or linux"),
    ],
)
def test_mininet_topology_errors(changes: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigError, match=_literal(message)):
        topology_from_dict(mininet(**changes), "m.yaml")


@pytest.mark.parametrize(
    ("nodes", "links", "message"),
    [
        ({"h1": {"kind": "vm"}}, [], "nodes: h1: needs kind, one of ('host', 'router', "
                                     "'bridge', 'bmv2')"),
        ({"tester": {"kind": "host"}}, [], "node name 'tester' must be 1-8 lower-case"),
        ({"h1": {"kind": "host", "interfaces": {0: {"ip": "10.0.1.1"}}}}, [],
         "ip '10.0.1.1' needs a prefix length, e.g. 10.0.1.1/24"),
        ({"h1": {"kind": "host", "interfaces": {0: {"mac": "08:00"}}}}, [],
         "mac '08:00' must be six hex octets"),
        ({"s1": {"kind": "bmv2"}}, [], "s1: a bmv2 node needs its program: runtime"),
        ({"s1": {"kind": "bmv2", "runtime": "r.json", "cli_input": "c.txt"}}, [],
         "s1: unknown key 'cli_input'; known: ['bmv2_json', 'cli', 'device_id', "),
        ({"h1": {"kind": "host"}}, [{"a": "h1:0", "b": "s9:1"}],
         "link end s9:1 names no node (nodes: h1)"),
        ({"h1": {"kind": "host"}}, [{"a": "h1", "b": "h1:1"}],
         "'h1' must be node:port, e.g. s1:3"),
        ({"h1": {"kind": "host"}, "h2": {"kind": "host"}},
         [{"a": "h1:0", "b": "h2:0"}, {"a": "h1:0", "b": "h2:1"}],
         "port h1:0 is cabled twice; each port once"),
        ({"h1": {"kind": "host"}, "h2": {"kind": "host"}},
         [{"a": "h1:0", "b": "h2:0", "bw_mbps": "fast"}], "bw_mbps 'fast' must be a number"),
    ],
)
def test_network_errors(nodes: dict[str, Any], links: list[Any], message: str) -> None:
    data = mininet(ports={1: {"line_rate": "5Mbps", "peer": f"{next(iter(nodes))}:7"}},
                   network={"nodes": nodes, "links": links})
    with pytest.raises(ConfigError, match=_literal(message)):
        topology_from_dict(data, "m.yaml")


def test_bmv2_node_paths_start_at_the_topology_file() -> None:
    data = mininet(ports={1: {"line_rate": "5Mbps", "peer": "s1:1"}},
                   network={"nodes": {"s1": {"kind": "bmv2", "p4info": "b/x.p4info.txt",
                                             "bmv2_json": "b/x.json", "cli": "c.txt"}}})
    topo = topology_from_dict(data, "topologies/m.yaml")
    assert topo.network is not None
    assert topo.network.nodes == (NodeSpec("s1", "bmv2", p4info="topologies/b/x.p4info.txt",
                                           bmv2_json="topologies/b/x.json",
                                           cli="topologies/c.txt"),)


def test_shipped_tutorials_exercise() -> None:
    """topologies/tutorials/basic: h1 and h2 replaced by tester ports 1 and 2."""
    topo = load_topology(REPO / "topologies/mininet-tutorials-basic.yaml")
    base = "topologies/tutorials/basic"
    assert topo.cables == ((1, Endpoint("s1", 1)), (2, Endpoint("s2", 1)))
    assert topo.network is not None
    h3, s1, s2 = topo.network.nodes
    assert h3 == NodeSpec("h3", "host", (InterfaceSpec(0, "10.0.3.3/24", "08:00:00:00:03:33"),),
                          ("route add default gw 10.0.3.30 dev eth0",
                           "arp -i eth0 -s 10.0.3.30 08:00:00:00:03:00"))
    assert (s1.kind, s1.runtime, s1.cli, s1.device_id) == (
        "bmv2", str(REPO / base / "s1-runtime.json"), "", 0)
    assert (s2.p4info, s2.bmv2_json, s2.cli, s2.device_id) == (
        str(REPO / base / "build/routed.p4info.txt"), str(REPO / base / "build/routed.json"),
        str(REPO / base / "s2-commands.txt"), 1)
    assert topo.network.links == (LinkSpec(Endpoint("h3", 0), Endpoint("s1", 3)),
                                  LinkSpec(Endpoint("s1", 2), Endpoint("s2", 2), 100.0))


@pytest.mark.parametrize(
    ("document", "message"),
    [
        ({"switches": {"s1": {}}}, "switches: s1: needs runtime_json (P4Runtime entries), or "
                                   "cli_input and program"),
        ({"switches": {"s1": {"cli_input": "c.txt", "program": "basic.p4"}}},
         "program 'basic.p4': give the compiled BMv2 JSON"),
        ({"hosts": {"h1": {}}, "links": [["h1", "s1-p1", "5ms"]]},
         "latency '5ms' needs netem, which this lab does not run"),
        ({"hosts": {"h1": {}}, "links": [["h1", "s1-px"]]},
         "link end 's1-px' must be a host name or a switch port such as s1-p3"),
        ({"hosts": {"H1": {}}}, "node name 'H1' must be 1-8 lower-case"),
    ],
)
def test_tutorials_errors(tmp_path: Path, document: dict[str, Any], message: str) -> None:
    path = tmp_path / "topology.json"
    path.write_text(json.dumps(document))
    with pytest.raises(ConfigError, match=_literal(message)):
        load_tutorials_topology(path, "t.yaml: network: tutorials")


@pytest.mark.parametrize(("makefile", "sources", "built"), [
    ("include ../../utils/Makefile\n", ["flowcache.p4"], "flowcache"),
    ("DEFAULT_PROG = basic.p4\ninclude ../../utils/Makefile\n", ["basic.p4", "firewall.p4"],
     "basic"),
])
def test_a_switch_the_exercises_controller_fills_runs_its_makefiles_program(
        tmp_path: Path, makefile: str, sources: list[str], built: str) -> None:
    """p4lang's flowcache and p4runtime exercises: s1 has no entries of its own (their
    controller writes them); their runner starts it on the Makefile's program."""
    (tmp_path / "Makefile").write_text(makefile)
    for source in sources:
        (tmp_path / source).write_text("")
    path = tmp_path / "topology.json"
    path.write_text(json.dumps({"switches": {"s1": {}}}))
    with pytest.raises(ConfigError, match=_literal("or the exercise's program compiled as "
                                                   "its Makefile does (build/<name>.json")):
        load_tutorials_topology(path, "t.yaml: network: tutorials")
    (tmp_path / "build").mkdir()
    (tmp_path / "build" / f"{built}.json").write_text("{}")
    network = load_tutorials_topology(path, "t.yaml: network: tutorials")
    assert network.nodes == (NodeSpec("s1", "bmv2", bmv2_json=str(tmp_path / "build" /
                                                                  f"{built}.json")),)


def _literal(message: str) -> str:
    for char in "()[]?.*+":
        message = message.replace(char, "\\" + char)
    return message


def test_shipped_p4utils_app() -> None:
    """topologies/tutorials/p4utils-line: ports numbered in link order as p4-utils does,
    the p4_src given to every switch, gw as the host's default route."""
    topo = load_topology(REPO / "topologies/mininet-p4utils-line.yaml")
    base = "topologies/tutorials/p4utils-line"
    assert topo.cables == ((1, Endpoint("s1", 1)), (2, Endpoint("s2", 2)))
    assert topo.network is not None
    s1, s2 = topo.network.nodes
    assert s1 == NodeSpec("s1", "bmv2", bmv2_json=str(REPO / base / "../basic/routed.p4"),
                          cli=str(REPO / base / "s1-commands.txt"))
    assert (s2.cli, s2.device_id) == (str(REPO / base / "s2-commands.txt"), 1)
    assert topo.network.links == (LinkSpec(Endpoint("s1", 2), Endpoint("s2", 1), 100.0),)


def test_p4utils_hosts_and_link_ports(tmp_path: Path) -> None:
    path = tmp_path / "p4app.json"
    path.write_text(json.dumps({"p4_src": "r.p4", "topology": {
        "assignment_strategy": "manual",
        "hosts": {"h1": {"ip": "10.0.1.1/24", "gw": "10.0.1.254"}},
        "switches": {"s1": {}, "s2": {"program": "other.json"}},
        "links": [["h1", "s1"], ["s1", "s2", {"port1": 5, "bw": 7}], ["s2", "s1"]]}}))
    network = load_p4app(path, "t")
    assert network.nodes[0] == NodeSpec(
        "h1", "host", (InterfaceSpec(0, "10.0.1.1/24", ""),),
        ("ip route add default via 10.0.1.254 dev eth0",))
    assert network.nodes[2].bmv2_json == str(tmp_path / "other.json")
    assert network.links == (LinkSpec(Endpoint("h1", 0), Endpoint("s1", 1)),
                             LinkSpec(Endpoint("s1", 5), Endpoint("s2", 1), 7.0),
                             LinkSpec(Endpoint("s2", 2), Endpoint("s1", 6)))


@pytest.mark.parametrize(
    ("topology", "message"),
    [
        ({"assignment_strategy": "l2"}, "assignment_strategy 'l2' is not read (its automatic "
                                        "addresses are not reproduced): write each host's ip"),
        ({"assignment_strategy": "manual", "hosts": {"h1": {}}},
         "hosts: h1: needs ip (assignment_strategy manual)"),
        ({"assignment_strategy": "manual", "hosts": {"h1": {"ip": "10.0.0.1/8"}},
          "switches": {"s1": {"program": "r.json"}}, "links": [["h1", "s1", {"delay": "5ms"}]]},
         "options ['delay'] not supported here; known: bw, port1, port2 (delay and loss "
         "need netem)"),
        ({"assignment_strategy": "manual", "switches": {"s1": {}}},
         "switches: s1: no program: give p4_src (all switches) or program"),
    ],
)
def test_p4utils_errors(tmp_path: Path, topology: dict[str, Any], message: str) -> None:
    path = tmp_path / "p4app.json"
    path.write_text(json.dumps({"topology": topology}))
    with pytest.raises(ConfigError, match=_literal(message)):
        load_p4app(path, "t")
