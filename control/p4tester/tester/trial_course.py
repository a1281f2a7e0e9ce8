"""What a trial actually offered, and how its latency went, from each stream's
registers sampled during it.

The trial runner reads each stream's registers while it waits for the budgets to go
out (in-band READ, every POLL_S): the frames that left its TX port so far (the
sequence numbers egress stamped) and the switch's clock at that read. From those samples:

- the measured TX rate: frames between the first and the last sample taken while the
  stream was still sending, over the switch-clock time between them;
- the worst burst: the most frames sent in one sample interval beyond what the
  configured rate allows in that interval. A generator that stalled (its switch not
  scheduled for a moment, CPU steal) and then caught up sends the frames it owed back
  to back: a burst a DUT's queue may drop though the average rate was right.

Both use the switch's clock, not the controller's: when a READ is answered late, the
sample says when the switch took it, so controller scheduling noise does not show as
a burst. A burst of frames the switch did send is exactly what the DUT saw.

The same samples carry the latency registers: the latency of a trial's first tenth of
frames against its last tenth. A DUT whose buffer fills through a trial (a load above
what it forwards, absorbed by a deep queue) shows it as latency that keeps rising: the
trial passed only because it ended before the buffer was full (RFC 2544 asks for long
trials for this reason).

And the frames sent and received per interval of about a second (interval_counts),
from which a service's availability follows (results.availability, Y.1564).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import Final

from p4tester.results.model import IntervalCounts
from p4tester.tester.port_counters import counter_delta

# BMv2's clock (the switch_time of a READ reply): microseconds, 32 bits.
SWITCH_CLOCK_HZ: Final = 1_000_000
SWITCH_CLOCK_BITS: Final = 32
# What a trial may deviate from its configured load and still have offered it:
# - rate: 2 % of the frames the rate asks for over the measured span (the accuracy the
#   labs' DUT limits are measured to), at least 2 frames (the samples' counting step);
# - burst: 5 % of the frames one sample interval (POLL_S) holds at the rate, at least
#   16. Measured on a 2-core host with one core busy: steady trials burst 0 to 5
#   frames; a generator that stalled at 100 % of a 5-Mbit/s port, 12 to 1531.
RATE_TOLERANCE: Final = 0.02
RATE_TOLERANCE_FRAMES: Final = 2
BURST_TOLERANCE: Final = 0.05
BURST_TOLERANCE_FRAMES: Final = 16


@dataclass(frozen=True, slots=True)
class StreamSample:
    """One stream's registers at one in-band read."""

    switch_time: int  # switch clock at the read (wraps at 2^SWITCH_CLOCK_BITS)
    sent: int  # frames that left the stream's TX port so far this trial (egress stamped)
    rx_samples: int = 0  # latency samples (frames received) so far this trial
    latency_sum: int = 0  # their latencies' sum, switch clock units


@dataclass(frozen=True, slots=True)
class OfferedLoad:
    """What one stream offered: `pps` measured over its sending time (None with fewer
    than two samples while it sent), `max_burst_frames` beyond its configured rate in
    the worst sample interval (0: never above it)."""

    pps: float | None
    max_burst_frames: int
    span_s: float = 0.0  # switch-clock time the rate was measured over


def offered_load(samples: Sequence[StreamSample], rate_pps: float,
                 budget: int) -> OfferedLoad:
    """The stream's measured rate and worst burst from its samples, in reading order."""
    sending = [s for s in samples if s.sent < budget]
    # The sample that saw the budget complete still bounds the last interval's burst.
    bounded = list(sending)
    if len(samples) > len(sending):
        bounded.append(next(s for s in samples if s.sent >= budget))
    burst = 0.0
    for earlier, later in pairwise(bounded):
        seconds = switch_seconds(earlier, later)
        burst = max(burst, (later.sent - earlier.sent) - rate_pps * seconds)
    pps = None
    span = 0.0
    if len(sending) >= 2:
        span = switch_seconds(sending[0], sending[-1])
        if span > 0:
            pps = (sending[-1].sent - sending[0].sent) / span
    return OfferedLoad(pps, int(burst), span)


def late_frames(samples: Sequence[StreamSample], budget: int, received: int) -> int | None:
    """Frames of the stream received after the read that saw its budget sent, within
    the drain (RFC 2544 counts them as received; they arrived after the trial's end, at
    most one sample interval after its last frame left). None when no read saw the
    budget sent (the generator fell behind)."""
    done = next((s for s in samples if s.sent >= budget), None)
    return None if done is None else max(received - done.rx_samples, 0)


