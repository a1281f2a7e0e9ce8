"""Rates: line-rate arithmetic (RFC 2544 frame incl. FCS, +20 B on the wire), unit
conversions, parsing, and errors that say what the limit is."""

from __future__ import annotations

import pytest

from p4tester.streams.frame_sizes import FrameSizeError
from p4tester.streams.rates import (
    FrameSizeBreakdown,
    Rate,
    RateError,
    RateUnit,
    describe_frame_size,
    format_bitrate,
    line_rate_pps,
)

GBIT = 1e9


@pytest.mark.parametrize(
    ("bitrate", "frame_size", "expected_pps"),
    [
        (100 * GBIT, 64, 148_809_523.8),  # the famous 148.81 Mpps
        (10 * GBIT, 64, 14_880_952.4),
        (10 * GBIT, 1518, 812_743.8),
        (1 * GBIT, 64, 1_488_095.2),
        (100 * GBIT, 9216, 1_353_399.7),
    ],
)
def test_line_rate_pps(bitrate: float, frame_size: int, expected_pps: float) -> None:
    assert line_rate_pps(bitrate, frame_size) == pytest.approx(expected_pps, abs=0.05)


def test_line_rate_formula_is_bitrate_over_l1_bits() -> None:
    assert line_rate_pps(10 * GBIT, 64) == 10e9 / ((64 + 20) * 8)


@pytest.mark.parametrize("frame_size", [0, 63, 9217, True])
def test_frame_size_outside_64_9216_is_refused(frame_size: int) -> None:
    with pytest.raises(FrameSizeError, match=r"frame size"):
        line_rate_pps(10 * GBIT, frame_size)


@pytest.mark.parametrize("bitrate", [0.0, -1.0, float("inf"), float("nan")])
def test_line_rate_must_be_positive(bitrate: float) -> None:
    with pytest.raises(RateError, match=r"port line rate must be a positive bit rate"):
        line_rate_pps(bitrate, 64)


def test_percent_resolves_to_all_units() -> None:
    rate = Rate.from_percent(50).resolve(64, 10 * GBIT)
    assert rate.percent == 50.0
    assert rate.fraction == 0.5
    assert rate.l1_bps == 5e9  # percent -> L1 needs no frame size: exact
    assert rate.pps == pytest.approx(7_440_476.19, abs=0.01)
    assert rate.l2_bps == pytest.approx(7_440_476.19 * 512, rel=1e-9)


def test_l1_and_l2_bit_rates_differ_by_preamble_and_ifg() -> None:
    # 1 Gbit/s of L2 bits at 64 B: 1e9 / 512 = 1953125 frames/s, which occupy
    # 1953125 * 672 = 1.3125 Gbit/s on the wire.
    l2 = Rate.from_l2_bps(1 * GBIT).resolve(64, 10 * GBIT)
    assert l2.pps == 1_953_125.0
    assert l2.l1_bps == 1_312_500_000.0
    assert l2.l2_bps == 1e9
    assert l2.percent == pytest.approx(13.125)
    # The other way round: 1 Gbit/s L1 at 64 B carries 1e9 * 64/84 L2 bits.
    l1 = Rate.from_l1_bps(1 * GBIT).resolve(64, 10 * GBIT)
    assert l1.pps == pytest.approx(1_488_095.238, abs=0.001)
    assert l1.l2_bps == pytest.approx(761_904_761.9, abs=0.1)
    assert l1.percent == pytest.approx(10.0)


def test_pps_converts_to_bit_rates() -> None:
    rate = Rate.from_pps(812_743.8).resolve(1518, 10 * GBIT)
    assert rate.l1_bps == pytest.approx(812_743.8 * 1538 * 8)
    assert rate.l2_bps == pytest.approx(812_743.8 * 1518 * 8)
    assert rate.percent == pytest.approx(100.0, abs=1e-4)


def test_exactly_line_rate_is_allowed() -> None:
    for rate in (
        Rate.from_percent(100),
        Rate.from_l1_bps(100 * GBIT),
        Rate.from_pps(line_rate_pps(100 * GBIT, 64)),
    ):
        assert rate.resolve(64, 100 * GBIT).percent == pytest.approx(100.0)


