"""P4RuntimeClient against an in-process fake P4Runtime server (no switch needed).

The fake implements just enough of each RPC to check what the client sends and how it
reads the answers; every test is bounded by the client's short timeouts.
"""

from __future__ import annotations

import re
import socket
import threading
import time
from collections.abc import Iterator
from concurrent import futures
from pathlib import Path
from typing import Any

import grpc
import pytest
from google.protobuf import any_pb2
from google.rpc import code_pb2, status_pb2
from p4.v1 import p4runtime_pb2, p4runtime_pb2_grpc

from p4tester.p4rt import (
    ArbitrationError,
    CounterValue,
    Exact,
    P4InfoSchema,
    P4RuntimeClient,
    P4RuntimeError,
    PipelineMismatchError,
    SwitchUnreachableError,
    Ternary,
    WriteError,
    build_clone_session,
    build_counter_entry,
    build_multicast_group,
    build_packet_out,
    build_table_entry,
    decode_packet_in,
    make_update,
)

TIMEOUT_S = 2.0
PRIMARY_ELSEWHERE = (0, 5)
INGRESS_PORT = 5
REASON = 1


class FakeSwitch(p4runtime_pb2_grpc.P4RuntimeServicer):  # type: ignore[misc]
    """Records requests; answers like BMv2's server where the tests need it."""

    def __init__(self) -> None:
        self.address = ""
        self.grant_primary = True
        self.reject_wildcard_counter_write = False
        self.reject_update_index: int | None = None  # within each WriteRequest...
        self.reject_from_write = 0  # ...from this WriteRequest on
        self.arbitrations: list[Any] = []
        self.writes: list[Any] = []
        self.reads: list[Any] = []
        self.packet_outs: list[Any] = []
        self.pipeline: Any = None
        self.counter_cells = 64
        self.table_entries: list[Any] = []
        self.multicast_groups: list[Any] = []  # PacketReplicationEngineEntry messages
        self.streams_ended = threading.Semaphore(0)

    def StreamChannel(self, request_iterator: Iterator[Any], context: Any) -> Iterator[Any]:
        try:
            for request in request_iterator:
                kind = request.WhichOneof("update")
                if kind == "arbitration":
                    self.arbitrations.append(request.arbitration)
                    yield self._arbitration_answer(request.arbitration)
                elif kind == "packet":
                    self.packet_outs.append(request.packet)
                    yield self._loop_back(request.packet)
        finally:
            self.streams_ended.release()

    def _arbitration_answer(self, request: Any) -> Any:
        response = p4runtime_pb2.StreamMessageResponse()
        answer = response.arbitration
        answer.device_id = request.device_id
        if self.grant_primary:
            answer.election_id.CopyFrom(request.election_id)
            answer.status.code = code_pb2.OK
        else:
            answer.election_id.high, answer.election_id.low = PRIMARY_ELSEWHERE
            answer.status.code = code_pb2.ALREADY_EXISTS
            answer.status.message = "Is backup"
        return response

    def _loop_back(self, packet_out: Any) -> Any:
        packet_in = p4runtime_pb2.PacketIn(payload=packet_out.payload)
        packet_in.metadata.add(metadata_id=1, value=bytes([INGRESS_PORT]))
        packet_in.metadata.add(metadata_id=2, value=bytes([REASON]))
        return p4runtime_pb2.StreamMessageResponse(packet=packet_in)

    def Write(self, request: Any, context: Any) -> Any:
        self.writes.append(request)
        errors = [self._update_error(i, u) for i, u in enumerate(request.updates)]
        if any(e.canonical_code != code_pb2.OK for e in errors):
            # What PI does: UNKNOWN overall, one p4.v1.Error per update in the details.
            status = status_pb2.Status(code=code_pb2.UNKNOWN, message="Write failure.")
            for error in errors:
                packed = any_pb2.Any()
                packed.Pack(error)
                status.details.append(packed)
            context.set_trailing_metadata(
                (("grpc-status-details-bin", status.SerializeToString()),)
            )
            context.abort(grpc.StatusCode.UNKNOWN, "Write failure.")
        return p4runtime_pb2.WriteResponse()

    def _update_error(self, index: int, update: Any) -> Any:
        entity = update.entity
        if (
            self.reject_wildcard_counter_write
            and entity.WhichOneof("entity") == "counter_entry"
            and not entity.counter_entry.HasField("index")
        ):
            return p4runtime_pb2.Error(
                canonical_code=code_pb2.UNIMPLEMENTED,
                message="Wildcard write is not supported for indirect counters yet",
            )
        if index == self.reject_update_index and len(self.writes) > self.reject_from_write:
            return p4runtime_pb2.Error(
                canonical_code=code_pb2.ALREADY_EXISTS, message="Match entry exists"
            )
        return p4runtime_pb2.Error(canonical_code=code_pb2.OK)

    def Read(self, request: Any, context: Any) -> Iterator[Any]:
        self.reads.append(request)
        for entity in request.entities:
            kind = entity.WhichOneof("entity")
            if kind == "counter_entry":
                yield from self._counter_cells(entity.counter_entry.counter_id)
            elif kind == "table_entry":
                wanted = entity.table_entry.table_id
                response = p4runtime_pb2.ReadResponse()
                for entry in self.table_entries:
                    if entry.table_id == wanted:
                        response.entities.add().table_entry.CopyFrom(entry)
                yield response
            elif kind == "packet_replication_engine_entry":
                response = p4runtime_pb2.ReadResponse()
                wanted_type = entity.packet_replication_engine_entry.WhichOneof("type")
                for group in self.multicast_groups:
                    if group.WhichOneof("type") == wanted_type:
                        response.entities.add().packet_replication_engine_entry.CopyFrom(group)
                yield response

    def _counter_cells(self, counter_id: int) -> Iterator[Any]:
        # Two responses, so that the client must read the whole stream.
        half = self.counter_cells // 2
        for cells in (range(half), range(half, self.counter_cells)):
            response = p4runtime_pb2.ReadResponse()
            for index in cells:
                entry = response.entities.add().counter_entry
                entry.counter_id = counter_id
                entry.index.index = index
                entry.data.packet_count = index
                entry.data.byte_count = 64 * index
            yield response

    def SetForwardingPipelineConfig(self, request: Any, context: Any) -> Any:
        self.pipeline = request
        return p4runtime_pb2.SetForwardingPipelineConfigResponse()

    def GetForwardingPipelineConfig(self, request: Any, context: Any) -> Any:
        if self.pipeline is None:
            context.abort(grpc.StatusCode.FAILED_PRECONDITION, "No forwarding pipeline config")
        response = p4runtime_pb2.GetForwardingPipelineConfigResponse()
        response.config.p4info.CopyFrom(self.pipeline.config.p4info)
        return response


