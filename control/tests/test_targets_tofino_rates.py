"""Timer period and burst for a requested rate on Tofino 1: exact expected schedules,
periods that are whole clock cycles, the smallest burst within tolerance, and errors."""

from __future__ import annotations

import pytest

from p4tester.streams.rates import RateError
from p4tester.targets.tofino.rates import (
    TimerSchedule,
    cycle_exact_step_ns,
    pktgen_capacity_pps,
    timer_schedule,
)

LINE_RATE_64B = 100e9 / (84 * 8)  # 148_809_523.8 pps


def test_one_megapacket_is_one_packet_per_microsecond() -> None:
    assert timer_schedule(1e6, 64) == TimerSchedule(
        period_ns=1000, batches=1, packets_per_batch=1, achieved_pps=1e6, relative_error=0.0)


def test_line_rate_at_64_bytes_is_25_packets_every_168_ns() -> None:
    # 25 / 168 ns = 1e11 / 672 exactly; fewer packets need a period below 100 ns or
    # one that is not a multiple of 4 ns (a whole number of 1.25 GHz cycles).
    schedule = timer_schedule(148_809_523.8, 64)
    assert (schedule.period_ns, schedule.batches, schedule.packets_per_batch) == (168, 1, 25)
    assert schedule.achieved_pps == pytest.approx(LINE_RATE_64B, rel=1e-15)
    assert schedule.relative_error == pytest.approx(6.4e-11, rel=1e-3)


def test_three_packets_per_second() -> None:
    schedule = timer_schedule(3, 64)
    assert (schedule.period_ns, schedule.packets_per_batch) == (333_333_332, 1)
    assert schedule.achieved_pps == pytest.approx(3.000000012, rel=1e-12)
    assert schedule.relative_error == pytest.approx(4e-9, rel=1e-6)


def test_a_rate_that_needs_three_packets_per_period() -> None:
    # 3 packets / 4004 ns exactly; 1 packet (1332 or 1336 ns) and 2 packets (2668 or
    # 2672 ns) miss by 1e-3 and 5e-4, beyond the 1e-6 tolerance.
    rate = 3e9 / 4004
    schedule = timer_schedule(rate, 128)
    assert (schedule.period_ns, schedule.packets_per_batch) == (4004, 3)
    assert schedule.relative_error == pytest.approx(0.0, abs=1e-15)
    assert schedule.packets_per_period == 3


def test_smallest_burst_within_tolerance_wins() -> None:
    # 2 packets / 1620 ns is within 7.3e-7 of 1_234_567 pps: no need for more packets.
    schedule = timer_schedule(1_234_567, 64)
    assert (schedule.period_ns, schedule.packets_per_batch) == (1620, 2)
    assert schedule.relative_error == pytest.approx((2e9 / 1620 - 1_234_567) / 1_234_567)
    tighter = timer_schedule(1_234_567, 64, tolerance=1e-9)
    assert tighter.packets_per_batch > 2
    assert abs(tighter.relative_error) <= 1e-9


def test_best_found_and_its_error_when_tolerance_is_out_of_reach() -> None:
    # One packet per period: 808 ns (+2.5e-3) or 812 ns (-2.46e-3); the closer is taken.
    schedule = timer_schedule(1_234_567, 64, max_burst=1)
    assert (schedule.period_ns, schedule.packets_per_batch) == (812, 1)
    assert schedule.relative_error == pytest.approx((1e9 / 812 - 1_234_567) / 1_234_567)
    assert schedule.relative_error == pytest.approx(-0.0024623, abs=1e-7)


def test_periods_are_whole_clock_cycles() -> None:
    assert cycle_exact_step_ns(1_250_000_000) == 4
    assert cycle_exact_step_ns(1_100_000_000) == 10  # a part fused down to 1.1 GHz
    assert cycle_exact_step_ns(1_000_000_000) == 1
    for rate in (7_777_777.0, 12_345_678.9, 99_000_000.0):
        assert timer_schedule(rate, 64).period_ns % 4 == 0
    assert timer_schedule(1e6 / 3, 64, clock_hz=1_100_000_000).period_ns % 10 == 0


def test_rate_above_the_generator_port_is_refused_with_the_limit() -> None:
    assert pktgen_capacity_pps(64) == pytest.approx(LINE_RATE_64B)
    with pytest.raises(RateError) as caught:
        timer_schedule(150e6, 64)
    assert str(caught.value) == (
        "150000000 pps of 64 B frames is more than one packet generator makes: at most "
        "148809523 pps (100 Gbit/s L1, frame + 20 B); lower the rate or spread the streams "
        "over more generator pipes")
    with pytest.raises(RateError, match=r"at most 8127438 pps"):
        timer_schedule(8.2e6, 1518)


@pytest.mark.parametrize("rate", [0, -5, float("nan"), float("inf")])
def test_rate_must_be_positive(rate: float) -> None:
    with pytest.raises(RateError, match=r"must be positive and finite"):
        timer_schedule(rate, 64)


def test_rate_below_the_slowest_timer_is_refused() -> None:
    # The longest period is the largest multiple of 4 ns in a uint32: 4294967292 ns.
    assert timer_schedule(0.25, 64).period_ns == 4_000_000_000
    with pytest.raises(RateError, match=r"below the slowest timer: one packet every 4.295 s"):
        timer_schedule(0.2, 64)
