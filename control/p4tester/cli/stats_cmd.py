"""`p4tester stats`: live per-stream counters of a running tester switch."""

from __future__ import annotations

import json
import sys
import time
from typing import Any

from p4tester.dataplane import names
from p4tester.dataplane.constants import RX_KIND_COUNT
from p4tester.results.tables import Column, render_table
from p4tester.targets.bmv2_live import read_cells
from p4tester.targets.bmv2_session import TesterSession
from p4tester.tester.snapshot import CounterSnapshot

RX_KIND_NAMES = ("stream", "foreign", "truncated", "bad_signature", "bad_stream", "stale",
                 "mismatched", "control")  # dataplane.constants RX_KIND_*, in order


def read_stats(session: TesterSession) -> dict[str, Any]:
    """Counters since the switch started (or the pipeline was pushed), and registers
    since each stream's last trial began."""
    snapshot = CounterSnapshot.take(session.dataplane)
    # A row per (stream, RX port) (targets.bmv2_live).
    streams = [{
        "stream": r.cell.stream_id, "rx_port": r.cell.rx_port, "tx_frames": r.tx_frames,
        "rx_frames": r.rx_frames, "lost_in_gaps": r.lost_in_gaps, "reordered": r.reordered,
        "duplicates": r.duplicates, "latency_min_us": r.latency_min_us,
        "latency_avg_us": r.latency_avg_us, "latency_max_us": r.latency_max_us,
    } for r in read_cells(session, snapshot, registers=True)]
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