@pytest.fixture
def switch() -> Iterator[FakeSwitch]:
    fake = FakeSwitch()
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
    p4runtime_pb2_grpc.add_P4RuntimeServicer_to_server(fake, server)
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    fake.address = f"127.0.0.1:{port}"
    yield fake
    server.stop(grace=0).wait(timeout=TIMEOUT_S)


def _client(switch: FakeSwitch, **kwargs: Any) -> P4RuntimeClient:
    return P4RuntimeClient(switch.address, timeout_s=TIMEOUT_S, **kwargs)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _rx_entry(schema: P4InfoSchema, address: int) -> Any:
    return build_table_entry(
        schema,
        "rx_stream",
        {"hdr.ipv4.dst_addr": Exact(address), "hdr.tester.stream_id": Ternary(1, 0xFFFF)},
        "set_stream",
        {"stream_id": 1, "port": 2},
        priority=1,
    )


def test_arbitration_makes_the_client_primary(switch: FakeSwitch) -> None:
    with _client(switch, device_id=3, election_id=(1, 2)) as client:
        assert client.is_connected
        assert client.is_primary
    (request,) = switch.arbitrations
    assert request.device_id == 3
    assert (request.election_id.high, request.election_id.low) == (1, 2)
    assert not client.is_connected


def test_backup_client_gets_arbitration_error(switch: FakeSwitch) -> None:
    switch.grant_primary = False
    client = _client(switch)
    with pytest.raises(ArbitrationError) as info:
        client.connect()
    message = str(info.value)
    assert "not primary for device 0" in message
    assert "ALREADY_EXISTS" in message
    assert "primary's (0, 5)" in message
    assert not client.is_connected  # connect() cleaned up after itself


def test_unreachable_switch_fails_fast_with_a_hint() -> None:
    address = f"127.0.0.1:{_free_port()}"
    client = P4RuntimeClient(address, timeout_s=0.5)
    start = time.monotonic()
    with pytest.raises(SwitchUnreachableError) as info:
        client.connect()
    assert time.monotonic() - start < 2.0
    assert f"is simple_switch_grpc running and listening on {address}?" in str(info.value)
    assert info.value.address == address


