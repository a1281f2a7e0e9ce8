"""An OTG Config (the JSON snappi posts to /config) mapped onto tester streams.

Ports are tester ports by number (`location` "1" is topology port 1); each flow
becomes one stream (stream id = the flow's position) with its own rate, frame
size and packet budget. What the tester cannot do is refused with a validation
error naming the field: nothing is approximated.
"""

from __future__ import annotations

import ipaddress
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from itertools import dropwhile, takewhile
from typing import Any, Final

from p4tester.config.errors import ConfigError
from p4tester.config.profile import StreamConfig
from p4tester.config.topology import Topology
from p4tester.dataplane.constants import MAX_STREAMS
from p4tester.streams.addresses import StreamAddresses
from p4tester.streams.frame_sizes import FrameSizeError, check_frame_size
from p4tester.streams.rates import l1_frame_bits, line_rate_pps
from p4tester.streams.tunnels import (
    GTPU_UDP_PORT,
    TUNNEL_UDP_SRC_PORT,
    VXLAN_UDP_PORT,
    GtpU,
    TunnelError,
    Vxlan,
)
from p4tester.streams.variation import FieldVariation, VariationError

from .errors import OtgError, validation
from .patterns import collect, field_choice, fixed_value, int_values, reject_extra

# OTG defaults (models): a flow without rate / size / duration sends 1000 frames/s
# of 64 B continuously.
DEFAULT_PPS: Final = 1000
DEFAULT_SIZE: Final = 64
MAX_BUDGET: Final = 2**32 - 1  # the generator's packet budget register
TOP_LEVEL: Final = ("ports", "layer1", "captures", "flows", "options")
FLOW_KEYS: Final = ("name", "tx_rx", "packet", "size", "rate", "duration", "metrics")
_MAC: Final = re.compile(r"^[0-9a-fA-F]{2}(:[0-9a-fA-F]{2}){5}$")
@dataclass(frozen=True, slots=True)
class MappedPort:
    name: str
    location: str
    number: int  # tester port in the topology


@dataclass(frozen=True, slots=True)
class MappedFlow:
    """One OTG flow as one tester stream. budget None: continuous (until stopped)."""

    name: str
    tx_port: str  # OTG port names
    rx_port: str
    stream: StreamConfig
    frame_size: int
    rate_pps: int
    budget: int | None
    latency: bool

    @property
    def stream_id(self) -> int:
        return self.stream.id


@dataclass(frozen=True, slots=True)
class MappedConfig:
    ports: tuple[MappedPort, ...]
    flows: tuple[MappedFlow, ...]
    warnings: tuple[str, ...]
    capture_ports: tuple[str, ...] = ()  # port names a `captures` entry names

    def port(self, name: str) -> MappedPort:
        return next(p for p in self.ports if p.name == name)

    def flow(self, name: str) -> MappedFlow:
        return next(f for f in self.flows if f.name == name)


def map_config(data: object, topology: Topology) -> MappedConfig:
    """The whole config, or an OtgError listing every field refused."""
    if not isinstance(data, Mapping):
        raise validation("config: expected a JSON object")
    errors: list[str] = []
    warnings: list[str] = []
    for key in sorted(k for k in data if k not in TOP_LEVEL):
        errors.append(f"{key}: not supported by the tester (it supports {', '.join(TOP_LEVEL)})")
    ports = _ports(data.get("ports", []), topology, errors)
    _layer1(data.get("layer1", []), ports, topology, errors, warnings)
    capture_ports = _captures(data.get("captures", []), ports, errors)
    flows: list[MappedFlow] = []
    raw_flows = data.get("flows", [])
    if not isinstance(raw_flows, list):
        errors.append("flows: expected a list")
        raw_flows = []
    if len(raw_flows) > MAX_STREAMS:
        errors.append(f"flows: {len(raw_flows)} flows; the tester runs at most {MAX_STREAMS}")
    for index, raw in enumerate(raw_flows[:MAX_STREAMS]):
        try:
            flow, flow_warnings = _flow(raw, index, ports, topology)
        except OtgError as exc:
            collect(errors, exc)
            continue
        flows.append(flow)
        warnings.extend(flow_warnings)
    _unique([f.name for f in flows], "flows", errors)
    if not errors:
        _check_line_rates(flows, ports, topology, errors)
    if errors:
        raise validation(*errors)
    return MappedConfig(tuple(ports), tuple(flows), tuple(warnings), capture_ports)


