"""A p4lang/tutorials `topology.json` as a Mininet lab network (docs/mininet.md).

    hosts:    {h1: {ip: "10.0.1.1/24", mac: ..., commands: [...]}}  -> host h1, port 0
    switches: {s1: {runtime_json: "pod-topo/s1-runtime.json"}}       -> bmv2 s1 (P4Runtime)
              {s1: {cli_input: "s1-commands.txt", program: ...}}    -> bmv2 s1 (thrift CLI)
              both runtime_json and cli_input: entries, then the CLI commands
    links:    [["h1", "s1-p1"], ["s1-p2", "s2-p2", "0ms", 10]]       -> h1:0 <-> s1:1, 10 Mbit/s

A host's interface is eth0 in its own namespace, as the tutorials' host commands expect.
Paths (runtime_json, cli_input, and inside a runtime_json p4info and bmv2_json) are
relative to the exercise directory, where the tutorials run `make`: the directory of
the topology.json or the one above it (pod-topo/ layouts), whichever has the file.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Final

from p4tester.config.errors import ConfigError
from p4tester.config.json_io import read_json
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

SWITCH_PORT: Final = re.compile(r"^([a-z][a-z0-9]*)-p(\d+)$")
LATENCY: Final = re.compile(r"^0+(\.0*)?(ms|us|s)?$")


def load_tutorials_topology(path: Path, where: str) -> NetworkSpec:
    data: Any = read_json(path, where)
    if not isinstance(data, Mapping):
        raise ConfigError(f"{where}: {path}: expected an object with hosts, switches, links")
    place = f"{where} ({path})"
    nodes = [*_hosts(data.get("hosts", {}), place),
             *_switches(data.get("switches", {}), path.parent, place)]
    network = NetworkSpec(tuple(nodes), _links(data.get("links", []), place), str(path.parent))
    check_links(network, place)
    return network


def resolve(path: str, topology_dir: Path) -> Path:
    """A tutorials path: from the topology's directory, else from the exercise's."""
    for base in (topology_dir, topology_dir.parent):
        if (base / path).exists():
            return base / path
    return topology_dir / path


def _hosts(data: object, where: str) -> list[NodeSpec]:
    if not isinstance(data, Mapping):
        raise ConfigError(f"{where}: hosts must map a name to {{ip, mac, commands}}")
    hosts = []
    for name, spec in data.items():
        place = f"{where}: hosts: {name}"
        check_node_name(str(name), place)
        if not isinstance(spec, Mapping):
            raise ConfigError(f"{place}: expected {{ip, mac, commands}}")
        commands = spec.get("commands", [])
        if not isinstance(commands, list):
            raise ConfigError(f"{place}: commands must be a list")
        hosts.append(NodeSpec(
            str(name), "host",
            (InterfaceSpec(0, check_ip(spec.get("ip", ""), place),
                           check_mac(spec.get("mac", ""), place)),),
            tuple(str(c) for c in commands)))
    return hosts


def _switches(data: object, topology_dir: Path, where: str) -> list[NodeSpec]:
    if not isinstance(data, Mapping):
        raise ConfigError(f"{where}: switches must map a name to {{runtime_json}} or "
                          "{cli_input, program}")
    switches = []
    for index, (name, spec) in enumerate(data.items()):
        place = f"{where}: switches: {name}"
        check_node_name(str(name), place)
        if not isinstance(spec, Mapping):
            raise ConfigError(f"{place}: expected {{runtime_json: ...}}")
        cli = str(resolve(str(spec["cli_input"]), topology_dir)) if "cli_input" in spec else ""
        if "runtime_json" in spec:
            runtime = resolve(str(spec["runtime_json"]), topology_dir)
            p4info, bmv2_json = _runtime_program(runtime, topology_dir, place)
            switches.append(NodeSpec(str(name), "bmv2", p4info=p4info, bmv2_json=bmv2_json,
                                     runtime=str(runtime), cli=cli, device_id=index))
        elif cli and "program" in spec:
            json_path = resolve(str(spec["program"]), topology_dir)
            if json_path.suffix != ".json":
                raise ConfigError(f"{place}: program {spec['program']!r}: give the compiled "
                                  "BMv2 JSON (p4c-bm2-ss output), not the P4 source")
            switches.append(NodeSpec(str(name), "bmv2", bmv2_json=str(json_path), cli=cli,
                                     device_id=index))
        elif (default := default_program(topology_dir)) is not None:
            # No entries: the exercise's own controller (their p4runtime, flowcache)
            # fills the tables; p4lang's runner starts such a switch on the Makefile's
            # program, and so does the lab.
            switches.append(NodeSpec(str(name), "bmv2", bmv2_json=str(default),
                                     device_id=index))
        else:
            raise ConfigError(f"{place}: needs runtime_json (P4Runtime entries), or cli_input "
                              "and program (thrift CLI commands and the BMv2 JSON), or the "
                              "exercise's program compiled as its Makefile does (build/<name>"
                              ".json beside the Makefile)")
    return switches


def default_program(topology_dir: Path) -> Path | None:
    """The program p4lang's Makefile starts every switch on (DEFAULT_PROG, else the
    exercise's one .p4 file), compiled into build/ as `make` does; None if not there."""
    for base in (topology_dir, topology_dir.parent):
        makefile = base / "Makefile"
        if not makefile.exists():
            continue
        named = re.search(r"^\s*DEFAULT_PROG\s*=\s*(\S+)\.p4\s*$", makefile.read_text(),
                          re.MULTILINE)
        sources = [named.group(1)] if named else [p.stem for p in base.glob("*.p4")]
        if len(sources) == 1 and (base / "build" / f"{sources[0]}.json").exists():
            return base / "build" / f"{sources[0]}.json"
        return None
    return None


