"""A trial's figures on Tofino, in the same types as on BMv2 (results.model.StreamStats).

Counters are read as snapshots before and after the trial, summed over pipes, and
differenced (tester.snapshot): nothing has to be cleared. Registers were zeroed at
the trial's start, so they hold the trial's values. Latency is nanoseconds on the
switch and microseconds in the model.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Final

from p4tester.dataplane.constants import HIST_CELLS_PER_STREAM, RX_KIND_COUNT
from p4tester.p4rt import CounterValue
from p4tester.results.model import StreamStats
from p4tester.targets.tofino import names
from p4tester.targets.tofino.bfrt import BfrtClient
from p4tester.targets.tofino.hardware import RX_BYTES_INCLUDE_FCS
from p4tester.targets.tofino.state import StreamState
from p4tester.tester.receive_slots import ReceiveSlots
from p4tester.tester.snapshot import CounterSnapshot, packets_between
from p4tester.tester.stream_figures import (
    LatencySums,
    StreamCounters,
    several_port_figures,
    stream_figures,
)

NS_PER_US: Final = 1000.0
TOFINO_STREAM_COUNTERS: Final = StreamCounters(
    names.RX_STREAM, names.TX_STREAM, names.RX_GAP_EVENTS, names.RX_REORDERED,
    names.RX_DUPLICATE, names.LATENCY_HIST, names.QDEPTH_HIST)


def counter_indices(counter: str, stream_ids: Iterable[int]) -> list[int]:
    """The cells of a counter that these streams use."""
    streams = sorted(set(stream_ids))
    if counter == names.RX_KIND:
        return list(range(RX_KIND_COUNT))
    if counter in names.HISTOGRAM_COUNTERS:
        cells = range(HIST_CELLS_PER_STREAM)
        return [s * HIST_CELLS_PER_STREAM + b for s in streams for b in cells]
    return streams


def take_snapshot(client: BfrtClient, stream_ids: Iterable[int]) -> CounterSnapshot:
    """Every counter cell of these streams, each summed over the pipes."""
    streams = list(stream_ids)
    cells = {}
    for counter in (names.RX_KIND, *names.PER_STREAM_COUNTERS, *names.NOT_THE_STREAMS_COUNTERS,
                    *names.HISTOGRAM_COUNTERS):
        read = client.read_counters(counter, counter_indices(counter, streams))
        cells[counter] = {
            index: CounterValue(sum(v.packets for v in per_pipe), sum(v.bytes for v in per_pipe))
            for index, per_pipe in read.items()
        }
    return CounterSnapshot(cells)


def stream_stats(
    state: StreamState,
    frame_size: int,
    lost_in_gaps: int,
    before: CounterSnapshot,
    after: CounterSnapshot,
    latency_edges_us: Sequence[int],
    qdepth_edges: Sequence[int],
) -> StreamStats:
    """One stream's figures; lost_in_gaps is rx_lost widened (state.LostTotals)."""
    sid = state.stream_id
    # Every stream frame the checker sees is one latency sample.
    rx = packets_between(before, after, names.RX_STREAM, sid)
    latency = LatencySums(rx if state.rx_seen else 0, state.latency_min_ns / NS_PER_US,
                          state.latency_max_ns / NS_PER_US, state.latency_sum_ns / NS_PER_US,
                          state.jitter_sum_ns / NS_PER_US)
    return stream_figures(sid, frame_size, before, after, TOFINO_STREAM_COUNTERS, latency,
                          lost_in_gaps, latency_edges_us, qdepth_edges,
                          rx_bytes_include_fcs=RX_BYTES_INCLUDE_FCS)


def several_port_stats(
    slots: ReceiveSlots,
    states: Mapping[int, StreamState],
    frame_size: int,
    lost_in_gaps: Mapping[int, int],
    before: CounterSnapshot,
    after: CounterSnapshot,
    latency_edges_us: Sequence[int],
    qdepth_edges: Sequence[int],
) -> StreamStats:
    """A stream received on several ports (tester.receive_slots): its figures per port
    and over them, from each slot's registers (`states`, by slot) and widened rx_lost.
    A port's latency samples are its figure slot's frames, once its sequence slot saw
    any (rx_seen is kept by the sequence: a spread stream's ports share it)."""
    latency = {}
    for port in slots.ports:
        figures = states[port.figure_slot]
        rx = packets_between(before, after, names.RX_STREAM, port.figure_slot)
        latency[port.figure_slot] = LatencySums(
            rx if states[port.seq_slot].rx_seen else 0, figures.latency_min_ns / NS_PER_US,
            figures.latency_max_ns / NS_PER_US, figures.latency_sum_ns / NS_PER_US,
            figures.jitter_sum_ns / NS_PER_US)
    return several_port_figures(slots.stream_id, frame_size, before, after,
                                TOFINO_STREAM_COUNTERS, slots, latency, lost_in_gaps,
                                latency_edges_us, qdepth_edges,
                                rx_bytes_include_fcs=RX_BYTES_INCLUDE_FCS)