def _unique(names: list[str], where: str, errors: list[str]) -> None:
    seen: set[str] = set()
    for name in names:
        if name in seen:
            errors.append(f"{where}: name {name!r} is used more than once")
        seen.add(name)


def _ports(data: object, topology: Topology, errors: list[str]) -> list[MappedPort]:
    if not isinstance(data, list):
        errors.append("ports: expected a list")
        return []
    numbers = [p.number for p in topology.ports]
    accepted = ", ".join(f'"{n}"' for n in numbers)
    ports = []
    for index, raw in enumerate(data):
        where = f"ports[{index}]"
        if not isinstance(raw, Mapping) or not isinstance(raw.get("name"), str):
            errors.append(f"{where}: expected {{name, location}}")
            continue
        location = raw.get("location")
        text = str(location) if location is not None else ""
        if not text.isdigit() or int(text) not in numbers:
            errors.append(f"{where}.location {location!r}: give a tester port number as in "
                          f"the topology {topology.name!r} ({accepted})")
            continue
        ports.append(MappedPort(raw["name"], text, int(text)))
    _unique([p.name for p in ports], "ports", errors)
    _unique([p.location for p in ports], "ports location", errors)
    return ports


def _layer1(data: object, ports: list[MappedPort], topology: Topology, errors: list[str],
            warnings: list[str]) -> None:
    """Speeds are the topology's: a layer1 speed is noted, not applied."""
    if not isinstance(data, list):
        errors.append("layer1: expected a list")
        return
    names = {p.name: p for p in ports}
    for index, raw in enumerate(data):
        where = f"layer1[{index}]"
        if not isinstance(raw, Mapping):
            errors.append(f"{where}: expected an object")
            continue
        for name in raw.get("port_names", []):
            if name not in names:
                errors.append(f"{where}.port_names: no port named {name!r}")
            elif "speed" in raw:
                bps = topology.port(names[name].number).line_rate_bps
                warnings.append(f"{where}.speed {raw['speed']}: port {name!r} runs at the "
                                f"topology's line rate, {bps:g} bit/s")
        for key in ("auto_negotiate", "ieee_media_defaults", "auto_negotiation", "media",
                    "flow_control"):
            if key in raw:
                errors.append(f"{where}.{key}: not supported by the tester")


def _captures(data: object, ports: list[MappedPort], errors: list[str]) -> tuple[str, ...]:
    """Whole received frames in pcap, no filters: the ports they name."""
    if not isinstance(data, list):
        errors.append("captures: expected a list")
        return ()
    known = {p.name for p in ports}
    names: list[str] = []
    for index, raw in enumerate(data):
        where = f"captures[{index}]"
        if not isinstance(raw, Mapping):
            errors.append(f"{where}: expected an object")
            continue
        for key in sorted(raw):
            if key not in ("name", "port_names", "format", "overwrite", "filters"):
                errors.append(f"{where}.{key}: not supported by the tester")
        if raw.get("format", "pcap") != "pcap":
            errors.append(f"{where}.format {raw.get('format')!r}: the tester writes pcap")
        if raw.get("filters"):
            errors.append(f"{where}.filters: capture filters are not supported; the tester "
                          "captures every frame the port receives")
        for name in raw.get("port_names") or []:
            if name not in known:
                errors.append(f"{where}.port_names: no port named {name!r}")
            elif name in names:
                errors.append(f"{where}.port_names: port {name!r} is in two captures")
            else:
                names.append(name)
    return tuple(names)