def _runtime_program(runtime: Path, topology_dir: Path, where: str) -> tuple[str, str]:
    """The p4info and bmv2_json a runtime_json names, resolved."""
    try:
        data: Any = json.loads(runtime.read_text())
    except (OSError, json.JSONDecodeError) as exc:
        raise ConfigError(f"{where}: runtime_json {runtime}: {exc}") from exc
    if not isinstance(data, Mapping) or "p4info" not in data or "bmv2_json" not in data:
        raise ConfigError(f"{where}: runtime_json {runtime} must name p4info and bmv2_json")
    return (str(resolve(str(data["p4info"]), topology_dir)),
            str(resolve(str(data["bmv2_json"]), topology_dir)))


def _endpoint(value: object, where: str) -> Endpoint:
    text = str(value)
    match = SWITCH_PORT.match(text)
    if match:
        return Endpoint(match.group(1), int(match.group(2)))
    if re.match(r"^[a-z][a-z0-9]*$", text):
        return Endpoint(text, 0)  # a host: its one interface
    raise ConfigError(f"{where}: link end {text!r} must be a host name or a switch port "
                      "such as s1-p3")


def _links(data: object, where: str) -> tuple[LinkSpec, ...]:
    if not isinstance(data, list):
        raise ConfigError(f"{where}: links must be a list of [a, b, latency?, bandwidth?]")
    links = []
    for index, spec in enumerate(data):
        place = f"{where}: links[{index}]"
        if not isinstance(spec, list) or not 2 <= len(spec) <= 4:
            raise ConfigError(f"{place}: expected [a, b] or [a, b, latency, bandwidth_mbps]")
        if len(spec) >= 3 and not LATENCY.match(str(spec[2])):
            # No sch_netem on such kernels, and a delay the lab cannot make must not be
            # dropped without a word.
            raise ConfigError(f"{place}: latency {spec[2]!r} needs netem, which this lab "
                              "does not run; use \"0ms\" (a delaying DUT: docs/mininet.md)")
        bw = spec[3] if len(spec) == 4 else 0
        if not isinstance(bw, int | float) or bw < 0:
            raise ConfigError(f"{place}: bandwidth {bw!r} must be Mbit/s >= 0")
        links.append(LinkSpec(_endpoint(spec[0], place), _endpoint(spec[1], place), float(bw)))
    return tuple(links)
