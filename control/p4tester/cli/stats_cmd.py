"""`p4tester stats`: live per-stream counters of a running tester switch."""

from __future__ import annotations

import json
import sys
import time
from typing import Any

from p4tester.dataplane import names
from p4tester.dataplane.constants import RX_KIND_COUNT
from p4tester.results.tables import Column, render_table
from p4tester.targets.bmv2_session import TesterSession
from p4tester.tester.receive_slots import receive_cells
from p4tester.tester.snapshot import CounterSnapshot

RX_KIND_NAMES = ("stream", "foreign", "truncated", "bad_signature", "bad_stream", "stale",
                 "mismatched", "control")  # dataplane.constants RX_KIND_*, in order


def read_stats(session: TesterSession) -> dict[str, Any]:
    """Counters since the switch started (or the pipeline was pushed), and registers
    since each stream's last trial began."""
    snapshot = CounterSnapshot.take(session.dataplane)
    streams = []
    # A row per (stream, RX port): a stream received on several has its figures per
    # port in checker slots of their own, and a spread stream's sequence figures are
    # on its first port's row (tester.receive_slots).
    for cell in receive_cells(session.profile):
        registers = session.dataplane.read_stream_registers(cell.figure_slot)
        seq_registers = (session.dataplane.read_stream_registers(cell.seq_slot)
                         if cell.seq_slot != cell.figure_slot else registers)
        samples = registers.rx_samples
        sequence = cell.sequence
        streams.append({
            "stream": cell.stream_id,
            "rx_port": cell.rx_port,
            "tx_frames": snapshot.cell(names.TX_STREAM, cell.stream_id).packets,
            "rx_frames": snapshot.cell(names.RX_STREAM, cell.figure_slot).packets,
            "lost_in_gaps": seq_registers.rx_lost if sequence else 0,
            "reordered": snapshot.cell(names.RX_REORDERED, cell.seq_slot).packets
            if sequence else 0,
            "duplicates": snapshot.cell(names.RX_DUPLICATE, cell.seq_slot).packets
            if sequence else 0,
            "latency_min_us": registers.latency_min if samples else None,
            "latency_avg_us": registers.latency_sum / samples if samples else None,
            "latency_max_us": registers.latency_max if samples else None,
        })
    kinds = {RX_KIND_NAMES[i]: snapshot.cell(names.RX_KIND, i).packets
             for i in range(RX_KIND_COUNT)}
    return {"time": time.time(), "streams": streams, "rx_kinds": kinds}


def render(stats: dict[str, Any]) -> str:
    def number(value: object) -> str:
        return "-" if value is None else f"{value:.0f}" if isinstance(value, float) else str(value)

    columns = [Column("stream", left=True), Column("rx port"), Column("TX"), Column("RX"),
               Column("gaps"), Column("reordered"), Column("dup"), Column("lat min us"),
               Column("avg"), Column("max")]
    keys = ("stream", "rx_port", "tx_frames", "rx_frames", "lost_in_gaps", "reordered",
            "duplicates", "latency_min_us", "latency_avg_us", "latency_max_us")
    table = render_table(columns, [[number(s[k]) for k in keys] for s in stats["streams"]])
    kinds = ", ".join(f"{k} {v}" for k, v in stats["rx_kinds"].items())
    return f"{table}\nreceived frames by kind: {kinds}"


def watch(session: TesterSession, interval_s: float, count: int, as_json: bool) -> None:
    """Print the stats `count` times, every interval_s (bounded; Ctrl-C stops it)."""
    for i in range(count):
        stats = read_stats(session)
        if as_json:
            sys.stdout.write(json.dumps(stats, sort_keys=True) + "\n")
        else:
            sys.stdout.write(render(stats) + "\n\n")
        sys.stdout.flush()
        if i + 1 < count:
            time.sleep(interval_s)
