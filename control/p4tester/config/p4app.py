"""An nsg-ethz p4-utils `p4app.json` as a Mininet lab network (docs/mininet.md).

    p4_src: "p4src/router.p4"                  every switch's program (compiled at lab up)
    topology:
      assignment_strategy: manual              hosts' addresses as written (the only one read)
      default: {bw: 10}                         every link's bandwidth (Mbit/s), unless its own
      hosts: {h1: {ip: 10.0.1.1/24, gw: 10.0.1.254, mac: ...}}
      switches: {s1: {cli_input: s1-commands.txt, program: p4src/other.p4}}
      links: [["h1", "s1"], ["s1", "s2", {bw: 5, port1: 3, port2: 3}]]

Ports as p4-utils numbers them: a switch's next free port from 1, in link order, unless
the link gives port1/port2; a host's one interface is eth0, port 0. A host's gw becomes
its default route. Switch entries come from cli_input (thrift CLI commands).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, Final

from p4tester.config.errors import ConfigError
from p4tester.config.json_io import read_json
from p4tester.config.keys import P4APP_HOST, P4APP_LINK
from p4tester.config.network import (
    Endpoint,
    InterfaceSpec,
    LinkSpec,
    NetworkSpec,
    NodeSpec,
    check_ip,
    check_links,
    check_mac,
    check_node_name,
)

STRATEGIES: Final = ("manual",)
LINK_OPTIONS: Final = P4APP_LINK.names


def load_p4app(path: Path, where: str) -> NetworkSpec:
    data: Any = read_json(path, where)
    place = f"{where} ({path})"
    topology = data.get("topology") if isinstance(data, Mapping) else None
    if not isinstance(topology, Mapping):
        raise ConfigError(f"{place}: expected an object with a 'topology' object")
    strategy = topology.get("assignment_strategy", "l2")
    if strategy not in STRATEGIES:
        raise ConfigError(f"{place}: assignment_strategy {strategy!r} is not read (its "
                          "automatic addresses are not reproduced): write each host's ip and "
                          "gw and use \"manual\"")
    base = path.parent
    default_bw = _bw(topology.get("default", {}).get("bw", 0), f"{place}: default")
    hosts = _hosts(topology.get("hosts", {}), place)
    switches = _switches(topology.get("switches", {}), data.get("p4_src", ""), base, place)
    links = _links(topology.get("links", []), {n.name for n in hosts}, default_bw, place)
    network = NetworkSpec((*hosts, *switches), links, str(base))
    check_links(network, place)
    return network


def _hosts(data: object, where: str) -> list[NodeSpec]:
    if not isinstance(data, Mapping):
        raise ConfigError(f"{where}: hosts must map a name to {{ip, gw, mac}}")
    hosts = []
    for name, spec in data.items():
        place = f"{where}: hosts: {name}"
        check_node_name(str(name), place)
        spec = spec or {}
        if not isinstance(spec, Mapping) or "ip" not in spec:
            raise ConfigError(f"{place}: needs ip (assignment_strategy manual), e.g. "
                              "{\"ip\": \"10.0.1.1/24\", \"gw\": \"10.0.1.254\"}")
        unknown = sorted(set(spec) - set(P4APP_HOST.names))
        if unknown:
            raise ConfigError(f"{place}: {unknown} not read; known: ip, gw, mac")
        commands = (f"ip route add default via {spec['gw']} dev eth0",) if "gw" in spec else ()
        hosts.append(NodeSpec(str(name), "host",
                              (InterfaceSpec(0, check_ip(spec["ip"], place),
                                             check_mac(spec.get("mac", ""), place)),),
                              commands))
    return hosts


def _switches(data: object, p4_src: object, base: Path, where: str) -> list[NodeSpec]:
    if not isinstance(data, Mapping):
        raise ConfigError(f"{where}: switches must map a name to {{cli_input, program}}")
    switches = []
    for index, (name, spec) in enumerate(data.items()):
        place = f"{where}: switches: {name}"
        check_node_name(str(name), place)
        spec = spec or {}
        if not isinstance(spec, Mapping):
            raise ConfigError(f"{place}: expected {{cli_input, program}}")
        program = str(spec.get("program", p4_src))
        if not program:
            raise ConfigError(f"{place}: no program: give p4_src (all switches) or program")
        cli = str(base / str(spec["cli_input"])) if "cli_input" in spec else ""
        # A .p4 is compiled when the lab comes up (lab.mininet.program); a .json is used
        # as compiled, with its P4Info beside it.
        switches.append(NodeSpec(str(name), "bmv2", bmv2_json=str(base / program), cli=cli,
                                 device_id=index))
    return switches


def _bw(value: object, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
        raise ConfigError(f"{where}: bw {value!r} must be Mbit/s >= 0")
    return float(value)


def _links(data: object, hosts: set[str], default_bw: float,
           where: str) -> tuple[LinkSpec, ...]:
    if not isinstance(data, list):
        raise ConfigError(f"{where}: links must be a list of [a, b, {{options}}]")
    next_port: dict[str, int] = {}
    links = []
    for index, spec in enumerate(data):
        place = f"{where}: links[{index}]"
        if not isinstance(spec, list) or len(spec) not in (2, 3):
            raise ConfigError(f"{place}: expected [a, b] or [a, b, {{bw, port1, port2}}]")
        options = spec[2] if len(spec) == 3 else {}
        if not isinstance(options, Mapping):
            raise ConfigError(f"{place}: options must be an object")
        unknown = sorted(set(options) - set(LINK_OPTIONS))
        if unknown:
            # delay/loss need netem (absent on such kernels): refused, never dropped.
            raise ConfigError(f"{place}: options {unknown} not supported here; known: "
                              f"{', '.join(LINK_OPTIONS)} (delay and loss need netem)")
        ends = []
        for side, node in ((1, str(spec[0])), (2, str(spec[1]))):
            if node in hosts:
                port = 0
            else:
                given = options.get(f"port{side}")
                port = int(given) if given is not None else next_port.get(node, 1)
                next_port[node] = max(next_port.get(node, 1), port + 1)
            ends.append(Endpoint(node, port))
        links.append(LinkSpec(ends[0], ends[1], _bw(options.get("bw", default_bw), place)))
    return tuple(links)
