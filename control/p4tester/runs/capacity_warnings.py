"""Warnings of a load above the tester's own loss-free rate on this host, as
`p4tester calibrate` stored it: trials at such a load would measure the tester."""

from __future__ import annotations

from pathlib import Path
from typing import Final

from p4tester.experiments.calibration import load_calibration, load_warning

# Where `p4tester calibrate` stores the host's calibration and experiments read it.
CALIBRATION_FILE: Final = Path("results/calibration.json")


def capacity_warnings(frame_size: int, offered_pps: float,
                      path: Path | None = None) -> list[str]:
    """The warning for `offered_pps` at `frame_size` (none below the calibration, or
    without one), or why the stored calibration was ignored."""
    path = path or CALIBRATION_FILE
    try:
        calibration = load_calibration(path)
    except ValueError as error:
        return [f"ignoring {path}: {error}"]
    if calibration is None:
        return []
    warning = load_warning(calibration, frame_size, offered_pps)
    return [] if warning is None else [f"warning: {warning}"]
