"""Poisson arrivals on Tofino (issue 24, item 5): a fast timer thinned by a random draw.

A Poisson stream's application runs a grid: one packet per timer trigger, about K (the
shape's grid) times faster than the stream's rate. Ingress draws 16 random bits for
each packet and drops it, before the budget is taken, when the draw is below the
application's drop_below (p4src/tna/generator.p4): a dropped packet counts nothing, so
the budget and the switch-clock samples stay exact, and what goes on is a grid of
Bernoulli trials, gaps geometric on the timer's grid (hardware testers thin a fast
generator the same way; BMv2 thins its loop passes, README "Poisson arrivals").

One packet per trigger keeps the grid even: a batch of several would leave back to
back at the generator's 100 Gbit/s, clumping the arrivals a draw keeps. So the grid is
at most one packet every shortest timer period (100 ns) per generator pipe.

The timer's period is a whole number of core cycles, so the grid is K x the rate only
to within a cycle; the draw's threshold takes up the difference: it keeps
round(65536 x rate / grid rate) of the 65536 draws, so the stream's mean rate is the
rate asked for to within a 65536th of the kept share, and is reported as what it is.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Final

from p4tester.streams.rates import RateError
from p4tester.targets.tofino.hardware import (
    CORE_CLOCK_HZ,
    MIN_TIMER_PERIOD_NS,
    PKTGEN_MAX_TIMER_NS,
)
from p4tester.targets.tofino.rates import NS_PER_S, TimerSchedule, cycle_exact_step_ns

# The draw's values: 16 random bits (Random<bit<16>> in generator.p4).
DRAWS: Final = 1 << 16
# drop_below of every application that is not thinned: no draw is below 0.
KEEP_ALL: Final = 0


@dataclass(frozen=True, slots=True)
class ThinnedTimer:
    """Each generator pipe's grid timer for a Poisson stream and its draw's threshold."""

    timer: TimerSchedule  # one packet per trigger; achieved_pps: the grid's packets/s
    drop_below: int  # a packet whose draw is below it is dropped

    @property
    def kept_share(self) -> float:
        """The probability that a packet of the grid goes on."""
        return (DRAWS - self.drop_below) / DRAWS

    @property
    def mean_pps(self) -> float:
        """Frames per second one pipe's generator sends, on average."""
        return self.timer.achieved_pps * self.kept_share

    @property
    def count_variance(self) -> float:
        """The variance of the frames counted where n are due, over n: each frame due
        is 1 / kept_share grid packets, each kept with probability kept_share, so
        n (1 - kept_share) (binomial thinning; tester.rate_course allows chance)."""
        return 1.0 - self.kept_share


def thinned_timer(rate_pps: float, frame_size: int, grid: int, pipes: int, *,
                  clock_hz: int = CORE_CLOCK_HZ,
                  min_period_ns: int = MIN_TIMER_PERIOD_NS) -> ThinnedTimer:
    """Each of `pipes` generators' grid and threshold for Poisson arrivals of rate_pps
    frames of frame_size bytes with `grid` packets per frame: the whole-cycle period
    nearest 1 / (grid x rate_pps / pipes), the draw keeping rate_pps / pipes of its
    packets. Raises RateError, naming what fits, when the grid is finer than the
    shortest timer period or coarser than the longest."""
    if isinstance(rate_pps, bool) or not math.isfinite(rate_pps) or rate_pps <= 0:
        raise RateError(f"generator rate must be positive and finite, got {rate_pps!r} pps")
    if grid < 2 or pipes < 1:
        raise ValueError(f"a Poisson grid of {grid} packets per frame over {pipes} pipes: "
                         "the grid must be at least 2, the pipes at least 1")
    step = cycle_exact_step_ns(clock_hz)
    longest = PKTGEN_MAX_TIMER_NS - PKTGEN_MAX_TIMER_NS % step
    shortest = math.ceil(min_period_ns / step) * step
    per_pipe = rate_pps / pipes
    ideal_ns = NS_PER_S / (grid * per_pipe)
    if ideal_ns < shortest:
        most = NS_PER_S * pipes / (grid * shortest)
        finest = math.floor(NS_PER_S / (shortest * per_pipe))
        fix = f"the grid to at most {finest}, " if finest >= 2 else ""
        raise RateError(
            f"Poisson arrivals of {rate_pps:.10g} frames/s with grid={grid} are "
            f"{grid * rate_pps:.10g} generator packets/s, over {pipes} generator pipe(s) one "
            f"every {ideal_ns:.1f} ns in each, more often than the generator's shortest "
            f"timer period ({shortest} ns; a Poisson grid is one packet per trigger, so that "
            f"it stays even): lower the load to at most {math.floor(most):d} frames/s, "
            f"{fix}or send the stream from TX ports in more pipes")
    if ideal_ns > longest:
        raise RateError(
            f"Poisson arrivals of {rate_pps:.10g} frames/s with grid={grid} are one "
            f"generator packet every {ideal_ns / NS_PER_S:.3f} s per pipe, slower than the "
            f"generator's slowest timer ({longest / NS_PER_S:.3f} s): raise the load or "
            "the grid")
    lower = max(shortest, math.floor(ideal_ns / step) * step)
    period = min((p for p in (lower, lower + step) if p <= longest),
                 key=lambda p: abs(p - ideal_ns))
    grid_pps = NS_PER_S / period
    kept = min(DRAWS - 1, max(1, round(DRAWS * per_pipe / grid_pps)))
    mean = grid_pps * kept / DRAWS
    return ThinnedTimer(TimerSchedule(period, 1, 1, grid_pps, (mean - per_pipe) / per_pipe),
                        DRAWS - kept)
