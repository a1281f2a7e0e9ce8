"""One-way figures between several testers, as a person reads them: the clocks of a
trial (results.clocks) and each stream between two testers with its direction and
what its figures may be off by; and clocks.csv, a row per trial and pair of testers."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from p4tester.results.model import TrialResult
from p4tester.results.tables import Column, fixed_text, render_table, write_csv

CLOCKS_HEADER = ("experiment", "trial_index", "tester_a", "tester_b", "offset_us",
                 "end_offset_us", "uncertainty_us", "drift_ppm", "probe_rounds",
                 "start_skew_ms", "a_to_b_streams", "b_to_a_streams", "jump", "a_ptp",
                 "b_ptp")


def one_way_table(trial: TrialResult) -> str:
    """The trial's clocks, then a line per stream between two testers: from, to, its
    one-way latency and the uncertainty of those figures; "" for one tester."""
    if not trial.clocks:
        return ""
    columns = [Column("stream"), Column("from", left=True), Column("to", left=True),
               Column("rx frames"), Column("lost"), Column("min us"), Column("avg us"),
               Column("max us"), Column("p99 us"), Column("jitter us"), Column("+- us")]
    rows = []
    for stream in trial.streams:
        record = next((c for c in trial.clocks if c.direction(stream.stream_id)), None)
        if record is None:
            continue
        sender, receiver = record.direction(stream.stream_id) or ("", "")
        latency = stream.latency
        rows.append([str(stream.stream_id), sender, receiver, str(stream.rx_frames),
                     str(stream.lost), fixed_text(latency.min_us if latency else None, 1),
                     fixed_text(latency.avg_us if latency else None, 1),
                     fixed_text(latency.max_us if latency else None, 1),
                     fixed_text(latency.p99_us if latency else None, 1),
                     fixed_text(latency.jitter_us if latency else None, 1),
                     fixed_text(record.uncertainty_us, 1)])
    lines = [line for record in trial.clocks
             for line in (record.describe(), record.ptp_line()) if line]
    return "\n".join([*lines, render_table(columns, rows)]) if rows else "\n".join(lines)


def write_clocks_csv(trials: Iterable[TrialResult], path: Path | str) -> Path | None:
    """clocks.csv, or None (nothing written) when no trial ran across testers."""
    rows = [[trial.experiment, trial.trial_index, c.a, c.b, c.offset_us, c.end_offset_us,
             c.uncertainty_us, c.drift_ppm, c.exchanges, c.start_skew_ms,
             " ".join(map(str, c.a_to_b)), " ".join(map(str, c.b_to_a)), c.jump,
             c.a_ptp.describe() if c.a_ptp else "", c.b_ptp.describe() if c.b_ptp else ""]
            for trial in trials for c in trial.clocks]
    return write_csv(path, CLOCKS_HEADER, rows) if rows else None
