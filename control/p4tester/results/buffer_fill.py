"""How fast a DUT's buffer filled in a trial that passed only because it ended first,
and how long a trial must be to see it overflow (issue 21.5).

A FIFO queue drained at D frames/s and fed at R > D holds (R - D) t frames after t
seconds, each waiting (R - D) t / D seconds: its latency grows by g = (R - D) / D
seconds per second. From the rise a trial measured (TrialResult.dut_buffering_us) and
the load it offered, D = R / (1 + g) and the queue took in R - D frames/s.

The rise compares the first and the last tenth of a stream's frames, which lie at most
0.9 of the trial apart (tester.trial_course): taking 0.9 gives the slowest growth
the rise allows, and so the longest trial, never a shorter one than the DUT needs.

The buffer's size is the DUT's and unknown. The suggestion fills ASSUMED_BUFFER_FRAMES,
the queue of most Linux DUTs (txqueuelen and pfifo's default limit, 1000 packets) and
deeper than many switch ports' share of theirs, within RFC 2544's 60-s trials.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Final

ASSUMED_BUFFER_FRAMES: Final = 1000
RFC2544_TRIAL_S: Final = 60.0
# The most a trial's tenths lie apart, of its duration.
TENTHS_SPAN: Final = 0.9
_US_PER_S: Final = 1e6


@dataclass(frozen=True, slots=True)
class BufferFill:
    """What a trial's rising latency says of the DUT at the load it offered."""

    sustained_pps: float  # what the DUT forwarded while its queue grew
    excess_pps: float  # what its queue took in each second
    fill_s: float  # seconds to fill ASSUMED_BUFFER_FRAMES at that pace
    suggested_trial_s: float  # whole seconds, at least twice the trial, at most 60

    def describe(self) -> str:
        return (f"the DUT forwarded about {self.sustained_pps:.0f} frames/s while its queue "
                f"grew by {self.excess_pps:.0f} frames/s, which fills a "
                f"{ASSUMED_BUFFER_FRAMES}-frame buffer in {self.fill_s:.1f} s")


def buffer_fill(rise_us: float, trial_s: float, offered_pps: float) -> BufferFill:
    """The fill estimate of a trial whose latency rose `rise_us` (> 0) in `trial_s`
    at `offered_pps`."""
    if rise_us <= 0 or trial_s <= 0 or offered_pps <= 0:
        raise ValueError(f"buffer fill: rise {rise_us} us, trial {trial_s} s and load "
                         f"{offered_pps} frames/s must be positive")
    growth = rise_us / _US_PER_S / (TENTHS_SPAN * trial_s)
    sustained = offered_pps / (1.0 + growth)
    excess = offered_pps - sustained
    fill_s = ASSUMED_BUFFER_FRAMES / excess
    suggested = min(RFC2544_TRIAL_S, max(2.0 * trial_s, float(math.ceil(fill_s))))
    return BufferFill(sustained, excess, fill_s, suggested)
