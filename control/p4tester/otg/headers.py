"""An OTG flow's packet headers onto a tester stream's encapsulation, addresses,
L4 ports and port variation (the StreamConfig keyword arguments).

The tester sends ethernet, up to two VLAN tags, up to four MPLS labels, an
optional VxLAN or GTP-U tunnel, IPv4 or IPv6, then UDP or TCP with its own header
as payload (docs/encapsulations.md). Every field it cannot set as asked is refused
naming the field.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Callable, Mapping
from itertools import dropwhile, takewhile
from typing import Any, Final

from p4tester.streams.addresses import StreamAddresses
from p4tester.streams.field_patterns import FieldPattern, Listed
from p4tester.streams.tunnels import (
    GTPU_UDP_PORT,
    VXLAN_UDP_PORT,
    GtpU,
    TunnelError,
    Vxlan,
)
from p4tester.streams.variation import FieldVariation, VariationError, mac_text

from .errors import OtgError, validation
from .field_patterns import as_pattern, read_field, read_raw
from .patterns import (
    collect,
    field_choice,
    fixed_value,
    int_values,
    mac_values,
    reject_extra,
)

_MAC: Final = re.compile(r"^[0-9a-fA-F]{2}(:[0-9a-fA-F]{2}){5}$")


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


def packet_fields(data: object, where: str, errors: list[str]) -> dict[str, Any] | None:
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
    variations: list[FieldVariation | FieldPattern] = []
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
                _tunnel_part(kind, header, here, tunnel_fields, tunnel_at[1], variations)
            elif kind == "ethernet":
                _ethernet(header, here, address, variations)
            elif kind == "vlan":
                outer = tags == MAX_TAGS and position == 1
                vlan_id = _vlan(header, here, TPID_8021AD if outer else TPID_8021Q,
                                "outer_vlan" if outer else "vlan", variations)
                fields["outer_vlan_id" if outer else "vlan_id"] = vlan_id
            elif kind == "mpls":
                labels.append(_mpls(header, here))
            elif kind == "ipv4":
                _ipv4(header, here, address, variations)
            elif kind == "ipv6":
                _ipv6(header, here, address, variations)
                fields["ipv6"] = True
            else:
                _l4(kind, header, here, address, fields, variations)
        except OtgError as exc:
            collect(errors, exc)
    if len(errors) != before:
        return None
    if labels:
        fields["mpls_labels"] = tuple(labels)
    if variations:
        fields["vary"] = tuple(variations)
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
                 tunnel_kind: str, variations: list[FieldVariation | FieldPattern]) -> None:
    """A tunnel's outer IP (src, dst), UDP (one source port, unset: the tester's
    49152; destination the tunnel's port), and VxLAN (vni: one value, or values /
    increment / decrement frame i takes values[i mod len] of) with its inner
    Ethernet (src, dst), or the GTP-U header (teid)."""
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
        source = int_values(header.get("src_port"), f"{where}.src_port", 16)
        if source is not None:
            if len(source) > 1:
                raise validation(f"{where}.src_port: {list(source)}: the tester sends one "
                                 "outer source port in every frame of a stream; give one value")
            tunnel["udp_src_port"] = source[0]
        value = int_values(header.get("dst_port"), f"{where}.dst_port", 16)
        if value is not None and value != (dst,):
            shown = value[0] if len(value) == 1 else value
            raise validation(f"{where}.dst_port: {shown}: the tester's {tunnel_kind} frames "
                             f"carry {dst}; leave it unset")
    elif kind == "vxlan":
        reject_extra(header, ("vni", "flags", "reserved0", "reserved1"), where)
        _unset(header, ("flags", "reserved0", "reserved1"), where)
        vnis = int_values(header.get("vni"), f"{where}.vni", 24)
        tunnel["vni"] = vnis[0] if vnis is not None else 0
        if vnis is not None and len(vnis) > 1:
            variations.append(FieldVariation(field="vni", values=vnis))
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


def _vlan(header: Mapping[str, Any], where: str, tpid: int, field: str,
          variations: list[FieldVariation | FieldPattern]) -> int:
    """The tag's id (OTG default 1; values, increment, decrement and random vary it
    frame by frame); the tester sends priority and DEI 0 and the TPID of the tag's
    place (802.1ad outside, 802.1Q inside)."""
    reject_extra(header, ("id", "tpid", "priority", "cfi"), where)
    given = fixed_value(header.get("tpid"), f"{where}.tpid")
    if given is not None and int(given) != tpid:
        raise validation(f"{where}.tpid: {given}: the tester sends {tpid:#06x} in this tag")
    for key in ("priority", "cfi"):
        if fixed_value(header.get(key), f"{where}.{key}") not in (None, 0):
            raise validation(f"{where}.{key}: the tester sends 0")
    vlan_id, pattern = read_field(header.get("id"), f"{where}.id", field, 12, _int_in(12))
    if pattern is not None:
        variations.append(pattern)
    return vlan_id if vlan_id is not None else 1


def _mpls(header: Mapping[str, Any], where: str) -> int:
    """A label (OTG default 16); traffic class, bottom of stack and TTL are the
    tester's."""
    reject_extra(header, ("label", "traffic_class", "bottom_of_stack", "time_to_live"), where)
    for key in ("traffic_class", "bottom_of_stack", "time_to_live"):
        if fixed_value(header.get(key), f"{where}.{key}") is not None:
            raise validation(f"{where}.{key}: the tester sets it; leave it unset")
    label = fixed_value(header.get("label"), f"{where}.label")
    return int(label) if label is not None else 16


