"""SdeBfrtClient without an SDE: the message when bfrt_grpc is absent, a clear error
naming host:port when nothing listens, and the translation of plain dicts into the
SDE client's KeyTuple / DataTuple / Target calls (against a stand-in bfrt_grpc)."""

from __future__ import annotations

import socket
import sys
import types
from collections.abc import Iterator
from typing import Any

import pytest

from p4tester.dataplane.ternary import Ternary
from p4tester.p4rt import CounterValue
from p4tester.targets.tofino.bfrt import BfrtError, BfrtNotFoundError, TableEntry
from p4tester.targets.tofino.sde_client import (
    SDE_HINT,
    SdeBfrtClient,
    SdeNotFoundError,
    SwitchUnreachableError,
)


def test_missing_sde_says_how_to_get_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "bfrt_grpc", None)  # absent even where an SDE is
    with pytest.raises(SdeNotFoundError) as caught:
        SdeBfrtClient("127.0.0.1:50052")
    assert isinstance(caught.value, ImportError)
    assert str(caught.value) == SDE_HINT == (
        "the Tofino target needs the SDE's bfrt_grpc Python package: source the SDE's "
        "set_sde.bash / add $SDE_INSTALL/lib/python3*/site-packages/tofino to PYTHONPATH")


class Recorder:
    """Stand-in for bfrt_grpc.client: records what the client asks of the SDE."""

    def __init__(self) -> None:
        self.calls: list[tuple[Any, ...]] = []
        self.answers: list[tuple[dict[str, Any], dict[str, Any]]] = []
        self.refuse = False
        recorder = self

        class KeyTuple:
            def __init__(self, name: str, value: Any = None, mask: Any = None) -> None:
                self.args = (name, value, mask)

        class DataTuple:
            def __init__(self, name: str, val: Any = None, **kinds: Any) -> None:
                self.args = (name, val, kinds)

        class Target:
            def __init__(self, device_id: int = 0, pipe_id: int = 0xFFFF) -> None:
                self.args = (device_id, pipe_id)

        class Dict:
            def __init__(self, values: dict[str, Any]) -> None:
                self.values = values

            def to_dict(self) -> dict[str, Any]:
                return self.values

        class Table:
            def __init__(self, name: str) -> None:
                self.name = name

            def make_key(self, fields: list[Any]) -> list[Any]:
                return [f.args for f in fields]

            def make_data(self, fields: list[Any], action: str | None) -> Any:
                return ([f.args for f in fields], action)

            def entry_add(self, target: Any, keys: Any, datas: Any) -> None:
                recorder.calls.append(("add", self.name, target.args, keys, datas))

            def entry_mod(self, target: Any, keys: Any, datas: Any) -> None:
                recorder.calls.append(("mod", self.name, target.args, keys, datas))

            def entry_del(self, target: Any, keys: Any) -> None:
                recorder.calls.append(("del", self.name, target.args, keys))

            def entry_get(self, target: Any, keys: Any, flags: Any) -> Iterator[Any]:
                recorder.calls.append(("get", self.name, target.args, keys, flags))
                return iter([(Dict(d), Dict(k)) for d, k in recorder.answers])

        class Info:
            def table_get(self, name: str) -> Table:
                if name not in ("pipe.A.t", "pipe.A.reg", "pipe.A.count"):
                    raise KeyError(name)
                return Table(name)

            def table_name_list_get(self) -> list[str]:
                return ["pipe.A.t", "pipe.A.reg", "pipe.A.count"]

            def p4_name_get(self) -> str:
                return "tester"

        class ClientInterface:
            def __init__(self, **kwargs: Any) -> None:
                if recorder.refuse:
                    raise RuntimeError("Failed to subscribe")
                recorder.calls.append(("connect", kwargs))

            def bfrt_info_get(self, p4_name: str | None) -> Info:
                return Info()

            def bind_pipeline_config(self, name: str) -> None:
                recorder.calls.append(("bind", name))

        self.module = types.ModuleType("bfrt_grpc.client")
        for cls in (KeyTuple, DataTuple, Target, ClientInterface):
            setattr(self.module, cls.__name__, cls)


@pytest.fixture
def sde(monkeypatch: pytest.MonkeyPatch) -> Recorder:
    recorder = Recorder()
    package = types.ModuleType("bfrt_grpc")
    package.client = recorder.module  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "bfrt_grpc", package)
    monkeypatch.setitem(sys.modules, "bfrt_grpc.client", recorder.module)
    return recorder


@pytest.fixture
def listening() -> Iterator[str]:
    """A local TCP port that accepts connections (the client only checks it is there)."""
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        yield f"127.0.0.1:{server.getsockname()[1]}"


