"""What a run's varying streams send, so a user can tell which addresses, ports and
VLANs went out: flows.csv (frame i of every trial -> its fields: each trial restarts
the patterns and numbers its frames from 0 on BMv2) and a line per stream for the
report. Written when the run is planned: a run that fails still says what it sent."""

from __future__ import annotations

import csv
from pathlib import Path
from typing import Final

from p4tester.config.profile import Profile, StreamConfig
from p4tester.streams.field_patterns import (
    Draws,
    FieldPattern,
    Steps,
    field_text,
)
from p4tester.streams.variation import FieldVariation, mac_text

FLOWS_FILE: Final = "flows.csv"
# Rows a stream lists at most: one cycle of 65 536 flows, or that many frames of a
# stream whose draws never repeat.
MAX_ROWS: Final = 65536


def _text(field: str, value: int) -> str:
    """A value as users write it: MACs, addresses, numbers."""
    return mac_text(value) if field.endswith("_mac") else field_text(field, value)


def frame_values(stream: StreamConfig, frame: int) -> dict[str, str]:
    """The varied fields frame `frame` of a trial carries, as text."""
    return {field: _text(field, value) for field, value in stream.frame_fields(frame).items()}


def write_flows(output: Path, profile: Profile) -> Path | None:
    """flows.csv for the profile's varying streams; None (and no file) when none varies."""
    varying = [s for s in profile.streams if s.vary]
    if not varying:
        return None
    fields = list(dict.fromkeys(v.field for s in varying for v in s.vary))
    path = output / FLOWS_FILE
    with path.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["stream_id", "frame", *fields])
        for stream in varying:
            cycle = stream.flows_cycle
            rows = MAX_ROWS if cycle is None else min(cycle, MAX_ROWS)
            for frame in range(rows):
                values = frame_values(stream, frame)
                writer.writerow([stream.id, frame, *(values.get(f, "") for f in fields)])
    return path


def describe_pattern(pattern: FieldVariation | FieldPattern) -> str:
    field = pattern.field
    if isinstance(pattern, Steps):
        last = pattern.start + (pattern.count - 1) * pattern.step
        return (f"{field} {field_text(field, pattern.start)} .. {field_text(field, last)} "
                f"({pattern.count} values, step {pattern.step})")
    if isinstance(pattern, Draws):
        high = pattern.low + pattern.count - 1
        again = f", again every {pattern.repeat} frames" if pattern.repeat else ""
        return (f"{field} drawn in {field_text(field, pattern.low)} .. "
                f"{field_text(field, high)} (draw seed {pattern.seed}{again})")
    shown = (_text(field, v) for v in pattern.values[:3])
    more = ", ..." if len(pattern.values) > 3 else ""
    return f"{field} [{', '.join(shown)}{more}] ({len(pattern.values)} values)"


def flows_report(profile: Profile) -> str:
    """A line per varying stream: its fields and how many flows it cycles through."""
    lines = []
    for stream in profile.streams:
        if not stream.vary:
            continue
        cycle = stream.flows_cycle
        repeats = ("its draws never repeat" if cycle is None
                   else f"{cycle} frames before its fields repeat")
        lines.append(f"stream {stream.id} varies "
                     f"{'; '.join(describe_pattern(v) for v in stream.vary)}: {repeats} "
                     f"({FLOWS_FILE} lists frame by frame what each trial sent)")
    return "\n".join(lines)