def not_offered(stream_id: int, load: OfferedLoad, rate_pps: float, poll_s: float) -> str:
    """Why the stream did not offer its configured load ('' when it did, within the
    tolerances above): its measured rate, or its worst burst."""
    if load.pps is not None:
        asked = rate_pps * load.span_s
        missing = abs(asked - load.pps * load.span_s)
        if missing > max(RATE_TOLERANCE * asked, RATE_TOLERANCE_FRAMES):
            return (f"stream {stream_id} offered {load.pps:.0f} frames/s, not its "
                    f"{rate_pps:g} (measured on the switch's clock over {load.span_s:.2f} s)")
    allowed = burst_allowed(rate_pps, poll_s)
    if load.max_burst_frames > allowed:
        return (f"stream {stream_id} sent {load.max_burst_frames} frames beyond its "
                f"{rate_pps:g} frames/s in one {poll_s:g}-s interval (its generator stalled "
                f"and caught up; {allowed:.0f} allowed)")
    return ""


def burst_allowed(rate_pps: float, poll_s: float) -> float:
    """Frames a stream may send beyond its rate in one sample interval (module doc)."""
    return max(BURST_TOLERANCE * rate_pps * poll_s, BURST_TOLERANCE_FRAMES)


def overdriven(load: OfferedLoad, rate_pps: float, poll_s: float) -> bool:
    """The stream burst beyond what its rate allows: traffic harsher than asked."""
    return load.max_burst_frames > burst_allowed(rate_pps, poll_s)


def switch_seconds(earlier: StreamSample, later: StreamSample) -> float:
    """Switch-clock seconds from one sample to a later one (the clock may wrap once)."""
    ticks = counter_delta(earlier.switch_time, later.switch_time, bits=SWITCH_CLOCK_BITS)
    return ticks / SWITCH_CLOCK_HZ


# A trial whose last tenth of frames waited this much longer than its first tenth,
# and at least twice as long, was filling the DUT's buffer: a busy host's scheduling
# noise moves a tenth's average by well under a millisecond.
BUFFERING_RISE_US: Final = 1000.0
BUFFERING_RISE_FACTOR: Final = 2.0


@dataclass(frozen=True, slots=True)
class LatencyCourse:
    """Average latency (switch clock units, BMv2: us) of about the first and the last
    tenth of one stream's frames in a trial."""

    first_tenth: float
    last_tenth: float

    @property
    def rise(self) -> float:
        return self.last_tenth - self.first_tenth

    @property
    def buffering(self) -> bool:
        """Latency rose through the trial: the DUT was filling its buffer."""
        return (self.rise > BUFFERING_RISE_US
                and self.last_tenth > BUFFERING_RISE_FACTOR * self.first_tenth)


def latency_course(samples: Sequence[StreamSample], frames: int,
                   latency_sum: int) -> LatencyCourse | None:
    """The stream's latency course from its samples and its final figures (`frames`
    received, their `latency_sum`); None when the samples do not split the trial: no
    sample between the first and the last tenth of its frames. A tenth is a bound: the
    first figure averages the frames up to the first sample past a tenth (at most half
    of them), the last the frames after the last sample before nine tenths."""
    if frames < 10:
        return None
    early = next((s for s in samples if 10 * s.rx_samples >= frames), None)
    late = next((s for s in reversed(samples) if 10 * s.rx_samples <= 9 * frames), None)
    if early is None or late is None or 2 * early.rx_samples > frames:
        return None
    if late.rx_samples >= frames or late.rx_samples < early.rx_samples:
        return None
    first = early.latency_sum / early.rx_samples
    last = (latency_sum - late.latency_sum) / (frames - late.rx_samples)
    return LatencyCourse(first, last)


def interval_counts(samples: Sequence[StreamSample],
                    interval_s: float) -> IntervalCounts | None:
    """Frames sent and received in consecutive windows of the trial: each window runs
    from one sample to the first sample at least `interval_s` later (switch clock); a
    last window under half as long joins the one before. None with fewer than two
    samples. A frame on its way at a window's end counts in the next window's received
    (its latency, against a second's frames), and frames received after the last sample
    (the drain) in none: fine for telling a window that lost half its frames."""
    if len(samples) < 2:
        return None
    bounds = [samples[0]]
    for sample in samples[1:]:
        if switch_seconds(bounds[-1], sample) >= interval_s:
            bounds.append(sample)
    if bounds[-1] is not samples[-1]:
        if len(bounds) > 1 and switch_seconds(bounds[-1], samples[-1]) < interval_s / 2:
            bounds[-1] = samples[-1]
        else:
            bounds.append(samples[-1])
    sent = tuple(later.sent - earlier.sent for earlier, later in pairwise(bounds))
    received = tuple(later.rx_samples - earlier.rx_samples
                     for earlier, later in pairwise(bounds))
    return IntervalCounts(interval_s, sent, received)
