"""The tester's own latency in a trial, from its reference stream (issue 21.7).

On BMv2 a reference stream loops inside the tester switch (REFERENCE_LOOP_PORT in
p4src/v1model/platform.p4): generated, stamped and checked like any stream, it never
meets the DUT or an interface. Its latency is the tester's own: the floor under what
a stream can show, and the spikes the host adds (the switch's threads not scheduled,
CPU steal) to every frame in flight at that moment. It covers the switch's pipeline
and queues, not the kernel's path to and from the tester's interfaces.

A trial's latency figures are marked when its reference stream spiked by enough to
matter for them: by more than SPIKE_FLOOR_US over its own minimum, and by more than
SPIKE_SHARE of the largest latency a stream of the trial measured. A DUT whose queue
holds frames for 50 ms is measured well enough beside a 2-ms stall of the tester; a
DUT that forwards in 300 us is not.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

# Switch clock units (BMv2: us). Below this the loop's own variation under load (its
# ingress queue) is not a spike; above it a frame waited for the host.
SPIKE_FLOOR_US: Final = 1000.0
SPIKE_SHARE: Final = 0.1
# How tables and trial lines mark such a trial.
SPIKED_MARK: Final = "tester spiked"


@dataclass(frozen=True, slots=True)
class ReferenceLatency:
    """The reference stream of one trial: what it sent and got back, its latency."""

    stream_id: int
    tx_frames: int
    rx_frames: int
    min_us: float
    avg_us: float
    max_us: float
    spiked: bool  # its spike can account for the trial's latency figures (module doc)

    def __post_init__(self) -> None:
        if not 0 <= self.rx_frames <= self.tx_frames:
            raise ValueError(f"reference stream: {self.rx_frames} frames received of "
                             f"{self.tx_frames} sent")
        if not 0 <= self.min_us <= self.avg_us <= self.max_us:
            raise ValueError(f"reference stream latency: min {self.min_us} avg {self.avg_us} "
                             f"max {self.max_us} us are not in order")

    @property
    def spike_us(self) -> float:
        """How far its slowest frame took longer than its fastest."""
        return self.max_us - self.min_us

    def describe(self) -> str:
        mark = f", {SPIKED_MARK}" if self.spiked else ""
        return (f"tester's own latency {self.min_us:g}..{self.max_us:g} us "
                f"(avg {self.avg_us:.1f}){mark}")


def spiked(min_us: float, max_us: float, largest_stream_max_us: float | None) -> bool:
    """Whether a reference stream's spike (max - min) can account for the trial's
    latency figures; `largest_stream_max_us` None: no stream measured latency."""
    spike = max_us - min_us
    if spike <= SPIKE_FLOOR_US:
        return False
    return largest_stream_max_us is None or spike > SPIKE_SHARE * largest_stream_max_us