def test_calls_before_connect_say_so() -> None:
    client = P4RuntimeClient("127.0.0.1:1")
    with pytest.raises(
        P4RuntimeError, match=re.escape("not connected to 127.0.0.1:1; call connect")
    ):
        client.write([])


def test_writes_are_batched(switch: FakeSwitch, mini_schema: P4InfoSchema) -> None:
    updates = [make_update("insert", _rx_entry(mini_schema, a)) for a in range(1200)]
    with _client(switch) as client:
        client.write(updates)
    assert [len(w.updates) for w in switch.writes] == [500, 500, 200]
    first = switch.writes[0]
    assert (first.device_id, first.election_id.low) == (0, 1)
    assert first.atomicity == p4runtime_pb2.WriteRequest.CONTINUE_ON_ERROR
    assert first.updates[0].type == p4runtime_pb2.Update.INSERT
    assert first.updates[0].entity.table_entry == _rx_entry(mini_schema, 0)
    assert switch.writes[2].updates[-1].entity.table_entry == _rx_entry(mini_schema, 1199)


def test_rejected_update_is_named(switch: FakeSwitch, mini_schema: P4InfoSchema) -> None:
    switch.reject_update_index = 1
    switch.reject_from_write = 1
    with _client(switch, max_updates_per_write=2) as client, pytest.raises(WriteError) as info:
        client.insert(*[_rx_entry(mini_schema, a) for a in range(6)])
    (failure,) = info.value.failures
    # The second chunk (updates 2, 3) fails; the index counts from the caller's first update.
    assert (failure.index, failure.update_type, failure.entity_kind, failure.code) == (
        3,
        "INSERT",
        "table_entry",
        "ALREADY_EXISTS",
    )
    assert str(info.value) == (
        "write failed: 1 of 2 updates rejected: "
        "update #3 (INSERT table_entry): ALREADY_EXISTS: Match entry exists "
        "(in the WriteRequest from update #2; the ones before it were applied)"
    )
    assert info.value.grpc_code == "UNKNOWN"
    assert len(switch.writes) == 2  # the third chunk is not sent


def test_counter_is_read_with_one_wildcard(switch: FakeSwitch, mini_schema: P4InfoSchema) -> None:
    with _client(switch) as client:
        cells = client.read_counter(mini_schema, "rx_packets")
    (request,) = switch.reads
    (entity,) = request.entities
    assert entity.counter_entry.counter_id == 302000001
    assert not entity.counter_entry.HasField("index")
    assert list(cells) == list(range(64))
    assert cells[10] == CounterValue(packets=10, bytes=640)


def test_counter_reset_falls_back_to_each_cell(
    switch: FakeSwitch, mini_schema: P4InfoSchema
) -> None:
    switch.reject_wildcard_counter_write = True
    with _client(switch) as client:
        client.reset_counter(mini_schema, "rx_packets")
    wildcard, cells = switch.writes
    assert not wildcard.updates[0].entity.counter_entry.HasField("index")
    assert [u.entity.counter_entry.index.index for u in cells.updates] == list(range(64))
    assert all(u.type == p4runtime_pb2.Update.MODIFY for u in cells.updates)
    assert all(u.entity.counter_entry.data.packet_count == 0 for u in cells.updates)


def test_packet_out_and_packet_in(switch: FakeSwitch, mini_schema: P4InfoSchema) -> None:
    with _client(switch) as client:
        client.packet_out(build_packet_out(mini_schema, b"probe", {"opcode": 2, "stream_id": 7}))
        raw = client.packet_in(TIMEOUT_S)
        assert raw is not None
        assert client.packet_in(0.01) is None
        assert client.drain_packet_ins() == []
    (sent,) = switch.packet_outs
    assert [(m.metadata_id, m.value) for m in sent.metadata] == [(1, b"\x02"), (2, b"\x07")]
    received = decode_packet_in(mini_schema, raw)
    assert received.payload == b"probe"
    assert received.metadata == {"ingress_port": INGRESS_PORT, "reason": REASON}


def test_close_joins_the_thread_and_connect_works_again(switch: FakeSwitch) -> None:
    client = _client(switch)
    client.connect()
    stream = client._stream
    assert stream is not None and stream.thread is not None
    thread = stream.thread
    client.close()
    assert not thread.is_alive()
    assert switch.streams_ended.acquire(timeout=TIMEOUT_S)  # the server saw the end too
    client.close()  # idempotent
    client.connect()
    assert client.is_primary
    client.close()
    assert len(switch.arbitrations) == 2


