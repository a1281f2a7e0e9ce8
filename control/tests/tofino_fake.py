"""An in-memory BfRt switch for the Tofino driver's tests.

The tester program's tables, registers and counters are those of the committed schema
the compiler wrote, p4src/build/tna/tofino.bfrt.json: names, key and data fields, and
widths (a value too wide for its field is refused). The SDE's fixed tables (ports, PRE,
packet generator) are written out here from the SDE's bf_rt_*_tf1.json. Neither is
imported from the driver, so a misspelt name in names.py fails like it would on a
switch. It answers as a server does: unknown tables, fields and actions are refused,
adds of existing entries and changes of missing ones fail, the packet generator's
tables are modify-only and check buffer alignment. Every write is logged in order.

The packet generator can run (advance_to): each enabled timer application fires every
timer_nanosec from its enabling, each trigger making batch_count_cfg + 1 batches of
packets_per_batch_cfg + 1 packets (packet j of batch b at trigger + b x ibg + j x ipg
ns), and ingress counts each against its gen_apps budget as generator.p4 does: the
generated cell's count and, beside it, the tick (global_tstamp bits 39..8) of the last
packet counted. A retimed application keeps the trigger already due and fires at its
new period after it. This is the model's choice: what the hardware does then is
unknown (targets.tofino.pktgen).

Thinning (Poisson arrivals) is modelled as generator.p4 does it: each packet of an
application whose gen_apps entry drops draws below drop_draws_below > 0 takes a 16-bit
draw, in packet order, and is dropped uncounted when the draw is below. The draws are
a seeded generator per (pipe, application) (`seed`), so a test's counts are exact and
do not depend on how finely it advances the clock. An entry without the field drops
nothing (a BfRt add leaves a field it is not given 0). The hardware's random unit is
not this generator: only the counting around the draw is modelled.

Tofino 2 (FakeBfrt(chip="tofino2")): the program's objects from tofino2.bfrt.json, the
SDE's tf2.pktgen.* tables and its refusals from the schema fixture
fixtures/sde_tf2_fixed_tables.json (written from the open SDE's bf_rt_pktgen_tf2.json
and pipe_mgr_tof2_pktgen.c: 16 applications, pkt_len >= 59, generators on pipe-local
ports 0-7 only, source port <= 127, channel <= 7), and front-panel ports as channels
of 400G cages: "<cage>/<channel>", channels 0-7 at dev port pipe x 128 + 8 + 8 x
cage-in-pipe + channel, each port taking its $N_LANES (the SDE's default for its speed
when not given) of the cage's 8 lanes, refused when they do not fit.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from p4tester.dataplane.ternary import Ternary
from p4tester.p4rt import CounterValue
from p4tester.targets.tofino.bfrt import (
    BfrtError,
    BfrtNotFoundError,
    Data,
    Key,
    RegisterCell,
    TableEntry,
)
from p4tester.targets.tofino.schema import Schema, committed_path, load_schema

PIPES = 4
# What a modify of app_cfg with an action configures: the SDE starts from a zeroed
# configuration and sets the fields given (bf_rt_pktgen_table_impl.cpp), so a field left
# out becomes 0. The enable bit and the counters are set apart and kept when not given.
APP_CONFIG_FIELDS = ("timer_nanosec", "pkt_len", "pkt_buffer_offset", "pipe_local_source_port",
                     "increment_source_port", "batch_count_cfg", "packets_per_batch_cfg",
                     "ibg", "ibg_jitter", "ipg", "ipg_jitter")
APP_FIELDS = ("app_enable", *APP_CONFIG_FIELDS[1:], "batch_counter", "pkt_counter",
              "trigger_counter")
# pipe_mgr_tof_pktgen_cfg_app_conf_check: pkt_len + 6 (header) + 4 (CRC) >= 21.
APP_MIN_PKT_LEN = 11
APP_CFG: Final = "tf1.pktgen.app_cfg"
APP_CFGS: Final = ("tf1.pktgen.app_cfg", "tf2.pktgen.app_cfg")
BUFFERS: Final = ("tf1.pktgen.pkt_buffer", "tf2.pktgen.pkt_buffer")
TF2_FIXTURE: Final = Path(__file__).parent / "fixtures" / "sde_tf2_fixed_tables.json"
GEN_APPS: Final = "pipe.TesterIngress.generator.gen_apps"
GEN_RUN: Final = "TesterIngress.generator.run"
GENERATED: Final = "pipe.TesterIngress.generator.generated"
MADE: Final = "TesterIngress.generator.generated.made"
LAST_TICK: Final = "TesterIngress.generator.generated.last_tick"
DROP_BELOW: Final = "drop_draws_below"
DRAW_BITS: Final = 16
TSTAMP_BITS: Final = 48


@dataclass(frozen=True)
class TableSpec:
    keys: tuple[str, ...]
    # action -> its data fields; None -> data fields of an entry without an action.
    actions: Mapping[str | None, tuple[str, ...]]
    fixed: bool = False  # SDE fixed table: modify only, one copy per pipe
    widths: Mapping[str, int] = field(default_factory=dict)  # bit widths of fields


SCHEMA: Schema = load_schema()


def _program_tables(schema: Schema) -> dict[str, TableSpec]:
    tables = {}
    for table in schema.tables.values():
        if table.table_type != "MatchAction_Direct":
            continue
        widths = {k.name: k.width for k in table.keys if k.width is not None}
        widths.update({p.name: p.width for a in table.actions for p in a.params
                       if p.width is not None})
        tables[table.name] = TableSpec(
            tuple(k.name for k in table.keys),
            {a.name: tuple(p.name for p in a.params) for a in table.actions},
            widths=widths)
    return tables


def _registers(schema: Schema) -> dict[str, tuple[int, tuple[str, ...]]]:
    return {t.name: (t.size, tuple(d.name for d in t.data))
            for t in schema.tables.values() if t.table_type == "Register"}


def _register_widths(schema: Schema) -> dict[str, int]:
    return {d.name: d.width for t in schema.tables.values() if t.table_type == "Register"
            for d in t.data if d.width is not None}


TABLES: dict[str, TableSpec] = {
    **_program_tables(SCHEMA),
    "$PORT": TableSpec(("$DEV_PORT",), {
        None: ("$SPEED", "$FEC", "$PORT_ENABLE", "$AUTO_NEGOTIATION", "$LOOPBACK_MODE")}),
    "$PORT_STR_INFO": TableSpec(("$PORT_NAME",), {None: ("$DEV_PORT",)}),
    # Read-only MAC counters of every port that exists (set_port_stat sets them).
    "$PORT_STAT": TableSpec(("$DEV_PORT",), {None: ("$FramesReceivedOK",
                                                    "$FramesTransmittedOK")}),
    "$pre.node": TableSpec(("$MULTICAST_NODE_ID",), {
        None: ("$MULTICAST_RID", "$MULTICAST_LAG_ID", "$DEV_PORT")}),
    "$pre.mgid": TableSpec(("$MGID",), {
        None: ("$MULTICAST_NODE_ID", "$MULTICAST_NODE_L1_XID_VALID", "$MULTICAST_NODE_L1_XID")}),
    "tf1.pktgen.port_cfg": TableSpec(("dev_port",), {None: ("pktgen_enable",)}, fixed=True),
    "tf1.pktgen.app_cfg": TableSpec(("app_id",), {
        None: APP_FIELDS, "trigger_timer_periodic": ("timer_nanosec", *APP_FIELDS)}, fixed=True),
    "tf1.pktgen.pkt_buffer": TableSpec(("pkt_buffer_offset", "pkt_buffer_size"),
                                       {None: ("buffer",)}, fixed=True),
}
REGISTERS: dict[str, tuple[int, tuple[str, ...]]] = _registers(SCHEMA)
REGISTER_WIDTHS: dict[str, int] = _register_widths(SCHEMA)
COUNTERS: dict[str, int] = {t.name: t.size for t in SCHEMA.tables.values()
                            if t.table_type == "Counter"}


@dataclass(frozen=True)
class ChipSpec:
    """What the fake serves for one chip: tables, registers, counters, and what the
    SDE refuses of its packet generator."""

    name: str
    tables: Mapping[str, TableSpec]
    registers: Mapping[str, tuple[int, tuple[str, ...]]]
    register_widths: Mapping[str, int]
    counters: Mapping[str, int]
    app_cfg: str
    buffer: str
    port_cfg: str
    applications: int
    min_pkt_len: int
    app_config_fields: tuple[str, ...]
    generator_ports: tuple[int, int]  # pipe-local ports a generator may be enabled on
    source_port_max: int | None = None
    channel_max: int | None = None
    default_lanes: Mapping[str, int] = field(default_factory=dict)  # $SPEED -> lanes


TOFINO1: Final = ChipSpec(
    "tofino1", TABLES, REGISTERS, REGISTER_WIDTHS, COUNTERS, APP_CFG,
    "tf1.pktgen.pkt_buffer", "tf1.pktgen.port_cfg", 8, APP_MIN_PKT_LEN, APP_CONFIG_FIELDS,
    # pipe_mgr_tof_pktgen.c (port_is_pktgenable): a pipe's generator ports are 68-71.
    (68, 71))


def _tofino2() -> ChipSpec:
    """Tofino 2: the tofino2 compile's objects and the fixture's SDE tables."""
    schema = load_schema(committed_path("tofino2"))
    fixture = json.loads(TF2_FIXTURE.read_text())
    fixed: dict[str, TableSpec] = {}
    app_fields: tuple[str, ...] = ()
    for name, table in fixture["tables"].items():
        data = dict(table.get("data", {}))
        widths = {**table["keys"], **data}
        actions: dict[str | None, tuple[str, ...]] = {}
        for action, params in table["actions"].items():
            widths.update(params)
            actions[action or None] = (*params, *data)
        fixed[name] = TableSpec(tuple(table["keys"]), actions, fixed=True,
                                widths={k: v for k, v in widths.items() if v is not None})
        if name.endswith(".app_cfg"):
            app_fields = ("timer_nanosec", *(f for f in data if f != "app_enable"
                                             and f not in table["counters"]))
    base = {n: t for n, t in TABLES.items() if not n.startswith("tf1.")
            and n not in _program_tables(SCHEMA)}
    port = base["$PORT"]
    base["$PORT"] = TableSpec(port.keys, {None: (*port.actions[None], "$N_LANES")})
    refusals = fixture["refusals"]
    low, high = refusals["generator_ports_in_pipe"]
    return ChipSpec(
        "tofino2", {**_program_tables(schema), **base, **fixed}, _registers(schema),
        _register_widths(schema),
        {t.name: t.size for t in schema.tables.values() if t.table_type == "Counter"},
        "tf2.pktgen.app_cfg", "tf2.pktgen.pkt_buffer", "tf2.pktgen.port_cfg",
        refusals["applications"], refusals["min_pkt_len"], app_fields, (low, high),
        refusals["source_port_max"], refusals["channel_max"],
        fixture["ports"]["default_lanes"])


TOFINO2: Final = _tofino2()
CHIPS: Final = {"tofino1": TOFINO1, "tofino2": TOFINO2}
TF2_FIRST_MAC: Final = 8
CAGE_LANES: Final = 8


def front_panel_dev_port(connector: int, channel: int = 0, chip: str = "tofino1") -> int:
    """A 32-port, 4-pipe layout: connectors 1-8 in pipe 0, 9-16 in pipe 1, ...; on
    Tofino 2 each a 400G cage of 8 channels from pipe-local port 8."""
    pipe, slot = divmod(connector - 1, 8)
    if chip == "tofino2":
        return pipe * 128 + TF2_FIRST_MAC + slot * CAGE_LANES + channel
    return pipe * 128 + slot * 8 + channel


@dataclass(frozen=True)
class Write:
    op: str  # add | modify | delete | clear | register
    table: str
    key: Mapping[str, Any]
    data: Mapping[str, Any] = field(default_factory=dict)
    action: str | None = None
    pipe: int | None = None


def _frozen(key: Key) -> tuple[tuple[str, Any], ...]:
    return tuple(sorted(key.items()))


class FakeBfrt:
    """BfrtClient in memory; `writes` logs every change in order."""

    def __init__(self, connectors: Iterable[int] = range(1, 33), seed: int = 24,
                 chip: str = "tofino1") -> None:
        self.chip = CHIPS[chip]
        self.writes: list[Write] = []
        self.tables: dict[tuple[str, int | None], dict[Any, TableEntry]] = {}
        self.registers: dict[str, dict[int, dict[str, list[int]]]] = {
            r: {} for r in self.chip.registers}
        self.counters: dict[str, dict[int, list[CounterValue]]] = {
            c: {} for c in self.chip.counters}
        self.port_stat_reads: list[tuple[int, bool]] = []  # ($DEV_PORT, from_hw)
        self.clock_ns = 0  # global_tstamp (wraps at 2^48)
        # (pipe, app id) -> when its next trigger fires, while it is enabled.
        self.next_trigger: dict[tuple[int, int], int] = {}
        self.seed = seed
        # (pipe, app id) -> its draws, and how many packets drew and were dropped.
        self.draws: dict[tuple[int, int], random.Random] = {}
        self.dropped: dict[tuple[int, int], int] = {}
        channels = range(CAGE_LANES) if chip == "tofino2" else range(1)
        for n in connectors:
            for channel in channels:
                dev = front_panel_dev_port(n, channel, chip)
                name = f"{n}/{channel}"
                self._rows("$PORT_STR_INFO", None)[_frozen({"$PORT_NAME": name})] = \
                    TableEntry({"$PORT_NAME": name}, {"$DEV_PORT": dev})
                self.set_port_stat(dev, 0, 0)

    # ---- test helpers --------------------------------------------------------------
    def entries(self, table: str, pipe: int | None = None) -> list[TableEntry]:
        return list(self._rows(table, pipe).values())

    def set_port_stat(self, dev_port: int, received_ok: int, transmitted_ok: int) -> None:
        """The MAC counters of a port ($PORT_STAT), as the SDE reads them."""
        key = {"$DEV_PORT": dev_port}
        self._rows("$PORT_STAT", None)[_frozen(key)] = TableEntry(
            key, {"$FramesReceivedOK": received_ok, "$FramesTransmittedOK": transmitted_ok})

    def add_port_stat(self, dev_port: int, received_ok: int = 0,
                      transmitted_ok: int = 0) -> None:
        old = self._rows("$PORT_STAT", None)[_frozen({"$DEV_PORT": dev_port})].data
        rx, tx = old["$FramesReceivedOK"], old["$FramesTransmittedOK"]
        assert isinstance(rx, int) and isinstance(tx, int)
        self.set_port_stat(dev_port, rx + received_ok, tx + transmitted_ok)

    def set_register(self, register: str, index: int, field_name: str,
                     per_pipe: Iterable[int]) -> None:
        self.registers[register].setdefault(index, {})[field_name] = list(per_pipe)

    def count(self, counter: str, index: int, pipe: int, packets: int, nbytes: int = 0) -> None:
        cells = self.counters[counter].setdefault(index, [CounterValue(0, 0)] * PIPES)
        old = cells[pipe]
        cells[pipe] = CounterValue(old.packets + packets, old.bytes + nbytes)

    def writes_to(self, table: str) -> list[Write]:
        return [w for w in self.writes if w.table == table]

    def advance_to(self, clock_ns: int) -> None:
        """Run every enabled application's timer up to `clock_ns` (not back)."""
        if clock_ns < self.clock_ns:
            raise ValueError(f"the clock runs forward: {clock_ns} ns is before {self.clock_ns}")
        for (pipe, app), due in sorted(self.next_trigger.items()):
            config = self._rows(self.chip.app_cfg, pipe)[_frozen({"app_id": app})].data
            period = int(str(config["timer_nanosec"]))
            if due > clock_ns or period <= 0:
                continue
            triggers = (clock_ns - due) // period + 1
            self.next_trigger[pipe, app] = due + triggers * period
            self._count_made(pipe, app, due, triggers, period, config)
        self.clock_ns = clock_ns

    def _count_made(self, pipe: int, app: int, first: int, triggers: int, period: int,
                    config: Mapping[str, Any]) -> None:
        """What ingress counts of these triggers' packets against the budget."""
        entry = self._rows(GEN_APPS, None).get(_frozen({"pipe_id": pipe, "app_id": app}))
        if entry is None or entry.action != GEN_RUN:
            return  # stopped, or no entry: ingress drops them uncounted
        budget = int(str(entry.data["packet_budget"]))
        batch = int(config["packets_per_batch_cfg"]) + 1
        per_trigger = (int(config["batch_count_cfg"]) + 1) * batch
        cell = self.registers[GENERATED].setdefault(app, {})
        made = cell.setdefault(MADE, [0] * PIPES)
        ticks = cell.setdefault(LAST_TICK, [0] * PIPES)
        drop_below = int(str(entry.data.get(DROP_BELOW, 0)))
        if drop_below:
            self._count_thinned(pipe, app, first, triggers, period, config, budget,
                                drop_below)
            return
        granted = min(budget - made[pipe], triggers * per_trigger)
        if granted <= 0:
            return
        last = granted - 1  # the last packet counted, from the first trigger's first
        trigger, within = divmod(last, per_trigger)
        batch_index, packet = divmod(within, batch)
        at = (first + trigger * period + batch_index * int(config["ibg"])
              + packet * int(config["ipg"]))
        made[pipe] += granted
        ticks[pipe] = (at % (1 << TSTAMP_BITS)) >> 8 & 0xFFFFFFFF

    def _new_draws(self, pipe: int, app: int) -> random.Random:
        """The 16-bit draws of one (pipe, application), seeded."""
        return random.Random(f"{self.seed}/{pipe}/{app}")

    def _count_thinned(self, pipe: int, app: int, first: int, triggers: int, period: int,
                       config: Mapping[str, Any], budget: int, drop_below: int) -> None:
        """Each packet draws; a draw below drop_below drops it uncounted, the others are
        counted against the budget with the tick of the last."""
        draws = self.draws.setdefault((pipe, app), self._new_draws(pipe, app))
        batches = int(config["batch_count_cfg"]) + 1
        batch = int(config["packets_per_batch_cfg"]) + 1
        cell = self.registers[GENERATED][app]
        made, ticks = cell[MADE], cell[LAST_TICK]
        for trigger in range(triggers):
            for batch_index in range(batches):
                for packet in range(batch):
                    if draws.getrandbits(DRAW_BITS) < drop_below:
                        self.dropped[pipe, app] = self.dropped.get((pipe, app), 0) + 1
                        continue
                    if made[pipe] < budget:
                        made[pipe] += 1
                        at = (first + trigger * period + batch_index * int(config["ibg"])
                              + packet * int(config["ipg"]))
                        ticks[pipe] = (at % (1 << TSTAMP_BITS)) >> 8 & 0xFFFFFFFF

    # ---- BfrtClient ----------------------------------------------------------------
    def add_entry(self, table: str, key: Key, data: Data, *, action: str | None = None,
                  pipe: int | None = None) -> None:
        spec = self._check(table, key, data, action)
        if spec.fixed:
            raise BfrtError(f"{table} is a fixed table: entries can only be modified")
        rows = self._rows(table, None)
        if _frozen(key) in rows:
            raise BfrtError(f"{table}: entry {dict(key)} already exists")
        if table == "$PORT" and self.chip.default_lanes:
            data = self._check_lanes(key, data)
        rows[_frozen(key)] = TableEntry(dict(key), dict(data), action)
        self.writes.append(Write("add", table, dict(key), dict(data), action, pipe))

    def modify_entry(self, table: str, key: Key, data: Data, *, action: str | None = None,
                     pipe: int | None = None) -> None:
        spec = self._check(table, key, data, action)
        self._check_pktgen(table, key, data, action)
        pipes = ([pipe] if pipe is not None else list(range(PIPES))) if spec.fixed else [None]
        for p in pipes:
            rows = self._rows(table, p)
            old = rows.get(_frozen(key))
            if old is None and not spec.fixed:
                raise BfrtNotFoundError(f"{table}: no entry {dict(key)} to modify")
            merged = {**(old.data if old else {}), **data} if spec.fixed else dict(data)
            if self._configures_app(table, data, action):
                merged = {**merged, **{f: data.get(f, 0) for f in self.chip.app_config_fields}}
            rows[_frozen(key)] = TableEntry(dict(key), merged,
                                             action or (old.action if old else None))
            if table == self.chip.app_cfg and p is not None and "app_enable" in data:
                self._enable(p, int(str(key["app_id"])), bool(data["app_enable"]), merged)
        self.writes.append(Write("modify", table, dict(key), dict(data), action, pipe))

    def _enable(self, pipe: int, app: int, enabled: bool, config: Mapping[str, Any]) -> None:
        """An application's timer starts when it is enabled and stops when it is not."""
        if not enabled:
            self.next_trigger.pop((pipe, app), None)
        elif (pipe, app) not in self.next_trigger:
            self.next_trigger[pipe, app] = self.clock_ns + int(config.get("timer_nanosec", 0))

    def delete_entry(self, table: str, key: Key, *, pipe: int | None = None) -> None:
        self._check_key(table, key)
        if self._rows(table, None).pop(_frozen(key), None) is None:
            raise BfrtNotFoundError(f"{table}: no entry {dict(key)} to delete")
        self.writes.append(Write("delete", table, dict(key), pipe=pipe))

    def read_entry(self, table: str, key: Key, *, pipe: int | None = None,
                   from_hw: bool = False) -> TableEntry:
        spec = self._check_key(table, key)
        if table == "$PORT_STAT":
            self.port_stat_reads.append((int(str(key["$DEV_PORT"])), from_hw))
        found = self._rows(table, pipe if spec.fixed else None).get(_frozen(key))
        if found is None:
            raise BfrtNotFoundError(f"{table}: no entry {dict(key)}")
        return found

    def read_entries(self, table: str, *, pipe: int | None = None) -> list[TableEntry]:
        spec = self._spec(table)
        return list(self._rows(table, (pipe or 0) if spec.fixed else None).values())

    def clear_table(self, table: str, *, pipe: int | None = None) -> None:
        self._spec(table)
        self._rows(table, None).clear()
        self.writes.append(Write("clear", table, {}, pipe=pipe))

    def read_registers(self, register: str, indices: Iterable[int]) -> dict[int, RegisterCell]:
        size, fields = self._register(register)
        cells: dict[int, RegisterCell] = {}
        for index in indices:
            self._index(register, index, size)
            stored = self.registers[register].get(index, {})
            cells[index] = {f: tuple(stored.get(f, [0] * PIPES)) for f in fields}
        return cells

    def write_registers(self, register: str, cells: Mapping[int, Mapping[str, int]]) -> None:
        size, fields = self._register(register)
        for index, values in cells.items():
            self._index(register, index, size)
            for name, value in values.items():
                if name not in fields:
                    raise BfrtError(f"{register} has no data field {name!r}; it has {fields}")
                _check_width(register, name, value, self.chip.register_widths.get(name))
                self.set_register(register, index, name, [value] * PIPES)
            self.writes.append(Write("register", register, {"$REGISTER_INDEX": index},
                                     dict(values)))

    def read_counters(self, counter: str,
                      indices: Iterable[int]) -> dict[int, tuple[CounterValue, ...]]:
        if counter not in self.chip.counters:
            raise BfrtError(f"no counter named {counter!r}")
        cells = {}
        for index in indices:
            self._index(counter, index, self.chip.counters[counter])
            cells[index] = tuple(self.counters[counter].get(index, [CounterValue(0, 0)] * PIPES))
        return cells

    # ---- what a server checks ------------------------------------------------------
    def _spec(self, table: str) -> TableSpec:
        if table not in self.chip.tables:
            raise BfrtError(f"no table named {table!r}")
        return self.chip.tables[table]

    def _rows(self, table: str, pipe: int | None) -> dict[Any, TableEntry]:
        return self.tables.setdefault((table, pipe), {})

    def _check_key(self, table: str, key: Key) -> TableSpec:
        spec = self._spec(table)
        if set(key) != set(spec.keys):
            raise BfrtError(f"{table}: key fields {sorted(key)}, expected {sorted(spec.keys)}")
        for name, value in key.items():
            width = spec.widths.get(name)
            if isinstance(value, Ternary):
                _check_width(table, name, value.value, width)
                _check_width(table, name, value.mask, width)
            elif isinstance(value, int):
                _check_width(table, name, value, width)
        return spec

    def _check(self, table: str, key: Key, data: Data, action: str | None) -> TableSpec:
        spec = self._check_key(table, key)
        if action not in spec.actions:
            raise BfrtError(f"{table}: no action {action!r}")
        unknown = set(data) - set(spec.actions[action])
        if unknown:
            raise BfrtError(f"{table}: unknown data fields {sorted(unknown)} for {action!r}")
        for name, value in data.items():
            if isinstance(value, int) and not isinstance(value, bool):
                _check_width(table, name, value, spec.widths.get(name))
        return spec

    def _check_pktgen(self, table: str, key: Key, data: Data, action: str | None) -> None:
        """What pipe_mgr checks of buffer offsets and sizes (16-B aligned, 16 KiB), of
        application ids and lengths, and (Tofino 2) of generator ports, source port and
        channel."""
        chip = self.chip
        offset = key.get("pkt_buffer_offset", data.get("pkt_buffer_offset", 0))
        assert isinstance(offset, int)
        if offset % 16:
            raise BfrtError(f"{table}: pkt_buffer_offset {offset} is not 16-B aligned")
        if table == chip.buffer:
            size = key["pkt_buffer_size"]
            assert isinstance(size, int)
            if offset + size > 16 * 1024 or len(bytes(data["buffer"])) != size:  # type: ignore[arg-type]
                raise BfrtError(f"{table}: bad offset/size {offset}/{size}")
        if table == chip.app_cfg and not 0 <= int(str(key["app_id"])) < chip.applications:
            raise BfrtError(f"{table}: app_id {key['app_id']} outside "
                            f"0..{chip.applications - 1}")
        if table == chip.port_cfg:
            local = int(str(key["dev_port"])) % 128
            low, high = chip.generator_ports
            if not low <= local <= high or int(str(key["dev_port"])) // 128 >= PIPES:
                raise BfrtError(f"{table}: dev port {key['dev_port']} is not a generator "
                                f"port (pipe-local {low}-{high})")
        if self._configures_app(table, data, action):
            length = data.get("pkt_len", 0)
            assert isinstance(length, int)
            if length < chip.min_pkt_len:
                raise BfrtError(f"{table}: packet length {length} is too small, must be at "
                                f"least {chip.min_pkt_len}")
            for name, most in (("pipe_local_source_port", chip.source_port_max),
                               ("assigned_chnl_id", chip.channel_max)):
                value = data.get(name, 0)
                assert isinstance(value, int)
                if most is not None and value > most:
                    raise BfrtError(f"{table}: {name} {value} is above {most}")

    def _configures_app(self, table: str, data: Data, action: str | None) -> bool:
        """A modify that rewrites an application's whole configuration: one with its
        trigger action and a configuration field."""
        return (table == self.chip.app_cfg and action is not None
                and bool(set(data) & set(self.chip.app_config_fields)))

    def _check_lanes(self, key: Key, data: Data) -> Data:
        """A Tofino 2 port takes $N_LANES (its speed's default when not given) of its
        cage's 8 lanes from its channel; the lanes must be in the cage and free."""
        speed = str(data.get("$SPEED"))
        if speed not in self.chip.default_lanes:
            raise BfrtError(f"$PORT: speed {speed} is not one the fake knows on Tofino 2")
        lanes = int(str(data.get("$N_LANES", self.chip.default_lanes[speed])))
        dev = int(str(key["$DEV_PORT"]))
        channel = (dev % 128 - TF2_FIRST_MAC) % CAGE_LANES
        if channel % lanes or channel + lanes > CAGE_LANES:
            raise BfrtError(f"$PORT: dev port {dev} (channel {channel}) cannot take {lanes} "
                            "lanes of its cage")
        cage = dev - channel
        for entry in self.entries("$PORT"):
            other = int(str(entry.key["$DEV_PORT"]))
            start = (other % 128 - TF2_FIRST_MAC) % CAGE_LANES
            if other - start != cage:
                continue
            taken = int(str(entry.data["$N_LANES"]))
            if start < channel + lanes and channel < start + taken:
                raise BfrtError(f"$PORT: dev port {dev}'s lanes overlap port {other}'s")
        return {**data, "$N_LANES": lanes}

    def _register(self, register: str) -> tuple[int, tuple[str, ...]]:
        if register not in self.chip.registers:
            raise BfrtError(f"no register named {register!r}")
        return self.chip.registers[register]

    @staticmethod
    def _index(name: str, index: int, size: int) -> None:
        if not 0 <= index < size:
            raise BfrtError(f"{name}: index {index} outside 0..{size - 1}")


def _check_width(table: str, name: str, value: int, width: int | None) -> None:
    """A server refuses a value that does not fit its field."""
    if width is not None and not 0 <= value < 1 << width:
        raise BfrtError(f"{table}: {name} = {value} does not fit {width} bits")
