"""`p4tester validate` and `POST /api/validate`: check a topology and a profile without
touching a switch, and show what 100 % load means for each stream at each frame size."""

from __future__ import annotations

from typing import Any

from p4tester.config.profile import Profile
from p4tester.config.stream_rates import stream_pps
from p4tester.config.topology import Topology
from p4tester.neighbors.resolve import check_resolvable
from p4tester.results.tables import Column, render_table
from p4tester.streams.frame_sizes import FCS_BYTES
from p4tester.streams.rates import format_bitrate


def describe(topology: Topology, profile: Profile) -> tuple[dict[str, Any], str]:
    check_resolvable(profile, topology)
    rows: list[dict[str, Any]] = []
    for stream in profile.streams:
        port = topology.port(stream.tx_port)
        sizes = profile.frame_sizes if stream.frame_size is None else (stream.frame_size,)
        for size in sizes:
            pps = stream_pps(topology, stream, size)
            # Bytes after the stream's own (innermost) UDP/TCP header: the tester
            # header and the padding, whatever the encapsulation.
            payload = size - FCS_BYTES - stream.encapsulation.header_bytes
            rows.append({
                "stream": stream.id,
                "tx_port": stream.tx_port,
                "rx_port": stream.rx_port,
                "encapsulation": stream.encapsulation.describe(),
                "frame_size": size,
                "l4_payload": payload,
                "udp_payload": payload if stream.encapsulation.l4 == "udp" else None,
                "pps_at_100pct": round(pps, 1),
                "l1_bps_at_100pct": port.line_rate_bps * stream.share,
                "l2_bps_at_100pct": pps * size * 8,
            })
    columns = [Column("stream", left=True), Column("port"), Column("frame B"),
               Column("L4 payload B"), Column("frames/s @100%"),
               Column("headers", left=True)]
    table = render_table(columns, [
        [str(r["stream"]), str(r["tx_port"]), str(r["frame_size"]), str(r["l4_payload"]),
         f"{r['pps_at_100pct']:.1f}", r["encapsulation"]] for r in rows
    ])
    if topology.testers:
        switches = "testers " + ", ".join(
            f"{t.name} ({t.switch.target}"
            + (f", simulated clock {t.clock.offset_ns / 1000:+g} us"
               if t.clock.offset_ns or t.clock.drift_shift else "")
            + (f", {t.clock.drift_ppm:g} ppm" if t.clock.drift_shift else "")
            + ")" for t in topology.testers)
    else:
        switches = f"target {topology.switch.target}, switch {topology.switch.grpc}"
    lines = [
        f"topology {topology.name} ({topology.source}): {switches}, DUT {topology.dut.kind}",
        "ports: " + ", ".join(f"{p.number} ({format_bitrate(p.line_rate_bps)}"
                              + (f", {p.tester}" if p.tester else "") + ")"
                              for p in topology.ports),
        f"profile {profile.name} ({profile.source}): {len(profile.streams)} streams, "
        f"trials {profile.trial.duration_s:g} s + drain {profile.trial.drain_s:g} s, "
        f"search {profile.search.method}",
        table,
        "valid",
    ]
    document = {"valid": True, "topology": topology.name, "profile": profile.name,
                "streams": rows,
                "ports": [{"port": p.number, "line_rate_bps": p.line_rate_bps,
                           "tester": p.tester or None} for p in topology.ports]}
    return document, "\n".join(lines)
