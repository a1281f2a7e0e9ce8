"""TesterDataplane.expect_stream / forget_stream: the rx_expected entry the checker
compares each frame of a stream with (p4src/common/rx_expectation.p4)."""

from __future__ import annotations

from typing import Any, cast

import pytest

from p4tester.dataplane import names
from p4tester.dataplane.program import TesterDataplane
from p4tester.p4rt import P4InfoSchema, P4RuntimeClient, UpdateFailure, WriteError

SCHEMA = P4InfoSchema.from_text_file("p4src/build/tester.p4info.txt")


class RecordingClient:
    """Records writes; refuses a second insert of the same key (ALREADY_EXISTS)."""

    def __init__(self) -> None:
        self.writes: list[tuple[str, Any]] = []
        self.keys: set[bytes] = set()

    def insert(self, *entities: Any) -> None:
        for entity in entities:
            key = entity.match[0].SerializeToString()
            if key in self.keys:
                raise WriteError("exists", failures=[
                    UpdateFailure(0, "INSERT", "table_entry", "ALREADY_EXISTS", "")])
            self.keys.add(key)
            self.writes.append(("insert", entity))

    def modify(self, *entities: Any) -> None:
        self.writes.extend(("modify", e) for e in entities)

    def delete(self, *entities: Any) -> None:
        self.writes.extend(("delete", e) for e in entities)

    def read_table(self, schema: P4InfoSchema, name: str) -> list[Any]:
        """The table's entries as the writes left them (the last write of each key)."""
        table_id = schema.table(name).id
        entries: dict[bytes, Any] = {}
        for op, entity in self.writes:
            if entity.table_id != table_id:
                continue
            key = entity.match[0].SerializeToString()
            if op == "delete":
                entries.pop(key, None)
            else:
                entries[key] = entity
        return list(entries.values())


def dataplane() -> tuple[TesterDataplane, RecordingClient]:
    client = RecordingClient()
    return TesterDataplane(cast(P4RuntimeClient, client), SCHEMA), client


def test_expectation_of_an_ipv4_and_an_ipv6_stream() -> None:
    plane, client = dataplane()
    plane.expect_stream(3, 2, epoch=5, run=0)
    plane.expect_stream(4, 7, ipv6=True, epoch=127, run=255)
    plane.expect_stream(3, 2, epoch=6, run=0x5A)  # next trial: the entry is modified
    assert [op for op, _ in client.writes] == ["insert", "insert", "modify"]
    table = SCHEMA.table(names.RX_EXPECTED)
    assert [e.table_id for _, e in client.writes] == [table.id] * 3
    ids = {p.name: p.id for p in SCHEMA.action(names.RX_EXPECT).params}
    expected = [(3, 0, 5 << 1, 2, 4), (4, 255, 127 << 1, 7, 6), (3, 0x5A, 6 << 1, 2, 4)]
    for (_, entity), (stream, run, flags, port, version) in zip(client.writes, expected,
                                                               strict=True):
        assert int.from_bytes(entity.match[0].exact.value, "big") == stream
        values = {p.param_id: int.from_bytes(p.value, "big") for p in entity.action.action.params}
        assert values == {ids["trial_run"]: run, ids["trial_epoch"]: flags,
                          ids["rx_port"]: port, ids["ip_version"]: version}


def test_expectation_arguments_are_checked() -> None:
    plane, _ = dataplane()
    with pytest.raises(ValueError, match=r"stream id 64 is out of range"):
        plane.expect_stream(64, 1)
    with pytest.raises(ValueError, match=r"generator epoch 128 must be in 0..127"):
        plane.expect_stream(0, 1, epoch=128)
    with pytest.raises(ValueError, match=r"run value 256 must be in 0..255"):
        plane.expect_stream(0, 1, run=256)


def test_forget_stream_deletes_its_entry() -> None:
    plane, client = dataplane()
    plane.forget_stream(9)
    [(op, entity)] = client.writes
    assert op == "delete"
    assert entity.table_id == SCHEMA.table(names.RX_EXPECTED).id
    assert int.from_bytes(entity.match[0].exact.value, "big") == 9


def test_run_values_in_use_are_the_previous_runs() -> None:
    """What the next run must not draw: the run values of the switch's expectations."""
    plane, _ = dataplane()
    assert plane.run_values_in_use() == frozenset()
    plane.expect_stream(0, 2, epoch=9, run=17)
    plane.expect_stream(1, 2, epoch=9, run=17)
    plane.expect_stream(2, 2, epoch=3, run=0)
    assert plane.run_values_in_use() == frozenset({0, 17})
    plane.forget_stream(2)
    assert plane.run_values_in_use() == frozenset({17})