def _flow(raw: object, index: int, ports: list[MappedPort], topology: Topology,
          ) -> tuple[MappedFlow, list[str]]:
    where = f"flows[{index}]"
    if not isinstance(raw, Mapping) or not isinstance(raw.get("name"), str):
        raise validation(f"{where}: expected a flow with a name")
    errors: list[str] = []
    warnings: list[str] = []
    try:
        reject_extra(raw, FLOW_KEYS, where)
    except OtgError as exc:
        collect(errors, exc)
    tx, rx = _tx_rx(raw.get("tx_rx"), f"{where}.tx_rx", ports, topology, errors)
    headers = _headers(raw.get("packet"), f"{where}.packet", errors)
    size = _size(raw.get("size"), f"{where}.size", errors)
    latency = _metrics(raw.get("metrics"), f"{where}.metrics", errors)
    if errors or tx is None or rx is None or headers is None or size is None:
        raise validation(*errors)
    fields = dict(headers)
    fields.update(id=index, tx_port=tx.number, rx_port=rx.number, frame_size=size)
    try:
        stream = StreamConfig(**fields)
        check_frame_size(size, stream.encapsulation)
    except FrameSizeError as exc:
        raise validation(f"{where}.size.fixed: {exc}") from exc
    except (TypeError, ValueError, ConfigError) as exc:
        raise validation(f"{where}.packet: {exc}") from exc
    try:
        stream.port_pairs  # noqa: B018 - checks the pairs fit the data plane's table
    except VariationError as exc:
        raise validation(f"{where}.packet: {exc}") from exc
    line_bps = topology.port(tx.number).line_rate_bps
    pps = _rate(raw.get("rate"), f"{where}.rate", size, line_bps, warnings)
    budget = _duration(raw.get("duration"), f"{where}.duration", pps)
    return MappedFlow(raw["name"], tx.name, rx.name, stream, size, pps, budget, latency), warnings


def _tx_rx(data: object, where: str, ports: list[MappedPort], topology: Topology,
           errors: list[str]) -> tuple[MappedPort | None, MappedPort | None]:
    if not isinstance(data, Mapping) or field_choice(data, where) != "port" \
            or not isinstance(data.get("port"), Mapping):
        errors.append(f"{where}: give tx_rx.port (device flows need protocol emulation, "
                      "which the tester does not have)")
        return None, None
    port = data["port"]
    names = {p.name: p for p in ports}
    tx = names.get(str(port.get("tx_name")))
    if tx is None:
        errors.append(f"{where}.port.tx_name: no port named {port.get('tx_name')!r}")
        return None, None
    rx_names = port.get("rx_names") or []
    if not isinstance(rx_names, list):
        errors.append(f"{where}.port.rx_names: expected a list of port names")
        return tx, None
    if not rx_names:
        peer = topology.port(tx.number).peer
        found = next((p for p in ports if str(p.number) == str(peer)), None)
        if found is None:
            errors.append(f"{where}.port.rx_names: empty, and port {tx.name!r} has no peer "
                          "among the config's ports: name the receiving port")
        return tx, found
    if len(rx_names) != 1:
        errors.append(f"{where}.port.rx_names: {rx_names}: the tester checks a flow on one "
                      "receiving port; give exactly one")
        return tx, None
    rx = names.get(str(rx_names[0]))
    if rx is None:
        errors.append(f"{where}.port.rx_names[0]: no port named {rx_names[0]!r}")
    return tx, rx


HEADER_ORDER: Final = ("ethernet, up to 2 vlan (QinQ: 802.1ad outside 802.1Q), up to 4 "
                       "mpls, optionally a tunnel (VxLAN: ipv4 or ipv6, udp, vxlan, "
                       "ethernet; GTP-U: ipv4 or ipv6, udp, gtpv1), ipv4 or ipv6, then udp "
                       "or tcp")
