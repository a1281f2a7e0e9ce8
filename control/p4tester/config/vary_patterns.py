"""A profile's field patterns (streams.field_patterns) from `vary`:

    vary: {src_ip: {start: 10.0.0.1, count: 65536}}            # steps
    vary: {dst_ip6: {start: "2001:db8::1", step: -1, count: 8}}
    vary: {dscp: [0, 10, 46]}                                   # a list
    vary: {src_ip: {random: 10.1.0.0/16, seed: 7}}             # draws in a prefix
    vary: {src_port: {random: [1024, 65535], repeat: 100}}      # 100 draws, again

Addresses are written as addresses; steps and counts as whole numbers.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Mapping

from p4tester.config.errors import ConfigError
from p4tester.config.keys import VARY_RANDOM, VARY_RANGE
from p4tester.config.yaml_io import require_keys
from p4tester.streams.field_patterns import (
    ADDRESS_FIELDS,
    IPV6_FIELDS,
    Draws,
    FieldPattern,
    Listed,
    Steps,
    field_seed,
)
from p4tester.streams.variation import VariationError

DEFAULT_SEED = 1


def parse_pattern(field: str, spec: object, where: str) -> FieldPattern:
    """`where` names the stream's vary and the field; errors say what to write."""
    try:
        if isinstance(spec, list):
            return Listed(field, tuple(_value(field, v, f"{where}[{i}]")
                                       for i, v in enumerate(spec)))
        if isinstance(spec, Mapping) and "random" in spec:
            require_keys(spec, where, required=VARY_RANDOM.required,
                         optional=VARY_RANDOM.optional)
            low, count = _random_range(field, spec["random"], f"{where}: random")
            seed = spec.get("seed", DEFAULT_SEED)
            if not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed < 1 << 32:
                raise ConfigError(f"{where}: seed: expected a whole number 0..4294967295, "
                                  f"got {seed!r}")
            repeat = spec.get("repeat", 1)  # given, at least 1; absent: 0, never
            if not isinstance(repeat, int) or isinstance(repeat, bool) or repeat < 1:
                raise ConfigError(f"{where}: repeat: expected a whole number of frames >= 1, "
                                  f"got {repeat!r}")
            return Draws(field, low, count, field_seed(seed, field),
                         repeat if "repeat" in spec else 0)
        if isinstance(spec, Mapping):
            require_keys(spec, where, required=VARY_RANGE.required,
                         optional=VARY_RANGE.optional)
            step, count = spec.get("step", 1), spec["count"]
            if not all(isinstance(n, int) and not isinstance(n, bool) for n in (step, count)):
                raise ConfigError(f"{where}: step and count are whole numbers, got "
                                  f"{step!r}, {count!r}")
            return Steps(field, _value(field, spec["start"], f"{where}: start"), step, count)
    except VariationError as exc:
        # The pattern's own messages start with "vary: <field>:".
        raise ConfigError(f"{where.split(': vary')[0]}: {exc}") from exc
    raise ConfigError(f"{where}: expected a list of values, {{start, step, count}} or "
                      "{random: ..., seed: N}")


def _value(field: str, value: object, where: str) -> int:
    """An address (as text) for the address fields, a whole number for the others."""
    if field in ADDRESS_FIELDS:
        version = 6 if field in IPV6_FIELDS else 4
        try:
            address = ipaddress.ip_address(str(value))
        except ValueError as exc:
            raise ConfigError(f"{where}: {value!r} is not an IPv{version} address") from exc
        if address.version != version:
            raise ConfigError(f"{where}: {value!r} is not an IPv{version} address"
                              + ("; vary src_ip6/dst_ip6 for IPv6" if version == 4 else
                                 "; vary src_ip/dst_ip for IPv4"))
        return int(address)
    if not isinstance(value, int) or isinstance(value, bool):
        raise ConfigError(f"{where}: expected a whole number, got {value!r}")
    return value


def _random_range(field: str, spec: object, where: str) -> tuple[int, int]:
    """(lowest value, how many): a prefix for the address fields, or [min, max]."""
    if isinstance(spec, list) and len(spec) == 2:
        low, high = (_value(field, v, where) for v in spec)
        if high < low:
            raise ConfigError(f"{where}: [{spec[0]}, {spec[1]}]: the first is the lowest")
        return low, high - low + 1
    if field in ADDRESS_FIELDS and isinstance(spec, str):
        try:
            network = ipaddress.ip_network(spec, strict=True)
        except ValueError as exc:
            raise ConfigError(f"{where}: {spec!r} is not a prefix ({exc})") from exc
        if (network.version == 6) != (field in IPV6_FIELDS):
            raise ConfigError(f"{where}: {spec!r} is not an IPv"
                              f"{6 if field in IPV6_FIELDS else 4} prefix")
        return int(network.network_address), network.num_addresses
    shown = "a prefix (10.1.0.0/16) or [lowest, highest]" if field in ADDRESS_FIELDS \
        else "[lowest, highest]"
    raise ConfigError(f"{where}: expected {shown}, got {spec!r}")
