"""names.py against the schema bf-p4c wrote for the tester (p4src/build/tna/*.bfrt.json,
kept fresh by scripts/p4-build-tna.sh): every table, action, register and counter the
BfRt driver uses exists under that name, with the key fields, parameters, data fields,
widths and sizes the driver assumes."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_dataplane_constants import p4_values

from p4tester.targets.tofino import bins, hardware, names
from p4tester.targets.tofino.schema import (
    Schema,
    SchemaError,
    Table,
    committed_path,
    load_schema,
    parse_schema,
)

P4SRC = Path(__file__).resolve().parents[2] / "p4src"
TOFINO = load_schema()
TOFINO2 = load_schema(committed_path("tofino2"))
SCHEMAS = [pytest.param(TOFINO, id="tofino"), pytest.param(TOFINO2, id="tofino2")]

# (table, [(key field, match type, width)]); $MATCH_PRIORITY has no width.
TABLE_KEYS = [
    (names.GEN_APPS, [(names.GEN_APPS_PIPE_KEY, "Exact", 2), (names.GEN_APPS_KEY, "Exact", 3)]),
    (names.FOREIGN_TRAFFIC, [(names.FOREIGN_PORT_KEY, "Ternary", 9),
                             (names.MATCH_PRIORITY, "Exact", None)]),
    (names.RX_EXPECTED, [(names.RX_EXPECTED_KEY, "Exact", 16)]),
    (names.RX_PORT_SLOTS, [(names.RX_PORT_SLOTS_STREAM, "Exact", 16),
                           (names.RX_PORT_SLOTS_PORT, "Exact", 16)]),
    (names.ARP_REPLY, [(names.NEIGHBOR_PORT_KEY, "Exact", 16),
                       (names.ARP_TARGET_KEY, "Exact", 32)]),
    (names.ND_REPLY, [(names.NEIGHBOR_PORT_KEY, "Exact", 16),
                      (names.ND_TARGET_KEY, "Exact", 128)]),
    (names.SOLICITATION_SOURCE, [("src_ip6", "Exact", 128)]),
    (names.TX_CLOCK_CORRECTION, [(names.TX_CLOCK_CORRECTION_KEY, "Exact", 16)]),
    (names.LATENCY_BINS, [(names.BIN_STREAM_KEY, "Ternary", 16),
                          (names.LATENCY_KEY, "Ternary", bins.LATENCY_BITS),
                          (names.MATCH_PRIORITY, "Exact", None)]),
    (names.QDEPTH_BINS, [(names.BIN_STREAM_KEY, "Ternary", 16),
                         (names.QDEPTH_KEY, "Ternary", bins.QDEPTH_BITS),
                         (names.MATCH_PRIORITY, "Exact", None)]),
]
# (table, action, [(parameter, width)]).
ACTIONS = [
    (names.GEN_APPS, names.GEN_RUN, [(names.GEN_RUN_GROUP, 16), (names.GEN_RUN_BUDGET, 32),
                                      (names.GEN_RUN_DROP_BELOW, 16)]),
    (names.GEN_APPS, names.GEN_STOPPED, []),
    (names.TX_CLOCK_CORRECTION, names.STAMP_WITH, [(names.STAMP_WITH_CORRECTION, 32)]),
    (names.RX_PORT_SLOTS, names.RECEIVE_AS, [(names.RECEIVE_AS_SEQ, 16),
                                             (names.RECEIVE_AS_FIGURES, 16)]),
    (names.LATENCY_BINS, names.SET_LATENCY_BIN, [(names.BIN_PARAM, 8)]),
    (names.QDEPTH_BINS, names.SET_QDEPTH_BIN, [(names.BIN_PARAM, 8)]),
    (names.FOREIGN_TRAFFIC, names.DROP_FOREIGN, []),
    (names.FOREIGN_TRAFFIC, names.PUNT_FOREIGN, []),
    (names.FOREIGN_TRAFFIC, names.FORWARD_FOREIGN, [(names.FORWARD_PORT_PARAM, 9)]),
    (names.RX_EXPECTED, names.RX_EXPECT, [(names.RX_EXPECT_RUN, 8), (names.RX_EXPECT_EPOCH, 8),
                                          (names.RX_EXPECT_PORT, 16),
                                          (names.RX_EXPECT_IP_VERSION, 8)]),
    (names.RX_EXPECTED, names.RX_NOT_IN_TRIAL, []),
    (names.ARP_REPLY, names.ANSWER_ARP, [(names.ANSWER_MAC_PARAM, 48)]),
    (names.ND_REPLY, names.ANSWER_ND, [(names.ANSWER_MAC_PARAM, 48)]),
]
# (register, size, [(data field, width)]).
STREAM_REGISTERS = [
    (names.TX_NEXT_SEQ, 32), (names.RX_NEXT_EXPECTED, 32), (names.RX_LAST_SEQ, 32),
    (names.RX_SEEN, 8), (names.RX_LOST, 32), (names.LATENCY_MIN, 32), (names.LATENCY_MAX, 32),
    (names.LAST_LATENCY, 32),
]
REGISTERS = [
    *[(r, names.MAX_STREAMS, [(names.register_field(r), width)]) for r, width in STREAM_REGISTERS],
    *[(r, names.MAX_STREAMS, [(names.register_field(r, names.SUM_LO), 32),
                              (names.register_field(r, names.SUM_HI), 32)])
      for r in (names.LATENCY_SUM, names.JITTER_SUM)],
]
HIST_CELLS = names.MAX_STREAMS << names.HIST_CELLS_LOG2
# (counter, size, data fields).
PACKETS_AND_BYTES = [names.COUNTER_BYTES, names.COUNTER_PACKETS]
COUNTERS = [
    (names.RX_KIND, 8, PACKETS_AND_BYTES),
    (names.RX_STALE, names.MAX_STREAMS, [names.COUNTER_PACKETS]),
    (names.RX_MISMATCHED, names.MAX_STREAMS, [names.COUNTER_PACKETS]),
    (names.RX_STREAM, names.MAX_STREAMS, PACKETS_AND_BYTES),
    (names.TX_STREAM, names.MAX_STREAMS, PACKETS_AND_BYTES),
    (names.RX_GAP_EVENTS, names.MAX_STREAMS, [names.COUNTER_PACKETS]),
    (names.RX_REORDERED, names.MAX_STREAMS, [names.COUNTER_PACKETS]),
    (names.RX_DUPLICATE, names.MAX_STREAMS, [names.COUNTER_PACKETS]),
    (names.LATENCY_HIST, HIST_CELLS, [names.COUNTER_PACKETS]),
    (names.QDEPTH_HIST, HIST_CELLS, [names.COUNTER_PACKETS]),
    (names.RX_PORT, names.DEV_PORTS, PACKETS_AND_BYTES),
    (names.TX_PORT, names.DEV_PORTS, PACKETS_AND_BYTES),
]


@pytest.mark.parametrize(("table", "keys"), TABLE_KEYS)
def test_table_keys(table: str, keys: list[tuple[str, str, int | None]]) -> None:
    found = TOFINO.table(table)
    assert found.table_type == "MatchAction_Direct"
    assert [(k.name, k.match_type, k.width) for k in found.keys] == keys


@pytest.mark.parametrize(("table", "action", "params"), ACTIONS)
def test_actions_and_parameters(table: str, action: str, params: list[tuple[str, int]]) -> None:
    found = TOFINO.table(table).action(action)
    assert [(p.name, p.width) for p in found.params] == params


@pytest.mark.parametrize(("register", "size", "fields"), REGISTERS)
def test_stream_registers(register: str, size: int, fields: list[tuple[str, int]]) -> None:
    found = TOFINO.table(register)
    assert (found.table_type, found.size) == ("Register", size)
    assert [k.name for k in found.keys] == [names.REGISTER_INDEX]
    assert [(d.name, d.width) for d in found.data] == fields


def test_generated_register_has_a_cell_per_application() -> None:
    found = TOFINO.table(names.GENERATED)
    assert (found.table_type, found.size) == ("Register", names.PKTGEN_APPS)
    # The count and, beside it, the tick of the last packet counted: read together.
    assert [(d.name, d.width) for d in found.data] == [
        ("TesterIngress.generator.generated.made", 32),
        ("TesterIngress.generator.generated.last_tick", 32)]
    assert names.register_field(names.GENERATED, names.GENERATED_MADE) == (
        "TesterIngress.generator.generated.made")
    assert names.register_field(names.GENERATED, names.GENERATED_LAST_TICK) == (
        "TesterIngress.generator.generated.last_tick")


@pytest.mark.parametrize(("counter", "size", "fields"), COUNTERS)
def test_counters(counter: str, size: int, fields: list[str]) -> None:
    found = TOFINO.table(counter)
    assert (found.table_type, found.size) == ("Counter", size)
    assert [k.name for k in found.keys] == [names.COUNTER_INDEX]
    assert [d.name for d in found.data] == fields


def test_grouped_counter_names() -> None:
    assert names.PER_STREAM_COUNTERS == (names.TX_STREAM, names.RX_STREAM, names.RX_GAP_EVENTS,
                                         names.RX_REORDERED, names.RX_DUPLICATE)
    assert names.HISTOGRAM_COUNTERS == (names.LATENCY_HIST, names.QDEPTH_HIST)
    assert names.NOT_THE_STREAMS_COUNTERS == (names.RX_STALE, names.RX_MISMATCHED)


def test_table_sizes_are_the_drivers() -> None:
    assert TOFINO.table(names.LATENCY_BINS).size == names.BIN_TABLE_SIZE
    assert TOFINO.table(names.QDEPTH_BINS).size == names.BIN_TABLE_SIZE
    # gen_apps: (pipe, application) for 4 pipes of 8 applications.
    assert TOFINO.table(names.GEN_APPS).size == 4 * names.PKTGEN_APPS
    assert TOFINO.table(names.RX_EXPECTED).size == names.MAX_STREAMS
    # rx_port_slots: a (stream, port) entry for as many cells as the checker has.
    assert TOFINO.table(names.RX_PORT_SLOTS).size == names.MAX_STREAMS
    assert TOFINO.table(names.TX_CLOCK_CORRECTION).size == names.MAX_STREAMS


def test_the_program_has_nothing_the_driver_ignores() -> None:
    """Every program table, register and counter is one the driver knows (the rest are
    the compiler's own: snapshot, port metadata, debug counters)."""
    used = ({t for t, _ in TABLE_KEYS} | {r for r, _, _ in REGISTERS} | {names.GENERATED}
            | {c for c, _, _ in COUNTERS})
    program = {t.name for t in TOFINO.tables.values()
               if t.table_type in ("MatchAction_Direct", "Register", "Counter")}
    assert program == used


@pytest.mark.parametrize("schema", SCHEMAS)
def test_tofino2_has_the_same_objects(schema: Schema) -> None:
    """The program's names are the same on Tofino 2; only the application count differs."""
    for table, keys in TABLE_KEYS:
        assert [k.name for k in schema.table(table).keys] == [k for k, _, _ in keys]
    for register, size, fields in REGISTERS:
        assert [d.name for d in schema.table(register).data] == [f for f, _ in fields]
        assert schema.table(register).size == size
    apps = 8 if schema is TOFINO else 16
    assert schema.table(names.GENERATED).size == apps
    assert schema.table(names.GEN_APPS).size == 4 * apps
    assert schema.table(names.GEN_APPS).key(names.GEN_APPS_KEY).width == (3 if apps == 8 else 4)


def test_register_field_names() -> None:
    assert names.register_field(names.RX_LOST) == "TesterIngress.checker.rx_lost.f1"
    assert names.register_field(names.LATENCY_SUM, names.SUM_HI) == (
        "TesterIngress.checker.latency_sum.cells.hi")
    with pytest.raises(ValueError, match=r"must be a full name starting with 'pipe.'"):
        names.register_field("TesterIngress.checker.rx_lost")


def test_unknown_names_suggest_the_closest() -> None:
    with pytest.raises(SchemaError, match=r"no table named 'pipe.TesterIngress.checker.rx_lots'; "
                                          r"did you mean 'pipe.TesterIngress.checker.rx_lost'\?"):
        TOFINO.table("pipe.TesterIngress.checker.rx_lots")
    gen_apps = TOFINO.table(names.GEN_APPS)
    with pytest.raises(SchemaError, match=r"has no key field 'app'; did you mean 'app_id'\?"):
        gen_apps.key("app")
    with pytest.raises(SchemaError, match=r"has no action 'run'$"):
        gen_apps.action("run")
    with pytest.raises(SchemaError, match=r"has no data field 'x'$"):
        gen_apps.data_field("x")


def test_parse_schema_of_a_minimal_document() -> None:
    schema = parse_schema({"tables": [{
        "name": "pipe.A.t", "table_type": "MatchAction_Direct", "size": 4,
        "key": [{"name": "k", "match_type": "Exact", "type": {"type": "bytes", "width": 9}}],
        "action_specs": [{"name": "A.set", "data": [
            {"name": "v", "type": {"type": "bytes", "width": 8}}]}],
        "data": [{"mandatory": False, "singleton": {"name": "$x", "type": {"type": "uint64"}}}],
    }]})
    table = schema.table("pipe.A.t")
    assert table == Table("pipe.A.t", "MatchAction_Direct", 4, table.keys, table.actions,
                          table.data)
    assert [(k.name, k.width, k.match_type) for k in table.keys] == [("k", 9, "Exact")]
    assert [(p.name, p.width) for p in table.action("A.set").params] == [("v", 8)]
    assert [(d.name, d.width) for d in table.data] == [("$x", None)]


def test_committed_path_names_the_targets() -> None:
    assert committed_path().name == "tofino.bfrt.json"
    assert committed_path("tofino2").name == "tofino2.bfrt.json"
    with pytest.raises(ValueError, match=r"no Tofino target 'tofino3'"):
        committed_path("tofino3")


def test_constants_outside_the_schema_are_the_programs() -> None:
    """What the schema does not show: the multicast group numbering and histogram cell
    layout (common/constants.p4), the Tofino 1 generator port (tna/platform.p4)."""
    values = p4_values("common/constants.p4", tofino=True)
    assert values["MCAST_GROUP_BASE"] == names.MCAST_GROUP_BASE
    assert values["HIST_CELLS_LOG2"] == names.HIST_CELLS_LOG2
    assert values["MAX_STREAMS"] == names.MAX_STREAMS
    platform = (P4SRC / "tna" / "platform.p4").read_text()
    start = platform.index("/* Tofino 1:")
    tofino1 = platform[start:platform.index("#endif", platform.index("#define PKTGEN_APPS", start))]
    assert f"const bit<7> PKTGEN_PORT_IN_PIPE = {hardware.PKTGEN_PORT_IN_PIPE};" in tofino1
    assert f"#define PKTGEN_APPS {names.PKTGEN_APPS}" in tofino1