_IPS: Final = ("ipv4", "ipv6")
# The headers of each tunnel after its outer IP.
_TUNNELS: Final = {"vxlan": ["udp", "vxlan", "ethernet"], "gtpv1": ["udp", "gtpv1"]}
TPID_8021Q: Final = 0x8100
TPID_8021AD: Final = 0x88A8
MAX_TAGS: Final = 2
MAX_LABELS: Final = 4


def _tunnel_at(shape: list[str]) -> tuple[int, str] | None:
    """Where a tunnel's outer IP is in a well-formed header list, and which tunnel
    (None: no tunnel); raises ValueError for a list the tester cannot send."""
    if len(shape) < 3 or shape[0] != "ethernet" or shape[-1] not in ("udp", "tcp") \
            or shape[-2] not in _IPS:
        raise ValueError(shape)
    middle = shape[1:-2]
    tags = len(middle) - len(list(dropwhile(lambda k: k == "vlan", middle)))
    labels = len(list(takewhile(lambda k: k == "mpls", middle[tags:])))
    rest = middle[tags + labels:]
    if tags > MAX_TAGS or labels > MAX_LABELS:
        raise ValueError(shape)
    if not rest:
        return None
    for kind, after_ip in _TUNNELS.items():
        if rest[0] in _IPS and rest[1:] == after_ip:
            return 1 + tags + labels, kind
    raise ValueError(shape)


def _headers(data: object, where: str, errors: list[str]) -> dict[str, Any] | None:
    """The flow's headers -> StreamConfig keyword arguments."""
    if not isinstance(data, list) or not data:
        errors.append(f"{where}: give the headers: {HEADER_ORDER}")
        return None
    shape = [field_choice(header, f"{where}[{i}]") or "?" for i, header in enumerate(data)]
    try:
        tunnel_at = _tunnel_at(shape)
    except ValueError:
        errors.append(f"{where}: headers {shape}: the tester sends {HEADER_ORDER} (its own "
                      "header follows as payload); other headers are not supported yet")
        return None
    tunnel = range(0)
    if tunnel_at is not None:
        tunnel = range(tunnel_at[0], tunnel_at[0] + 1 + len(_TUNNELS[tunnel_at[1]]))
    tunnel_fields: dict[str, Any] = {}
    address: dict[str, Any] = {}
    fields: dict[str, Any] = {}
    tags = shape.count("vlan")
    labels: list[int] = []
    before = len(errors)
    for position, kind in enumerate(shape):
        here = f"{where}[{position}].{kind}"
        header = data[position].get(kind) or {}
        if not isinstance(header, Mapping):
            errors.append(f"{here}: expected an object")
            continue
        try:
            if position in tunnel:
                assert tunnel_at is not None
                _tunnel_part(kind, header, here, tunnel_fields, tunnel_at[1])
            elif kind == "ethernet":
                _ethernet(header, here, address)
            elif kind == "vlan":
                outer = tags == MAX_TAGS and position == 1
                vlan_id = _vlan(header, here, TPID_8021AD if outer else TPID_8021Q)
                fields["outer_vlan_id" if outer else "vlan_id"] = vlan_id
            elif kind == "mpls":
                labels.append(_mpls(header, here))
            elif kind == "ipv4":
                _ipv4(header, here, address)
            elif kind == "ipv6":
                _ipv6(header, here, address)
                fields["ipv6"] = True
            else:
                _l4(kind, header, here, address, fields)
        except OtgError as exc:
            collect(errors, exc)
    if len(errors) != before:
        return None
    if labels:
        fields["mpls_labels"] = tuple(labels)
    if tunnel_at is not None:
        try:
            fields["tunnel"] = (Vxlan if tunnel_at[1] == "vxlan" else GtpU)(**tunnel_fields)
        except (TypeError, TunnelError) as exc:
            errors.append(f"{where}[{tunnel_at[0]}]: {exc}")
            return None
    if address:
        fields["addresses"] = StreamAddresses(**address)
    return fields


