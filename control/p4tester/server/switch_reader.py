"""Live readings from a tester switch over its TesterSession: the counters `p4tester
stats` reads (one snapshot, so all counters are of one moment), per-port counters
and the histogram cells."""

from __future__ import annotations

import time

from p4tester.dataplane import names
from p4tester.dataplane.constants import HIST_CELLS_PER_STREAM, HIST_OUTSIDE_BIN
from p4tester.results.model import Histogram
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
    streams = []
    for stream in session.profile.streams:
        regs = session.dataplane.read_stream_registers(stream.id) if registers else None
        samples = regs.rx_samples if regs is not None else 0
        streams.append(StreamReading(
            stream=stream.id, tx_port=stream.tx_port, rx_port=stream.rx_port,
            tx_frames=snapshot.cell(names.TX_STREAM, stream.id).packets,
            tx_bytes=snapshot.cell(names.TX_STREAM, stream.id).bytes,
            rx_frames=snapshot.cell(names.RX_STREAM, stream.id).packets,
            rx_bytes=snapshot.cell(names.RX_STREAM, stream.id).bytes,
            lost_in_gaps=regs.rx_lost if regs is not None else None,
            reordered=snapshot.cell(names.RX_REORDERED, stream.id).packets,
            duplicates=snapshot.cell(names.RX_DUPLICATE, stream.id).packets,
            latency_min_us=float(regs.latency_min) if regs is not None and samples else None,
            latency_avg_us=regs.latency_sum / samples if regs is not None and samples else None,
            latency_max_us=float(regs.latency_max) if regs is not None and samples else None,
            latency_histogram_us=_histogram(snapshot, names.LATENCY_HIST, stream.id,
                                            session.profile.latency_bins_us),
            queue_depth_frames=_histogram(snapshot, names.QDEPTH_HIST, stream.id, QDEPTH_EDGES),
        ))
    ports = tuple(PortReading(
        port=port.number,
        rx_frames=snapshot.cell(names.RX_PORT, port.number).packets,
        rx_bytes=snapshot.cell(names.RX_PORT, port.number).bytes,
        tx_frames=snapshot.cell(names.TX_PORT, port.number).packets,
        tx_bytes=snapshot.cell(names.TX_PORT, port.number).bytes,
    ) for port in session.topology.ports)
    return LiveReading(now, tuple(streams), ports)
