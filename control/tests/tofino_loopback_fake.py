"""The fake switch with a data path, for `p4tester tofino-check` (first contact):
what the generator makes goes through the multicast groups to its TX ports, out of
them and, on a port in MAC loopback, back into the checker, as the tester program
does it (p4src/tna: egress numbers each copy from tx_next_seq; ingress classifies
by rx_expected and runs the sequence verdict of checker.p4 and sequence_verdict.p4).

A pipe carries at most `pipe_pps` packets per second in egress and, separately, in
ingress (the generator's packets first): over each advance the excess is dropped, in
egress before a copy is numbered, in ingress after its MAC counted it (so the
checker sees the gap). Every looped frame has latency `latency_ns`.

Below, the five switches that break one assumption each (docs/tofino.md, "Assumed
and unverified"), for the tests that tofino-check refutes it.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping
from typing import Any, Final

from tofino_fake import PIPES, FakeBfrt, _frozen

from p4tester.dataplane.constants import (
    HIST_CELLS_PER_STREAM,
    HIST_OUTSIDE_BIN,
    RX_KIND_STALE,
    RX_KIND_STREAM,
)
from p4tester.dataplane.ternary import Ternary
from p4tester.targets.tofino import names
from p4tester.targets.tofino.bfrt import BfrtClient, Data, Key, RegisterCell

U32: Final = 1 << 32
HALF: Final = 1 << 31
FCS: Final = 4
PIPE_PPS: Final = {"tofino1": 1.25e9, "tofino2": 1.5e9}
MAC_NEAR: Final = "BF_LPBK_MAC_NEAR"


class LoopbackFake(FakeBfrt):
    def __init__(self, chip: str = "tofino1", *, pipe_pps: float | None = None,
                 latency_ns: int = 600) -> None:
        super().__init__(chip=chip)
        self.pipe_pps = PIPE_PPS[chip] if pipe_pps is None else pipe_pps
        self.latency_ns = latency_ns

    # ---- the generator's packets, onwards --------------------------------------------
    def advance_to(self, clock_ns: int) -> None:
        start = self.clock_ns
        before = self._made()
        super().advance_to(clock_ns)
        made = {k: n - before.get(k, 0) for k, n in self._made().items()
                if n != before.get(k, 0)}
        if made:
            self._forward(made, clock_ns - start)

    def _made(self) -> dict[tuple[int, int], int]:
        cells = self.registers[names.GENERATED]
        field = names.register_field(names.GENERATED, names.GENERATED_MADE)
        return {(pipe, app): n for app, cell in cells.items()
                for pipe, n in enumerate(cell.get(field, [0] * PIPES))}

    def _forward(self, made: Mapping[tuple[int, int], int], span_ns: int) -> None:
        copies: dict[tuple[int, int], int] = {}  # (dev port, stream) -> copies
        frame: dict[int, int] = {}
        for (pipe, app), count in made.items():
            entry = self._rows(names.GEN_APPS, None)[_frozen(
                {names.GEN_APPS_PIPE_KEY: pipe, names.GEN_APPS_KEY: app})]
            group = self._rows(names.PRE_MGID, None)[_frozen(
                {names.MGID: int(str(entry.data[names.GEN_RUN_GROUP]))})]
            config = self._rows(self.chip.app_cfg, pipe)[_frozen({"app_id": app})].data
            for node_id in self._ints(group.data[names.MGID_NODE_IDS]):
                node = self._rows(names.PRE_NODE, None)[_frozen({names.NODE_ID: node_id})].data
                stream = int(str(node[names.NODE_RID]))
                dev = self._ints(node[names.NODE_DEV_PORTS])[0]
                copies[dev, stream] = copies.get((dev, stream), 0) + count
                frame[stream] = int(str(config["pkt_len"])) + FCS
        cap = self.pipe_pps * span_ns / 1e9
        egress = self._by_pipe({d: n for (d, _), n in copies.items()})
        sent = {k: math.floor(n * min(1.0, cap / egress[k[0] // 128]))
                for k, n in copies.items()}
        generated: dict[int, int] = {}
        for (pipe, _), count in made.items():
            generated[pipe] = generated.get(pipe, 0) + count
        looped = {k: n for k, n in sent.items() if self._looped(k[0])}
        ingress = self._by_pipe({d: n for (d, _), n in looped.items()})
        for (dev, stream), count in sorted(sent.items()):
            pipe = dev // 128
            first = self._get(names.TX_NEXT_SEQ, stream, pipe)
            self._set(names.TX_NEXT_SEQ, stream, pipe, (first + count) % U32)
            self.count(names.TX_STREAM, stream, pipe, count, count * frame[stream])
            self.count(names.TX_PORT, dev, pipe, count, count * frame[stream])
            self.add_port_stat(dev, transmitted_ok=count)
            if (dev, stream) not in looped:
                self._carry(dev, stream, first, count, frame[stream])
                continue
            room = max(0.0, cap - generated.get(pipe, 0))
            kept = math.floor(count * min(1.0, room / ingress[pipe]))
            self.add_port_stat(dev, received_ok=count)
            self.count(names.RX_PORT, dev, pipe, kept, kept * frame[stream])
            self._receive(pipe, stream, first, kept, frame[stream])

    def _carry(self, dev: int, stream: int, first: int, count: int, frame: int) -> None:
        """Frames out of a port not in loopback: gone (tofino_cabled_fake carries them
        to another switch)."""

    def _looped(self, dev: int) -> bool:
        entry = self._rows(names.PORT, None).get(_frozen({names.DEV_PORT: dev}))
        return entry is not None and entry.data.get("$LOOPBACK_MODE") == MAC_NEAR

    @staticmethod
    def _by_pipe(per_port: Mapping[int, int]) -> dict[int, int]:
        pipes: dict[int, int] = {}
        for dev, count in per_port.items():
            pipes[dev // 128] = pipes.get(dev // 128, 0) + count
        return pipes

    @staticmethod
    def _ints(value: Any) -> tuple[int, ...]:
        return tuple(int(v) for v in value)

    # ---- the checker -----------------------------------------------------------------
    def subtract(self, a: int, b: int) -> int:
        """The stateful ALU's seq - next expected: modulo 2^32, as compiled."""
        return (a - b) % U32

    def _receive(self, pipe: int, stream: int, first: int, count: int, frame: int,
                 latency_ns: int | None = None) -> None:
        expected = self._rows(names.RX_EXPECTED, None).get(
            _frozen({names.RX_EXPECTED_KEY: stream}))
        if expected is None or expected.action != names.RX_EXPECT:
            self.count(names.RX_STALE, stream, pipe, count)
            self.count(names.RX_KIND, RX_KIND_STALE, pipe, count)
            return
        self.count(names.RX_KIND, RX_KIND_STREAM, pipe, count)
        self.count(names.RX_STREAM, stream, pipe, count, count * frame)
        index = 0
        while index < count:
            seq = (first + index) % U32
            index += 1
            if self._verdict(pipe, stream, seq):
                # The frame moved next expected past it: the rest of the run is in order.
                rest = count - index
                end = (first + count) % U32
                if rest:
                    self._set(names.RX_NEXT_EXPECTED, stream, pipe, end)
                    self._set(names.RX_LAST_SEQ, stream, pipe, (end - 1) % U32)
                break
        self._latency(pipe, stream, count,
                      self.latency_ns if latency_ns is None else latency_ns)

    def _verdict(self, pipe: int, stream: int, seq: int) -> bool:
        """One frame's sequence verdict; True when it moved next expected to seq + 1."""
        nxt = self._get(names.RX_NEXT_EXPECTED, stream, pipe)
        ahead = self.subtract(seq, nxt)
        repeat = self._get(names.RX_SEEN, stream, pipe) != 0 and \
            self._get(names.RX_LAST_SEQ, stream, pipe) == seq
        if ahead == 0:
            pass
        elif repeat:
            self.count(names.RX_DUPLICATE, stream, pipe, 1)
        elif ahead < HALF:
            lost = self._get(names.RX_LOST, stream, pipe)
            self._set(names.RX_LOST, stream, pipe, (lost + ahead) % U32)
            self.count(names.RX_GAP_EVENTS, stream, pipe, 1)
        else:
            self.count(names.RX_REORDERED, stream, pipe, 1)
        self._set(names.RX_LAST_SEQ, stream, pipe, seq)
        self._set(names.RX_SEEN, stream, pipe, 1)
        if ahead < HALF:
            self._set(names.RX_NEXT_EXPECTED, stream, pipe, (seq + 1) % U32)
            return True
        return False

    def _latency(self, pipe: int, stream: int, count: int, latency: int) -> None:
        low = self._get(names.LATENCY_MIN, stream, pipe)
        self._set(names.LATENCY_MIN, stream, pipe, min(low, latency))
        high = self._get(names.LATENCY_MAX, stream, pipe)
        self._set(names.LATENCY_MAX, stream, pipe, max(high, latency))
        self._set(names.LAST_LATENCY, stream, pipe, latency)
        lo = self._get(names.LATENCY_SUM, stream, pipe, names.SUM_LO)
        hi = self._get(names.LATENCY_SUM, stream, pipe, names.SUM_HI)
        total = (hi << 32 | lo) + count * latency
        self._set(names.LATENCY_SUM, stream, pipe, total % U32, names.SUM_LO)
        self._set(names.LATENCY_SUM, stream, pipe, total >> 32, names.SUM_HI)
        self.count(names.LATENCY_HIST, stream * HIST_CELLS_PER_STREAM
                   + self._bin(stream, latency), pipe, count)

    def _bin(self, stream: int, latency: int) -> int:
        """The latency bins table's entry of highest priority (lowest value) that
        matches, as the switch's TCAM picks it."""
        best: tuple[int, int] | None = None
        for entry in self.entries(names.LATENCY_BINS):
            keys = entry.key
            if _matches(keys[names.BIN_STREAM_KEY], stream) and \
                    _matches(keys[names.LATENCY_KEY], latency):
                priority = int(str(keys[names.MATCH_PRIORITY]))
                if best is None or priority < best[0]:
                    best = (priority, int(str(entry.data[names.BIN_PARAM])))
        return HIST_OUTSIDE_BIN if best is None else best[1]

    def _get(self, register: str, index: int, pipe: int, field: str = names.PLAIN_FIELD) -> int:
        values = self.registers[register].get(index, {}).get(
            names.register_field(register, field), [0] * PIPES)
        return values[pipe]

    def _set(self, register: str, index: int, pipe: int, value: int,
             field: str = names.PLAIN_FIELD) -> None:
        name = names.register_field(register, field)
        values = list(self.registers[register].get(index, {}).get(name, [0] * PIPES))
        values[pipe] = value
        self.set_register(register, index, name, values)


