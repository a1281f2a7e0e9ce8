"""The clock offset between two testers from probe exchanges (tester.clock_offset):
exact on a symmetric path, off by half the asymmetry (and within the stated
uncertainty) on an asymmetric one, queueing filtered, drift followed, a step found."""

from __future__ import annotations

import pytest

from p4tester.tester.clock_offset import (
    STAMP_RANGE,
    ProbeExchange,
    TrialClocks,
    estimate_offset,
    nearest,
)

OFFSET = 123_456  # B ahead of A, ns


def exchange(at: int, forward: int, reverse: int, offset: int = OFFSET,
             turnaround: int = 1_000) -> ProbeExchange:
    """A probe A -> B sent at `at` (A's clock), B's answer `turnaround` ns later; path
    delays `forward` and `reverse` ns; B's clock ahead by `offset`."""
    b_received = at + forward + offset
    b_sent = b_received + turnaround
    return ProbeExchange(at, b_received, b_sent, b_sent - offset + reverse)


def test_a_symmetric_path_gives_the_offset_exactly() -> None:
    found = estimate_offset([exchange(0, 10_000, 10_000)])
    assert (found.offset_ns, found.spread_ns, found.uncertainty_ns) == (OFFSET, 0, 0)
    assert exchange(0, 10_000, 10_000).round_trip_ns == 20_000


def test_an_asymmetric_path_is_off_by_half_its_asymmetry_within_the_bound() -> None:
    found = estimate_offset([exchange(0, 10_000, 14_000)], asymmetry_ns=4_000)
    assert found.offset_ns == OFFSET - 2_000
    assert abs(found.offset_ns - OFFSET) <= found.uncertainty_ns == 2_000


def test_queued_exchanges_are_left_out() -> None:
    """Nine exchanges, six of them queued on one way: the three shortest round trips
    are kept, and their offsets agree."""
    quiet = [exchange(i * 100_000, 10_000, 10_000) for i in range(3)]
    queued = [exchange(i * 100_000, 10_000 + 50_000 * (i + 1), 10_000) for i in range(3, 9)]
    found = estimate_offset(queued + quiet)
    assert (found.offset_ns, found.spread_ns, found.exchanges) == (OFFSET, 0, 3)
    assert found.at_ns == 100_000


def test_exchanges_either_side_of_half_the_stamps_range_are_one_offset() -> None:
    """B is 2^31 - 500 ns ahead: an exchange whose offset read wrapped (-2^31 - 500) is
    the same offset modulo the stamps' range, and the estimate keeps them together."""
    near = (1 << 31) - 500
    wrapped = near - STAMP_RANGE
    found = estimate_offset([exchange(0, 10_000, 10_000, offset=near),
                             exchange(100_000, 10_000, 10_000, offset=wrapped),
                             exchange(200_000, 10_000, 10_000, offset=near)])
    assert (found.offset_ns, found.spread_ns) == (near, 0)
    assert nearest(wrapped, near) == near and nearest(near, wrapped) == wrapped


def test_bad_input_is_named() -> None:
    with pytest.raises(ValueError, match="no probe exchange"):
        estimate_offset([])
    with pytest.raises(ValueError, match="negative round trip"):
        estimate_offset([ProbeExchange(0, 10, 20, -100)])
    with pytest.raises(ValueError, match="asymmetry -1 ns must be 0 or more"):
        estimate_offset([exchange(0, 1, 1)], asymmetry_ns=-1)


def test_drift_is_followed_through_the_trial() -> None:
    """B gains 50 ppm: 50 us over a 1-s trial; a frame halfway sees half of it."""
    start = estimate_offset([exchange(0, 10_000, 10_000)])
    end = estimate_offset([exchange(1_000_000_000, 10_000, 10_000, OFFSET + 50_000)])
    clocks = TrialClocks(start, end)
    assert clocks.drift_ppm == pytest.approx(50.0)
    assert clocks.jump() == ""
    assert clocks.offset_at(500_000_000) == OFFSET + 25_000
    # Sent at 0.5 s on A's clock, 30 us on the way: B stamps it with its offset then.
    assert clocks.one_way_ns(500_000_000, 500_000_000 + 30_000 + OFFSET + 25_000) == 30_000


def test_a_stepped_clock_is_a_jump() -> None:
    start = estimate_offset([exchange(0, 10_000, 10_000)])
    end = estimate_offset([exchange(10_000_000, 10_000, 10_000, OFFSET + 5_000)])
    assert TrialClocks(start, end).jump() == (
        "the clock offset moved 5.0 us in 0.010 s, more than 200 ppm of drift and the "
        "probes' spread allow (2.0 us): a clock was stepped")
