"""IMIX profiles: average size, wire bits, per-size shares of a rate, validation."""

from __future__ import annotations

import pytest

from p4tester.streams.imix import SIMPLE_IMIX, ImixEntry, ImixError, ImixProfile
from p4tester.streams.rates import Rate, RateError

GBIT = 1e9


def test_simple_imix_is_7_4_1_of_64_594_1518() -> None:
    assert SIMPLE_IMIX.entries == (ImixEntry(64, 7), ImixEntry(594, 4), ImixEntry(1518, 1))
    assert SIMPLE_IMIX.total_weight == 12
    # (7*64 + 4*594 + 1518) / 12 = 4342 / 12
    assert SIMPLE_IMIX.average_frame_size == pytest.approx(361.8333, abs=1e-4)
    assert SIMPLE_IMIX.l1_bits_per_frame == pytest.approx((4342 / 12 + 20) * 8)
    assert SIMPLE_IMIX.l2_bits_per_frame == pytest.approx(4342 / 12 * 8)
    assert SIMPLE_IMIX.line_rate_pps(10 * GBIT) == pytest.approx(3_273_679.6, abs=0.1)


def test_split_line_rate_fills_it_exactly() -> None:
    shares = SIMPLE_IMIX.split(Rate.from_percent(100), 10 * GBIT)
    assert [s.frame_size for s in shares] == [64, 594, 1518]
    assert [s.frame_fraction for s in shares] == [7 / 12, 4 / 12, 1 / 12]
    total_pps = SIMPLE_IMIX.line_rate_pps(10 * GBIT)
    assert [s.pps for s in shares] == pytest.approx([total_pps * w / 12 for w in (7, 4, 1)])
    assert sum(s.l1_bps for s in shares) == pytest.approx(10 * GBIT)
    assert shares[2].l2_bps == pytest.approx(shares[2].pps * 1518 * 8)


def test_split_pps_rate() -> None:
    shares = SIMPLE_IMIX.split(Rate.from_pps(12_000), 10 * GBIT)
    assert [s.pps for s in shares] == pytest.approx([7000, 4000, 1000])


def test_split_above_line_rate_is_refused() -> None:
    with pytest.raises(RateError, match=r"IMIX profile 'simple-imix': rate 101% of line rate"):
        SIMPLE_IMIX.split(Rate.from_percent(101), 10 * GBIT)


def test_custom_weights_are_sorted() -> None:
    profile = ImixProfile.from_weights("two", {1518: 1, 64: 3})
    assert profile.entries == (ImixEntry(64, 3), ImixEntry(1518, 1))
    assert profile.average_frame_size == (3 * 64 + 1518) / 4
    assert str(profile) == "two (64 B x3, 1518 B x1; average 427.50 B)"


@pytest.mark.parametrize(
    ("weights", "message"),
    [
        ({}, r"has no frame sizes"),
        ({64: 0}, r"weight 0 of 64 B frames must be a positive integer"),
        ({64: 1.5}, r"weight 1\.5 of 64 B frames"),
        ({63: 1}, r"frame size 63 B is outside 64\.\.9216 B"),
        ({10000: 1}, r"frame size 10000 B is outside"),
    ],
)
def test_validation(weights: dict[int, int], message: str) -> None:
    with pytest.raises(ImixError, match=message):
        ImixProfile.from_weights("bad", weights)


def test_unsorted_or_repeated_entries_are_refused() -> None:
    with pytest.raises(ImixError, match=r"unique and sorted"):
        ImixProfile("x", (ImixEntry(594, 1), ImixEntry(64, 1)))
    with pytest.raises(ImixError, match=r"unique and sorted"):
        ImixProfile("x", (ImixEntry(64, 1), ImixEntry(64, 2)))
    with pytest.raises(ImixError, match=r"needs a name"):
        ImixProfile("", (ImixEntry(64, 1),))
