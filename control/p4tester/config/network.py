"""The network of a `lab: mininet` topology: nodes, links, and where each tester port
is cabled. Written in the topology file under `network:`, or read from a p4lang/tutorials
`topology.json` (config.tutorials) or a p4-utils `p4app.json` (config.p4app).
docs/mininet.md describes them.

    network:
      nodes:
        h1: {kind: host, interfaces: {0: {ip: 10.0.1.1/24, mac: "08:00:00:00:01:11"}},
             commands: ["ip route add default via 10.0.1.10"]}
        r1: {kind: router, interfaces: {1: {ip: 192.0.2.254/24}, 2: {ip: ...}}}
        br: {kind: bridge}
        s1: {kind: bmv2, p4info: build/x.p4info.txt, bmv2_json: build/x.json,
             runtime: s1-runtime.json, cli: s1-commands.txt}
      links:
        - {a: "h1:0", b: "s1:1", bw_mbps: 10}

A node's port N is its interface <node>-eth<N> (a bmv2 switch's port N is BMv2 port N).
Tester ports name their peer as "node:port" (or "dut:N" when the topology's `dut` is the
reference bmv2 or linux DUT, built as node "dut").
"""

from __future__ import annotations

import dataclasses
import ipaddress
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from p4tester.config.errors import ConfigError
from p4tester.config.keys import INTERFACE, LINK, NETWORK, NODE_SECTIONS
from p4tester.config.yaml_io import require_keys

NODE_KINDS: Final = ("host", "router", "bridge", "bmv2")
# Mininet names interfaces <node>-eth<N>: at most 15 characters on Linux.
NODE_NAME: Final = re.compile(r"^[a-z][a-z0-9]{0,7}$")
MAC: Final = re.compile(r"^[0-9a-fA-F]{2}(:[0-9a-fA-F]{2}){5}$")
MAX_NODE_PORT: Final = 255
# The tester's switch and the reference DUT keep these names: a node may not take them.
RESERVED: Final = ("tester", "dut")


@dataclass(frozen=True, slots=True)
class InterfaceSpec:
    port: int
    ip: str = ""  # with prefix length, e.g. 10.0.1.1/24
    mac: str = ""


@dataclass(frozen=True, slots=True)
class NodeSpec:
    name: str
    kind: str
    interfaces: tuple[InterfaceSpec, ...] = ()
    commands: tuple[str, ...] = ()  # run in the node after the links are up (hosts, routers)
    # bmv2: the program's outputs, and entries by P4Runtime (tutorials runtime_json) or
    # thrift (simple_switch_CLI commands). Paths relative to the topology file.
    p4info: str = ""
    bmv2_json: str = ""
    runtime: str = ""
    cli: str = ""
    grpc_port: int = 0  # 0: picked by the lab (59600 + index)
    thrift_port: int = 0
    device_id: int = 0


@dataclass(frozen=True, slots=True)
class Endpoint:
    node: str
    port: int

    def __str__(self) -> str:
        return f"{self.node}:{self.port}"


@dataclass(frozen=True, slots=True)
class LinkSpec:
    a: Endpoint
    b: Endpoint
    bw_mbps: float = 0.0  # 0: no limit (TCLink's htb otherwise)


@dataclass(frozen=True, slots=True)
class NetworkSpec:
    nodes: tuple[NodeSpec, ...] = ()
    links: tuple[LinkSpec, ...] = ()
    base_dir: str = "."  # where relative paths of the nodes start

    def node(self, name: str) -> NodeSpec | None:
        return next((n for n in self.nodes if n.name == name), None)


def nodes_and_links_from_dict(data: Mapping[str, Any], base_dir: Path,
                              where: str) -> NetworkSpec:
    """A network given in the topology itself: `nodes` and `links` (the files of other
    projects' formats are read by config.network_file)."""
    require_keys(data, where, required=NETWORK.required, optional=NETWORK.optional)
    nodes = tuple(_with_base(n, base_dir) for n in _nodes(data["nodes"], f"{where}: nodes"))
    links = _links(data.get("links", []), f"{where}: links")
    network = NetworkSpec(nodes, links, str(base_dir))
    check_links(network, where)
    return network


def _with_base(node: NodeSpec, base_dir: Path) -> NodeSpec:
    """A bmv2 node's files as paths from the working directory."""
    def under(path: str) -> str:
        return str(base_dir / path) if path else ""

    return dataclasses.replace(node, p4info=under(node.p4info), bmv2_json=under(node.bmv2_json),
                               runtime=under(node.runtime), cli=under(node.cli))