def _tunnel_part(kind: str, header: Mapping[str, Any], where: str, tunnel: dict[str, Any],
                 tunnel_kind: str) -> None:
    """A tunnel's outer IP (src, dst), UDP (the tester's fixed source port to the
    tunnel's port), and VxLAN (vni) with its inner Ethernet (src, dst), or the
    GTP-U header (teid)."""
    if kind in _IPS:
        reject_extra(header, ("src", "dst"), where)
        for key in ("src", "dst"):
            value = fixed_value(header.get(key), f"{where}.{key}")
            if value is None:
                raise validation(f"{where}.{key}: give the tunnel's outer address")
            tunnel[f"{key}_ip"] = _ip(value, f"{where}.{key}", 4 if kind == "ipv4" else 6)
    elif kind == "udp":
        reject_extra(header, ("src_port", "dst_port"), where)
        dst = VXLAN_UDP_PORT if tunnel_kind == "vxlan" else GTPU_UDP_PORT
        for key, port in (("src_port", TUNNEL_UDP_SRC_PORT), ("dst_port", dst)):
            value = int_values(header.get(key), f"{where}.{key}", 16)
            if value is not None and value != (port,):
                shown = value[0] if len(value) == 1 else value
                raise validation(f"{where}.{key}: {shown}: the tester's {tunnel_kind} frames "
                                 f"carry {port}; leave it unset")
    elif kind == "vxlan":
        reject_extra(header, ("vni", "flags", "reserved0", "reserved1"), where)
        _unset(header, ("flags", "reserved0", "reserved1"), where)
        vni = fixed_value(header.get("vni"), f"{where}.vni")
        tunnel["vni"] = int(vni) if vni is not None else 0
    elif kind == "gtpv1":
        reject_extra(header, ("teid", *_GTP_TESTER_FIELDS), where)
        _unset(header, _GTP_TESTER_FIELDS, where)
        teid = fixed_value(header.get("teid"), f"{where}.teid")
        tunnel["teid"] = int(teid) if teid is not None else 0
    else:
        reject_extra(header, ("src", "dst"), where)
        for key in ("src", "dst"):
            value = fixed_value(header.get(key), f"{where}.{key}")
            if value is not None:
                if not isinstance(value, str) or not _MAC.match(value):
                    raise validation(f"{where}.{key}: {value!r} is not a MAC address")
                tunnel[f"inner_{key}_mac"] = value.lower()


_GTP_TESTER_FIELDS: Final = ("version", "protocol_type", "reserved", "e_flag", "s_flag",
                             "pn_flag", "message_type", "message_length", "squence_number",
                             "n_pdu_number", "next_extension_header_type",
                             "extension_headers")


def _unset(header: Mapping[str, Any], keys: tuple[str, ...], where: str) -> None:
    for key in keys:
        value = header.get(key)
        if value not in (None, [], {}) and (not isinstance(value, Mapping)
                                            or field_choice(value, f"{where}.{key}")
                                            not in (None, "auto")):
            raise validation(f"{where}.{key}: the tester sets it; leave it unset")


def _vlan(header: Mapping[str, Any], where: str, tpid: int) -> int:
    """The tag's id (OTG default 1); the tester sends priority and DEI 0 and the
    TPID of the tag's place (802.1ad outside, 802.1Q inside)."""
    reject_extra(header, ("id", "tpid", "priority", "cfi"), where)
    given = fixed_value(header.get("tpid"), f"{where}.tpid")
    if given is not None and int(given) != tpid:
        raise validation(f"{where}.tpid: {given}: the tester sends {tpid:#06x} in this tag")
    for key in ("priority", "cfi"):
        if fixed_value(header.get(key), f"{where}.{key}") not in (None, 0):
            raise validation(f"{where}.{key}: the tester sends 0")
    vlan_id = fixed_value(header.get("id"), f"{where}.id")
    return int(vlan_id) if vlan_id is not None else 1