def test_read_table_and_delete_all(switch: FakeSwitch, mini_schema: P4InfoSchema) -> None:
    switch.table_entries = [_rx_entry(mini_schema, 1), _rx_entry(mini_schema, 2)]
    default = p4runtime_pb2.TableEntry(table_id=33554433, is_default_action=True)
    switch.table_entries.append(default)
    with _client(switch) as client:
        assert client.read_table(mini_schema, "rx_stream") == switch.table_entries[:2]
        assert client.delete_all_table_entries(mini_schema) == 2
    (delete,) = switch.writes
    keys = [u.entity.table_entry for u in delete.updates]
    assert all(u.type == p4runtime_pb2.Update.DELETE for u in delete.updates)
    assert [k.match for k in keys] == [e.match for e in switch.table_entries[:2]]
    assert not any(k.HasField("action") for k in keys)  # the key alone


def test_pipeline_push_and_verify(
    switch: FakeSwitch, mini_schema: P4InfoSchema, mini_p4info_path: Path, tmp_path: Path
) -> None:
    bmv2_json = tmp_path / "mini.json"
    bmv2_json.write_bytes(b'{"program": "mini"}')
    with _client(switch) as client:
        with pytest.raises(PipelineMismatchError, match="the switch has no pipeline loaded"):
            client.verify_pipeline(mini_schema)
        client.set_pipeline(mini_p4info_path, bmv2_json)
        client.verify_pipeline(mini_schema)
        changed = type(mini_schema.p4info)()
        changed.CopyFrom(mini_schema.p4info)
        changed.actions[1].preamble.id = 16777299
        with pytest.raises(PipelineMismatchError) as info:
            client.verify_pipeline(P4InfoSchema(changed))
    request = switch.pipeline
    assert request.action == p4runtime_pb2.SetForwardingPipelineConfigRequest.VERIFY_AND_COMMIT
    assert request.config.p4_device_config == b'{"program": "mini"}'
    assert request.config.p4info == mini_schema.p4info
    message = str(info.value)
    assert "action 'Ingress.checker.set_stream' has id 16777218 on the switch, 16777299" in message
    assert "`make build`" in message


def test_pipeline_push_deletes_multicast_groups_first(
    switch: FakeSwitch, mini_p4info_path: Path, tmp_path: Path
) -> None:
    """BMv2's replication engine outlives a pipeline push while its P4Runtime server
    forgets the groups: a group written again would keep its old members too."""
    bmv2_json = tmp_path / "mini.json"
    bmv2_json.write_bytes(b"{}")
    switch.multicast_groups = [
        build_multicast_group(5, [(256, 2), (1, 1)]),
        build_multicast_group(9, [(3, 1)]),
        build_clone_session(250, 510),
    ]
    with _client(switch) as client:
        client.set_pipeline(mini_p4info_path, bmv2_json)
    groups, sessions = switch.writes
    assert [u.type for u in groups.updates] == [p4runtime_pb2.Update.DELETE] * 2
    deleted = [
        u.entity.packet_replication_engine_entry.multicast_group_entry.multicast_group_id
        for u in groups.updates
    ]
    assert deleted == [5, 9]
    assert [(u.type, u.entity.packet_replication_engine_entry.clone_session_entry.session_id)
            for u in sessions.updates] == [(p4runtime_pb2.Update.DELETE, 250)]
    assert switch.pipeline is not None


def test_pipeline_push_without_groups_writes_nothing(
    switch: FakeSwitch, mini_p4info_path: Path, tmp_path: Path
) -> None:
    bmv2_json = tmp_path / "mini.json"
    bmv2_json.write_bytes(b"{}")
    with _client(switch) as client:
        client.set_pipeline(mini_p4info_path, bmv2_json)
    assert switch.writes == []
    assert switch.pipeline is not None


def test_switch_going_away_is_reported_as_unreachable(mini_schema: P4InfoSchema) -> None:
    fake = FakeSwitch()
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
    p4runtime_pb2_grpc.add_P4RuntimeServicer_to_server(fake, server)
    fake.address = f"127.0.0.1:{server.add_insecure_port('127.0.0.1:0')}"
    server.start()
    client = _client(fake)
    client.connect()
    server.stop(grace=0).wait(timeout=TIMEOUT_S)
    try:
        with pytest.raises(SwitchUnreachableError, match=fake.address):
            client.write([make_update("modify", build_counter_entry(mini_schema, "rx_packets"))])
    finally:
        client.close()
