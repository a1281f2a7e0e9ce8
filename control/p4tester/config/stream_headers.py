"""The header keys of a profile's stream: tunnel and per-field variation.

    tunnel: {vxlan: {vni: 42, src_ip: 10.0.0.1, dst_ip: 10.0.0.2}}
    tunnel: {gtpu: {teid: 0x1234, src_ip: 10.0.0.1, dst_ip: 10.0.0.2, qfi: 9}}
    tunnel: {srv6: {src_ip: "2001:db8::a", segments: ["2001:db8::b", "2001:db8::c"]}}
    vary: {src_port: [5000, 5050, 5100], dst_port: {start: 6000, step: -2, count: 10}}
    vary: {src_mac: {start: "02:89:01:00:00:00", count: 1000}}
    vary: {src_ip: {start: 10.0.0.1, count: 65536}, dscp: [0, 46]}   (config.vary_patterns)

Lists of ports, VNIs and MACs go to the variation table (whole frames, 4096 entries
for all streams); everything else is a field pattern of its own.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from p4tester.config.errors import ConfigError
from p4tester.config.keys import TUNNEL_SECTIONS, VARY_RANGE
from p4tester.config.vary_patterns import parse_pattern
from p4tester.config.yaml_io import require_keys
from p4tester.streams.field_patterns import PATTERN_FIELDS, FieldPattern
from p4tester.streams.tunnels import GtpU, Srv6, Tunnel, TunnelError, Vxlan
from p4tester.streams.variation import (
    FIELD_LIMITS,
    MAC_FIELDS,
    VARIABLE_FIELDS,
    FieldVariation,
    VariationError,
    mac_number,
    stepped,
)

MAC_LIMIT = FIELD_LIMITS["src_mac"]

_TUNNELS: dict[str, Any] = {"vxlan": Vxlan, "gtpu": GtpU, "srv6": Srv6}


def parse_tunnel(data: object, where: str) -> Tunnel:
    if not isinstance(data, Mapping) or len(data) != 1 or next(iter(data)) not in _TUNNELS:
        raise ConfigError(f"{where}: expected one of {{vxlan: {{...}}}}, {{gtpu: {{...}}}}, "
                          "{srv6: {...}}")
    kind, fields = next(iter(data.items()))
    cls = _TUNNELS[kind]
    if not isinstance(fields, Mapping):
        raise ConfigError(f"{where}: {kind}: expected a mapping")
    keys = TUNNEL_SECTIONS[kind]
    require_keys(fields, f"{where}: {kind}", required=keys.required, optional=keys.optional)
    values = dict(fields)
    if kind == "srv6":
        segments = values.get("segments")
        if not isinstance(segments, list):
            raise ConfigError(f"{where}: srv6: segments: expected a list of IPv6 addresses")
        values["segments"] = tuple(str(s) for s in segments)
    for key in ("src_ip", "dst_ip"):
        if key in values:
            values[key] = str(values[key])
    for key in ("vni", "teid", "qfi", "udp_src_port"):
        value = values.get(key)
        if value is not None and (not isinstance(value, int) or isinstance(value, bool)):
            raise ConfigError(f"{where}: {kind}: {key} must be a whole number, got {value!r}")
    try:
        tunnel: Tunnel = cls(**values)
    except (TunnelError, TypeError) as exc:
        raise ConfigError(f"{where}: {exc}") from exc
    return tunnel


def parse_vary(data: object, where: str) -> tuple[FieldVariation | FieldPattern, ...]:
    """`where` names the stream; errors name `vary` and the field."""
    here = f"{where}: vary"
    if not isinstance(data, Mapping) or not data:
        raise ConfigError(f"{here}: expected {{src_port: [...] | {{start, step, count}}, "
                          "dst_port: ...}")
    variations: list[FieldVariation | FieldPattern] = []
    for name, spec in data.items():
        field_here = f"{here}: {name}"
        if name not in PATTERN_FIELDS and name not in VARIABLE_FIELDS:
            known = dict.fromkeys((*PATTERN_FIELDS, *VARIABLE_FIELDS))
            raise ConfigError(f"{where}: vary: field {name!r} cannot vary; the tester varies "
                              f"{', '.join(known)}")
        if name in PATTERN_FIELDS and not (name in ("src_port", "dst_port")
                                           and isinstance(spec, list)):
            variations.append(parse_pattern(str(name), spec, field_here))
            continue
        try:
            values = (_mac_values(spec, field_here) if name in MAC_FIELDS
                      else _number_values(spec, field_here, FIELD_LIMITS.get(str(name), 0xFFFF)))
            variations.append(FieldVariation(str(name), values))
        except VariationError as exc:
            # The variation's own messages start with "vary:".
            raise ConfigError(f"{where}: {exc}") from exc
    return tuple(variations)


def _number_values(spec: object, where: str, limit: int) -> tuple[int, ...]:
    if isinstance(spec, Mapping):
        require_keys(spec, where, required=VARY_RANGE.required, optional=VARY_RANGE.optional)
        numbers = [spec["start"], spec.get("step", 1), spec["count"]]
    elif isinstance(spec, list):
        numbers = list(spec)
    else:
        raise ConfigError(f"{where}: expected a list of values or {{start, step, count}}")
    if not all(isinstance(n, int) and not isinstance(n, bool) for n in numbers):
        raise ConfigError(f"{where}: expected whole numbers, got {numbers}")
    if isinstance(spec, Mapping):
        return stepped(numbers[0], numbers[1], numbers[2], limit=limit)
    return tuple(numbers)


def _mac_values(spec: object, where: str) -> tuple[int, ...]:
    """MACs as text: a list, or {start: "02:...", step: 1, count: N} (a whole-number
    step, added to the 48-bit address)."""
    if isinstance(spec, Mapping):
        require_keys(spec, where, required=VARY_RANGE.required, optional=VARY_RANGE.optional)
        step, count = spec.get("step", 1), spec["count"]
        if not all(isinstance(n, int) and not isinstance(n, bool) for n in (step, count)):
            raise ConfigError(f"{where}: step and count are whole numbers, got {step}, {count}")
        return stepped(mac_number(str(spec["start"])), step, count, limit=MAC_LIMIT)
    if isinstance(spec, list):
        return tuple(mac_number(str(text)) for text in spec)
    raise ConfigError(f"{where}: expected a list of MACs or {{start, step, count}}")
