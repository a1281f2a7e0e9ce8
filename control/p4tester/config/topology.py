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
    dut: {kind: loopback}        # loopback | bmv2 | linux | bridge | external
    lab: veth                    # veth (default) | mininet: see config.network
    link_mtu: 1500               # veth labs: the links' MTU (jumbo frames: 9500)

A veth lab's links carry frames up to link_mtu + 22 B (FCS and one 802.1Q tag beyond the MTU:
1522 B at the default 1500, RFC 2544's sizes). A larger MTU costs capacity: BMv2 reads each link
through a ring of MTU-sized slots (lab.netdev.ring_slots_by_mtu), so at 9500 it holds a sixth
of the frames, and a host hiccup that the default ring absorbs loses frames.

A port's line rate is what "100 % load" means for it (L1 bit/s). BMv2 moves tens of
thousands of frames per second, so lab ports are given small nominal rates.

On a Tofino switch (target: tofino, grpc: the BfRt server, bf_switchd's port 50052) each
port also names the front-panel port it is, as the switch's port manager writes it:

      1: {line_rate: 100Gbps, front_panel: "1/0", peer: dut:Ethernet1}

A port facing a router carries its own addresses and the router's (docs/neighbors.md):
the tester answers ARP and Neighbor Solicitations for them, and a stream with
`dst_mac: resolve` asks the gateway for its MAC before its trials:

      1: {line_rate: 10Mbps, peer: "dut:1", mac: "02:00:00:00:00:01",
          ipv4: 192.0.2.1/24, gateway4: 192.0.2.254,
          ipv6: "2001:db8::1/64", gateway6: "2001:db8::254", vlan: 10, announce: true}
"""

from __future__ import annotations

import dataclasses
import ipaddress
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from difflib import get_close_matches
from pathlib import Path
from typing import Any, Final

from p4tester.config.dut_ecmp import ECMP_HASHES, ecmp_paths
from p4tester.config.errors import ConfigError
from p4tester.config.keys import PORT, PORT_ADDRESSES, SWITCH, TOPOLOGY
from p4tester.config.network import Endpoint, NetworkSpec, parse_endpoint
from p4tester.config.network_file import network_from_dict
from p4tester.config.testers import (
    DEFAULT_PTP_UDS,
    Reach,
    SimulatedClock,
    check_group,
    check_tester_name,
    split_tester,
)
from p4tester.config.yaml_io import load_yaml_mapping, require_keys
from p4tester.shipped import program_file
from p4tester.streams.rates import Rate, RateError, RateUnit

TARGETS = ("bmv2", "tofino", "ebpf")
# Tofino chips a topology may name (targets.tofino.chip holds what each one is).
TOFINO_CHIPS = ("tofino1", "tofino2")
DUT_KINDS = ("loopback", "bmv2", "linux", "bridge", "external")
# A bridge DUT's per-port settings, the port number after the prefix (lab.bridge_dut):
# the egress qdisc of port N, and the input FIFO of port N.
BRIDGE_EGRESS_QDISC = "qdisc_"
BRIDGE_INPUT_QUEUE = "input_queue_"
BRIDGE_PORT_SETTINGS = (BRIDGE_EGRESS_QDISC, BRIDGE_INPUT_QUEUE)
LAB_KINDS = ("veth", "mininet")
# DUT kinds a Mininet lab builds itself, as node "dut".
MININET_DUT_KINDS = ("bmv2", "linux", "external")
# A veth lab's link MTU: Ethernet's, which carries RFC 2544's sizes (see the docstring).
DEFAULT_LINK_MTU: Final = 1500
MIN_LINK_MTU: Final = 1280
MAX_LINK_MTU: Final = 9500  # frames up to 9216 B and beyond
# A link carries frames up to its MTU plus the Ethernet header, one 802.1Q tag (the kernel
# allows it beyond the MTU) and the FCS, which the frame sizes include.
LINK_FRAME_OVERHEAD: Final = 14 + 4 + 4
MAX_PORT = 255  # front-panel ports on BMv2; higher numbers are pacing and CPU ports
# A Tofino front-panel port: "<connector>/<channel>", e.g. "1/0" (breakouts: "1/1"...).
FRONT_PANEL_PATTERN: Final = re.compile(r"^\d+/\d+$")
# A Linux interface name (IFNAMSIZ 16 with its NUL).
INTERFACE_PATTERN: Final = re.compile(r"^[^/:\s]{1,15}$")


@dataclass(frozen=True, slots=True)
class SwitchConfig:
    grpc: str = "127.0.0.1:9559"
    thrift_port: int = 9090
    device_id: int = 0
    target: str = "bmv2"
    chip: str = "tofino1"  # target tofino: tofino1 | tofino2 (targets.tofino.chip)
    # The tester program p4tester ships (p4tester.shipped: p4src/build in a checkout).
    p4info: str = str(program_file("tester.p4info.txt"))
    bmv2_json: str = str(program_file("tester.json"))
    # target ebpf: the object `make build-ebpf` compiles (its C source beside it).
    ebpf_object: str = "build/ebpf/tester.o"
    timeout_s: float = 10.0  # connect and per-RPC


@dataclass(frozen=True, slots=True)
class PortConfig:
    number: int
    line_rate_bps: float
    peer: str = ""
    front_panel: str = ""  # Tofino: the switch's name of the port, e.g. "1/0"
    addresses: PortAddresses | None = None  # ARP / ND: the port's own and its gateway's
    interface: str = ""  # eBPF: the host interface the port is (default: a lab's p4lt<N>)
    tester: str = ""  # several testers: the one the port belongs to (config.testers)


@dataclass(frozen=True, slots=True)
class PortAddresses:
    """A tester port's addresses, as a host on the DUT's subnet: the tester answers
    ARP (RFC 826) and Neighbor Solicitations (RFC 4861) for ipv4 / ipv6 with mac, and
    resolves gateway4 / gateway6 (the DUT's next hop) for `dst_mac: resolve`. Empty
    strings: not set. vlan: the 802.1Q tag the port's requests carry (None: untagged)."""

    mac: str
    ipv4: str = ""      # interface form, e.g. "192.0.2.1/24"
    ipv6: str = ""      # e.g. "2001:db8::1/64"
    gateway4: str = ""  # e.g. "192.0.2.254", inside ipv4's subnet
    gateway6: str = ""
    vlan: int | None = None
    announce: bool = False  # a gratuitous ARP / unsolicited NA when a session opens

    @property
    def ipv4_address(self) -> str:
        return str(ipaddress.IPv4Interface(self.ipv4).ip) if self.ipv4 else ""

    @property
    def ipv6_address(self) -> str:
        return str(ipaddress.IPv6Interface(self.ipv6).ip) if self.ipv6 else ""


@dataclass(frozen=True, slots=True)
class TesterSwitch:
    """One tester of several (config.testers): its name, as ports name it, its switch,
    and the simulated clock a test on one host gives it."""

    name: str
    switch: SwitchConfig
    clock: SimulatedClock = field(default_factory=SimulatedClock)
    reach: Reach = field(default_factory=Reach)
    ptp_uds: str = DEFAULT_PTP_UDS  # where ptp4l on the tester's host answers pmc


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
    lab: str = "veth"
    # lab: mininet only: the network, and which node port each tester port is cabled to.
    network: NetworkSpec | None = None
    cables: tuple[tuple[int, Endpoint], ...] = ()
    # lab: veth only: the MTU of every link the lab makes.
    link_mtu: int = DEFAULT_LINK_MTU
    # Several testers (config.testers; `switch` is then the first one's): () for one.
    testers: tuple[TesterSwitch, ...] = ()
    # How much two testers' forward and reverse path delays may differ (ns, the user's
    # bound): a one-way delay is off by up to half of it.
    asymmetry_ns: float = 0.0

    def tester(self, name: str) -> Topology:
        """One of several testers as a topology of its own: its switch and its ports."""
        member = next((t for t in self.testers if t.name == name), None)
        if member is None:
            raise ConfigError(f"{self.source or self.name}: no tester {name!r} "
                              f"(testers: {', '.join(t.name for t in self.testers)})")
        return dataclasses.replace(self, switch=member.switch,
                                   ports=tuple(p for p in self.ports if p.tester == name),
                                   testers=())

    def tester_of_port(self, number: int) -> str:
        """The name of the tester a port belongs to ('' with one tester)."""
        return self.port(number).tester

    @property
    def max_lab_frame(self) -> int:
        """The largest frame (incl. FCS) a veth lab's links carry."""
        return self.link_mtu + LINK_FRAME_OVERHEAD

    @property
    def cabled_dut_ports(self) -> tuple[int, ...]:
        """A veth lab's DUT ports that tester ports are cabled to (peer dut:N), in order."""
        return tuple(sorted(int(p.peer.split(":", 1)[1]) for p in self.ports
                            if p.peer.startswith("dut:") and p.peer[4:].isdigit()))

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
    topology = topology_from_dict(data, str(path))
    directory = Path(path).parent
    testers = tuple(dataclasses.replace(t, switch=_files_beside(t.switch, directory))
                    for t in topology.testers)
    return dataclasses.replace(topology, switch=_files_beside(topology.switch, directory),
                               testers=testers)


def _files_beside(switch: SwitchConfig, directory: Path) -> SwitchConfig:
    """The switch's files (p4info, bmv2_json, ebpf_object) a topology file gives as
    relative paths: beside the topology file when they are there, else from the working
    directory (the default ebpf_object, build/ebpf/tester.o, a checkout's `make build-ebpf`)."""
    def resolve(value: str) -> str:
        path = Path(value)
        if path.is_absolute() or not (directory / path).exists():
            return value
        return str(directory / path)

    return dataclasses.replace(switch, p4info=resolve(switch.p4info),
                               bmv2_json=resolve(switch.bmv2_json),
                               ebpf_object=resolve(switch.ebpf_object))


def topology_from_dict(data: Mapping[str, Any], source: str) -> Topology:
    require_keys(data, source, required=TOPOLOGY.required, optional=TOPOLOGY.optional)
    testers = _testers(data, source)
    switch = testers[0].switch if testers else _switch(data.get("switch", {}),
                                                       f"{source}: switch")
    ports = _ports(data["ports"], f"{source}: ports", several=bool(testers))
    if testers:
        check_group({t.name: t.switch.target for t in testers},
                    {p.number: p.tester for p in ports}, source)
    # Each port is its tester's (several testers may be of several targets).
    target_of = {t.name: t.switch.target for t in testers}
    targets = {p.number: target_of.get(p.tester, switch.target) for p in ports}
    _check_front_panel(ports, targets, f"{source}: ports")
    # A tester behind an agent names its host's interfaces.
    agent_of = {t.name: t.reach.agent for t in testers}
    _check_interfaces(ports, targets, {p.number: agent_of.get(p.tester, "") for p in ports},
                      f"{source}: ports")
    dut = _dut(data.get("dut", {"kind": "loopback"}), f"{source}: dut")
    lab = str(data.get("lab", "veth"))
    if lab not in LAB_KINDS:
        raise ConfigError(f"{source}: lab {lab!r} unknown; use one of {LAB_KINDS}")
    if "link_mtu" in data and lab != "veth":
        raise ConfigError(f"{source}: link_mtu is for lab: veth (a Mininet lab's links keep "
                          "Mininet's 1500); drop it")
    topology = Topology(str(data["name"]), switch, ports, dut, source,
                        link_mtu=_link_mtu(data.get("link_mtu", DEFAULT_LINK_MTU),
                                           f"{source}: link_mtu"),
                        testers=testers, asymmetry_ns=_asymmetry_ns(data, testers, source))
    _check_neighbours(dut, lab, f"{source}: dut")
    _check_bridge(topology, lab, f"{source}: dut")
    _check_ecmp(topology, lab, f"{source}: dut")
    if lab == "veth":
        if "network" in data:
            raise ConfigError(f"{source}: 'network' is for lab: mininet; add 'lab: mininet' "
                              "or drop 'network'")
        return topology
    return _mininet(topology, data.get("network", {"nodes": {}}), source)


def _mininet(topology: Topology, data: object, source: str) -> Topology:
    """A Mininet lab: its network, and each tester port's peer resolved to a node port.
    A peer naming a host alone puts the tester port in that host's place."""
    if topology.switch.target != "bmv2":
        raise ConfigError(f"{source}: switch: lab: mininet runs the tester on BMv2; "
                          "use target: bmv2")
    if topology.dut.kind not in MININET_DUT_KINDS:
        raise ConfigError(f"{source}: dut: kind {topology.dut.kind!r} has no Mininet form; "
                          f"use one of {MININET_DUT_KINDS} (external: the network is the DUT)")
    where = f"{source}: network"
    if isinstance(data, Mapping) and data.get("nodes") == {}:
        network = NetworkSpec(base_dir=str(Path(source).parent))
    else:
        network = network_from_dict(data, Path(source).parent, where)
    cables: list[tuple[int, Endpoint]] = []
    replaced: set[str] = set()
    for port in topology.ports:
        place = f"{source}: ports: port {port.number}: peer {port.peer!r}"
        if port.peer.startswith("dut:"):
            if topology.dut.kind not in ("bmv2", "linux"):
                raise ConfigError(f"{place}: dut:N needs dut kind bmv2 or linux; name a "
                                  "network node instead (node:port, or a host to replace)")
            cables.append((port.number, parse_endpoint(port.peer, place)))
            continue
        node = network.node(port.peer.partition(":")[0])
        if node is None:
            known = ", ".join(n.name for n in network.nodes) or "none"
            raise ConfigError(f"{place}: name a network node as node:port, or a host whose "
                              f"place the port takes (nodes: {known})")
        if ":" in port.peer:
            cables.append((port.number, parse_endpoint(port.peer, place)))
            continue
        ends = [link.b if link.a.node == node.name else link.a for link in network.links
                if node.name in (link.a.node, link.b.node)]
        if node.kind != "host" or len(ends) != 1:
            raise ConfigError(f"{place}: only a host with one link can be replaced by a "
                              f"tester port ({node.name} is a {node.kind} with {len(ends)} "
                              "links); name a port instead, e.g. s1:4")
        cables.append((port.number, ends[0]))
        replaced.add(node.name)
    network = dataclasses.replace(
        network, nodes=tuple(n for n in network.nodes if n.name not in replaced),
        links=tuple(link for link in network.links
                    if link.a.node not in replaced and link.b.node not in replaced))
    _check_cables(cables, network, topology.dut.kind, source)
    return dataclasses.replace(topology, lab="mininet", network=network, cables=tuple(cables))


def _check_cables(cables: list[tuple[int, Endpoint]], network: NetworkSpec, dut_kind: str,
                  source: str) -> None:
    used = {end for link in network.links for end in (link.a, link.b)}
    for port, end in cables:
        if end.node != "dut" and network.node(end.node) is None:
            raise ConfigError(f"{source}: ports: port {port}: peer {end} names no node")
        if end in used:
            raise ConfigError(f"{source}: ports: port {port}: {end} is already cabled; "
                              "give the tester port a free node port")
        used.add(end)
    if dut_kind in ("bmv2", "linux") and not any(end.node == "dut" for _p, end in cables):
        raise ConfigError(f"{source}: dut kind {dut_kind} but no tester port peer is dut:N")


def _link_mtu(value: object, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) \
            or not MIN_LINK_MTU <= value <= MAX_LINK_MTU:
        raise ConfigError(f"{where}: {value!r} is not an MTU in {MIN_LINK_MTU}..{MAX_LINK_MTU}; "
                          f"use {DEFAULT_LINK_MTU} (frames up to "
                          f"{DEFAULT_LINK_MTU + LINK_FRAME_OVERHEAD} B) or {MAX_LINK_MTU} "
                          "(jumbo frames)")
    return value


def _testers(data: Mapping[str, Any], source: str) -> tuple[TesterSwitch, ...]:
    """`testers` (several tester switches, config.testers), or () for one `switch`."""
    if "testers" not in data:
        return ()
    if "switch" in data:
        raise ConfigError(f"{source}: give one `switch` or several `testers`, not both: "
                          "move the switch under testers with a name")
    given = data["testers"]
    if not isinstance(given, Mapping) or len(given) < 2:
        raise ConfigError(f"{source}: testers: expected two or more, name -> switch "
                          "settings, e.g. {west: {target: ebpf}, east: {target: ebpf}} "
                          "(one tester: use `switch`)")
    testers = []
    for key, value in given.items():
        where = f"{source}: testers: {key}"
        name = check_tester_name(key, where)
        settings, clock, reach, ptp_uds = split_tester(value, where)
        testers.append(TesterSwitch(name, _switch(settings, where), clock, reach, ptp_uds))
    return tuple(testers)


def _asymmetry_ns(data: Mapping[str, Any], testers: tuple[TesterSwitch, ...],
                  source: str) -> float:
    if "asymmetry_us" not in data:
        return 0.0
    value = data["asymmetry_us"]
    if not testers:
        raise ConfigError(f"{source}: asymmetry_us bounds the paths between several "
                          "testers; drop it, or name the testers under `testers`")
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
        raise ConfigError(f"{source}: asymmetry_us {value!r} must be 0 or more "
                          "(microseconds)")
    return float(value) * 1000


def _switch(data: object, where: str) -> SwitchConfig:
    if not isinstance(data, Mapping):
        raise ConfigError(f"{where}: expected a mapping of switch settings")
    require_keys(data, where, required=SWITCH.required, optional=SWITCH.optional)
    config = SwitchConfig(**{k: data[k] for k in data})
    if config.target not in TARGETS:
        raise ConfigError(f"{where}: target {config.target!r} unknown; use one of {TARGETS}")
    if config.chip not in TOFINO_CHIPS:
        raise ConfigError(f"{where}: chip {config.chip!r} unknown; use one of {TOFINO_CHIPS} "
                          "(tofino1 by default; Tofino 2 boxes with the open SDE: tofino2)")
    if ":" not in str(config.grpc):
        raise ConfigError(f"{where}: grpc {config.grpc!r} must be host:port, e.g. 127.0.0.1:9559")
    return config


def _ports(data: object, where: str, several: bool = False) -> tuple[PortConfig, ...]:
    if not isinstance(data, Mapping) or not data:
        raise ConfigError(f"{where}: expected a mapping port number -> {{line_rate: ...}}")
    ports = []
    for key, value in data.items():
        if not isinstance(key, int) or not 0 <= key <= MAX_PORT:
            raise ConfigError(f"{where}: port {key!r} must be a number in 0..{MAX_PORT}")
        needs = f"{where}: port {key} needs a line_rate, e.g. {{line_rate: 10Gbps}}"
        if not isinstance(value, Mapping):
            raise ConfigError(needs)
        if "line_rate" not in value and not get_close_matches("line_rate", map(str, value)):
            raise ConfigError(needs)  # else require_keys names the typo
        require_keys(value, f"{where}: port {key}", required=PORT.required,
                     optional=(*PORT.optional, *PORT_ADDRESSES.names))
        if "tester" in value and not several:
            raise ConfigError(f"{where}: port {key}: tester names one of several `testers`; "
                              "this topology has one switch: drop it")
        ports.append(PortConfig(key, parse_line_rate(value["line_rate"], f"{where}: port {key}"),
                                str(value.get("peer", "")), str(value.get("front_panel", "")),
                                _port_addresses(value, f"{where}: port {key}"),
                                str(value.get("interface", "")), str(value.get("tester", ""))))
    return tuple(sorted(ports, key=lambda p: p.number))


ADDRESS_KEYS: Final = PORT_ADDRESSES.names
MAC_PATTERN: Final = re.compile(r"^[0-9a-fA-F]{2}(:[0-9a-fA-F]{2}){5}$")
MAX_VLAN_ID: Final = 4094


def _port_addresses(data: Mapping[str, Any], where: str) -> PortAddresses | None:
    """A port's ARP / ND addresses (None: it has none); each error names the key and
    the form it needs."""
    if not any(key in data for key in ADDRESS_KEYS):
        return None
    if "mac" not in data:
        raise ConfigError(f"{where}: addresses need the port's 'mac', the MAC the tester "
                          "answers with, e.g. mac: \"02:00:00:00:00:01\"")
    mac = str(data["mac"])
    if not MAC_PATTERN.match(mac) or int(mac[:2], 16) & 1:
        raise ConfigError(f"{where}: mac {mac!r} must be a unicast MAC such as "
                          "\"02:00:00:00:00:01\" (six hex bytes, first byte even)")
    ipv4 = _interface(data, "ipv4", ipaddress.IPv4Interface, "192.0.2.1/24", where)
    ipv6 = _interface(data, "ipv6", ipaddress.IPv6Interface, "2001:db8::1/64", where)
    if ipv4 is None and ipv6 is None:
        raise ConfigError(f"{where}: mac without ipv4 or ipv6: give the port an address, "
                          "e.g. ipv4: 192.0.2.1/24, or drop mac")
    gateway4 = _gateway(data, "gateway4", ipv4, "ipv4", where)
    gateway6 = _gateway(data, "gateway6", ipv6, "ipv6", where)
    vlan = data.get("vlan")
    if vlan is not None and (not isinstance(vlan, int) or isinstance(vlan, bool)
                             or not 1 <= vlan <= MAX_VLAN_ID):
        raise ConfigError(f"{where}: vlan {vlan!r} must be an 802.1Q VLAN id in "
                          f"1..{MAX_VLAN_ID} (drop it for an untagged port)")
    announce = data.get("announce", False)
    if not isinstance(announce, bool):
        raise ConfigError(f"{where}: announce {announce!r} must be true or false (a "
                          "gratuitous ARP / unsolicited NA for the port's addresses when a "
                          "session opens)")
    return PortAddresses(mac.lower(), str(ipv4) if ipv4 else "", str(ipv6) if ipv6 else "",
                         gateway4, gateway6, vlan, announce)


IpInterface = ipaddress.IPv4Interface | ipaddress.IPv6Interface


def _interface(data: Mapping[str, Any], key: str, kind: type[IpInterface], example: str,
               where: str) -> IpInterface | None:
    if key not in data:
        return None
    value = str(data[key])
    try:
        interface = kind(value)
    except ValueError as exc:
        raise ConfigError(f"{where}: {key} {value!r}: {exc}; write address/prefix, "
                          f"e.g. {key}: {example}") from exc
    if "/" not in value:
        raise ConfigError(f"{where}: {key} {value!r} needs its prefix length, e.g. "
                          f"{key}: {example}")
    if interface.ip == interface.network.network_address and interface.network.prefixlen < \
            interface.max_prefixlen - 1:
        raise ConfigError(f"{where}: {key} {value!r} is its subnet's network address; give "
                          f"the port a host address, e.g. {key}: {example}")
    return interface


def _gateway(data: Mapping[str, Any], key: str, own: IpInterface | None, own_key: str,
             where: str) -> str:
    if key not in data:
        return ""
    value = str(data[key])
    if own is None:
        raise ConfigError(f"{where}: {key} {value!r} needs the port's own {own_key} address "
                          "(the source of its requests); add it or drop the gateway")
    try:
        gateway = ipaddress.ip_address(value)
    except ValueError as exc:
        raise ConfigError(f"{where}: {key} {value!r} is not an address: {exc}") from exc
    if gateway.version != own.version or gateway not in own.network:
        raise ConfigError(f"{where}: {key} {value} is not in the port's subnet "
                          f"{own.network} ({own_key}); the gateway must be on the link")
    if gateway == own.ip:
        raise ConfigError(f"{where}: {key} {value} is the port's own {own_key} address; "
                          "name the DUT's address on this link")
    return str(gateway)


def _check_front_panel(ports: tuple[PortConfig, ...], targets: Mapping[int, str],
                       where: str) -> None:
    """Tofino ports need their front-panel name, once each on its switch (several
    testers each have a port 1/0); other targets' ports have none. targets: each
    port's switch's."""
    seen: dict[tuple[str, str], int] = {}
    for port in ports:
        target = targets[port.number]
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
        if (port.tester, name) in seen:
            raise ConfigError(f"{where}: ports {seen[port.tester, name]} and {port.number} "
                              f"are both front_panel {name!r}"
                              f"{f' of tester {port.tester}' if port.tester else ''}; "
                              "each front-panel port once")
        seen[port.tester, name] = port.number


def _check_interfaces(ports: tuple[PortConfig, ...], targets: Mapping[int, str],
                      hosts: Mapping[int, str], where: str) -> None:
    """An eBPF tester's ports are host interfaces, once each on a host; other targets
    name none. targets: each port's switch's; hosts: the agent of its tester's host
    ('' for the controller's)."""
    seen: dict[tuple[str, str], int] = {}
    for port in ports:
        target = targets[port.number]
        name = port.interface
        if not name:
            continue
        if target != "ebpf":
            raise ConfigError(f"{where}: port {port.number}: interface is for target ebpf "
                              f"(this switch is {target}); drop it")
        if not INTERFACE_PATTERN.match(name):
            raise ConfigError(f"{where}: port {port.number}: interface {name!r} is not a "
                              "Linux interface name (1-15 characters, no '/', ':' or spaces)")
        host = hosts[port.number]
        if (host, name) in seen:
            raise ConfigError(f"{where}: ports {seen[host, name]} and {port.number} are both "
                              f"interface {name!r}"
                              f"{f' on the host of agent {host}' if host else ''}; "
                              "each interface once")
        seen[host, name] = port.number


def parse_line_rate(value: object, where: str) -> float:
    """A port line rate: a bit rate such as '100Gbps' or '10Mbps' (L1)."""
    try:
        rate = Rate.parse(str(value))
    except RateError as exc:
        raise ConfigError(f"{where}: line_rate {value!r}: {exc}") from exc
    if rate.unit not in (RateUnit.L1_BPS,):
        raise ConfigError(f"{where}: line_rate {value!r} must be a bit rate such as 10Gbps")
    return rate.value


NEIGHBOURS_MODES: Final = ("static", "dynamic")


def _check_neighbours(dut: DutConfig, lab: str, where: str) -> None:
    """A linux DUT's `neighbours` (lab.linux_dut): static or dynamic, dynamic on a
    veth lab only (the Mininet router has static neighbours)."""
    mode = dict(dut.settings).get("neighbours")
    if mode is None:
        return
    if dut.kind != "linux":
        raise ConfigError(f"{where}: neighbours is a setting of kind linux (this DUT is "
                          f"{dut.kind}); drop it")
    if mode not in NEIGHBOURS_MODES:
        raise ConfigError(f"{where}: neighbours {mode!r} unknown; use one of "
                          f"{NEIGHBOURS_MODES}")
    if mode == "dynamic" and lab != "veth":
        raise ConfigError(f"{where}: neighbours: dynamic runs on lab: veth only (lab: {lab} "
                          "builds its router with static neighbours); drop one of them")


def _check_ecmp(topology: Topology, lab: str, where: str) -> None:
    """A linux DUT's `ecmp` paths (lab.linux_ecmp): DUT ports cabled to tester ports, on
    a veth lab's router with static neighbours; a `qdisc` then shapes one of them."""
    settings = dict(topology.dut.settings)
    if "ecmp_hash" in settings and "ecmp" not in settings:
        raise ConfigError(f"{where}: ecmp_hash says what an ecmp route hashes; give ecmp "
                          "too, or drop it")
    if settings.get("ecmp_hash", "l4") not in ECMP_HASHES:
        raise ConfigError(f"{where}: ecmp_hash {settings['ecmp_hash']!r}: give l4 (addresses, "
                          "protocol and ports) or l3 (addresses)")
    if "ecmp" not in settings:
        return
    if topology.dut.kind != "linux" or lab != "veth":
        raise ConfigError(f"{where}: ecmp is a setting of kind linux on lab: veth; drop it")
    if settings.get("neighbours", "static") != "static":
        raise ConfigError(f"{where}: ecmp builds its paths with static neighbours; drop "
                          "neighbours: dynamic or ecmp")
    paths = ecmp_paths(settings["ecmp"], where)
    cabled = list(topology.cabled_dut_ports)
    for port, _weight in paths:
        if port not in cabled:
            raise ConfigError(f"{where}: ecmp: port {port} is not cabled to a tester port "
                              f"(DUT ports cabled: {cabled}); cable it (peer: dut:{port})")
    egress = settings.get("egress", "2")
    if "qdisc" in settings and not any(str(port) == egress for port, _ in paths):
        raise ConfigError(f"{where}: qdisc shapes egress {egress}, which is not one of the "
                          "ecmp paths; set egress to the path it shapes")


def _check_bridge(topology: Topology, lab: str, where: str) -> None:
    """A bridge DUT (lab.bridge_dut) joins the DUT ports tester ports are cabled to: it
    needs two of them, and a veth lab (Mininet has switches of its own)."""
    if topology.dut.kind != "bridge":
        return
    if lab != "veth":
        raise ConfigError(f"{where}: kind bridge runs on lab: veth (in a Mininet lab, name a "
                          "switch node of the network instead)")
    cabled = list(topology.cabled_dut_ports)
    if len(cabled) < 2:
        raise ConfigError(f"{where}: kind bridge needs two tester ports cabled to it (peer "
                          f"dut:N), not {len(cabled)}: cable another port to the DUT")
    egress = dict(topology.dut.settings).get("egress", "2")
    if not egress.isdigit() or int(egress) not in cabled:
        raise ConfigError(f"{where}: egress {egress} is not a port of the bridge (DUT ports "
                          f"cabled: {cabled}): name one of them, the port its qdisc shapes")
    for key, what in (("fdb_max_learned", "a whole number of addresses, e.g. 100"),
                      ("ageing_s", "seconds, e.g. 3")):
        value = dict(topology.dut.settings).get(key)
        if value is not None and not _positive_number(value, whole=key == "fdb_max_learned"):
            raise ConfigError(f"{where}: {key} {value!r} is not {what}")
    for key, value in topology.dut.settings:
        # Per-port qdiscs: the egress qdisc_N, the input FIFO input_queue_N (lab.bridge_dut).
        prefix = next((p for p in BRIDGE_PORT_SETTINGS if key.startswith(p)), None)
        if prefix is None:
            continue
        port = key.removeprefix(prefix)
        if not port.isdigit() or int(port) not in cabled:
            raise ConfigError(f"{where}: {key}: {port!r} is not a port of the bridge (DUT "
                              f"ports cabled: {cabled}); name one, e.g. {prefix}{cabled[0]}")
        if not value.split():
            raise ConfigError(f"{where}: {key} is empty; give a tc qdisc, e.g. "
                              "\"tbf rate 2mbit burst 3000 limit 6000\"")


def _positive_number(text: str, whole: bool) -> bool:
    try:
        number = int(text) if whole else float(text)
    except ValueError:
        return False
    return number > 0


def _dut(data: object, where: str) -> DutConfig:
    if not isinstance(data, Mapping) or "kind" not in data:
        raise ConfigError(f"{where}: expected {{kind: {'|'.join(DUT_KINDS)}, ...}}")
    kind = str(data["kind"])
    if kind not in DUT_KINDS:
        raise ConfigError(f"{where}: kind {kind!r} unknown; use one of {DUT_KINDS}")
    settings = tuple(sorted((str(k), str(v)) for k, v in data.items() if k != "kind"))
    return DutConfig(kind, settings)
