"""Builders of P4Runtime messages from names and integers, checked against a P4Info.

Mistakes are caught here, with the table and field named, rather than coming back from
the switch as INVALID_ARGUMENT with no hint of which field of which update was wrong.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from p4.v1 import p4runtime_pb2  # type: ignore[import-untyped, unused-ignore]

from .encoding import decode_value, encode_value
from .errors import EncodingError, P4InfoLookupError
from .schema import ActionInfo, MatchFieldInfo, P4InfoSchema, TableInfo

# Limits of the protobuf fields (P4Runtime spec 9.1 for priority, 9.5 for the PRE).
_MAX_PRIORITY = 2**31 - 1
_MAX_UINT32 = 2**32 - 1

_NO_PARAMS: Mapping[str, int] = MappingProxyType({})


@dataclass(frozen=True, slots=True)
class Exact:
    """Exact match. Also accepted by ternary (full mask), lpm (full prefix), range
    (low == high) and optional keys, where it means the same thing."""

    value: int


@dataclass(frozen=True, slots=True)
class Ternary:
    """Ternary match; bits of `value` outside `mask` must be zero. Mask 0 = don't care."""

    value: int
    mask: int


@dataclass(frozen=True, slots=True)
class Range:
    """Inclusive range match [low, high]. The full range = don't care."""

    low: int
    high: int


@dataclass(frozen=True, slots=True)
class Lpm:
    """Longest-prefix match; bits after the prefix must be zero. Length 0 = don't care."""

    value: int
    prefix_len: int


MatchKind = Exact | Ternary | Range | Lpm


@dataclass(frozen=True, slots=True)
class ReceivedPacket:
    """A PacketIn with its metadata decoded by name (fields of 'packet_in')."""

    payload: bytes
    metadata: dict[str, int]


def build_table_entry(
    schema: P4InfoSchema,
    table: str,
    match: Mapping[str, MatchKind],
    action: str,
    params: Mapping[str, int] = _NO_PARAMS,
    priority: int | None = None,
) -> Any:
    """A p4.v1.TableEntry. Keys left out of `match` are don't-care (only ternary, lpm,
    range and optional keys may be left out); don't-care values are omitted from the
    message, as P4Runtime spec 9.1.1 requires."""
    info = schema.table(table)
    for name in match:
        schema.match_field(info, name)  # unknown names fail here, with a suggestion
    entry = p4runtime_pb2.TableEntry(table_id=info.id)
    for field in info.match_fields:
        field_match = _field_match(info, field, match.get(field.name))
        if field_match is not None:
            entry.match.append(field_match)
    _check_priority(info, priority)
    if priority is not None:
        entry.priority = priority
    entry.action.action.CopyFrom(_action(schema, info, action, params))
    return entry


def build_default_action(
    schema: P4InfoSchema,
    table: str,
    action: str,
    params: Mapping[str, int] = _NO_PARAMS,
) -> Any:
    """A p4.v1.TableEntry that sets the default action (write it with MODIFY)."""
    info = schema.table(table)
    entry = p4runtime_pb2.TableEntry(table_id=info.id, is_default_action=True)
    entry.action.action.CopyFrom(_action(schema, info, action, params, as_default=True))
    return entry


def build_multicast_group(group_id: int, replicas: Sequence[tuple[int, int]]) -> Any:
    """A p4.v1.PacketReplicationEngineEntry for multicast group `group_id`;
    `replicas` are (egress port, instance) pairs; the instance becomes egress_rid."""
    if not 1 <= group_id <= _MAX_UINT32:
        raise EncodingError(f"multicast group id {group_id} is outside 1..{_MAX_UINT32}")
    entry = p4runtime_pb2.PacketReplicationEngineEntry()
    group = entry.multicast_group_entry
    group.multicast_group_id = group_id
    seen: set[tuple[int, int]] = set()
    for port, instance in replicas:
        for what, value in (("port", port), ("instance", instance)):
            if not 0 <= value <= _MAX_UINT32:
                raise EncodingError(
                    f"replica {what} {value} of multicast group {group_id} "
                    f"is outside 0..{_MAX_UINT32}"
                )
        if (port, instance) in seen:
            raise EncodingError(
                f"replica (port {port}, instance {instance}) appears twice "
                f"in multicast group {group_id}"
            )
        seen.add((port, instance))
        # BMv2's P4Runtime server (PI) reads the uint32 `egress_port`, not the newer
        # bytes `port` of P4Runtime 1.4+, so the deprecated field is the one that works.
        group.replicas.add(egress_port=port, instance=instance)
    return entry