def last_call(sde: Recorder) -> tuple[Any, ...]:
    return sde.calls[-1]


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_nothing_listening_names_host_and_port(sde: Recorder) -> None:
    port = closed_port()
    with pytest.raises(SwitchUnreachableError,
                       match=rf"cannot reach the switch's BfRt server at 127\.0\.0\.1:{port} "
                             r"within 0\.5 s .*is bf_switchd running there"):
        SdeBfrtClient(f"127.0.0.1:{port}", timeout_s=0.5)
    assert sde.calls == []


def test_address_must_be_host_and_port(sde: Recorder) -> None:
    with pytest.raises(ValueError, match=r"BfRt address 'switch1' must be host:port"):
        SdeBfrtClient("switch1")


def test_server_that_refuses_the_client(sde: Recorder, listening: str) -> None:
    sde.refuse = True
    with pytest.raises(SwitchUnreachableError, match=rf"the BfRt server at {listening} refused"):
        SdeBfrtClient(listening)


def test_connects_binds_and_translates_writes(sde: Recorder, listening: str) -> None:
    client = SdeBfrtClient(listening, device_id=0, timeout_s=3.0)
    assert sde.calls[:2] == [
        ("connect", {"grpc_addr": listening, "client_id": 0, "device_id": 0, "timeout": 3.0,
                     "num_tries": 1}),
        ("bind", "tester")]
    client.add_entry("pipe.A.t", {"k": 5, "t": Ternary(1, 0xFF), "$PORT_NAME": "1/0"},
                     {"n": 7, "b": True, "s": "BF_SPEED_100G", "buf": b"\x01\x02",
                      "ids": (1, 2), "valid": (False, True), "lags": ()},
                     action="A.act", pipe=2)
    assert sde.calls[-1] == (
        "add", "pipe.A.t", (0, 2),
        [[("k", 5, None), ("t", 1, 0xFF), ("$PORT_NAME", "1/0", None)]],
        [([("n", 7, {}), ("b", None, {"bool_val": True}),
           ("s", None, {"str_val": "BF_SPEED_100G"}), ("buf", bytearray(b"\x01\x02"), {}),
           ("ids", None, {"int_arr_val": [1, 2]}), ("valid", None, {"bool_arr_val": [False, True]}),
           ("lags", None, {"int_arr_val": []})], "A.act")])
    client.modify_entry("pipe.A.t", {"k": 1}, {"n": 2})
    assert last_call(sde)[:3] == ("mod", "pipe.A.t", (0, 0xFFFF))
    client.clear_table("pipe.A.t")
    assert last_call(sde) == ("del", "pipe.A.t", (0, 0xFFFF), [])


def test_reads_registers_per_pipe_and_counters(sde: Recorder, listening: str) -> None:
    client = SdeBfrtClient(listening)
    sde.answers = [({"A.reg.f1": [3, 0, 9, 0], "action_name": None, "is_default_entry": False},
                    {"$REGISTER_INDEX": {"value": 4}})]
    assert client.read_registers("pipe.A.reg", [4]) == {4: {"A.reg.f1": (3, 0, 9, 0)}}
    assert sde.calls[-1] == ("get", "pipe.A.reg", (0, 0xFFFF), [[("$REGISTER_INDEX", 4, None)]],
                             {"from_hw": True})
    sde.answers = [({"$COUNTER_SPEC_PKTS": 10, "$COUNTER_SPEC_BYTES": 640},
                    {"$COUNTER_INDEX": {"value": 2}})]
    assert client.read_counters("pipe.A.count", [2]) == {2: (CounterValue(10, 640),)}


def test_reads_entries_back_as_plain_values(sde: Recorder, listening: str) -> None:
    client = SdeBfrtClient(listening)
    sde.answers = [({"$DEV_PORT": [132], "buf": bytearray(b"ab"), "action_name": "A.act",
                     "is_default_entry": False},
                    {"t": {"value": 1, "mask": 255}, "$PORT_NAME": {"value": "1/0"}})]
    assert client.read_entries("pipe.A.t") == [
        TableEntry({"t": Ternary(1, 255), "$PORT_NAME": "1/0"},
                   {"$DEV_PORT": (132,), "buf": b"ab"}, "A.act")]
    sde.answers = []
    with pytest.raises(BfrtNotFoundError, match=r"pipe.A.t: no entry with key \{'k': 1\}"):
        client.read_entry("pipe.A.t", {"k": 1})


def test_unknown_table_suggests_the_close_name(sde: Recorder, listening: str) -> None:
    client = SdeBfrtClient(listening)
    with pytest.raises(BfrtError, match=r"no table named 'pipe.A.tt'; did you mean 'pipe.A.t'\?"):
        client.clear_table("pipe.A.tt")
