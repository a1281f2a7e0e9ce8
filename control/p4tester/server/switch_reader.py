"""Live readings from a tester switch over its TesterSession: the counters `p4tester
stats` reads (one snapshot, so all counters are of one moment), per-port counters
and the histogram cells."""

from __future__ import annotations

import time

from p4tester.dataplane import names
from p4tester.dataplane.constants import HIST_CELLS_PER_STREAM, HIST_OUTSIDE_BIN
from p4tester.results.model import Histogram
from p4tester.targets.bmv2_live import read_cells
from p4tester.targets.bmv2_session import TesterSession
from p4tester.tester.snapshot import CounterSnapshot
from p4tester.tester.trial_loop import QDEPTH_EDGES

from .readings import LiveReading, PortReading, StreamReading


def _histogram(snapshot: CounterSnapshot, counter: str, stream: int,
               edges: tuple[int, ...]) -> Histogram:
    base = stream * HIST_CELLS_PER_STREAM
    counts = tuple(snapshot.cell(counter, base + i).packets for i in range(len(edges) - 1))
    return Histogram(edges, counts, snapshot.cell(counter, base + HIST_OUTSIDE_BIN).packets)


def read_switch(session: TesterSession, *, registers: bool) -> LiveReading:
    """registers=False skips the in-band register reads (latency min/avg/max, gaps):
    they share the packet-in channel with a running trial's own reads."""
    snapshot = CounterSnapshot.take(session.dataplane)
    now = time.time()
    streams = [StreamReading(
        stream=r.cell.stream_id, tx_port=r.tx_port, rx_port=r.cell.rx_port,
        tx_frames=r.tx_frames, tx_bytes=r.tx_bytes, rx_frames=r.rx_frames,
        rx_bytes=r.rx_bytes, lost_in_gaps=r.lost_in_gaps, reordered=r.reordered,
        duplicates=r.duplicates, latency_min_us=r.latency_min_us,
        latency_avg_us=r.latency_avg_us, latency_max_us=r.latency_max_us,
        latency_histogram_us=_histogram(snapshot, names.LATENCY_HIST, r.cell.figure_slot,
                                        session.profile.latency_bins_us),
        queue_depth_frames=_histogram(snapshot, names.QDEPTH_HIST, r.cell.figure_slot,
                                      QDEPTH_EDGES),
    ) for r in read_cells(session, snapshot, registers=registers)]
    ports = tuple(PortReading(
        port=port.number,
        rx_frames=snapshot.cell(names.RX_PORT, port.number).packets,
        rx_bytes=snapshot.cell(names.RX_PORT, port.number).bytes,
        tx_frames=snapshot.cell(names.TX_PORT, port.number).packets,
        tx_bytes=snapshot.cell(names.TX_PORT, port.number).bytes,
    ) for port in session.topology.ports)
    return LiveReading(now, tuple(streams), ports)
