"""The highest load a search offers on this host: line rate, or less where the tester's
calibrated capacity (`p4tester calibrate`) is below line rate. A search above what the
tester carries measures the host, not the DUT; capped, it measures the DUT wherever the
DUT's limit lies below the cap, and otherwise reports "NDR >= the tester's capacity here".
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from p4tester.config.profile import Profile
from p4tester.config.stream_rates import busiest_stream_pps
from p4tester.config.topology import Topology
from p4tester.experiments.calibration import Calibration, load_calibration
from p4tester.search.goals import DEFAULT_MIN_FRACTION

from .capacity_warnings import CALIBRATION_FILE

# The share of its calibrated capacity a search offers at most. The capacity is the
# median of bisections on the loopback lab: a load at it is carried about half the time,
# and a lab's own DUT shares the host's CPUs with the tester; 10 % below it the tester
# proved its load in every trial we ran on a busy 2-core host.
SEARCH_CAPACITY_SHARE: Final = 0.9


@dataclass(frozen=True, slots=True)
class SearchCapacity:
    """Per frame size, the highest share of line rate a search offers where it is below
    1.0 (ThroughputConfig.max_fractions), and what the report says about it."""

    max_fractions: tuple[tuple[int, float], ...]
    notes: tuple[str, ...]


def search_capacity(frame_sizes: tuple[int, ...], topology: Topology, profile: Profile,
                    path: Path | None = None) -> SearchCapacity:
    """The caps the stored calibration at `path` (default CALIBRATION_FILE) sets for a
    search on `topology`; none without a calibration, or one of another target."""
    if topology.switch.target == "tofino":
        # No host calibration: what first contact measured of the switch's pipes.
        from p4tester.targets.tofino.measured_caps import measured_caps

        return SearchCapacity(*measured_caps(topology, frame_sizes))
    path = path or CALIBRATION_FILE
    try:
        calibration = load_calibration(path)
    except ValueError as error:
        return SearchCapacity((), (f"searches start at line rate: ignoring {path}: {error}",))
    if calibration is None or calibration.target != topology.switch.target:
        return SearchCapacity((), ())
    caps: list[tuple[int, float]] = []
    notes: list[str] = []
    for size in frame_sizes:
        cap, note = _cap_at(calibration, size, busiest_stream_pps(topology, profile, size),
                            path)
        if cap is not None:
            caps.append((size, cap))
        if note:
            notes.append(note)
    return SearchCapacity(tuple(caps), tuple(notes))


def _cap_at(calibration: Calibration, frame_size: int, line_rate_pps: float,
            path: Path) -> tuple[float | None, str]:
    capacity = calibration.capacity_pps(frame_size)
    age_min = (time.time() - calibration.measured_at) / 60.0
    at_least = "at least " if capacity.at_line_rate else ""
    measured = (f"the tester's loss-free rate on this host is {at_least}{capacity.pps:.0f} "
                f"frames/s at {capacity.frame_size} B ({path}, calibrated {age_min:.0f} min "
                f"ago on {calibration.topology})")
    highest_pps = SEARCH_CAPACITY_SHARE * capacity.pps
    fraction = highest_pps / line_rate_pps
    if fraction >= 1.0 or (capacity.at_line_rate and capacity.pps >= line_rate_pps):
        return None, (f"{frame_size} B: {measured}: the search starts at line rate "
                      f"({line_rate_pps:.0f} frames/s)")
    if fraction <= DEFAULT_MIN_FRACTION:
        return None, (f"{frame_size} B: {measured}, below the search's lowest load: the "
                      "search starts at line rate and its trials may measure the tester")
    return fraction, (f"{frame_size} B: the search offers at most {highest_pps:.0f} frames/s "
                      f"({fraction:.2%} of line rate): {SEARCH_CAPACITY_SHARE:.0%} of "
                      f"{measured}")