def _matches(key: Any, value: int) -> bool:
    if isinstance(key, Ternary):
        return value & key.mask == key.value
    return int(key) == value


# ---- one assumption broken each --------------------------------------------------------
class SlowPipeFake(LoopbackFake):
    """Assumption 2: a pipe takes 1 Gpps, below one packet per clock of 1.25 GHz."""

    def __init__(self, chip: str = "tofino1") -> None:
        super().__init__(chip, pipe_pps=1.0e9)


class StuckTimerFake(LoopbackFake):
    """Assumption 17: a timer write to a running application does not change its
    period (the configuration reads back, the timer keeps counting the old one)."""

    def modify_entry(self, table: str, key: Key, data: Data, *, action: str | None = None,
                     pipe: int | None = None) -> None:
        running = {}
        if table == self.chip.app_cfg and "timer_nanosec" in data:
            app = int(str(key["app_id"]))
            for p in range(PIPES):
                row = self._rows(table, p).get(_frozen(key))
                if (p, app) in self.next_trigger and row is not None:
                    running[p] = row.data["timer_nanosec"]
        super().modify_entry(table, key, data, action=action, pipe=pipe)
        for p, timer in running.items():
            row = self._rows(table, p)[_frozen(key)]
            self._rows(table, p)[_frozen(key)] = type(row)(
                row.key, {**row.data, "timer_nanosec": timer}, row.action)


