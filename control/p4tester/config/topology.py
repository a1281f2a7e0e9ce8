"""Topology: the tester switch, its ports with their nominal line rates, and the DUT.

A topology file (YAML) describes what is cabled, not what to run:

    name: loopback
    switch:
      grpc: 127.0.0.1:9559      # simple_switch_grpc --grpc-server-addr
      thrift_port: 9090          # BMv2 thrift (queue rates)
      device_id: 0
      target: bmv2
    ports:                       # tester ports: number -> nominal line rate
      1: {line_rate: 10Mbps, peer: dut:1}
      2: {line_rate: 10Mbps, peer: dut:2}
    dut: {kind: loopback}        # loopback | bmv2 | linux | external

A port's line rate is what "100 % load" means for it (L1 bit/s). BMv2 moves tens of
thousands of frames per second, so lab ports are given small nominal rates.

On a Tofino switch (target: tofino, grpc: the BfRt server, bf_switchd's port 50052) each
port also names the front-panel port it is, as the switch's port manager writes it:

      1: {line_rate: 100Gbps, front_panel: "1/0", peer: dut:Ethernet1}
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from p4tester.config.errors import ConfigError
from p4tester.config.yaml_io import load_yaml_mapping, require_keys
from p4tester.streams.rates import Rate, RateError, RateUnit

TARGETS = ("bmv2", "tofino")
DUT_KINDS = ("loopback", "bmv2", "linux", "external")
MAX_PORT = 255  # front-panel ports on BMv2; higher numbers are pacing and CPU ports
# A Tofino front-panel port: "<connector>/<channel>", e.g. "1/0" (breakouts: "1/1"...).
FRONT_PANEL_PATTERN: Final = re.compile(r"^\d+/\d+$")


@dataclass(frozen=True, slots=True)
class SwitchConfig:
    grpc: str = "127.0.0.1:9559"
    thrift_port: int = 9090
    device_id: int = 0
    target: str = "bmv2"
    p4info: str = "p4src/build/tester.p4info.txt"
    bmv2_json: str = "p4src/build/tester.json"
    timeout_s: float = 10.0  # connect and per-RPC


@dataclass(frozen=True, slots=True)
class PortConfig:
    number: int
    line_rate_bps: float
    peer: str = ""
    front_panel: str = ""  # Tofino: the switch's name of the port, e.g. "1/0"


@dataclass(frozen=True, slots=True)
class DutConfig:
    kind: str = "loopback"
    settings: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True, slots=True)
class Topology:
    name: str
    switch: SwitchConfig
    ports: tuple[PortConfig, ...]
    dut: DutConfig = field(default_factory=DutConfig)
    source: str = ""

    def port(self, number: int) -> PortConfig:
        for port in self.ports:
            if port.number == number:
                return port
        known = ", ".join(str(p.number) for p in self.ports)
        raise ConfigError(
            f"{self.source or self.name}: port {number} is not in the topology "
            f"(its ports: {known}); add it under 'ports' or use one of those"
        )


def load_topology(path: str | Path) -> Topology:
    data = load_yaml_mapping(path)
    return topology_from_dict(data, str(path))


def topology_from_dict(data: Mapping[str, Any], source: str) -> Topology:
    require_keys(data, source, required=("name", "ports"), optional=("switch", "dut"))
    switch = _switch(data.get("switch", {}), f"{source}: switch")
    ports = _ports(data["ports"], f"{source}: ports")
    _check_front_panel(ports, switch.target, f"{source}: ports")
    dut = _dut(data.get("dut", {"kind": "loopback"}), f"{source}: dut")
    return Topology(str(data["name"]), switch, ports, dut, source)


def _switch(data: object, where: str) -> SwitchConfig:
    if not isinstance(data, Mapping):
        raise ConfigError(f"{where}: expected a mapping of switch settings")
    require_keys(data, where, required=(), optional=tuple(SwitchConfig.__slots__))
    config = SwitchConfig(**{k: data[k] for k in data})
    if config.target not in TARGETS:
        raise ConfigError(f"{where}: target {config.target!r} unknown; use one of {TARGETS}")
    if ":" not in str(config.grpc):
        raise ConfigError(f"{where}: grpc {config.grpc!r} must be host:port, e.g. 127.0.0.1:9559")
    return config


def _ports(data: object, where: str) -> tuple[PortConfig, ...]:
    if not isinstance(data, Mapping) or not data:
        raise ConfigError(f"{where}: expected a mapping port number -> {{line_rate: ...}}")
    ports = []
    for key, value in data.items():
        if not isinstance(key, int) or not 0 <= key <= MAX_PORT:
            raise ConfigError(f"{where}: port {key!r} must be a number in 0..{MAX_PORT}")
        if not isinstance(value, Mapping) or "line_rate" not in value:
            raise ConfigError(f"{where}: port {key} needs a line_rate, e.g. {{line_rate: 10Gbps}}")
        require_keys(value, f"{where}: port {key}", required=("line_rate",),
                     optional=("peer", "front_panel"))
        ports.append(PortConfig(key, parse_line_rate(value["line_rate"], f"{where}: port {key}"),
                                str(value.get("peer", "")), str(value.get("front_panel", ""))))
    return tuple(sorted(ports, key=lambda p: p.number))


def _check_front_panel(ports: tuple[PortConfig, ...], target: str, where: str) -> None:
    """Tofino ports need their front-panel name, once each; BMv2 ports have none."""
    seen: dict[str, int] = {}
    for port in ports:
        name = port.front_panel
        if target != "tofino":
            if name:
                raise ConfigError(f"{where}: port {port.number}: front_panel is for target "
                                  f"tofino (this switch is {target}); drop it")
            continue
        if not FRONT_PANEL_PATTERN.match(name):
            raise ConfigError(
                f"{where}: port {port.number}: target tofino needs front_panel, the switch's "
                f"name of the port such as \"1/0\" (got {name!r})")
        if name in seen:
            raise ConfigError(f"{where}: ports {seen[name]} and {port.number} are both "
                              f"front_panel {name!r}; each front-panel port once")
        seen[name] = port.number


def parse_line_rate(value: object, where: str) -> float:
    """A port line rate: a bit rate such as '100Gbps' or '10Mbps' (L1)."""
    try:
        rate = Rate.parse(str(value))
    except RateError as exc:
        raise ConfigError(f"{where}: line_rate {value!r}: {exc}") from exc
    if rate.unit not in (RateUnit.L1_BPS,):
        raise ConfigError(f"{where}: line_rate {value!r} must be a bit rate such as 10Gbps")
    return rate.value


def _dut(data: object, where: str) -> DutConfig:
    if not isinstance(data, Mapping) or "kind" not in data:
        raise ConfigError(f"{where}: expected {{kind: {'|'.join(DUT_KINDS)}, ...}}")
    kind = str(data["kind"])
    if kind not in DUT_KINDS:
        raise ConfigError(f"{where}: kind {kind!r} unknown; use one of {DUT_KINDS}")
    settings = tuple(sorted((str(k), str(v)) for k, v in data.items() if k != "kind"))
    return DutConfig(kind, settings)
