"""A p4lang/tutorials runtime_json's entries as P4Runtime entities.

    {"table": "MyIngress.ipv4_lpm", "match": {"hdr.ipv4.dstAddr": ["10.0.1.1", 32]},
     "action_name": "MyIngress.ipv4_forward", "action_params": {"dstAddr": "08:..", "port": 1}}
    {"table": "MyIngress.ipv4_lpm", "default_action": true, "action_name": "MyIngress.drop"}
    "multicast_group_entries": [{"multicast_group_id": 1, "replicas": [{"egress_port": 1,
                                 "instance": 1}]}]

Match values by the key's kind: exact a value, lpm [value, prefix length], ternary
[value, mask], range [low, high]; a value is a number, an IPv4 address or a MAC.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from p4tester.lab.netdev import LabError
from p4tester.p4rt import (
    Exact,
    Lpm,
    MatchKind,
    P4InfoSchema,
    Range,
    Ternary,
    build_default_action,
    build_multicast_group,
    build_table_entry,
    ipv4_to_int,
    mac_to_int,
)
from p4tester.p4rt.schema import MatchFieldInfo


@dataclass(frozen=True, slots=True)
class RuntimeEntities:
    """What to write: entries and groups (INSERT), default actions (MODIFY)."""

    inserts: tuple[Any, ...]
    defaults: tuple[Any, ...]


def value_of(raw: object, where: str) -> int:
    """A runtime_json value: an int, "0x..", an IPv4 address or a MAC address."""
    if isinstance(raw, bool) or not isinstance(raw, int | str):
        raise LabError(f"{where}: value {raw!r} must be a number, an IPv4 or a MAC address")
    if isinstance(raw, int):
        return raw
    text = raw.strip()
    try:
        if text.count(".") == 3:
            return ipv4_to_int(text)
        if text.count(":") == 5:
            return mac_to_int(text)
        return int(text, 0)
    except ValueError as exc:
        raise LabError(f"{where}: value {raw!r}: {exc}") from exc


def match_of(field: MatchFieldInfo, raw: object, where: str) -> MatchKind:
    kind = field.match_type.lower()
    pair = raw if isinstance(raw, list) else None
    if kind == "exact":
        # p4lang's runtime_json may wrap an exact value in a list of one, as their
        # basic_tunnel does ("hdr.myTunnel.dst_id": [1]); their helper unwraps it.
        single = pair[0] if pair is not None and len(pair) == 1 else raw
        return Exact(value_of(single, where))
    if pair is None or len(pair) != 2:
        raise LabError(f"{where}: key {field.name} ({kind}) needs a pair: "
                       + {"lpm": "[value, prefix_len]", "ternary": "[value, mask]",
                          "range": "[low, high]"}.get(kind, "[value, ...]"))
    first, second = value_of(pair[0], where), value_of(pair[1], where)
    if kind == "lpm":
        return Lpm(first, second)
    if kind == "ternary":
        return Ternary(first, second)
    if kind == "range":
        return Range(first, second)
    raise LabError(f"{where}: key {field.name}: match kind {kind} not supported")


def runtime_entities(schema: P4InfoSchema, path: Path) -> RuntimeEntities:
    try:
        data: Any = json.loads(path.read_text())
    except (OSError, json.JSONDecodeError) as exc:
        raise LabError(f"{path}: {exc}") from exc
    inserts: list[Any] = []
    defaults: list[Any] = []
    for index, entry in enumerate(data.get("table_entries", [])):
        where = f"{path}: table_entries[{index}]"
        if not isinstance(entry, Mapping) or "table" not in entry:
            raise LabError(f"{where}: expected {{table, match, action_name, action_params}}")
        params = {name: value_of(v, f"{where}: {name}")
                  for name, v in entry.get("action_params", {}).items()}
        action = str(entry.get("action_name", ""))
        if entry.get("default_action"):
            defaults.append(build_default_action(schema, str(entry["table"]), action, params))
            continue
        table = schema.table(str(entry["table"]))
        match = {name: match_of(schema.match_field(table, name), raw, f"{where}: {name}")
                 for name, raw in entry.get("match", {}).items()}
        priority = entry.get("priority")
        inserts.append(build_table_entry(schema, str(entry["table"]), match, action, params,
                                         int(priority) if priority is not None else None))
    for group in data.get("multicast_group_entries", []):
        inserts.append(build_multicast_group(
            int(group["multicast_group_id"]),
            [(int(r["egress_port"]), int(r["instance"])) for r in group["replicas"]]))
    return RuntimeEntities(tuple(inserts), tuple(defaults))