def _ethernet(header: Mapping[str, Any], where: str, address: dict[str, Any],
              variations: list[FieldVariation | FieldPattern]) -> None:
    """Source and destination MACs: one each, or lists frame i takes values[i mod len]
    from (many addresses for a learning switch)."""
    reject_extra(header, ("src", "dst", "ether_type"), where)
    for key in ("src", "dst"):
        values = mac_values(header.get(key), f"{where}.{key}")
        if values is None:
            continue
        if len(values) > 1:
            try:
                variations.append(FieldVariation(field=f"{key}_mac", values=values))
            except VariationError as exc:
                raise validation(f"{where}.{key}: {exc}") from exc
        address[f"{key}_mac"] = mac_text(values[0])
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


def _addresses(header: Mapping[str, Any], where: str, version: int,
               address: dict[str, Any], variations: list[FieldVariation | FieldPattern]) -> None:
    """src and dst: the first frame's into the stream's addresses, a pattern into its
    variations (fields src_ip / dst_ip, or src_ip6 / dst_ip6)."""
    suffix = "_ip6" if version == 6 else "_ip"
    for key in ("src", "dst"):
        first, pattern = read_field(header.get(key), f"{where}.{key}", f"{key}{suffix}",
                                    128 if version == 6 else 32, _address_number(version))
        if first is not None:
            kind = ipaddress.IPv6Address if version == 6 else ipaddress.IPv4Address
            address[f"{key}{suffix}"] = str(kind(first))
        if pattern is not None:
            variations.append(pattern)


def _ipv4(header: Mapping[str, Any], where: str, address: dict[str, Any],
          variations: list[FieldVariation | FieldPattern]) -> None:
    """Addresses: one, or values / increment / decrement / random frame by frame."""
    reject_extra(header, ("src", "dst", "time_to_live", "priority"), where)
    _addresses(header, where, 4, address, variations)
    priority = header.get("priority")
    if priority is not None:
        _dscp(priority, f"{where}.priority", address, variations)
    ttl = fixed_value(header.get("time_to_live"), f"{where}.time_to_live")
    if ttl is not None:
        address["ttl"] = int(ttl)


def _ipv6(header: Mapping[str, Any], where: str, address: dict[str, Any],
          variations: list[FieldVariation | FieldPattern]) -> None:
    """Addresses: one, or values / increment / decrement frame by frame (in the low
    64 bits); the traffic class: one, or values / increment / decrement of DSCP."""
    reject_extra(header, ("src", "dst", "hop_limit", "traffic_class", "flow_label"), where)
    _dscp_of_tos(header.get("traffic_class"), f"{where}.traffic_class", address, variations)
    flow_label = fixed_value(header.get("flow_label"), f"{where}.flow_label")
    if flow_label is not None:
        address["flow_label"] = int(flow_label)
    _addresses(header, where, 6, address, variations)
    hops = fixed_value(header.get("hop_limit"), f"{where}.hop_limit")
    if hops is not None:
        address["ttl"] = int(hops)


ECN_MASK: Final = 0x3


def _dscp(priority: object, where: str, address: dict[str, Any],
          variations: list[FieldVariation | FieldPattern]) -> None:
    """ipv4 priority: dscp.phb (one, or values / increment / decrement / random; ECN
    0), or a raw TOS byte whose ECN bits are 0 (one, or values / increment /
    decrement in steps of 4)."""
    choice = field_choice(priority, where)
    if choice is None or not isinstance(priority, Mapping):
        return
    body = priority.get(choice) or {}
    if choice == "dscp" and isinstance(body, Mapping):
        if fixed_value(body.get("ecn"), f"{where}.dscp.ecn") not in (None, 0):
            raise validation(f"{where}.dscp.ecn: the tester sends ECN 0")
        first, pattern = read_field(body.get("phb"), f"{where}.dscp.phb", "dscp", 6,
                                    _int_in(6))
        if first is not None:
            address["dscp"] = first
        if pattern is not None:
            variations.append(pattern)
    elif choice == "raw":
        _dscp_of_tos(body, f"{where}.raw", address, variations)
    else:
        raise validation(f"{where}: choice {choice!r} is not supported (use dscp or raw)")


