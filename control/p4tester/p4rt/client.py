"""P4Runtime client: one gRPC connection to one device, as its primary controller.

The StreamChannel (arbitration, PacketIn) is drained by a background thread into queues,
so tests can send a PacketOut and then wait, with a timeout, for what comes back.
Every unary RPC has a deadline, and gRPC failures become the errors of `errors.py`.
"""

from __future__ import annotations

import logging
import queue
import threading
from collections import deque
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from os import PathLike
from pathlib import Path
from types import TracebackType
from typing import Any, Final, Literal, Self

import grpc  # type: ignore[import-untyped, unused-ignore]
from google.rpc import code_pb2  # type: ignore[import-untyped, unused-ignore]
from p4.v1 import p4runtime_pb2, p4runtime_pb2_grpc  # type: ignore[import-untyped, unused-ignore]

from .encoding import decode_value
from .entities import build_counter_entry
from .errors import (
    ArbitrationError,
    P4RuntimeError,
    PipelineMismatchError,
    SwitchUnreachableError,
    WriteError,
    canonical_code_name,
    translate_rpc_error,
    translate_write_error,
)
from .schema import P4InfoSchema, pipeline_differences

_LOG = logging.getLogger(__name__)

# gRPC's 4 MiB default is too small for the BMv2 JSON of a large program and for reads
# of large tables or counters.
_MAX_MESSAGE_BYTES: Final = 64 * 1024 * 1024
# How long close() waits for the server to end the stream after our half-close.
_HALF_CLOSE_GRACE_S: Final = 0.5
# How long close() then waits for the stream thread; it only has to notice a cancellation.
_JOIN_TIMEOUT_S: Final = 5.0
# Kept for inspection; older stream errors are only logged.
_MAX_STREAM_ERRORS: Final = 100
_MAX_UINT64: Final = 2**64 - 1

UpdateType = Literal["insert", "modify", "delete"]

_UPDATE_TYPES: Final = {
    "insert": p4runtime_pb2.Update.INSERT,
    "modify": p4runtime_pb2.Update.MODIFY,
    "delete": p4runtime_pb2.Update.DELETE,
}

# Message types that write()/read() wrap into an Entity, by protobuf full name.
_ENTITY_FIELDS: Final = {
    "p4.v1.TableEntry": "table_entry",
    "p4.v1.PacketReplicationEngineEntry": "packet_replication_engine_entry",
    "p4.v1.CounterEntry": "counter_entry",
}

# Ends the request iterator that feeds the StreamChannel.
_STOP: Final = object()


@dataclass(frozen=True, slots=True)
class CounterValue:
    """One counter cell."""

    packets: int
    bytes: int


def as_entity(message: Any) -> Any:
    """`message` (TableEntry, PacketReplicationEngineEntry, CounterEntry or Entity)
    as a p4.v1.Entity."""
    descriptor = getattr(message, "DESCRIPTOR", None)
    name = str(descriptor.full_name) if descriptor is not None else type(message).__name__
    if name == "p4.v1.Entity":
        return message
    field = _ENTITY_FIELDS.get(name)
    if field is None:
        raise TypeError(
            f"cannot wrap {name} into a p4.v1.Entity; expected one of: "
            + ", ".join(sorted(_ENTITY_FIELDS))
        )
    entity = p4runtime_pb2.Entity()
    getattr(entity, field).CopyFrom(message)
    return entity


def make_update(update_type: UpdateType, message: Any) -> Any:
    """A p4.v1.Update of `message` (any type that as_entity() accepts)."""
    return p4runtime_pb2.Update(type=_UPDATE_TYPES[update_type], entity=as_entity(message))


class _Stream:
    """One StreamChannel call: the queue feeding its requests and the thread reading it."""

    __slots__ = ("arbitrated", "call", "closing", "first_arbitration", "requests", "thread")

    def __init__(self) -> None:
        self.requests: queue.Queue[Any] = queue.Queue()
        # The first arbitration answer, or the P4RuntimeError that ended the stream first.
        self.first_arbitration: queue.Queue[Any] = queue.Queue()
        self.arbitrated = False  # touched by the receiving thread only
        self.closing = threading.Event()
        self.call: Any = None
        self.thread: threading.Thread | None = None

    def request_iterator(self) -> Iterator[Any]:
        while (item := self.requests.get()) is not _STOP:
            yield item

    @property
    def alive(self) -> bool:
        return self.thread is not None and self.thread.is_alive()