def build_clone_session(session_id: int, port: int) -> Any:
    """A p4.v1.PacketReplicationEngineEntry: clone session `session_id` sends its
    copies to `port` (instance 0)."""
    if not 1 <= session_id <= _MAX_UINT32:
        raise EncodingError(f"clone session id {session_id} is outside 1..{_MAX_UINT32}")
    entry = p4runtime_pb2.PacketReplicationEngineEntry()
    session = entry.clone_session_entry
    session.session_id = session_id
    # egress_port, as for multicast groups: what BMv2's server reads.
    session.replicas.add(egress_port=port, instance=0)
    return entry


def build_counter_entry(
    schema: P4InfoSchema,
    counter: str,
    index: int | None = None,
    packets: int | None = None,
    bytes: int | None = None,  # shadows the builtin on purpose: callers say bytes=
) -> Any:
    """A p4.v1.CounterEntry. index None = every cell (wildcard). Counts are set only when
    one of them is given (a MODIFY that writes them); reads leave both None."""
    info = schema.counter(counter)
    entry = p4runtime_pb2.CounterEntry(counter_id=info.id)
    if index is not None:
        if not 0 <= index < info.size:
            raise EncodingError(
                f"index {index} is outside counter {info.name!r} (size {info.size})"
            )
        entry.index.index = index
    if packets is not None or bytes is not None:
        for what, count in (("packet", packets), ("byte", bytes)):
            if count is not None and count < 0:
                raise EncodingError(f"{what} count {count} of counter {info.name!r} is negative")
        entry.data.packet_count = packets or 0
        entry.data.byte_count = bytes or 0
    return entry


def build_packet_out(schema: P4InfoSchema, payload: bytes, metadata: Mapping[str, int]) -> Any:
    """A p4.v1.PacketOut carrying `payload`; every field of the 'packet_out' controller
    header must be given, since the switch prepends all of them to the packet."""
    header = schema.packet_metadata("packet_out")
    known = {field.name: field.name for field in header.fields}
    for name in metadata:
        if name not in known:
            raise P4InfoLookupError.unknown_name("packet_out metadata field", name, known)
    message = p4runtime_pb2.PacketOut(payload=payload)
    for field in header.fields:
        if field.name not in metadata:
            raise EncodingError(
                f"packet_out metadata field {field.name!r} is missing; give all of: "
                + ", ".join(f.name for f in header.fields)
            )
        value = encode_value(
            metadata[field.name], field.bitwidth, f"packet_out metadata field {field.name!r}"
        )
        message.metadata.add(metadata_id=field.id, value=value)
    return message


def decode_packet_in(schema: P4InfoSchema, message: Any) -> ReceivedPacket:
    """The payload and named metadata of a p4.v1.PacketIn."""
    fields = {field.id: field for field in schema.packet_metadata("packet_in").fields}
    decoded: dict[str, int] = {}
    for item in message.metadata:
        field = fields.get(int(item.metadata_id))
        if field is None:
            raise P4InfoLookupError.unknown_id("packet_in metadata field", int(item.metadata_id))
        decoded[field.name] = decode_value(bytes(item.value))
    return ReceivedPacket(payload=bytes(message.payload), metadata=decoded)


