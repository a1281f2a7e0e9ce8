"""Live per-(stream, RX port) figures of a BMv2 tester switch, for the front ends that
show them (`p4tester stats`, the web server's readings and /metrics): one read of the
checker cells each row's figures are in (tester.receive_slots)."""

from __future__ import annotations

from dataclasses import dataclass

from p4tester.dataplane import names
from p4tester.targets.bmv2_session import TesterSession
from p4tester.tester.receive_slots import ReceiveCell, receive_cells
from p4tester.tester.snapshot import CounterSnapshot


@dataclass(frozen=True, slots=True)
class CellReading:
    """A stream on one RX port. Counters count since the switch started; lost_in_gaps
    and latency come from registers, which restart at each trial (None: registers
    not read, or no frame yet). A spread stream's sequence figures (lost_in_gaps,
    reordered, duplicates) are on its first port's row alone, 0 on the others, so
    that rows added up count them once."""

    cell: ReceiveCell
    tx_port: int
    tx_frames: int
    tx_bytes: int
    rx_frames: int
    rx_bytes: int
    lost_in_gaps: int | None
    reordered: int
    duplicates: int
    latency_min_us: float | None
    latency_avg_us: float | None
    latency_max_us: float | None


def read_cells(session: TesterSession, snapshot: CounterSnapshot, *,
               registers: bool) -> tuple[CellReading, ...]:
    """Every (stream, RX port) of the session's profile. registers=False skips the
    in-band register reads (they share the packet-in channel with a running trial's)."""
    tx_ports = {stream.id: stream.tx_port for stream in session.profile.streams}
    readings = []
    for cell in receive_cells(session.profile, session.receive):
        read = session.dataplane.read_stream_registers
        regs = read(cell.figure_slot) if registers else None
        seq_regs = (read(cell.seq_slot) if registers and cell.seq_slot != cell.figure_slot
                    else regs)
        samples = regs.rx_samples if regs is not None else 0
        sequence = cell.sequence
        readings.append(CellReading(
            cell=cell, tx_port=tx_ports[cell.stream_id],
            tx_frames=snapshot.cell(names.TX_STREAM, cell.stream_id).packets,
            tx_bytes=snapshot.cell(names.TX_STREAM, cell.stream_id).bytes,
            rx_frames=snapshot.cell(names.RX_STREAM, cell.figure_slot).packets,
            rx_bytes=snapshot.cell(names.RX_STREAM, cell.figure_slot).bytes,
            lost_in_gaps=None if seq_regs is None else seq_regs.rx_lost if sequence else 0,
            reordered=snapshot.cell(names.RX_REORDERED, cell.seq_slot).packets
            if sequence else 0,
            duplicates=snapshot.cell(names.RX_DUPLICATE, cell.seq_slot).packets
            if sequence else 0,
            latency_min_us=float(regs.latency_min) if regs is not None and samples else None,
            latency_avg_us=regs.latency_sum / samples if regs is not None and samples else None,
            latency_max_us=float(regs.latency_max) if regs is not None and samples else None,
        ))
    return tuple(readings)