class P4RuntimeClient:
    """Client of one P4Runtime device; use it as a context manager (connects, closes)."""

    def __init__(
        self,
        address: str = "127.0.0.1:9559",
        device_id: int = 0,
        election_id: tuple[int, int] = (0, 1),
        timeout_s: float = 10.0,
        *,
        max_updates_per_write: int = 500,
        pipeline_timeout_s: float = 60.0,
        packet_in_queue_size: int = 100_000,
    ) -> None:
        """election_id is (high, low) of the 128-bit id; the highest id is primary.
        pipeline_timeout_s bounds SetForwardingPipelineConfig, which on BMv2 loads and
        checks the whole JSON. PacketIns beyond packet_in_queue_size are dropped and
        counted in dropped_packet_ins."""
        if not all(0 <= part <= _MAX_UINT64 for part in election_id):
            raise ValueError(f"election_id {election_id} must be two integers in 0..2**64-1")
        if timeout_s <= 0 or pipeline_timeout_s <= 0:
            raise ValueError("timeouts must be positive")
        if max_updates_per_write < 1:
            raise ValueError("max_updates_per_write must be at least 1")
        self._address = address
        self._device_id = device_id
        self._election_id = election_id
        self._timeout_s = timeout_s
        self._pipeline_timeout_s = pipeline_timeout_s
        self._max_updates = max_updates_per_write
        self._packet_ins: queue.Queue[Any] = queue.Queue(maxsize=packet_in_queue_size)
        self._stream_errors: deque[Any] = deque(maxlen=_MAX_STREAM_ERRORS)
        self._dropped_packet_ins = 0
        self._primary = False
        self._channel: Any = None
        self._stub: Any = None
        self._stream: _Stream | None = None

    # --- connection -------------------------------------------------------------------

    def __enter__(self) -> Self:
        self.connect()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    @property
    def address(self) -> str:
        return self._address

    @property
    def device_id(self) -> int:
        return self._device_id

    @property
    def is_connected(self) -> bool:
        return self._stream is not None and self._stream.alive

    @property
    def is_primary(self) -> bool:
        """True while the switch's last arbitration answer made this client primary."""
        return self.is_connected and self._primary

    @property
    def dropped_packet_ins(self) -> int:
        return self._dropped_packet_ins

    def connect(self) -> None:
        """Open the channel and the stream, and become primary; no-op when connected."""
        if self.is_connected:
            return
        self.close()  # whatever a dead stream left behind
        channel = grpc.insecure_channel(
            self._address,
            options=[
                ("grpc.max_receive_message_length", _MAX_MESSAGE_BYTES),
                ("grpc.max_send_message_length", _MAX_MESSAGE_BYTES),
            ],
        )
        ready = grpc.channel_ready_future(channel)
        try:
            ready.result(timeout=self._timeout_s)
        except grpc.FutureTimeoutError:
            ready.cancel()
            channel.close()
            raise SwitchUnreachableError(
                self._address, f"no connection within {self._timeout_s} s"
            ) from None
        self._channel = channel
        self._stub = p4runtime_pb2_grpc.P4RuntimeStub(channel)
        stream = _Stream()
        stream.call = self._stub.StreamChannel(stream.request_iterator())
        stream.thread = threading.Thread(
            target=self._receive, args=(stream,), name=f"p4rt-stream-{self._address}", daemon=True
        )
        self._stream = stream
        stream.thread.start()
        arbitration = p4runtime_pb2.MasterArbitrationUpdate(
            device_id=self._device_id, election_id=self._uint128()
        )
        stream.requests.put(p4runtime_pb2.StreamMessageRequest(arbitration=arbitration))
        try:
            self._await_primary(stream)
        except BaseException:
            self.close()
            raise

    def close(self) -> None:
        """End the stream, join its thread (bounded) and close the channel. Idempotent;
        connect() may be called again afterwards."""
        stream, self._stream = self._stream, None
        if stream is not None:
            stream.closing.set()
            # Half-close first: a P4Runtime server (PI does) then ends the stream with
            # OK, a clean goodbye. Cancel the call only if it does not do so promptly.
            stream.requests.put(_STOP)
            if stream.thread is not None:
                stream.thread.join(timeout=_HALF_CLOSE_GRACE_S)
            if stream.alive and stream.call is not None:
                stream.call.cancel()  # wakes our thread blocked on the next response
            if stream.thread is not None:
                stream.thread.join(timeout=_JOIN_TIMEOUT_S)
                if stream.thread.is_alive():
                    _LOG.warning(
                        "P4Runtime stream thread did not stop within %s s", _JOIN_TIMEOUT_S
                    )
        channel, self._channel = self._channel, None
        self._stub = None
        self._primary = False
        if channel is not None:
            channel.close()

    def _await_primary(self, stream: _Stream) -> None:
        try:
            answer = stream.first_arbitration.get(timeout=self._timeout_s)
        except queue.Empty:
            raise ArbitrationError(
                f"no arbitration answer from {self._address} for device {self._device_id} "
                f"within {self._timeout_s} s"
            ) from None
        if isinstance(answer, P4RuntimeError):
            raise answer
        if answer.status.code != code_pb2.OK:
            # P4Runtime spec 5.4: a backup client gets ALREADY_EXISTS and the primary's id.
            primary = (int(answer.election_id.high), int(answer.election_id.low))
            code = canonical_code_name(int(answer.status.code))
            raise ArbitrationError(
                f"not primary for device {self._device_id} at {self._address}: "
                f"{code} ({answer.status.message}); our election id {self._election_id}, "
                f"primary's {primary}; stop the other controller or use a higher election_id",
                grpc_code=code,
            )

    def _receive(self, stream: _Stream) -> None:
        """Body of the stream thread: dispatch every response until the stream ends."""
        failure: P4RuntimeError | None = None
        try:
            for response in stream.call:
                self._dispatch(stream, response)
            if not stream.closing.is_set():
                failure = ArbitrationError(f"the switch at {self._address} closed the stream")
        except grpc.RpcError as exc:
            if not stream.closing.is_set():
                failure = translate_rpc_error(
                    exc, address=self._address, action="StreamChannel", timeout_s=self._timeout_s
                )
                if not isinstance(failure, SwitchUnreachableError):
                    # The stream is the arbitration: a switch that ends it refused us.
                    failure = ArbitrationError(
                        f"the switch ended the stream: {failure.message}",
                        grpc_code=failure.grpc_code,
                    )
        except Exception as exc:  # a bug here must not pass silently in a daemon thread
            _LOG.exception("P4Runtime stream thread failed")
            failure = P4RuntimeError(f"stream thread failed: {exc!r}")
        if failure is not None:
            _LOG.warning("P4Runtime stream to %s ended: %s", self._address, failure)
            self._primary = False
            stream.first_arbitration.put(failure)  # unblocks a connect() still waiting

    def _dispatch(self, stream: _Stream, response: Any) -> None:
        kind = response.WhichOneof("update")
        if kind == "arbitration":
            self._primary = response.arbitration.status.code == code_pb2.OK
            if not stream.arbitrated:
                stream.arbitrated = True
                stream.first_arbitration.put(response.arbitration)
            elif not self._primary:
                _LOG.warning("another controller became primary of device %s", self._device_id)
        elif kind == "packet":
            try:
                self._packet_ins.put_nowait(response.packet)
            except queue.Full:
                self._dropped_packet_ins += 1
        elif kind == "error":
            self._stream_errors.append(response.error)
            _LOG.warning("switch reported a stream error: %s", response.error.message)
        else:
            _LOG.debug("ignoring stream message of kind %s", kind)

    # --- packet I/O -------------------------------------------------------------------

    def packet_out(self, message: Any) -> None:
        """Send a p4.v1.PacketOut (see entities.build_packet_out) over the stream."""
        stream = self._stream
        if stream is None or not stream.alive:
            raise self._not_connected()
        stream.requests.put(p4runtime_pb2.StreamMessageRequest(packet=message))

    def packet_in(self, timeout_s: float) -> Any | None:
        """The oldest received p4.v1.PacketIn, waiting up to timeout_s; None if none came."""
        try:
            return self._packet_ins.get(timeout=timeout_s)
        except queue.Empty:
            return None

    def drain_packet_ins(self) -> list[Any]:
        """Remove and return every PacketIn received so far."""
        drained: list[Any] = []
        while True:
            try:
                drained.append(self._packet_ins.get_nowait())
            except queue.Empty:
                return drained

    def drain_stream_errors(self) -> list[Any]:
        """Remove and return the p4.v1.StreamError messages the switch sent (e.g. a
        rejected PacketOut), oldest first."""
        errors: list[Any] = []
        while self._stream_errors:
            errors.append(self._stream_errors.popleft())
        return errors

    # --- pipeline ---------------------------------------------------------------------

    def set_pipeline(
        self, p4info: P4InfoSchema | str | PathLike[str], bmv2_json_path: str | PathLike[str]
    ) -> None:
        """Push P4Info + BMv2 JSON with VERIFY_AND_COMMIT (drops all table state).

        Multicast groups and clone sessions are deleted first: BMv2's replication
        engine outlives a pipeline push while the P4Runtime server forgets them, so
        a group or session written again afterwards would replicate to its old
        members as well (a capture would get each frame twice).
        """
        self.delete_multicast_groups()
        self.delete_clone_sessions()
        schema = p4info if isinstance(p4info, P4InfoSchema) else P4InfoSchema.from_text_file(p4info)
        config = p4runtime_pb2.ForwardingPipelineConfig(
            p4info=schema.p4info, p4_device_config=Path(bmv2_json_path).read_bytes()
        )
        request = p4runtime_pb2.SetForwardingPipelineConfigRequest(
            device_id=self._device_id,
            election_id=self._uint128(),
            action=p4runtime_pb2.SetForwardingPipelineConfigRequest.VERIFY_AND_COMMIT,
            config=config,
        )
        self._unary("SetForwardingPipelineConfig", request, self._pipeline_timeout_s)

    def delete_multicast_groups(self) -> int:
        """Delete every multicast group the switch reports; returns how many.

        A switch without a pipeline yet has none and may refuse the read: that
        counts as none.
        """
        wildcard = p4runtime_pb2.PacketReplicationEngineEntry()
        wildcard.multicast_group_entry.multicast_group_id = 0
        try:
            groups = [e.packet_replication_engine_entry for e in self.read(wildcard)]
        except P4RuntimeError:
            return 0
        if groups:
            self.delete(*groups)
        return len(groups)

    def delete_clone_sessions(self) -> int:
        """Delete every clone session the switch reports; returns how many."""
        wildcard = p4runtime_pb2.PacketReplicationEngineEntry()
        wildcard.clone_session_entry.session_id = 0
        try:
            sessions = [e.packet_replication_engine_entry for e in self.read(wildcard)]
        except P4RuntimeError:
            return 0
        if sessions:
            self.delete(*sessions)
        return len(sessions)

    def get_p4info(self) -> Any:
        """The p4.config.v1.P4Info the switch runs."""
        request = p4runtime_pb2.GetForwardingPipelineConfigRequest(
            device_id=self._device_id,
            response_type=p4runtime_pb2.GetForwardingPipelineConfigRequest.P4INFO_AND_COOKIE,
        )
        return self._unary("GetForwardingPipelineConfig", request, self._timeout_s).config.p4info

    def verify_pipeline(self, schema: P4InfoSchema) -> None:
        """Raise PipelineMismatchError unless the switch runs `schema`'s tables, actions
        and counters with the same ids."""
        try:
            actual = P4InfoSchema(self.get_p4info())
        except P4RuntimeError as exc:
            # PI answers FAILED_PRECONDITION while no pipeline has been pushed.
            if exc.grpc_code == "FAILED_PRECONDITION":
                raise PipelineMismatchError(("the switch has no pipeline loaded",)) from exc
            raise
        differences = pipeline_differences(schema, actual)
        if differences:
            raise PipelineMismatchError(differences)

    # --- write ------------------------------------------------------------------------

    def write(self, updates: Sequence[Any]) -> None:
        """Send p4.v1.Updates in WriteRequests of at most max_updates_per_write.

        Chunks go in order; the first rejected chunk raises WriteError, whose failure
        indices count from the start of `updates` (earlier chunks are applied)."""
        stub = self._require_stub()
        for offset in range(0, len(updates), self._max_updates):
            chunk = list(updates[offset : offset + self._max_updates])
            request = p4runtime_pb2.WriteRequest(
                device_id=self._device_id,
                election_id=self._uint128(),
                updates=chunk,
                atomicity=p4runtime_pb2.WriteRequest.CONTINUE_ON_ERROR,
            )
            try:
                stub.Write(request, timeout=self._timeout_s)
            except grpc.RpcError as exc:
                raise translate_write_error(
                    exc, chunk, offset=offset, address=self._address, timeout_s=self._timeout_s
                ) from exc

    def insert(self, *entities: Any) -> None:
        """INSERT each TableEntry / PacketReplicationEngineEntry / CounterEntry."""
        self.write([make_update("insert", entity) for entity in entities])

    def modify(self, *entities: Any) -> None:
        self.write([make_update("modify", entity) for entity in entities])

    def delete(self, *entities: Any) -> None:
        self.write([make_update("delete", entity) for entity in entities])

    # --- read -------------------------------------------------------------------------

    def read(self, entity: Any) -> Iterator[Any]:
        """The p4.v1.Entity messages matching `entity` (unset fields are wildcards)."""
        stub = self._require_stub()
        request = p4runtime_pb2.ReadRequest(device_id=self._device_id, entities=[as_entity(entity)])
        return self._read_entities(stub.Read(request, timeout=self._timeout_s))

    def _read_entities(self, responses: Any) -> Iterator[Any]:
        try:
            for response in responses:
                yield from response.entities
        except grpc.RpcError as exc:
            raise translate_rpc_error(
                exc, address=self._address, action="Read", timeout_s=self._timeout_s
            ) from exc
        finally:
            responses.cancel()  # a caller that stops early must not leave the call open

    def read_counter(self, schema: P4InfoSchema, name: str) -> dict[int, CounterValue]:
        """Every cell of an indexed counter, by index, in one wildcard read."""
        counter_id = schema.counter(name).id
        values: dict[int, CounterValue] = {}
        for entity in self.read(build_counter_entry(schema, name)):
            entry = entity.counter_entry
            if entry.counter_id == counter_id:
                values[int(entry.index.index)] = CounterValue(
                    packets=int(entry.data.packet_count), bytes=int(entry.data.byte_count)
                )
        return dict(sorted(values.items()))

    def reset_counter(self, schema: P4InfoSchema, name: str) -> None:
        """Zero every cell of a counter."""
        try:
            self.modify(build_counter_entry(schema, name, packets=0, bytes=0))
        except WriteError as exc:
            # The spec allows a wildcard MODIFY, but BMv2's server answers UNIMPLEMENTED
            # ("Wildcard write is not supported for indirect counters yet").
            _LOG.debug("wildcard counter reset refused (%s); writing each cell", exc)
            size = schema.counter(name).size
            self.write(
                [
                    make_update("modify", build_counter_entry(schema, name, i, 0, 0))
                    for i in range(size)
                ]
            )

    def read_table(self, schema: P4InfoSchema, name: str) -> list[Any]:
        """Every p4.v1.TableEntry of a table, except its default entry."""
        table_id = schema.table(name).id
        entries: list[Any] = []
        for entity in self.read(p4runtime_pb2.TableEntry(table_id=table_id)):
            entry = entity.table_entry
            if entry.table_id == table_id and not entry.is_default_action:
                entries.append(entry)
        return entries

    def read_default_params(self, schema: P4InfoSchema, name: str) -> dict[str, int]:
        """The parameters (name -> value) of a table's default action as the switch
        holds it."""
        table_id = schema.table(name).id
        for entity in self.read(p4runtime_pb2.TableEntry(table_id=table_id,
                                                         is_default_action=True)):
            entry = entity.table_entry
            if entry.table_id == table_id and entry.is_default_action:
                action = next(a for a in schema.actions
                              if a.id == entry.action.action.action_id)
                by_id = {param.id: param.name for param in action.params}
                return {by_id[given.param_id]: decode_value(given.value)
                        for given in entry.action.action.params}
        raise P4RuntimeError(f"the switch returned no default entry of table {name}")

    def delete_all_table_entries(self, schema: P4InfoSchema) -> int:
        """Delete every entry the controller may delete (not const ones, not default
        entries) from every table of `schema`; the number deleted."""
        updates: list[Any] = []
        for table in schema.tables:
            if table.is_const:
                continue
            for entry in self.read_table(schema, table.name):
                if entry.is_const:
                    continue
                # The key alone identifies an entry; sending back read-only fields
                # (counter data, timestamps) would only give the switch more to reject.
                key = p4runtime_pb2.TableEntry(
                    table_id=entry.table_id, match=entry.match, priority=entry.priority
                )
                updates.append(make_update("delete", key))
        self.write(updates)
        return len(updates)

    # --- helpers ----------------------------------------------------------------------

    def _uint128(self) -> Any:
        high, low = self._election_id
        return p4runtime_pb2.Uint128(high=high, low=low)

    def _not_connected(self) -> P4RuntimeError:
        return P4RuntimeError(
            f"not connected to {self._address}; call connect() first "
            "(or use the client as a context manager)"
        )

    def _require_stub(self) -> Any:
        if self._stub is None:
            raise self._not_connected()
        return self._stub

    def _unary(self, method: str, request: Any, timeout_s: float) -> Any:
        try:
            return getattr(self._require_stub(), method)(request, timeout=timeout_s)
        except grpc.RpcError as exc:
            raise translate_rpc_error(
                exc, address=self._address, action=method, timeout_s=timeout_s
            ) from exc
