"""Per-stream register state of the Tofino program: zeroed before a trial, read after.

Registers are symmetric (every pipe has its own copy, indexed by stream id). A
stream's checker state lives in the pipe of its RX port, its sequence counter in the
pipe of its TX port; the generator's `generated` cells in the pipe of the generator.
Writes go to every pipe, so whichever pipe a stream uses starts from the same values.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Final

from p4tester.targets.tofino import names
from p4tester.targets.tofino.bfrt import BfrtClient, RegisterCell

U32: Final = 1 << 32
LATENCY_MIN_RESET: Final = U32 - 1  # any latency is below it

_F1: Final = names.PLAIN_FIELD


def _field(register: str, field: str = _F1) -> str:
    return names.register_field(register, field)


def zero_streams(client: BfrtClient, stream_ids: Iterable[int], initial_seq: int = 0) -> None:
    """Trial start values: the first frame expected is initial_seq, nothing seen yet."""
    if not 0 <= initial_seq < U32:
        raise ValueError(f"initial sequence number {initial_seq} must be in 0..{U32 - 1}")
    streams = sorted(set(stream_ids))
    plain = {
        names.RX_NEXT_EXPECTED: initial_seq,
        names.RX_LAST_SEQ: (initial_seq - 1) % U32,
        names.RX_SEEN: 0,
        names.RX_LOST: 0,
        names.LATENCY_MIN: LATENCY_MIN_RESET,
        names.LATENCY_MAX: 0,
        names.LAST_LATENCY: 0,
        names.TX_NEXT_SEQ: initial_seq,
    }
    for register, value in plain.items():
        client.write_registers(register, {s: {_field(register): value} for s in streams})
    for register in (names.LATENCY_SUM, names.JITTER_SUM):
        zero = {_field(register, names.SUM_LO): 0, _field(register, names.SUM_HI): 0}
        client.write_registers(register, {s: zero for s in streams})


def zero_generated(client: BfrtClient, app_ids: Iterable[int]) -> None:
    """No packet counted, and so no tick of the last one."""
    zero = {_field(names.GENERATED, names.GENERATED_MADE): 0,
            _field(names.GENERATED, names.GENERATED_LAST_TICK): 0}
    client.write_registers(names.GENERATED, {a: zero for a in sorted(set(app_ids))})


@dataclass(frozen=True, slots=True)
class PipeGenerated:
    """One pipe's generator cell of an application: packets counted this trial and the
    generator tick (32 bits, as read) of the last of them; the tick means nothing
    while made is 0."""

    made: int
    last_tick: int


def read_generated(client: BfrtClient,
                   app_ids: Iterable[int]) -> dict[int, tuple[PipeGenerated, ...]]:
    """Each application's cells this trial, one per pipe in pipe order (a pipe that
    does not run it keeps 0): count and tick from one register, so read together."""
    cells = client.read_registers(names.GENERATED, sorted(set(app_ids)))
    made = _field(names.GENERATED, names.GENERATED_MADE)
    tick = _field(names.GENERATED, names.GENERATED_LAST_TICK)
    return {app: tuple(PipeGenerated(m, t) for m, t in zip(cell[made], cell[tick], strict=True))
            for app, cell in cells.items()}


def read_received(client: BfrtClient, figure_pipes: Mapping[int, int],
                  ) -> dict[int, tuple[int, int]]:
    """Each checker figure slot's frames counted so far (rx_stream, summed over pipes:
    only the slot's RX pipe counts it) and its latency sum in ns (from that pipe).
    `figure_pipes`: slot -> the pipe of its RX port."""
    slots = sorted(figure_pipes)
    counted = client.read_counters(names.RX_STREAM, slots)
    sums = client.read_registers(names.LATENCY_SUM, slots)
    lo = _field(names.LATENCY_SUM, names.SUM_LO)
    hi = _field(names.LATENCY_SUM, names.SUM_HI)
    received = {}
    for slot in slots:
        pipe = figure_pipes[slot]
        latency_ns = (_in_pipe(sums[slot], hi, pipe, names.LATENCY_SUM) << 32
                      | _in_pipe(sums[slot], lo, pipe, names.LATENCY_SUM))
        received[slot] = (sum(v.packets for v in counted[slot]), latency_ns)
    return received


@dataclass(frozen=True, slots=True)
class StreamState:
    """One stream's checker registers (from its RX pipe); times in nanoseconds."""

    stream_id: int
    rx_next_expected: int
    rx_last_seq: int
    rx_seen: bool
    rx_lost: int  # 32 bits, wraps: LostTotals widens it
    latency_min_ns: int
    latency_max_ns: int
    latency_sum_ns: int
    jitter_sum_ns: int
    last_latency_ns: int


