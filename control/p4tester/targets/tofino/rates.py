"""Timer period and burst of a packet-generator application for a requested rate.

A periodic timer application emits `batches` x `packets_per_batch` packets back to
back every period, so its rate is packets / period. The period is written in whole
nanoseconds and counted in core clock cycles; this module only uses periods that are
a whole number of cycles (multiples of 4 ns at 1.25 GHz), so the rate it reports does
not depend on how the SDE rounds. Small bursts keep the traffic smooth: the search
takes the smallest burst whose rate is within `tolerance` of the request, else the
closest rate any burst up to `max_burst` reaches.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Final

from p4tester.streams.rates import RateError, format_bitrate, l1_frame_bits, validate_frame_size
from p4tester.targets.tofino.hardware import (
    CORE_CLOCK_HZ,
    MIN_TIMER_PERIOD_NS,
    PKTGEN_EXTRA_WIRE_BYTES,
    PKTGEN_MAX_PACKETS_PER_BATCH,
    PKTGEN_MAX_TIMER_NS,
    PKTGEN_PORT_BPS,
)

NS_PER_S: Final = 1_000_000_000
DEFAULT_TOLERANCE: Final = 1e-6
# Rates a hair above capacity from float rounding of "exactly line rate" pass.
_CAPACITY_SLACK: Final = 1e-9


@dataclass(frozen=True, slots=True)
class TimerSchedule:
    """What one timer application is set to, and the rate that gives."""

    period_ns: int  # timer_nanosec
    batches: int  # per period; written zero-based (batch_count_cfg = batches - 1)
    packets_per_batch: int  # written zero-based (packets_per_batch_cfg = n - 1)
    achieved_pps: float
    relative_error: float  # (achieved - requested) / requested

    @property
    def packets_per_period(self) -> int:
        return self.batches * self.packets_per_batch


def pktgen_capacity_pps(frame_size: float, pktgen_bps: float = PKTGEN_PORT_BPS) -> float:
    """Frames/s one pipe's generator makes at most: its port's L1 bit rate (the chip's:
    chip.Chip.pktgen_bps)."""
    validate_frame_size(frame_size)
    return pktgen_bps / l1_frame_bits(frame_size + PKTGEN_EXTRA_WIRE_BYTES)


def cycle_exact_step_ns(clock_hz: int) -> int:
    """Shortest period step that is a whole number of cycles: 4 ns at 1.25 GHz."""
    if clock_hz <= 0:
        raise ValueError(f"core clock {clock_hz} Hz must be positive")
    return NS_PER_S // math.gcd(NS_PER_S, clock_hz)


def timer_schedule(
    rate_pps: float,
    frame_size: int,
    *,
    tolerance: float = DEFAULT_TOLERANCE,
    clock_hz: int = CORE_CLOCK_HZ,
    min_period_ns: int = MIN_TIMER_PERIOD_NS,
    max_burst: int = PKTGEN_MAX_PACKETS_PER_BATCH,
    pktgen_bps: float = PKTGEN_PORT_BPS,
) -> TimerSchedule:
    """The smallest burst (one batch) and its period that make rate_pps within tolerance."""
    if isinstance(rate_pps, bool) or not math.isfinite(rate_pps) or rate_pps <= 0:
        raise RateError(f"generator rate must be positive and finite, got {rate_pps!r} pps")
    if not 1 <= max_burst <= PKTGEN_MAX_PACKETS_PER_BATCH:
        raise ValueError(f"max_burst {max_burst} must be in 1..{PKTGEN_MAX_PACKETS_PER_BATCH}")
    capacity = pktgen_capacity_pps(frame_size, pktgen_bps)
    if rate_pps > capacity * (1 + _CAPACITY_SLACK):
        raise RateError(
            f"{rate_pps:.10g} pps of {frame_size} B frames is more than one packet generator "
            f"makes: at most {math.floor(capacity)} pps ({format_bitrate(pktgen_bps)} L1, "
            "frame + 20 B); lower the rate or spread the streams over more generator pipes"
        )
    step = cycle_exact_step_ns(clock_hz)
    longest = PKTGEN_MAX_TIMER_NS - PKTGEN_MAX_TIMER_NS % step
    shortest = math.ceil(min_period_ns / step) * step
    if NS_PER_S / longest > rate_pps:
        raise RateError(
            f"{rate_pps:.10g} pps is below the slowest timer: one packet every "
            f"{longest / NS_PER_S:.3f} s ({NS_PER_S / longest:.4f} pps)"
        )
    best: TimerSchedule | None = None
    for burst in range(1, max_burst + 1):
        ideal_ns = burst * NS_PER_S / rate_pps
        if ideal_ns > longest + step:
            break
        lower = math.floor(ideal_ns / step) * step
        for period in (lower, lower + step):
            if not shortest <= period <= longest:
                continue
            achieved = burst * NS_PER_S / period
            if achieved > capacity * (1 + _CAPACITY_SLACK):
                continue  # the burst would not fit the period at the port's rate
            error = (achieved - rate_pps) / rate_pps
            if best is None or abs(error) < abs(best.relative_error):
                best = TimerSchedule(period, 1, burst, achieved, error)
        if best is not None and abs(best.relative_error) <= tolerance:
            break
    if best is None:
        raise RateError(
            f"no timer period in {shortest}..{longest} ns with at most {max_burst} packets "
            f"per period makes {rate_pps:.10g} pps; raise max_burst or the rate"
        )
    return best


def burst_schedule(
    rate_pps: float,
    frame_size: int,
    frames: int,
    *,
    ceiling_pps: float = math.inf,
    clock_hz: int = CORE_CLOCK_HZ,
    min_period_ns: int = MIN_TIMER_PERIOD_NS,
    pktgen_bps: float = PKTGEN_PORT_BPS,
) -> TimerSchedule:
    """A bursts shape's timer (micro-bursts): `frames` packets in one batch per trigger,
    back to back, every frames / rate_pps, the period a whole number of cycles. The
    period nearest the request whose rate stays within the generator's capacity and
    `ceiling_pps` (the stream's share of its port's line rate)."""
    if isinstance(rate_pps, bool) or not math.isfinite(rate_pps) or rate_pps <= 0:
        raise RateError(f"generator rate must be positive and finite, got {rate_pps!r} pps")
    if not 1 <= frames <= PKTGEN_MAX_PACKETS_PER_BATCH:
        raise ValueError(f"a burst of {frames} frames: must be 1..{PKTGEN_MAX_PACKETS_PER_BATCH}")
    most = min(pktgen_capacity_pps(frame_size, pktgen_bps), ceiling_pps)
    step = cycle_exact_step_ns(clock_hz)
    longest = PKTGEN_MAX_TIMER_NS - PKTGEN_MAX_TIMER_NS % step
    shortest = math.ceil(min_period_ns / step) * step
    ideal_ns = frames * NS_PER_S / rate_pps
    if ideal_ns > longest:
        raise RateError(
            f"bursts of {frames} frames at {rate_pps:.10g} frames/s come one every "
            f"{ideal_ns / NS_PER_S:.3f} s, slower than the generator's slowest timer "
            f"({longest / NS_PER_S:.3f} s): raise the load to at least "
            f"{math.ceil(frames * NS_PER_S / longest * 1e4) / 1e4:.4f} frames/s or use "
            "smaller bursts")
    lower = math.floor(ideal_ns / step) * step
    fitting = [p for p in (lower, lower + step) if shortest <= p <= longest
               and frames * NS_PER_S / p <= most * (1 + _CAPACITY_SLACK)]
    if not fitting:
        if lower + step < shortest:
            fewest = math.ceil(rate_pps * shortest / NS_PER_S)
            raise RateError(
                f"bursts of {frames} frames at {rate_pps:.10g} frames/s come every "
                f"{ideal_ns:.1f} ns, more often than the generator's shortest timer period "
                f"({shortest} ns): use bursts of at least {fewest} frames, or at most "
                f"{math.floor(frames * NS_PER_S / shortest):d} frames/s")
        raise RateError(
            f"bursts of {frames} frames at {rate_pps:.10g} frames/s of {frame_size} B are "
            f"above {most:.10g} frames/s, the most the generator and the stream's share "
            "of its port make: lower the load")
    period = min(fitting, key=lambda p: abs(frames * NS_PER_S / p - rate_pps))
    achieved = frames * NS_PER_S / period
    return TimerSchedule(period, 1, frames, achieved, (achieved - rate_pps) / rate_pps)