def _mpls(header: Mapping[str, Any], where: str) -> int:
    """A label (OTG default 16); traffic class, bottom of stack and TTL are the
    tester's."""
    reject_extra(header, ("label", "traffic_class", "bottom_of_stack", "time_to_live"), where)
    for key in ("traffic_class", "bottom_of_stack", "time_to_live"):
        if fixed_value(header.get(key), f"{where}.{key}") is not None:
            raise validation(f"{where}.{key}: the tester sets it; leave it unset")
    label = fixed_value(header.get("label"), f"{where}.label")
    return int(label) if label is not None else 16


def _ethernet(header: Mapping[str, Any], where: str, address: dict[str, Any]) -> None:
    reject_extra(header, ("src", "dst", "ether_type"), where)
    for key in ("src", "dst"):
        value = fixed_value(header.get(key), f"{where}.{key}")
        if value is None:
            continue
        if not isinstance(value, str) or not _MAC.match(value):
            raise validation(f"{where}.{key}: {value!r} is not a MAC address")
        address[f"{key}_mac"] = value.lower()
    if fixed_value(header.get("ether_type"), f"{where}.ether_type") is not None:
        raise validation(f"{where}.ether_type: the tester sets it from the next header; "
                         "leave it auto")


def _ip(value: object, where: str, version: int) -> str:
    try:
        address = ipaddress.ip_address(str(value))
    except ValueError as exc:
        raise validation(f"{where}: {value!r} is not an IPv{version} address") from exc
    if address.version != version:
        raise validation(f"{where}: {value!r} is not an IPv{version} address")
    return str(address)


def _ipv4(header: Mapping[str, Any], where: str, address: dict[str, Any]) -> None:
    reject_extra(header, ("src", "dst", "time_to_live", "priority"), where)
    for key in ("src", "dst"):
        value = fixed_value(header.get(key), f"{where}.{key}")
        if value is not None:
            address[f"{key}_ip"] = _ip(value, f"{where}.{key}", 4)
    priority = header.get("priority")
    if priority is not None:
        _dscp(priority, f"{where}.priority", address)
    ttl = fixed_value(header.get("time_to_live"), f"{where}.time_to_live")
    if ttl is not None:
        address["ttl"] = int(ttl)


def _ipv6(header: Mapping[str, Any], where: str, address: dict[str, Any]) -> None:
    reject_extra(header, ("src", "dst", "hop_limit", "traffic_class", "flow_label"), where)
    traffic_class = fixed_value(header.get("traffic_class"), f"{where}.traffic_class")
    if traffic_class is not None:
        if int(traffic_class) & ECN_MASK or not 0 <= int(traffic_class) <= 0xFF:
            raise validation(f"{where}.traffic_class: {traffic_class}: the tester sets DSCP "
                             "(the upper 6 bits) and ECN 0")
        address["dscp"] = int(traffic_class) >> 2
    flow_label = fixed_value(header.get("flow_label"), f"{where}.flow_label")
    if flow_label is not None:
        address["flow_label"] = int(flow_label)
    for key in ("src", "dst"):
        value = fixed_value(header.get(key), f"{where}.{key}")
        if value is not None:
            address[f"{key}_ip6"] = _ip(value, f"{where}.{key}", 6)
    hops = fixed_value(header.get("hop_limit"), f"{where}.hop_limit")
    if hops is not None:
        address["ttl"] = int(hops)


ECN_MASK: Final = 0x3


