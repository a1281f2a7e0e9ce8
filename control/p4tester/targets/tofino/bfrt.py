"""The BfRt operations the Tofino driver needs, as a small typed protocol.

Keys and data are plain dicts of BfRt field names (names.py) to values, so the driver
and its tests never touch the SDE's client objects. `pipe=None` addresses all pipes;
a number addresses one pipe (tables and registers of the tester are symmetric, the
packet generator's tables are per pipe). SdeBfrtClient (sde_client.py) implements it
over the SDE's bfrt_grpc; the unit tests use an in-memory fake.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Protocol

from p4tester.dataplane.ternary import Ternary
from p4tester.p4rt import CounterValue

KeyValue = int | str | Ternary
# Repeated fields (multicast node lists, a bool per node) are tuples.
DataValue = int | bool | str | bytes | tuple[int, ...] | tuple[bool, ...]
Key = Mapping[str, KeyValue]
Data = Mapping[str, DataValue]
# A register cell as read: data field -> one value per pipe, in pipe order.
RegisterCell = Mapping[str, tuple[int, ...]]


class BfrtError(RuntimeError):
    """The switch refused or could not answer a BfRt request."""


class BfrtNotFoundError(BfrtError):
    """The entry asked for does not exist."""


@dataclass(frozen=True, slots=True)
class TableEntry:
    """One entry as read back."""

    key: Mapping[str, KeyValue]
    data: Mapping[str, DataValue] = field(default_factory=dict)
    action: str | None = None


class BfrtClient(Protocol):
    """A BfRt session bound to the tester program on one device."""

    def add_entry(self, table: str, key: Key, data: Data, *, action: str | None = None,
                  pipe: int | None = None) -> None:
        """Insert an entry; BfrtError if it exists."""

    def modify_entry(self, table: str, key: Key, data: Data, *, action: str | None = None,
                     pipe: int | None = None) -> None:
        """Change an existing entry (the only write of fixed tables such as pktgen's)."""

    def delete_entry(self, table: str, key: Key, *, pipe: int | None = None) -> None:
        """Remove an entry; BfrtNotFoundError if there is none."""

    def read_entry(self, table: str, key: Key, *, pipe: int | None = None,
                   from_hw: bool = False) -> TableEntry:
        """One entry by key; BfrtNotFoundError if there is none. from_hw: read the
        hardware, not the SDE's copy (port statistics: not its last poll)."""

    def read_entries(self, table: str, *, pipe: int | None = None) -> list[TableEntry]:
        """Every entry of a table."""

    def clear_table(self, table: str, *, pipe: int | None = None) -> None:
        """Remove every entry (the default action stays)."""

    def read_registers(self, register: str,
                       indices: Iterable[int]) -> dict[int, RegisterCell]:
        """Register cells from hardware, all pipes: index -> field -> value per pipe."""

    def write_registers(self, register: str, cells: Mapping[int, Mapping[str, int]]) -> None:
        """Set register cells in every pipe: index -> field -> value."""

    def read_counters(self, counter: str,
                      indices: Iterable[int]) -> dict[int, tuple[CounterValue, ...]]:
        """Counter cells from hardware: index -> one value per pipe (or one for all)."""