class SkewedReadFake(LoopbackFake):
    """Assumption 15: a register read takes the pipes one after the other, 10 us
    apart, while the generators run (not one moment across pipes)."""

    SKEW_NS: Final = 10_000

    def read_registers(self, register: str, indices: Any) -> dict[int, RegisterCell]:
        if register != names.GENERATED:
            return super().read_registers(register, indices)
        wanted = list(indices)
        cells: dict[int, dict[str, list[int]]] = {i: {} for i in wanted}
        for pipe in range(PIPES):
            if pipe:
                self.advance_to(self.clock_ns + self.SKEW_NS)
            for index, cell in super().read_registers(register, wanted).items():
                for field, values in cell.items():
                    cells[index].setdefault(field, []).append(values[pipe])
        return {i: {f: tuple(v) for f, v in c.items()} for i, c in cells.items()}


class _LowDraws(random.Random):
    """A random unit whose top bit is stuck at 0: draws only in the lower half."""

    def getrandbits(self, k: int) -> int:
        return super().getrandbits(k) >> 1


class SkewedRandomFake(LoopbackFake):
    """Assumption 16: the random unit is not uniform."""

    def _new_draws(self, pipe: int, app: int) -> random.Random:
        return _LowDraws(f"{self.seed}/{pipe}/{app}")


class SaturatingAluFake(LoopbackFake):
    """Assumption 1: the checker's stateful ALU saturates seq - next expected at 0
    instead of wrapping modulo 2^32."""

    def subtract(self, a: int, b: int) -> int:
        return max(a - b, 0)


class FakeBench:
    """A Bench over a fake switch: waiting moves its clock."""

    def __init__(self, fake: LoopbackFake) -> None:
        self.fake = fake

    @property
    def client(self) -> BfrtClient:
        return self.fake

    @property
    def sde_python(self) -> str | None:
        return None

    def wait_ns(self, ns: int) -> None:
        self.fake.advance_to(self.fake.clock_ns + ns)
