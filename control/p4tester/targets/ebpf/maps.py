"""The program's tables, registers, counters and multicast groups, written and
read through its pinned BPF maps with the layouts the compiled program has."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from p4tester.p4rt import CounterValue
from p4tester.targets.ebpf.bpf_syscall import BpfMap
from p4tester.targets.ebpf.layout import ProgramLayout, StructLayout
from p4tester.targets.ebpf.tc_objects import TcObjects


def _put(buffer: bytearray, offset: int, size: int, value: int | bytes) -> None:
    """Integers in host order (the program converts headers to it); wider fields
    (IPv6 addresses: byte arrays in the C) in network order."""
    if isinstance(value, bytes):
        if len(value) != size:
            raise ValueError(f"a {size}-byte field cannot hold {len(value)} bytes")
        buffer[offset:offset + size] = value
    elif size > 8:
        buffer[offset:offset + size] = value.to_bytes(size, "big")
    else:
        if not 0 <= value < 1 << (8 * size):
            raise ValueError(f"{value} does not fit a {size}-byte field")
        buffer[offset:offset + size] = value.to_bytes(size, "little")


class ProgramMaps:
    """The maps of one loaded tester program (pinned by `objects`)."""

    def __init__(self, objects: TcObjects, layout: ProgramLayout) -> None:
        self._objects = objects
        self._layout = layout
        self._maps: dict[str, BpfMap] = {}
        # Inner maps this driver created, kept open while their outer map holds them.
        self._inner: dict[tuple[str, int], BpfMap] = {}

    def map(self, name: str) -> BpfMap:
        if name not in self._maps:
            self._maps[name] = self._objects.pinned_map(name)
        return self._maps[name]

    def close(self) -> None:
        for opened in [*self._maps.values(), *self._inner.values()]:
            opened.close()
        self._maps.clear()
        self._inner.clear()

    # ---- tables ---------------------------------------------------------------
    def _action_value(self, table: str, action: str, params: Mapping[str, int | bytes],
                      priority: int | None = None) -> bytes:
        value_layout = self._layout.struct(f"{table}_value")
        value = bytearray(value_layout.size)
        _put(value, value_layout.field("action").offset, 4,
             self._layout.action_number(table, action))
        if priority is not None:
            _put(value, value_layout.field("priority").offset, 4, priority)
        union_offset = value_layout.field("u").offset
        member = value_layout.members["u"].members.get(action)
        if member is None:
            raise ValueError(f"table {table} has no action {action}")
        for name, param in params.items():
            field = member.field(name)
            _put(value, union_offset + field.offset, field.size, param)
        return bytes(value)

    def _key(self, table: str, fields: Sequence[int | bytes]) -> tuple[StructLayout, bytes]:
        key_layout = self._layout.struct(f"{table}_key")
        key = bytearray(key_layout.size)
        if len(fields) != len(key_layout.fields):
            raise ValueError(f"table {table} has {len(key_layout.fields)} key fields, "
                             f"{len(fields)} given")
        for index, field_value in enumerate(fields):
            field = key_layout.field(f"field{index}")
            _put(key, field.offset, field.size, field_value)
        return key_layout, bytes(key)

    def add_exact(self, table: str, key: Sequence[int | bytes], action: str,
                  params: Mapping[str, int | bytes] | None = None) -> None:
        """Writes (or overwrites) an exact-match entry."""
        _, key_bytes = self._key(table, key)
        self.map(table).update(key_bytes, self._action_value(table, action, params or {}))

    # ---- registers and counters ------------------------------------------------
    def read_register(self, name: str, index: int) -> int:
        raw = self.map(name).lookup(index.to_bytes(4, "little"))
        return 0 if raw is None else int.from_bytes(raw, "little")

    def write_register(self, name: str, index: int, value: int) -> None:
        register = self.map(name)
        register.update(index.to_bytes(4, "little"),
                        value.to_bytes(register.info.value_size, "little"))

    def read_counter(self, name: str, index: int) -> CounterValue:
        counter = self.map(name)
        raw = counter.lookup(index.to_bytes(4, "little"))
        if raw is None:
            return CounterValue(0, 0)
        layout = self._layout.struct(f"{name}_value")
        packets = layout.field("packets")
        bytes_field = layout.fields.get("bytes")
        return CounterValue(
            int.from_bytes(raw[packets.offset:packets.offset + packets.size], "little"),
            0 if bytes_field is None else int.from_bytes(
                raw[bytes_field.offset:bytes_field.offset + bytes_field.size], "little"))

    def reset_counter(self, name: str, index: int) -> None:
        counter = self.map(name)
        counter.update(index.to_bytes(4, "little"), bytes(counter.info.value_size))

    # ---- multicast ------------------------------------------------------------
    def set_multicast_group(self, group: int, members: Sequence[tuple[int, int]]) -> None:
        """Group `group` sends one copy per (ifindex, instance): a linked list in an
        inner hash map, from the (0, 0) head element."""
        outer = self.map("multicast_grp_tbl")
        inner = BpfMap.create_hash(f"mcast{group}", 8, 20,
                                   self._layout.inner_map_entries("multicast_grp_tbl_inner"))
        chain = [(0, 0), *members]
        for position, (port, instance) in enumerate(chain):
            key = port.to_bytes(4, "little") + instance.to_bytes(2, "little") + bytes(2)
            next_port, next_instance = chain[position + 1] if position + 1 < len(chain) else (0, 0)
            entry = (port.to_bytes(4, "little") + instance.to_bytes(2, "little")
                     + bytes(2) + bytes(4))  # class of service, truncate, packet length
            next_id = (next_port.to_bytes(4, "little") + next_instance.to_bytes(2, "little")
                       + bytes(2))
            inner.update(key, entry + next_id)
        outer.update(group.to_bytes(4, "little"), inner.fd.to_bytes(4, "little"))
        previous = self._inner.pop(("multicast", group), None)
        if previous is not None:
            previous.close()
        self._inner[("multicast", group)] = inner
