"""How a trial waited for the DUT to drain before it started (issue 42).

RFC 2544 (section 23) lets the DUT settle between trials. A DUT with a deep buffer
still forwards an earlier trial's frames when the next one starts: counted in that
trial, they would make it the DUT's loss at a load it never lost at. So before each
trial the trial loop waits until frames of earlier trials and runs have stopped
arriving for a quiet time (tester.settle), and a trial in which such frames still
arrived is the DUT not drained: repeated after a longer wait, never the DUT's loss.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class SettleRecord:
    """What the wait before one trial saw.

    waited_s: from the wait's start (after the trial was armed) to the trial's start;
    frames: frames of earlier trials or runs that arrived meanwhile (the DUT draining);
    quiet_s: how long none had to arrive (the profile's settle_s, longer after a trial
    the DUT had not drained for);
    drained: False when they were still arriving at the bound (settle_max_s): the
    trial ran, and is not the DUT's result."""

    waited_s: float
    frames: int
    quiet_s: float
    drained: bool = True

    def __post_init__(self) -> None:
        if self.waited_s < 0 or self.quiet_s < 0 or self.frames < 0:
            raise ValueError(f"a settle's wait {self.waited_s:g} s, quiet time "
                             f"{self.quiet_s:g} s and frames {self.frames} must not be "
                             "negative")


@dataclass(frozen=True, slots=True)
class DrainFigure:
    """What the waits before trials reveal about the DUT (issue 42, item 3): the longest
    time it kept delivering earlier trials' frames after their drain, how many it
    delivered then, and how fast (frames over that time)."""

    seconds: float
    frames: int

    @property
    def rate_pps(self) -> float:
        return self.frames / self.seconds if self.seconds > 0 else 0.0

    def describe(self) -> str:
        return (f"the DUT kept delivering earlier trials' frames for up to {self.seconds:.1f} s "
                f"after their drain ({self.frames} frames, {self.rate_pps:.0f} frames/s)")


def longest_drain(settles: Iterable[SettleRecord | None]) -> DrainFigure | None:
    """The wait with the most delivering time (its wait less the quiet time at its end);
    None when no wait saw a frame."""
    delivering = [DrainFigure(max(s.waited_s - s.quiet_s, 0.0), s.frames)
                  for s in settles if s is not None and s.frames]
    return max(delivering, key=lambda d: (d.seconds, d.frames), default=None)