CHECKER_REGISTERS: Final = (names.RX_NEXT_EXPECTED, names.RX_LAST_SEQ, names.RX_SEEN,
                            names.RX_LOST, names.LATENCY_MIN, names.LATENCY_MAX,
                            names.LAST_LATENCY)


def read_streams(client: BfrtClient, rx_pipes: Mapping[int, int]) -> dict[int, StreamState]:
    """Every stream's checker state (rx_pipes: stream -> pipe of its RX port); a
    stream another tester sends has no TX register here, so none is read."""
    streams = sorted(rx_pipes)
    read = {r: client.read_registers(r, streams)
            for r in (*CHECKER_REGISTERS, names.LATENCY_SUM, names.JITTER_SUM)}

    def plain(register: str, stream: int, pipe: int) -> int:
        return _in_pipe(read[register][stream], _field(register), pipe, register)

    def wide(register: str, stream: int, pipe: int) -> int:
        cell = read[register][stream]
        low = _in_pipe(cell, _field(register, names.SUM_LO), pipe, register)
        return _in_pipe(cell, _field(register, names.SUM_HI), pipe, register) << 32 | low

    states = {}
    for s in streams:
        rx = rx_pipes[s]
        states[s] = StreamState(
            stream_id=s,
            rx_next_expected=plain(names.RX_NEXT_EXPECTED, s, rx),
            rx_last_seq=plain(names.RX_LAST_SEQ, s, rx),
            rx_seen=plain(names.RX_SEEN, s, rx) != 0,
            rx_lost=plain(names.RX_LOST, s, rx),
            latency_min_ns=plain(names.LATENCY_MIN, s, rx),
            latency_max_ns=plain(names.LATENCY_MAX, s, rx),
            latency_sum_ns=wide(names.LATENCY_SUM, s, rx),
            jitter_sum_ns=wide(names.JITTER_SUM, s, rx),
            last_latency_ns=plain(names.LAST_LATENCY, s, rx),
        )
    return states


def read_lost(client: BfrtClient, rx_pipes: Mapping[int, int]) -> dict[int, int]:
    """Raw 32-bit rx_lost of each stream, from its RX pipe (the cheap poll)."""
    cells = client.read_registers(names.RX_LOST, sorted(rx_pipes))
    return {s: _in_pipe(cells[s], _field(names.RX_LOST), pipe, names.RX_LOST)
            for s, pipe in rx_pipes.items()}


def _in_pipe(cell: RegisterCell, field: str, pipe: int, register: str) -> int:
    values = cell[field]
    if not 0 <= pipe < len(values):
        raise ValueError(f"{register}: the switch answered {len(values)} pipe values for "
                         f"field {field!r}; the stream's port is in pipe {pipe}")
    return values[pipe]


class LostTotals:
    """rx_lost widened beyond 32 bits: poll it more often than it can wrap (at 100G and
    64 B, 2^32 lost frames take 29 s) and add the deltas modulo 2^32."""

    def __init__(self) -> None:
        self._last: dict[int, int] = {}
        self._total: dict[int, int] = {}

    def reset(self, stream_ids: Iterable[int]) -> None:
        """After zero_streams: every count starts at 0."""
        for stream in stream_ids:
            self._last[stream] = 0
            self._total[stream] = 0

    def update(self, raw: Mapping[int, int]) -> None:
        for stream, value in raw.items():
            delta = (value - self._last.get(stream, 0)) % U32
            self._total[stream] = self._total.get(stream, 0) + delta
            self._last[stream] = value

    def total(self, stream: int) -> int:
        return self._total.get(stream, 0)