def _without_ecn(tos: int, where: str) -> int:
    if tos & ECN_MASK:
        raise validation(f"{where}: {tos}: the tester sets DSCP (the upper 6 bits) and "
                         "ECN 0")
    return tos >> 2


def _dscp_of_tos(data: object, where: str, address: dict[str, Any],
                 variations: list[FieldVariation | FieldPattern]) -> None:
    """A TOS / traffic class byte, or a pattern of them: its DSCP (ECN 0)."""
    raw = read_raw(data, where, 8, _int_in(8))
    if raw is None:
        return
    if raw.random is not None or (raw.count and raw.step % 4):
        raise validation(f"{where}: the tester varies DSCP with ECN 0: give values, or an "
                         "increment or decrement in steps of 4 (ipv4: priority.dscp.phb "
                         "takes DSCP itself)")
    first, pattern = as_pattern(raw.mapped(lambda tos: _without_ecn(tos, where), 4), "dscp",
                                6, where)
    address["dscp"] = first
    if pattern is not None:
        variations.append(pattern)


def _int_in(bits: int) -> Callable[[object, str], int]:
    def parse(value: object, where: str) -> int:
        if isinstance(value, bool) or not isinstance(value, int | str):
            raise validation(f"{where}: expected an integer, got {value!r}")
        try:
            number = int(value)
        except ValueError as exc:
            raise validation(f"{where}: expected an integer, got {value!r}") from exc
        if not 0 <= number < 1 << bits:
            raise validation(f"{where}: {number} is outside 0..{(1 << bits) - 1}")
        return number
    return parse


def _address_number(version: int) -> Callable[[object, str], int]:
    def parse(value: object, where: str) -> int:
        return int(ipaddress.ip_address(_ip(value, where, version)))
    return parse


_TCP_FLAGS: Final = (("ctl_fin", "F"), ("ctl_syn", "S"), ("ctl_rst", "R"), ("ctl_psh", "P"),
                     ("ctl_ack", "A"), ("ctl_urg", "U"), ("ecn_echo", "E"),
                     ("ecn_cwr", "C"), ("ecn_ns", "N"))
_TCP_NUMBERS: Final = (("seq_num", "tcp_seq"), ("ack_num", "tcp_ack"))


def _l4(kind: str, header: Mapping[str, Any], where: str, address: dict[str, Any],
        fields: dict[str, Any], variations: list[FieldVariation | FieldPattern]) -> None:
    """UDP or TCP source and destination ports: one value each; values (the data
    plane's per-stream port pairs, frame i takes values[i mod len]); increment,
    decrement and random (a field pattern each: no table entry per port). TCP: the
    sequence and acknowledgment numbers (one, or a pattern: counters wrap at 2^32 as
    TCP's do) and the flags (ctl_*, ecn_*: 0 or 1 each; none given: the tester's ACK)."""
    tcp_keys = (*(k for k, _ in _TCP_FLAGS), *(k for k, _ in _TCP_NUMBERS))
    reject_extra(header, ("src_port", "dst_port", *(tcp_keys if kind == "tcp" else ())), where)
    fields["l4"] = kind
    for key in ("src_port", "dst_port"):
        data = header.get(key)
        here = f"{where}.{key}"
        if field_choice(data, here) == "values":
            values = int_values(data, here, 16)
            assert values is not None
            first: int | None = values[0]
            if len(values) > 1:
                try:
                    variations.append(FieldVariation(field=key, values=values))
                except VariationError as exc:
                    raise validation(f"{here}: {exc}") from exc
        else:
            first, pattern = read_field(data, here, key, 16, _int_in(16))
            if isinstance(pattern, Listed):
                # A counter that wraps: its values, as a list would be.
                variations.append(FieldVariation(field=key, values=pattern.values))
            elif pattern is not None:
                variations.append(pattern)
        if first is not None:
            address["udp_src_port" if key == "src_port" else "l4_dst_port"] = first
    if kind == "tcp":
        _tcp(header, where, address, variations)


def _tcp(header: Mapping[str, Any], where: str, address: dict[str, Any],
         variations: list[FieldVariation | FieldPattern]) -> None:
    for key, field in _TCP_NUMBERS:
        first, pattern = read_field(header.get(key), f"{where}.{key}", field, 32, _int_in(32))
        if first is not None:
            address[field] = first
        if pattern is not None:
            variations.append(pattern)
    given = {key: fixed_value(header.get(key), f"{where}.{key}") for key, _ in _TCP_FLAGS}
    if all(value is None for value in given.values()):
        return
    letters = ""
    for key, letter in _TCP_FLAGS:
        value = given[key]
        if value not in (None, 0, 1):
            raise validation(f"{where}.{key}: {value!r}: a flag is 0 or 1")
        letters += letter if value == 1 else ""
    if not letters:
        raise validation(f"{where}: every TCP flag 0: the tester sends at least one (ctl_ack "
                         "for an established flow's segments)")
    address["tcp_flags"] = letters