def _field_match(table: TableInfo, field: MatchFieldInfo, given: MatchKind | None) -> Any:
    """The FieldMatch for one key, or None when the key is don't-care."""
    what = f"match field {field.name!r} of table {table.name!r}"
    width = field.bitwidth
    full = (1 << width) - 1
    kind = field.match_type
    if given is None:
        if kind == "exact":
            raise EncodingError(f"{what} is an exact key and must be given")
        return None
    message = p4runtime_pb2.FieldMatch(field_id=field.id)
    if kind == "exact" and isinstance(given, Exact):
        message.exact.value = encode_value(given.value, width, what)
    elif kind == "optional" and isinstance(given, Exact):
        message.optional.value = encode_value(given.value, width, what)
    elif kind == "ternary" and isinstance(given, Exact | Ternary):
        value, mask = (given.value, full) if isinstance(given, Exact) else (given.value, given.mask)
        encoded_mask = encode_value(mask, width, f"mask of {what}")
        encoded_value = encode_value(value, width, what)
        if value & ~mask:
            raise EncodingError(f"value {value:#x} of {what} has bits outside mask {mask:#x}")
        if mask == 0:
            return None
        message.ternary.value = encoded_value
        message.ternary.mask = encoded_mask
    elif kind == "lpm" and isinstance(given, Exact | Lpm):
        value, length = (
            (given.value, width) if isinstance(given, Exact) else (given.value, given.prefix_len)
        )
        encoded_value = encode_value(value, width, what)
        if not 0 <= length <= width:
            raise EncodingError(f"prefix length {length} of {what} is outside 0..{width}")
        if value & ((1 << (width - length)) - 1):
            raise EncodingError(
                f"value {value:#x} of {what} has bits set after the /{length} prefix"
            )
        if length == 0:
            return None
        message.lpm.value = encoded_value
        message.lpm.prefix_len = length
    elif kind == "range" and isinstance(given, Exact | Range):
        low, high = (
            (given.value, given.value) if isinstance(given, Exact) else (given.low, given.high)
        )
        encoded_low = encode_value(low, width, f"low end of {what}")
        encoded_high = encode_value(high, width, f"high end of {what}")
        if low > high:
            raise EncodingError(f"range {low}..{high} of {what} is empty (low > high)")
        if low == 0 and high == full:
            return None
        message.range.low = encoded_low
        message.range.high = encoded_high
    else:
        raise EncodingError(f"{what} is a {kind} key; {given!r} does not apply to it")
    return message


def _check_priority(table: TableInfo, priority: int | None) -> None:
    if table.requires_priority and priority is None:
        raise EncodingError(
            f"table {table.name!r} has ternary, range or optional keys, so its entries need "
            "a priority (the highest matching priority wins)"
        )
    if not table.requires_priority and priority is not None:
        raise EncodingError(
            f"table {table.name!r} has only exact and lpm keys; its entries take no priority"
        )
    if priority is not None and not 1 <= priority <= _MAX_PRIORITY:
        raise EncodingError(
            f"priority {priority} of table {table.name!r} is outside 1..{_MAX_PRIORITY}"
        )


def _table_action(
    schema: P4InfoSchema, table: TableInfo, name: str, *, as_default: bool
) -> ActionInfo:
    """The action `name` if `table` may use it in this role; suggestions come from the
    table's own actions, since another table's action is as wrong as a typo."""
    actions = [schema.action_by_id(action_id) for action_id in table.action_ids]
    spellings: dict[str, str] = {}
    for action in actions:
        spellings[action.alias or action.name] = action.name
    spellings.update({action.name: action.name for action in actions})
    if name not in spellings:
        try:
            elsewhere = schema.action(name)
        except P4InfoLookupError:
            raise P4InfoLookupError.unknown_name(
                "action", name, spellings, scope=f"table {table.name!r}"
            ) from None
        raise P4InfoLookupError(
            f"action {elsewhere.name!r} is not an action of table {table.name!r}; "
            f"its actions are: {', '.join(sorted(a.name for a in actions))}",
            kind="action",
            name=name,
        )
    action = schema.action(spellings[name])
    if not as_default and action.id in table.default_only_action_ids:
        raise EncodingError(
            f"action {action.name!r} is @defaultonly in table {table.name!r}: "
            "it can be the default action but not an entry's action"
        )
    if as_default and action.id in table.table_only_action_ids:
        raise EncodingError(
            f"action {action.name!r} is @tableonly in table {table.name!r}: "
            "it can be an entry's action but not the default action"
        )
    return action


def _action(
    schema: P4InfoSchema,
    table: TableInfo,
    name: str,
    params: Mapping[str, int],
    *,
    as_default: bool = False,
) -> Any:
    action = _table_action(schema, table, name, as_default=as_default)
    for param_name in params:
        schema.param(action, param_name)  # unknown names fail here, with a suggestion
    message = p4runtime_pb2.Action(action_id=action.id)
    for param in action.params:
        what = f"parameter {param.name!r} of action {action.name!r}"
        if param.name not in params:
            raise EncodingError(f"{what} is missing")
        message.params.add(
            param_id=param.id, value=encode_value(params[param.name], param.bitwidth, what)
        )
    return message