def _nodes(data: object, where: str) -> tuple[NodeSpec, ...]:
    if not isinstance(data, Mapping) or not data:
        raise ConfigError(f"{where}: expected a mapping name -> {{kind: host|router|bridge|bmv2}}")
    nodes = []
    for name, spec in data.items():
        place = f"{where}: {name}"
        check_node_name(str(name), place)
        if not isinstance(spec, Mapping) or spec.get("kind") not in NODE_KINDS:
            raise ConfigError(f"{place}: needs kind, one of {NODE_KINDS}")
        kind = str(spec["kind"])
        keys = NODE_SECTIONS[kind]
        require_keys(spec, place, required=keys.required, optional=keys.optional)
        if kind == "bmv2":
            if "runtime" not in spec and not ("p4info" in spec and "bmv2_json" in spec):
                raise ConfigError(f"{place}: a bmv2 node needs its program: runtime (a "
                                  "tutorials runtime_json naming p4info and bmv2_json) or "
                                  "p4info and bmv2_json")
            nodes.append(NodeSpec(
                str(name), kind, p4info=str(spec.get("p4info", "")),
                bmv2_json=str(spec.get("bmv2_json", "")), runtime=str(spec.get("runtime", "")),
                cli=str(spec.get("cli", "")), grpc_port=_int(spec, "grpc_port", place),
                thrift_port=_int(spec, "thrift_port", place),
                device_id=_int(spec, "device_id", place)))
            continue
        commands = spec.get("commands", [])
        if not isinstance(commands, list):
            raise ConfigError(f"{place}: commands must be a list of shell commands")
        nodes.append(NodeSpec(str(name), kind, _interfaces(spec.get("interfaces", {}), place),
                              tuple(str(c) for c in commands)))
    return tuple(nodes)


def check_node_name(name: str, where: str) -> None:
    if not NODE_NAME.match(name) or name in RESERVED:
        raise ConfigError(f"{where}: node name {name!r} must be 1-8 lower-case letters or "
                          f"digits starting with a letter (its interfaces are <name>-eth<N>), "
                          f"and not {' or '.join(RESERVED)}")


def _int(spec: Mapping[str, Any], key: str, where: str) -> int:
    value = spec.get(key, 0)
    if not isinstance(value, int) or value < 0:
        raise ConfigError(f"{where}: {key} {value!r} must be a whole number >= 0")
    return value


def _interfaces(data: object, where: str) -> tuple[InterfaceSpec, ...]:
    if not isinstance(data, Mapping):
        raise ConfigError(f"{where}: interfaces must map a port number to {{ip, mac}}")
    interfaces = []
    for port, spec in data.items():
        place = f"{where}: interfaces: {port}"
        if not isinstance(port, int) or not 0 <= port <= MAX_NODE_PORT:
            raise ConfigError(f"{place}: port must be a number in 0..{MAX_NODE_PORT}")
        if not isinstance(spec, Mapping):
            raise ConfigError(f"{place}: expected {{ip: 10.0.0.1/24, mac: ...}}")
        require_keys(spec, place, required=INTERFACE.required, optional=INTERFACE.optional)
        interfaces.append(InterfaceSpec(port, check_ip(spec.get("ip", ""), place),
                                        check_mac(spec.get("mac", ""), place)))
    return tuple(interfaces)


def check_ip(value: object, where: str) -> str:
    text = str(value)
    if not text:
        return ""
    try:
        ipaddress.IPv4Interface(text)
    except ValueError:
        raise ConfigError(f"{where}: ip {text!r} must be an IPv4 address with its prefix "
                          "length, e.g. 10.0.1.1/24") from None
    if "/" not in text:
        raise ConfigError(f"{where}: ip {text!r} needs a prefix length, e.g. {text}/24")
    return text


def check_mac(value: object, where: str) -> str:
    text = str(value)
    if text and not MAC.match(text):
        raise ConfigError(f"{where}: mac {text!r} must be six hex octets, e.g. "
                          "08:00:00:00:01:11")
    return text


def parse_endpoint(value: object, where: str) -> Endpoint:
    """"node:port" (e.g. "s1:3"); the tutorials' "s1-p3" is read by config.tutorials."""
    text = str(value)
    node, _, port = text.partition(":")
    if not node or not port.isdigit():
        raise ConfigError(f"{where}: {text!r} must be node:port, e.g. s1:3")
    return Endpoint(node, int(port))


def _links(data: object, where: str) -> tuple[LinkSpec, ...]:
    if not isinstance(data, list):
        raise ConfigError(f"{where}: expected a list of {{a: node:port, b: node:port}}")
    links = []
    for index, spec in enumerate(data):
        place = f"{where}[{index}]"
        if not isinstance(spec, Mapping):
            raise ConfigError(f"{place}: expected {{a: node:port, b: node:port, bw_mbps: 10}}")
        require_keys(spec, place, required=LINK.required, optional=LINK.optional)
        bw = spec.get("bw_mbps", 0)
        if not isinstance(bw, int | float) or bw < 0:
            raise ConfigError(f"{place}: bw_mbps {bw!r} must be a number of Mbit/s >= 0")
        links.append(LinkSpec(parse_endpoint(spec["a"], place), parse_endpoint(spec["b"], place),
                              float(bw)))
    return tuple(links)


def check_links(network: NetworkSpec, where: str) -> None:
    """Every link end a known node, every node port used once."""
    used: set[Endpoint] = set()
    for link in network.links:
        for end in (link.a, link.b):
            if network.node(end.node) is None:
                known = ", ".join(n.name for n in network.nodes)
                raise ConfigError(f"{where}: link end {end} names no node (nodes: {known})")
            if end in used:
                raise ConfigError(f"{where}: port {end} is cabled twice; each port once")
            used.add(end)
