"""BfrtClient over the SDE's own Python client, bfrt_grpc.client.

The SDE's package is not on PyPI and is only present where the SDE is installed, so it
is imported when a client is made, never at module import: the rest of the controller
(and its tests) work without it. API used: ClientInterface, bfrt_info_get,
bind_pipeline_config, table_get, make_key / make_data, entry_add / entry_mod /
entry_del / entry_get, KeyTuple, DataTuple, Target (SDE 9.x client.py).
"""

from __future__ import annotations

import difflib
import importlib
import socket
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any, Final

from p4tester.dataplane.ternary import Ternary
from p4tester.p4rt import CounterValue
from p4tester.targets.tofino import names
from p4tester.targets.tofino.bfrt import (
    BfrtClient,
    BfrtError,
    BfrtNotFoundError,
    Data,
    DataValue,
    Key,
    KeyValue,
    RegisterCell,
    TableEntry,
)

SDE_HINT: Final = (
    "the Tofino target needs the SDE's bfrt_grpc Python package: source the SDE's "
    "set_sde.bash / add $SDE_INSTALL/lib/python3*/site-packages/tofino to PYTHONPATH"
)
DEFAULT_ADDRESS: Final = "127.0.0.1:50052"  # bf_switchd's BfRt gRPC server
ALL_PIPES: Final = 0xFFFF
_NOT_DATA: Final = ("action_name", "is_default_entry")


class SdeNotFoundError(ImportError):
    """bfrt_grpc is not importable: the SDE is not installed or not on PYTHONPATH."""


class SwitchUnreachableError(BfrtError):
    """Nothing answers at the BfRt address, or it refused this client."""


class SdeBfrtClient:
    """A BfRt session with one switch, bound to the program it runs (or p4_name)."""

    def __init__(self, address: str = DEFAULT_ADDRESS, *, device_id: int = 0,
                 client_id: int = 0, p4_name: str | None = None, timeout_s: float = 10.0) -> None:
        try:
            self._gc: Any = importlib.import_module("bfrt_grpc.client")
        except ImportError as exc:
            raise SdeNotFoundError(SDE_HINT) from exc
        check_reachable(address, timeout_s)
        self._device = device_id
        try:
            self._interface: Any = self._gc.ClientInterface(
                grpc_addr=address, client_id=client_id, device_id=device_id,
                timeout=timeout_s, num_tries=1)
            self._info: Any = self._interface.bfrt_info_get(p4_name)
            self._interface.bind_pipeline_config(self._info.p4_name_get())
        except Exception as exc:
            raise SwitchUnreachableError(
                f"the BfRt server at {address} refused client {client_id} on device "
                f"{device_id}: {exc}; is the tester program loaded (bf_switchd --conf-file) "
                "and no other client using this client id?") from exc

    def close(self) -> None:
        self._interface.tear_down_stream()

    # ---- BfrtClient ------------------------------------------------------------------
    def add_entry(self, table: str, key: Key, data: Data, *, action: str | None = None,
                  pipe: int | None = None) -> None:
        t = self._table(table)
        self._call("add to", table, lambda: t.entry_add(
            self._target(pipe), [self._key(t, key)], [self._data(t, data, action)]))

    def modify_entry(self, table: str, key: Key, data: Data, *, action: str | None = None,
                     pipe: int | None = None) -> None:
        t = self._table(table)
        self._call("modify", table, lambda: t.entry_mod(
            self._target(pipe), [self._key(t, key)], [self._data(t, data, action)]))

    def delete_entry(self, table: str, key: Key, *, pipe: int | None = None) -> None:
        t = self._table(table)
        self._call("delete from", table, lambda: t.entry_del(self._target(pipe),
                                                             [self._key(t, key)]))

    def read_entry(self, table: str, key: Key, *, pipe: int | None = None,
                   from_hw: bool = False) -> TableEntry:
        t = self._table(table)
        found = self._call("read", table, lambda: list(t.entry_get(
            self._target(pipe), [self._key(t, key)], {"from_hw": from_hw})))
        if not found:
            raise BfrtNotFoundError(f"{table}: no entry with key {dict(key)}")
        data, entry_key = found[0]
        return _entry(data.to_dict(), entry_key.to_dict())

    def read_entries(self, table: str, *, pipe: int | None = None) -> list[TableEntry]:
        t = self._table(table)
        found = self._call("read", table, lambda: list(
            t.entry_get(self._target(pipe), [], {"from_hw": False})))
        return [_entry(data.to_dict(), key.to_dict()) for data, key in found]

    def clear_table(self, table: str, *, pipe: int | None = None) -> None:
        t = self._table(table)
        self._call("clear", table, lambda: t.entry_del(self._target(pipe), []))

    def read_registers(self, register: str, indices: Iterable[int]) -> dict[int, RegisterCell]:
        t = self._table(register)
        keys = [self._key(t, {names.REGISTER_INDEX: i}) for i in indices]
        found = self._call("read", register, lambda: list(
            t.entry_get(self._target(None), keys, {"from_hw": True})))
        cells: dict[int, RegisterCell] = {}
        for data, key in found:
            index = int(key.to_dict()[names.REGISTER_INDEX]["value"])
            cells[index] = {name: _per_pipe(value) for name, value in data.to_dict().items()
                            if name not in _NOT_DATA}
        return cells

    def write_registers(self, register: str, cells: Mapping[int, Mapping[str, int]]) -> None:
        t = self._table(register)
        keys = [self._key(t, {names.REGISTER_INDEX: i}) for i in cells]
        datas = [self._data(t, fields, None) for fields in cells.values()]
        self._call("write", register, lambda: t.entry_mod(self._target(None), keys, datas))

    def read_counters(self, counter: str,
                      indices: Iterable[int]) -> dict[int, tuple[CounterValue, ...]]:
        t = self._table(counter)
        keys = [self._key(t, {names.COUNTER_INDEX: i}) for i in indices]
        found = self._call("read", counter, lambda: list(
            t.entry_get(self._target(None), keys, {"from_hw": True})))
        cells: dict[int, tuple[CounterValue, ...]] = {}
        for data, key in found:
            values = data.to_dict()
            index = int(key.to_dict()[names.COUNTER_INDEX]["value"])
            # The server sums a symmetric counter over the pipes: one value.
            # A PACKETS counter (rx_stale, rx_mismatched) has no bytes field.
            cells[index] = (CounterValue(int(values[names.COUNTER_PACKETS]),
                                         int(values.get(names.COUNTER_BYTES, 0))),)
        return cells

    # ---- translation to the SDE's objects ------------------------------------------------
    def _table(self, name: str) -> Any:
        try:
            return self._info.table_get(name)
        except KeyError:
            known = list(self._info.table_name_list_get())
            hint = difflib.get_close_matches(name, known, n=1)
            suggestion = f"; did you mean {hint[0]!r}?" if hint else ""
            raise BfrtError(f"the switch's program has no table named {name!r}{suggestion} "
                            "(names.py holds every name the driver uses)") from None

    def _target(self, pipe: int | None) -> Any:
        return self._gc.Target(device_id=self._device,
                               pipe_id=ALL_PIPES if pipe is None else pipe)

    def _key(self, table: Any, key: Key) -> Any:
        return table.make_key([self._key_tuple(name, value) for name, value in key.items()])

    def _key_tuple(self, name: str, value: KeyValue) -> Any:
        if isinstance(value, Ternary):
            return self._gc.KeyTuple(name, value.value, value.mask)
        return self._gc.KeyTuple(name, value)

    def _data(self, table: Any, data: Data, action: str | None) -> Any:
        tuples = [self._data_tuple(name, value) for name, value in data.items()]
        return table.make_data(tuples, action)

    def _data_tuple(self, name: str, value: DataValue) -> Any:
        gc = self._gc
        if isinstance(value, bool):
            return gc.DataTuple(name, bool_val=value)
        if isinstance(value, int):
            return gc.DataTuple(name, value)
        if isinstance(value, str):
            return gc.DataTuple(name, str_val=value)
        if isinstance(value, bytes):
            return gc.DataTuple(name, bytearray(value))
        if value and all(isinstance(v, bool) for v in value):
            return gc.DataTuple(name, bool_arr_val=list(value))
        return gc.DataTuple(name, int_arr_val=[int(v) for v in value])

    @staticmethod
    def _call(what: str, table: str, request: Any) -> Any:
        try:
            return request()
        except BfrtError:
            raise
        except Exception as exc:
            kind = BfrtNotFoundError if _is_not_found(exc) else BfrtError
            raise kind(f"cannot {what} {table}: {exc}") from exc