def _dscp(priority: object, where: str, address: dict[str, Any]) -> None:
    """ipv4 priority: dscp.phb (ECN 0), or a raw TOS byte whose ECN bits are 0."""
    choice = field_choice(priority, where)
    if choice is None or not isinstance(priority, Mapping):
        return
    body = priority.get(choice) or {}
    if choice == "dscp" and isinstance(body, Mapping):
        if fixed_value(body.get("ecn"), f"{where}.dscp.ecn") not in (None, 0):
            raise validation(f"{where}.dscp.ecn: the tester sends ECN 0")
        phb = fixed_value(body.get("phb"), f"{where}.dscp.phb")
        if phb is not None:
            address["dscp"] = int(phb)
    elif choice == "raw":
        tos = fixed_value(body, f"{where}.raw")
        if tos is not None:
            if int(tos) & ECN_MASK:
                raise validation(f"{where}.raw: {tos}: the tester sends ECN 0")
            address["dscp"] = int(tos) >> 2
    else:
        raise validation(f"{where}: choice {choice!r} is not supported (use dscp or raw)")


def _l4(kind: str, header: Mapping[str, Any], where: str, address: dict[str, Any],
        fields: dict[str, Any]) -> None:
    """UDP or TCP source and destination ports: one value each, or lists frame i
    takes values[i mod len] from (the data plane's per-stream port pairs)."""
    reject_extra(header, ("src_port", "dst_port"), where)
    fields["l4"] = kind
    variations = []
    for key in ("src_port", "dst_port"):
        values = int_values(header.get(key), f"{where}.{key}", 16)
        if values is None:
            continue
        if len(values) > 1:
            try:
                variations.append(FieldVariation(field=key, values=values))
            except VariationError as exc:
                raise validation(f"{where}.{key}: {exc}") from exc
        address["udp_src_port" if key == "src_port" else "l4_dst_port"] = values[0]
    if variations:
        fields["vary"] = tuple(variations)


def _size(data: object, where: str, errors: list[str]) -> int | None:
    choice = field_choice(data, where)
    if choice is None:
        return DEFAULT_SIZE
    assert isinstance(data, Mapping)
    if choice != "fixed":
        errors.append(f"{where}: {choice!r} sizes are not supported yet; give size.fixed")
        return None
    size = data.get("fixed", DEFAULT_SIZE)
    if isinstance(size, bool) or not isinstance(size, int):
        errors.append(f"{where}.fixed: expected an integer, got {size!r}")
        return None
    return size


def _metrics(data: object, where: str, errors: list[str]) -> bool:
    """Whether latency is asked for; loss and counters are always measured."""
    if data is None:
        return False
    if not isinstance(data, Mapping):
        errors.append(f"{where}: expected an object")
        return False
    for key in sorted(data):
        if key not in ("enable", "loss", "latency", "timestamps", "predefined_metric_tags"):
            errors.append(f"{where}.{key}: not supported by the tester")
    if data.get("timestamps"):
        errors.append(f"{where}.timestamps: first/last frame timestamps are not measured "
                      "by the tester yet; set it false")
    tags = data.get("predefined_metric_tags")
    if isinstance(tags, Mapping) and any(tags.values()):
        errors.append(f"{where}.predefined_metric_tags: tagged metrics are not supported")
    latency = data.get("latency")
    return isinstance(latency, Mapping) and bool(latency.get("enable"))


def _number(value: object, where: str) -> float:
    try:
        number = float(str(value))
    except ValueError as exc:
        raise validation(f"{where}: expected a number, got {value!r}") from exc
    if not math.isfinite(number) or number <= 0:
        raise validation(f"{where}: {value!r} must be positive")
    return number


_BPS_SCALE: Final = {"bps": 1.0, "kbps": 1e3, "mbps": 1e6, "gbps": 1e9}


