"""`serve --simulate`: the simulated switch and DUT of every front end
(runs.simulated_switch) stand in for a tester, with counters that move while a trial
runs. Trials take `scale` x their duration in wall time (bounded), so a page shows a
run progress; the counters then grow through the trial.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from typing import Final

from p4tester.config.profile import Profile
from p4tester.config.topology import Topology
from p4tester.experiments.runner import TrialRunner, TrialSpec
from p4tester.experiments.simulated_runner import SimulatedRunner
from p4tester.results.model import Histogram, ReceiverStats, StreamStats, TrialResult
from p4tester.runs.simulated_switch import (
    FULL_CAPACITY_SIZE,
    SIM_BUFFER_BYTES,
    SIM_FIXED_LATENCY_US,
    SIM_NOISE_US,
    SMALLEST_CAPACITY,
    ProfileStreamsRunner,
    simulated_dut,
)
from p4tester.runs.stopping import StopRequested
from p4tester.tester.trial_loop import QDEPTH_EDGES

from .readings import LiveReading, PortReading, StreamReading
from .settings import MAX_SIM_TRIAL_WALL_S

_TICK_S: Final = 0.05


def describe_dut(topology: Topology, profile: Profile) -> str:
    """What the simulated DUT does, for the dashboard: the limit a run will find,
    with the figures of this topology and profile (its first stream's port)."""
    dut = simulated_dut(topology, profile)
    smallest = 64  # Ethernet's smallest frame: where capacity and drain time are worst
    frames = dut.buffer_frames(smallest, 100.0)
    full_ms = frames * dut.service_us(smallest) / 1000.0
    return (f"Simulated DUT: it forwards at most {SMALLEST_CAPACITY * 100:g} % of line rate at "
            f"{smallest} B, rising linearly to 100 % from {FULL_CAPACITY_SIZE} B, and drops "
            f"the excess. Its egress queue: a {SIM_BUFFER_BYTES}-B buffer ({frames} frames "
            f"of {smallest} B) fed by {dut.fan_in} stream(s); below capacity it peaks at "
            f"u²/(1 - u) frames (u: offered load / capacity), at or above capacity "
            f"it stays full, which adds {full_ms:.1f} ms at {smallest} B on "
            f"{dut.line_rate_bps / 1e6:g} Mbit/s. Latency: {SIM_FIXED_LATENCY_US:g} µs "
            f"fixed + the frame's serialization + the queue ahead of it, the maximum "
            f"raised by up to {SIM_NOISE_US:g} µs per trial.")


def _scaled(histogram: Histogram | None, edges: tuple[int, ...], share: float) -> Histogram:
    if histogram is None:
        return Histogram(edges, (0,) * (len(edges) - 1))
    return Histogram(edges, tuple(math.floor(c * share) for c in histogram.counts),
                     math.floor(histogram.outside * share))


def _added(a: Histogram, b: Histogram) -> Histogram:
    return Histogram(a.edges, tuple(x + y for x, y in zip(a.counts, b.counts, strict=True)),
                     a.outside + b.outside)


@dataclass(frozen=True, slots=True)
class _Totals:
    """Counters of one stream as a switch keeps them (since it started)."""

    tx: int
    tx_bytes: int
    rx: int
    rx_bytes: int
    reordered: int
    duplicates: int
    latency: Histogram
    queue: Histogram

    def plus(self, stats: StreamStats, share: float, edges: tuple[int, ...]) -> _Totals:
        def part(n: int) -> int:
            return math.floor(n * share)

        return _Totals(self.tx + part(stats.tx_frames),
                       self.tx_bytes + part(stats.tx_frames) * stats.frame_size,
                       self.rx + part(stats.rx_frames),
                       self.rx_bytes + part(stats.rx_bytes), self.reordered + part(stats.reordered),
                       self.duplicates + part(stats.duplicates),
                       _added(self.latency, _scaled(stats.latency.histogram if stats.latency
                                                    else None, edges, share)),
                       _added(self.queue, _scaled(stats.queue_depth, QDEPTH_EDGES, share)))


def _cells_of(profile: Profile) -> list[tuple[int, int]]:
    return [(s.id, port) for s in profile.streams for port in s.rx_ports]


def _per_port(result: TrialResult, rx_port_of: dict[int, int]
              ) -> list[tuple[tuple[int, int], StreamStats]]:
    """A trial's figures per (stream, RX port) cell, as a switch's checker keeps them
    (rx_port_of: each stream's first RX port). A stream received on several ports has
    a cell per port with its receiver's figures and the stream's TX; a spread stream's
    one sequence is counted on its first port's cell (tester.receive_slots)."""
    cells = []
    for stats in result.streams:
        if not stats.receivers:
            cells.append(((stats.stream_id, rx_port_of[stats.stream_id]), stats))
            continue
        for index, r in enumerate(stats.receivers):
            sequence: StreamStats | ReceiverStats = r if stats.replicated else stats
            counted = stats.replicated or index == 0
            cells.append(((stats.stream_id, r.port), replace(
                stats, rx_frames=r.rx_frames, rx_bytes=r.rx_bytes,
                gap_events=sequence.gap_events if counted else 0,
                lost_in_gaps=sequence.lost_in_gaps if counted else 0,
                reordered=sequence.reordered if counted else 0,
                duplicates=sequence.duplicates if counted else 0,
                latency=r.latency, queue_depth=r.queue_depth, receivers=())))
    return cells


class SimulatedCounters:
    """Mutable on purpose: the simulated switch's counters, committed trial by trial,
    with the trial in progress counted in by how far it has got."""

    def __init__(self, topology: Topology, profile: Profile) -> None:
        self._topology = topology
        self._profile = profile
        self._lock = threading.Lock()
        edges = profile.latency_bins_us
        empty = _Totals(0, 0, 0, 0, 0, 0, Histogram(edges, (0,) * (len(edges) - 1)),
                        Histogram(QDEPTH_EDGES, (0,) * (len(QDEPTH_EDGES) - 1)))
        # Keyed by (stream, RX port), as a switch keeps a stream's figures per port.
        self._totals = {cell: empty for cell in _cells_of(profile)}
        self._rx_port = {s.id: s.rx_port for s in profile.streams}
        self._current: tuple[TrialResult, float] | None = None
        self._clock_s = 0.0  # simulated seconds of traffic committed so far
        # "registers": the latest trial per (stream, RX port)
        self._last: dict[tuple[int, int], StreamStats] = {}

    def show(self, result: TrialResult, share: float) -> None:
        with self._lock:
            self._current = (result, share)
            self._last = dict(_per_port(result, self._rx_port))

    def _add(self, totals: dict[tuple[int, int], _Totals], result: TrialResult,
             share: float) -> None:
        for cell, stats in _per_port(result, self._rx_port):
            totals[cell] = totals[cell].plus(stats, share, self._profile.latency_bins_us)

    def commit(self, result: TrialResult) -> None:
        with self._lock:
            self._add(self._totals, result, 1.0)
            self._clock_s += result.duration_s
            self._current = None
            self._last = dict(_per_port(result, self._rx_port))

    def abort(self) -> None:
        """A stopped trial: what it sent so far stays counted, as on a switch."""
        with self._lock:
            if self._current is not None:
                result, share = self._current
                self._add(self._totals, result, share)
                self._clock_s += result.duration_s * share
            self._current = None

    def read(self) -> LiveReading:
        with self._lock:
            totals = dict(self._totals)
            clock_s = self._clock_s
            if self._current is not None:
                result, share = self._current
                clock_s += result.duration_s * share
                self._add(totals, result, share)
            last = dict(self._last)
        streams = []
        for config in self._profile.streams:
            for rx_port in config.rx_ports:
                t = totals[(config.id, rx_port)]
                latest = last.get((config.id, rx_port))
                latency = latest.latency if latest is not None else None
                streams.append(StreamReading(
                    stream=config.id, tx_port=config.tx_port, rx_port=rx_port,
                    tx_frames=t.tx, tx_bytes=t.tx_bytes, rx_frames=t.rx, rx_bytes=t.rx_bytes,
                    lost_in_gaps=latest.lost_in_gaps if latest is not None else 0,
                    reordered=t.reordered, duplicates=t.duplicates,
                    latency_min_us=latency.min_us if latency else None,
                    latency_avg_us=latency.avg_us if latency else None,
                    latency_max_us=latency.max_us if latency else None,
                    latency_histogram_us=t.latency, queue_depth_frames=t.queue))
        ports = []
        # A stream's frames leave once, whatever ports they come back on.
        sent = list({s.stream: s for s in reversed(streams)}.values())
        for port in self._topology.ports:
            tx = [s for s in sent if s.tx_port == port.number]
            rx = [s for s in streams if s.rx_port == port.number]
            ports.append(PortReading(
                port=port.number, rx_frames=sum(s.rx_frames for s in rx),
                rx_bytes=sum(s.rx_bytes for s in rx), tx_frames=sum(s.tx_frames for s in tx),
                tx_bytes=sum(s.tx_bytes for s in tx)))
        return LiveReading(time.time(), tuple(streams), tuple(ports), sim_time_s=clock_s)


class PacedRunner:
    """The simulated runner, its trials spread over wall time; stops mid-trial when asked
    (the trial is dropped, as Ctrl-C drops the trial in flight)."""

    def __init__(self, sim: SimulatedRunner, counters: SimulatedCounters, profile: Profile,
                 scale: float, stop: threading.Event) -> None:
        self._sim = ProfileStreamsRunner(sim, profile)
        self._counters = counters
        self._scale = scale
        self._stop = stop

    def run_trial(self, spec: TrialSpec) -> TrialResult:
        result = self._sim.run_trial(spec)
        wall_s = min(MAX_SIM_TRIAL_WALL_S, spec.duration_s * self._scale)
        started = time.monotonic()
        while (elapsed := time.monotonic() - started) < wall_s:
            if self._stop.is_set():
                self._counters.abort()
                raise StopRequested
            self._counters.show(result, elapsed / wall_s)
            time.sleep(min(_TICK_S, wall_s - elapsed))
        self._counters.commit(result)
        return result


class SimulatedBackend:
    def __init__(self, topology: Topology, profile: Profile, scale: float) -> None:
        self._profile = profile
        self._sim = SimulatedRunner(simulated_dut(topology, profile))
        self._counters = SimulatedCounters(topology, profile)
        self._scale = scale

    @property
    def simulated(self) -> bool:
        return True

    @property
    def latency_edges_us(self) -> tuple[int, ...]:
        return self._profile.latency_bins_us

    @contextmanager
    def trial_runner(self, stop: threading.Event) -> Iterator[TrialRunner]:
        yield PacedRunner(self._sim, self._counters, self._profile, self._scale, stop)

    def read(self) -> LiveReading:
        return self._counters.read()

    def close(self) -> None:
        """Nothing to release."""