def test_above_line_rate_names_the_limit() -> None:
    with pytest.raises(RateError) as caught:
        Rate.from_percent(120).resolve(64, 10 * GBIT)
    assert str(caught.value) == (
        "rate 120% of line rate is above the port's 10 Gbit/s line rate: "
        "at most 14880952 pps for 64 B frames"
    )
    with pytest.raises(RateError, match=r"rate 20000000 pps is above .* at most 14880952 pps"):
        Rate.from_pps(20e6).resolve(64, 10 * GBIT)
    # 9 Gbit/s of L2 bits at 64 B is 11.8 Gbit/s on the wire.
    with pytest.raises(RateError, match=r"9 Gbit/s \(L2\) is above the port's 10 Gbit/s"):
        Rate.from_l2_bps(9 * GBIT).resolve(64, 10 * GBIT)


@pytest.mark.parametrize("value", [0, -1, float("nan"), float("inf")])
def test_rate_must_be_positive(value: float) -> None:
    with pytest.raises(RateError, match=r"rate must be positive and finite"):
        Rate.from_pps(value)


@pytest.mark.parametrize(
    ("text", "value", "unit"),
    [
        ("1000pps", 1000.0, RateUnit.PPS),
        ("10kpps", 10_000.0, RateUnit.PPS),
        ("1.5Mpps", 1_500_000.0, RateUnit.PPS),
        ("9.5Gbps", 9.5e9, RateUnit.L1_BPS),  # bit rates are L1 unless told
        ("l1:9.5Gbps", 9.5e9, RateUnit.L1_BPS),
        ("l2:9.5Gbps", 9.5e9, RateUnit.L2_BPS),
        ("L2: 100 Mbit/s", 100e6, RateUnit.L2_BPS),
        ("800bps", 800.0, RateUnit.L1_BPS),
        ("50%", 50.0, RateUnit.PERCENT),
        (" 0.5 % ", 0.5, RateUnit.PERCENT),
        ("1e3pps", 1000.0, RateUnit.PPS),
    ],
)
def test_parse(text: str, value: float, unit: RateUnit) -> None:
    assert Rate.parse(text) == Rate(value, unit)


@pytest.mark.parametrize("text", ["", "fast", "10", "10 Gb", "-5pps", "5 ppm", "l3:1Gbps"])
def test_parse_rejects_garbage_with_examples(text: str) -> None:
    with pytest.raises(RateError, match=r"cannot parse rate .* write it like '1000pps'"):
        Rate.parse(text)


def test_parse_rejects_layer_on_non_bit_rates() -> None:
    with pytest.raises(RateError, match=r"layer prefix 'l2:' applies to bit rates only"):
        Rate.parse("l2:50%")


def test_parse_rejects_zero() -> None:
    with pytest.raises(RateError, match=r"positive"):
        Rate.parse("0pps")


def test_rate_text() -> None:
    assert str(Rate.parse("l2:9.5Gbps")) == "9.5 Gbit/s (L2)"
    assert str(Rate.parse("10kpps")) == "10000 pps"
    assert format_bitrate(100e9) == "100 Gbit/s"
    assert format_bitrate(25e6) == "25 Mbit/s"
    assert str(Rate.from_percent(50).resolve(64, 10 * GBIT)) == (
        "7440476 pps = 5 Gbit/s L1 = 3.80952 Gbit/s L2 = 50% of 10 Gbit/s at 64 B"
    )


@pytest.mark.parametrize(
    ("frame_size", "ipv4_total_length", "udp_payload"),
    [(64, 46, 18), (128, 110, 82), (1518, 1500, 1472), (9216, 9198, 9170)],
)
def test_describe_frame_size(frame_size: int, ipv4_total_length: int, udp_payload: int) -> None:
    assert describe_frame_size(frame_size) == FrameSizeBreakdown(
        frame_size, ipv4_total_length, udp_payload
    )


def test_describe_frame_size_text_and_errors() -> None:
    assert str(describe_frame_size(64)) == (
        "64 B Ethernet frame incl. FCS = IPv4 total length 46 B = UDP payload 18 B"
    )
    with pytest.raises(FrameSizeError, match=r"outside 64\.\.9216 B"):
        describe_frame_size(60)
    with pytest.raises(FrameSizeError, match=r"whole number of bytes"):
        describe_frame_size(64.5)  # type: ignore[arg-type]