def _rate(data: object, where: str, size: int, line_bps: float, warnings: list[str]) -> int:
    """Whole frames per second (what BMv2's pacer sets). pps as given; bps and
    percentage of the topology's line rate are L1 (frame + 20 B preamble and gap),
    as line rate is, rounded to whole frames/s with a warning when not whole."""
    choice = field_choice(data, where)
    if choice is None:
        return DEFAULT_PPS
    assert isinstance(data, Mapping)
    if choice == "pps":
        value = _number(data.get("pps", DEFAULT_PPS), f"{where}.pps")
        if value != int(value):
            raise validation(f"{where}.pps: {value} is not a whole number of frames/s")
        return int(value)
    if choice in _BPS_SCALE:
        pps = _number(data.get(choice), f"{where}.{choice}") * _BPS_SCALE[choice] \
            / l1_frame_bits(size)
    elif choice == "percentage":
        percent = _number(data.get("percentage"), f"{where}.percentage")
        if percent > 100:
            raise validation(f"{where}.percentage: {percent} is above 100")
        pps = percent / 100 * line_rate_pps(line_bps, size)
    else:
        raise validation(f"{where}: rate choice {choice!r} is not supported")
    whole = max(1, round(pps))
    if abs(whole - pps) > 1e-9:
        warnings.append(f"{where}: {pps:.3f} frames/s is sent as {whole} frames/s (the "
                        "tester paces whole frames per second)")
    return whole


def _duration(data: object, where: str, pps: int) -> int | None:
    """fixed_packets -> that budget; fixed_seconds -> rate x seconds frames;
    continuous -> None (runs until stopped)."""
    choice = field_choice(data, where)
    if choice is None or choice == "continuous":
        if isinstance(data, Mapping):
            _no_delay(data.get("continuous"), f"{where}.continuous")
        return None
    assert isinstance(data, Mapping)
    body = data.get(choice)
    if not isinstance(body, Mapping):
        body = {}
    if choice == "fixed_packets":
        _no_delay(body, f"{where}.fixed_packets")
        packets = body.get("packets", 1)
        if isinstance(packets, bool) or not isinstance(packets, int) \
                or not 0 < packets <= MAX_BUDGET:
            raise validation(f"{where}.fixed_packets.packets: {packets!r} must be in "
                             f"1..{MAX_BUDGET}")
        return packets
    if choice == "fixed_seconds":
        _no_delay(body, f"{where}.fixed_seconds")
        seconds = _number(body.get("seconds", 1), f"{where}.fixed_seconds.seconds")
        frames = round(seconds * pps)
        if not 0 < frames <= MAX_BUDGET or abs(frames - seconds * pps) > 1e-6:
            raise validation(f"{where}.fixed_seconds.seconds: {seconds:g} s at {pps} frames/s "
                             "is not a whole number of frames (the tester sends an exact "
                             "budget); choose seconds x rate whole")
        return frames
    raise validation(f"{where}: {choice!r} durations are not supported yet (use fixed_packets, "
                     "fixed_seconds or continuous)")


def _no_delay(body: object, where: str) -> None:
    """A start delay is refused; the inter-frame gap follows from the rate."""
    if not isinstance(body, Mapping):
        return
    delay = body.get("delay")
    if isinstance(delay, Mapping):
        choice = field_choice(delay, f"{where}.delay")
        if choice is not None and float(delay.get(choice, 0) or 0) != 0:
            raise validation(f"{where}.delay: a start delay is not supported; leave it 0")


def _check_line_rates(flows: list[MappedFlow], ports: list[MappedPort], topology: Topology,
                      errors: list[str]) -> None:
    """The flows of one TX port must fit its line rate together."""
    load: dict[str, float] = {}
    for flow in flows:
        bps = topology.port(next(p for p in ports if p.name == flow.tx_port).number).line_rate_bps
        load[flow.tx_port] = load.get(flow.tx_port, 0.0) + \
            flow.rate_pps / line_rate_pps(bps, flow.frame_size)
    for name, fraction in load.items():
        if fraction > 1 + 1e-9:
            errors.append(f"flows: the flows from port {name!r} offer {fraction:.1%} of its "
                          "line rate; lower their rates")
