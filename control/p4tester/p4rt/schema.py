"""Typed, name-indexed view of a P4Info.

Everything above this module speaks names ('Ingress.checker.rx_stream' or its alias
'rx_stream'); everything below it speaks numeric ids. The P4Info is the only mapping
between the two, so look-ups live here and fail with a suggestion instead of a KeyError.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from os import PathLike
from pathlib import Path
from typing import Any, Generic, Literal, Protocol, TypeVar

from google.protobuf import text_format  # type: ignore[import-untyped, unused-ignore]
from p4.config.v1 import p4info_pb2  # type: ignore[import-untyped, unused-ignore]

from .errors import P4InfoLookupError, P4RuntimeError

MatchType = Literal["exact", "ternary", "lpm", "range", "optional"]
CounterUnit = Literal["packets", "bytes", "both"]

_MATCH_TYPES: dict[int, MatchType] = {
    p4info_pb2.MatchField.EXACT: "exact",
    p4info_pb2.MatchField.TERNARY: "ternary",
    p4info_pb2.MatchField.LPM: "lpm",
    p4info_pb2.MatchField.RANGE: "range",
    p4info_pb2.MatchField.OPTIONAL: "optional",
}

# P4Runtime spec 9.1: entries of a table with any of these keys need a priority.
_PRIORITY_MATCH_TYPES: frozenset[MatchType] = frozenset({"ternary", "range", "optional"})

# p4c never emits UNSPECIFIED; a counter without a unit would count nothing useful,
# so it is read as 'both' (what BMv2 counts anyway) rather than rejected.
_COUNTER_UNITS: dict[int, CounterUnit] = {
    p4info_pb2.CounterSpec.UNSPECIFIED: "both",
    p4info_pb2.CounterSpec.PACKETS: "packets",
    p4info_pb2.CounterSpec.BYTES: "bytes",
    p4info_pb2.CounterSpec.BOTH: "both",
}


@dataclass(frozen=True, slots=True)
class MatchFieldInfo:
    id: int
    name: str
    bitwidth: int
    match_type: MatchType


@dataclass(frozen=True, slots=True)
class ParamInfo:
    id: int
    name: str
    bitwidth: int


@dataclass(frozen=True, slots=True)
class ActionInfo:
    id: int
    name: str
    alias: str
    params: tuple[ParamInfo, ...]


@dataclass(frozen=True, slots=True)
class TableInfo:
    id: int
    name: str
    alias: str
    match_fields: tuple[MatchFieldInfo, ...]
    action_ids: tuple[int, ...]
    # Subsets of action_ids: @defaultonly actions may only be the default action,
    # @tableonly ones only an entry's action (P4Runtime spec, ActionRef.scope).
    default_only_action_ids: tuple[int, ...]
    table_only_action_ids: tuple[int, ...]
    size: int
    requires_priority: bool
    is_const: bool  # entries fixed by the P4 program: the controller may not change them


@dataclass(frozen=True, slots=True)
class CounterInfo:
    id: int
    name: str
    alias: str
    size: int
    unit: CounterUnit


@dataclass(frozen=True, slots=True)
class RegisterInfo:
    id: int
    name: str
    alias: str
    size: int
    bitwidth: int  # 0 when the register holds a struct rather than a bit<W>


@dataclass(frozen=True, slots=True)
class MetadataFieldInfo:
    id: int
    name: str
    bitwidth: int


@dataclass(frozen=True, slots=True)
class ControllerPacketMetadataInfo:
    id: int
    name: str  # 'packet_out' or 'packet_in' (the @controller_header name)
    fields: tuple[MetadataFieldInfo, ...]


class _Named(Protocol):
    @property
    def id(self) -> int: ...

    @property
    def name(self) -> str: ...


_T = TypeVar("_T", bound=_Named)


class _Index(Generic[_T]):
    """Objects of one kind, by full name, alias and id."""

    __slots__ = ("_by_id", "_by_name", "_items", "_kind", "_spellings")

    def __init__(self, kind: str, items: Iterable[tuple[_T, str]]) -> None:
        self._kind = kind
        pairs = list(items)
        self._items: tuple[_T, ...] = tuple(item for item, _ in pairs)
        self._by_id: dict[int, _T] = {item.id: item for item in self._items}
        # Aliases first, full names last: should an alias ever equal another object's
        # full name, the full name wins, since it is the unambiguous spelling.
        self._by_name: dict[str, _T] = {alias: item for item, alias in pairs if alias}
        self._by_name.update({item.name: item for item in self._items})
        self._spellings: dict[str, str] = {key: item.name for key, item in self._by_name.items()}

    @property
    def items(self) -> tuple[_T, ...]:
        return self._items

    def get(self, name: str) -> _T:
        try:
            return self._by_name[name]
        except KeyError:
            raise P4InfoLookupError.unknown_name(self._kind, name, self._spellings) from None

    def get_id(self, p4_id: int) -> _T:
        try:
            return self._by_id[p4_id]
        except KeyError:
            raise P4InfoLookupError.unknown_id(self._kind, p4_id) from None


class P4InfoSchema:
    """Immutable index over one P4Info message (`p4info`, kept for pipeline pushes)."""

    __slots__ = ("_actions", "_counters", "_p4info", "_packet_metadata", "_registers", "_tables")

    def __init__(self, p4info: Any) -> None:
        self._p4info = p4info
        self._tables = _Index("table", ((_table(t), t.preamble.alias) for t in p4info.tables))
        self._actions = _Index("action", ((_action(a), a.preamble.alias) for a in p4info.actions))
        self._counters = _Index(
            "counter", ((_counter(c), c.preamble.alias) for c in p4info.counters)
        )
        self._registers = _Index(
            "register", ((_register(r), r.preamble.alias) for r in p4info.registers)
        )
        self._packet_metadata = _Index(
            "controller packet metadata",
            ((_packet_metadata(m), m.preamble.alias) for m in p4info.controller_packet_metadata),
        )

    @classmethod
    def from_text(cls, text: str) -> P4InfoSchema:
        """From the protobuf text format that `p4c --p4runtime-files x.p4info.txt` writes."""
        return cls(text_format.Parse(text, p4info_pb2.P4Info()))

    @classmethod
    def from_text_file(cls, path: str | PathLike[str]) -> P4InfoSchema:
        return cls.from_text(Path(path).read_text(encoding="utf-8"))

    @property
    def p4info(self) -> Any:
        """The P4Info message itself (p4.config.v1.P4Info); treat it as read-only."""
        return self._p4info

    @property
    def tables(self) -> tuple[TableInfo, ...]:
        return self._tables.items

    @property
    def actions(self) -> tuple[ActionInfo, ...]:
        return self._actions.items

    @property
    def counters(self) -> tuple[CounterInfo, ...]:
        return self._counters.items

    @property
    def registers(self) -> tuple[RegisterInfo, ...]:
        return self._registers.items

    def table(self, name: str) -> TableInfo:
        return self._tables.get(name)

    def action(self, name: str) -> ActionInfo:
        return self._actions.get(name)

    def counter(self, name: str) -> CounterInfo:
        return self._counters.get(name)

    def register(self, name: str) -> RegisterInfo:
        return self._registers.get(name)

    def packet_metadata(self, name: str) -> ControllerPacketMetadataInfo:
        """The controller header named 'packet_out' or 'packet_in'."""
        return self._packet_metadata.get(name)

    def table_by_id(self, p4_id: int) -> TableInfo:
        return self._tables.get_id(p4_id)

    def action_by_id(self, p4_id: int) -> ActionInfo:
        return self._actions.get_id(p4_id)

    def counter_by_id(self, p4_id: int) -> CounterInfo:
        return self._counters.get_id(p4_id)

    def match_field(self, table: str | TableInfo, field_name: str) -> MatchFieldInfo:
        info = table if isinstance(table, TableInfo) else self.table(table)
        return _member(info.match_fields, field_name, "match field", f"table {info.name!r}")

    def param(self, action: str | ActionInfo, name: str) -> ParamInfo:
        info = action if isinstance(action, ActionInfo) else self.action(action)
        return _member(info.params, name, "parameter", f"action {info.name!r}")


def pipeline_differences(expected: P4InfoSchema, actual: P4InfoSchema) -> tuple[str, ...]:
    """What differs between two P4Infos, by table, action and counter names and ids.

    Empty when they agree on those; a short sentence per difference otherwise.
    """
    if not (actual.tables or actual.actions or actual.counters):
        return ("the switch has no pipeline loaded",)
    differences: list[str] = []
    for kind, want, have in (
        ("table", expected.tables, actual.tables),
        ("action", expected.actions, actual.actions),
        ("counter", expected.counters, actual.counters),
    ):
        want_ids = {item.name: item.id for item in want}
        have_ids = {item.name: item.id for item in have}
        for name in sorted(want_ids.keys() - have_ids.keys()):
            differences.append(f"{kind} {name!r} is missing on the switch")
        for name in sorted(have_ids.keys() - want_ids.keys()):
            differences.append(f"{kind} {name!r} is on the switch only")
        for name in sorted(want_ids.keys() & have_ids.keys()):
            if want_ids[name] != have_ids[name]:
                differences.append(
                    f"{kind} {name!r} has id {have_ids[name]} on the switch, "
                    f"{want_ids[name]} expected"
                )
    return tuple(differences)


_M = TypeVar("_M", MatchFieldInfo, ParamInfo, MetadataFieldInfo)


def _member(members: tuple[_M, ...], name: str, kind: str, scope: str) -> _M:
    for member in members:
        if member.name == name:
            return member
    spellings = {member.name: member.name for member in members}
    raise P4InfoLookupError.unknown_name(kind, name, spellings, scope=scope)


def _table(table: Any) -> TableInfo:
    fields = tuple(
        MatchFieldInfo(
            id=int(field.id),
            name=str(field.name),
            bitwidth=int(field.bitwidth),
            match_type=_match_type(field, str(table.preamble.name)),
        )
        for field in table.match_fields
    )
    return TableInfo(
        id=int(table.preamble.id),
        name=str(table.preamble.name),
        alias=str(table.preamble.alias),
        match_fields=fields,
        action_ids=tuple(int(ref.id) for ref in table.action_refs),
        default_only_action_ids=_scoped(table, p4info_pb2.ActionRef.DEFAULT_ONLY),
        table_only_action_ids=_scoped(table, p4info_pb2.ActionRef.TABLE_ONLY),
        size=int(table.size),
        requires_priority=any(f.match_type in _PRIORITY_MATCH_TYPES for f in fields),
        is_const=bool(table.is_const_table),
    )


def _scoped(table: Any, scope: int) -> tuple[int, ...]:
    return tuple(int(ref.id) for ref in table.action_refs if ref.scope == scope)


def _match_type(field: Any, table_name: str) -> MatchType:
    if field.WhichOneof("match") != "match_type" or field.match_type not in _MATCH_TYPES:
        # Architecture-specific kinds (other_match_type) have no encoding in this layer.
        raise P4RuntimeError(
            f"match field {field.name!r} of table {table_name!r} has a match kind this "
            "controller does not support (only exact, ternary, lpm, range, optional)"
        )
    return _MATCH_TYPES[field.match_type]


def _action(action: Any) -> ActionInfo:
    return ActionInfo(
        id=int(action.preamble.id),
        name=str(action.preamble.name),
        alias=str(action.preamble.alias),
        params=tuple(
            ParamInfo(id=int(p.id), name=str(p.name), bitwidth=int(p.bitwidth))
            for p in action.params
        ),
    )


def _counter(counter: Any) -> CounterInfo:
    return CounterInfo(
        id=int(counter.preamble.id),
        name=str(counter.preamble.name),
        alias=str(counter.preamble.alias),
        size=int(counter.size),
        unit=_COUNTER_UNITS.get(int(counter.spec.unit), "both"),
    )


def _register(register: Any) -> RegisterInfo:
    spec = register.type_spec
    is_bits = spec.WhichOneof("type_spec") == "bitstring" and spec.bitstring.HasField("bit")
    return RegisterInfo(
        id=int(register.preamble.id),
        name=str(register.preamble.name),
        alias=str(register.preamble.alias),
        size=int(register.size),
        bitwidth=int(spec.bitstring.bit.bitwidth) if is_bits else 0,
    )


def _packet_metadata(header: Any) -> ControllerPacketMetadataInfo:
    return ControllerPacketMetadataInfo(
        id=int(header.preamble.id),
        name=str(header.preamble.name),
        fields=tuple(
            MetadataFieldInfo(id=int(m.id), name=str(m.name), bitwidth=int(m.bitwidth))
            for m in header.metadata
        ),
    )
