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
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from p4tester.config.errors import ConfigError
from p4tester.config.yaml_io import load_yaml_mapping, require_keys
from p4tester.streams.rates import Rate, RateError, RateUnit

TARGETS = ("bmv2", "tofino")
DUT_KINDS = ("loopback", "bmv2", "linux", "external")
MAX_PORT = 255  # front-panel ports on BMv2; higher numbers are pacing and CPU ports


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
        require_keys(value, f"{where}: port {key}", required=("line_rate",), optional=("peer",))
        ports.append(PortConfig(key, parse_line_rate(value["line_rate"], f"{where}: port {key}"),
                                str(value.get("peer", ""))))
    return tuple(sorted(ports, key=lambda p: p.number))


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
