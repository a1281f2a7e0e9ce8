"""The offset between two testers' clocks, measured over the test path itself as PTP
does, for one-way delay between testers that each stamp with their own clock.

An exchange is a probe frame each way: A sends at a_sent (A's clock), B receives it at
b_received (B's clock); B sends at b_sent, A receives at a_received. With forward and
reverse path delays d_f and d_r and B's clock ahead of A's by `offset`:

    b_received - a_sent = d_f + offset        a_received - b_sent = d_r - offset
    offset = ((b_received - a_sent) - (a_received - b_sent)) / 2  +  (d_r - d_f) / 2

The last term is unknown: the estimate is off by half the path's delay asymmetry,
which only the user can bound (`asymmetry_ns`). Queueing adds to single exchanges at
random, so the estimate keeps the exchanges whose round trip was shortest (NTP's
minimum filter) and states their spread. Offsets measured at a trial's start and end
give the drift between them; a change beyond what the clocks can drift (MAX_DRIFT_PPM)
and the estimates' uncertainty is a jump, and the trial's one-way figures cannot be
vouched for.

The stamps are 32 bits of nanoseconds, so an offset is only known, and only needed,
modulo STAMP_RANGE (4.29 s): two hosts' CLOCK_MONOTONIC or two Tofinos' clocks differ
by however long apart they started. Offsets taken together (an estimate's exchanges,
a path's successive estimates) are each put nearest the first (nearest), so one
that crossed +-2^31 ns between them stays continuous.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from statistics import median
from typing import Final

# Crystal oscillators of servers and switches: +-100 ppm each, so two drift apart by at
# most 200 ppm (2 us per 10 ms) unless something steps a clock.
MAX_DRIFT_PPM: Final = 200.0
# The range of the stamps (32 bits of ns): offsets are known modulo it.
STAMP_RANGE: Final = 1 << 32
# The share of exchanges, shortest round trips first, the estimate keeps.
KEPT_SHARE: Final = 1 / 3


@dataclass(frozen=True, slots=True)
class ProbeExchange:
    """One probe each way between testers A and B; each time in ns on its own clock."""

    a_sent: int
    b_received: int
    b_sent: int
    a_received: int

    @property
    def offset_ns(self) -> float:
        """B's clock minus A's, if the path were symmetric."""
        return ((self.b_received - self.a_sent) - (self.a_received - self.b_sent)) / 2

    @property
    def round_trip_ns(self) -> int:
        """Both path delays together (no clock offset in it): what queueing lengthens."""
        return (self.b_received - self.a_sent) + (self.a_received - self.b_sent)


@dataclass(frozen=True, slots=True)
class OffsetEstimate:
    """B's clock minus A's at `at_ns` (A's clock), with what bounds its error: half the
    path's asymmetry as the user bounds it, plus half the spread of the kept exchanges'
    offsets."""

    offset_ns: float
    at_ns: float
    spread_ns: float
    asymmetry_ns: float
    exchanges: int

    @property
    def uncertainty_ns(self) -> float:
        return self.asymmetry_ns / 2 + self.spread_ns / 2


def estimate_offset(exchanges: Sequence[ProbeExchange],
                    asymmetry_ns: float = 0.0) -> OffsetEstimate:
    """The offset from exchanges taken close together (a trial's start or end)."""
    if not exchanges:
        raise ValueError("no probe exchange: the offset cannot be measured")
    if asymmetry_ns < 0:
        raise ValueError(f"asymmetry {asymmetry_ns} ns must be 0 or more")
    for exchange in exchanges:
        if exchange.round_trip_ns < 0:
            raise ValueError(f"a probe exchange has a negative round trip "
                             f"({exchange.round_trip_ns} ns): its timestamps are not from "
                             "the two testers' clocks in order")
    by_round_trip = sorted(exchanges, key=lambda e: e.round_trip_ns)
    kept = by_round_trip[:max(1, round(len(exchanges) * KEPT_SHARE))]
    offsets = [nearest(e.offset_ns, kept[0].offset_ns) for e in kept]
    return OffsetEstimate(offset_ns=median(offsets),
                          at_ns=median(e.a_sent for e in kept),
                          spread_ns=max(offsets) - min(offsets),
                          asymmetry_ns=asymmetry_ns, exchanges=len(kept))


def nearest(offset_ns: float, near_ns: float) -> float:
    """The value of offset_ns modulo STAMP_RANGE nearest near_ns."""
    return offset_ns + STAMP_RANGE * round((near_ns - offset_ns) / STAMP_RANGE)


@dataclass(frozen=True, slots=True)
class TrialClocks:
    """The offsets measured at a trial's start and end."""

    start: OffsetEstimate
    end: OffsetEstimate

    @property
    def elapsed_ns(self) -> float:
        return self.end.at_ns - self.start.at_ns

    @property
    def drift_ppm(self) -> float:
        """How fast B's clock gained on A's between the two (ppm)."""
        if self.elapsed_ns <= 0:
            raise ValueError("the end's exchanges are not after the start's")
        return (self.end.offset_ns - self.start.offset_ns) / self.elapsed_ns * 1e6

    def jump(self) -> str:
        """Why the offset cannot be trusted over the trial ('' when it can): it moved
        more than the clocks can drift, beyond both estimates' uncertainty."""
        moved = abs(self.end.offset_ns - self.start.offset_ns)
        allowed = (MAX_DRIFT_PPM * max(self.elapsed_ns, 0.0) / 1e6
                   + self.start.spread_ns / 2 + self.end.spread_ns / 2)
        if moved > allowed:
            return (f"the clock offset moved {moved / 1000:.1f} us in "
                    f"{self.elapsed_ns / 1e9:.3f} s, more than {MAX_DRIFT_PPM:.0f} ppm of "
                    f"drift and the probes' spread allow ({allowed / 1000:.1f} us): a clock "
                    "was stepped")
        return ""

    def offset_at(self, a_time_ns: float) -> float:
        """B minus A at a moment of the trial (A's clock), drift included (linear)."""
        share = (a_time_ns - self.start.at_ns) / self.elapsed_ns if self.elapsed_ns else 0.0
        return self.start.offset_ns + share * (self.end.offset_ns - self.start.offset_ns)

    @property
    def uncertainty_ns(self) -> float:
        """What a one-way delay corrected by this trial's offset may be off by."""
        return max(self.start.uncertainty_ns, self.end.uncertainty_ns)

    def one_way_ns(self, a_sent_ns: float, b_received_ns: float) -> float:
        """A frame's delay from A to B: received on B's clock, less B's offset then."""
        return b_received_ns - a_sent_ns - self.offset_at(a_sent_ns)