def check_reachable(address: str, timeout_s: float) -> None:
    """Fail fast, naming host:port, when nothing listens there (the SDE's client
    would retry and then report a subscribe failure)."""
    host, _, port = address.rpartition(":")
    if not host or not port.isdigit():
        raise ValueError(f"BfRt address {address!r} must be host:port, e.g. {DEFAULT_ADDRESS}")
    try:
        socket.create_connection((host, int(port)), timeout=timeout_s).close()
    except OSError as exc:
        raise SwitchUnreachableError(
            f"cannot reach the switch's BfRt server at {host}:{port} within {timeout_s} s "
            f"({exc.strerror or exc}): is bf_switchd running there with the tester loaded? "
            "(BfRt gRPC listens on port 50052 by default)") from exc


def _is_not_found(exc: Exception) -> bool:
    grpc_error = getattr(exc, "grpc_error_get", lambda: None)()
    code = getattr(grpc_error, "code", lambda: None)()
    return getattr(code, "name", "") == "NOT_FOUND" or "not found" in str(exc).lower()


def _per_pipe(value: Any) -> tuple[int, ...]:
    return tuple(int(v) for v in value) if isinstance(value, list | tuple) else (int(value),)


def _entry(data: Mapping[str, Any], key: Mapping[str, Any]) -> TableEntry:
    keys: dict[str, KeyValue] = {}
    for name, field in key.items():
        value: Any = field["value"] if isinstance(field, Mapping) else field
        if isinstance(field, Mapping) and "mask" in field:
            keys[name] = Ternary(int(value), int(field["mask"]))
        else:
            keys[name] = value if isinstance(value, str) else int(value)
    fields: dict[str, DataValue] = {}
    for name, value in data.items():
        if name in _NOT_DATA:
            continue
        if isinstance(value, bytearray):
            fields[name] = bytes(value)
        elif isinstance(value, list):
            fields[name] = tuple(value)
        else:
            fields[name] = value
    action = data.get("action_name")
    return TableEntry(keys, fields, str(action) if action else None)


if TYPE_CHECKING:  # mypy (make lint) checks that SdeBfrtClient is a BfrtClient

    def _is_bfrt_client(client: SdeBfrtClient) -> BfrtClient:
        return client
