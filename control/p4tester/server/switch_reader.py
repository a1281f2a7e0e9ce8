"""Live readings from a tester switch over its TesterSession: the counters `p4tester
stats` reads (one snapshot, so all counters are of one moment), per-port counters
and the histogram cells."""

from __future__ import annotations

import time

from p4tester.dataplane import names
from p4tester.dataplane.constants import HIST_CELLS_PER_STREAM, HIST_OUTSIDE_BIN
from p4tester.results.model import Histogram
from p4tester.targets.bmv2_session import TesterSession
from p4tester.tester.receive_slots import receive_cells
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
    tx_ports = {stream.id: stream.tx_port for stream in session.profile.streams}
    # A row per (stream, RX port): a stream received on several has its figures per
    # port in checker slots of their own (tester.receive_slots).
    for cell in receive_cells(session.profile):
        regs = session.dataplane.read_stream_registers(cell.figure_slot) if registers else None
        seq_regs = (session.dataplane.read_stream_registers(cell.seq_slot)
                    if registers and cell.seq_slot != cell.figure_slot else regs)
        samples = regs.rx_samples if regs is not None else 0
        sequence = cell.sequence
        streams.append(StreamReading(
            stream=cell.stream_id, tx_port=tx_ports[cell.stream_id], rx_port=cell.rx_port,
            tx_frames=snapshot.cell(names.TX_STREAM, cell.stream_id).packets,
            tx_bytes=snapshot.cell(names.TX_STREAM, cell.stream_id).bytes,
            rx_frames=snapshot.cell(names.RX_STREAM, cell.figure_slot).packets,
            rx_bytes=snapshot.cell(names.RX_STREAM, cell.figure_slot).bytes,
            lost_in_gaps=(seq_regs.rx_lost if sequence else 0) if seq_regs is not None else None,
            reordered=snapshot.cell(names.RX_REORDERED, cell.seq_slot).packets if sequence else 0,
            duplicates=snapshot.cell(names.RX_DUPLICATE, cell.seq_slot).packets if sequence else 0,
            latency_min_us=float(regs.latency_min) if regs is not None and samples else None,
            latency_avg_us=regs.latency_sum / samples if regs is not None and samples else None,
            latency_max_us=float(regs.latency_max) if regs is not None and samples else None,
            latency_histogram_us=_histogram(snapshot, names.LATENCY_HIST, cell.figure_slot,
                                            session.profile.latency_bins_us),
            queue_depth_frames=_histogram(snapshot, names.QDEPTH_HIST, cell.figure_slot,
                                          QDEPTH_EDGES),
        ))
    ports = tuple(PortReading(
        port=port.number,
        rx_frames=snapshot.cell(names.RX_PORT, port.number).packets,
        rx_bytes=snapshot.cell(names.RX_PORT, port.number).bytes,
        tx_frames=snapshot.cell(names.TX_PORT, port.number).packets,
        tx_bytes=snapshot.cell(names.TX_PORT, port.number).bytes,
    ) for port in session.topology.ports)
    return LiveReading(now, tuple(streams), ports)
