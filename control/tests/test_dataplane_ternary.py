"""Range to ternary prefixes (minimal cover), and the bin tables built from it."""

from __future__ import annotations

import pytest
from tofino_fake import FakeBfrt

from p4tester.dataplane.ternary import Ternary, range_to_prefixes
from p4tester.targets.tofino import bins

T = Ternary
LAT = "pipe.TesterIngress.checker.bins.latency_bins"


def ternary(value: object) -> Ternary:
    assert isinstance(value, Ternary)
    return value


@pytest.mark.parametrize(
    ("low", "high", "width", "expected"),
    [
        (0, 0, 8, [T(0, 0xFF)]),
        (0, 255, 8, [T(0, 0)]),  # the whole field: one wildcard
        (5, 5, 4, [T(5, 0xF)]),
        (8, 15, 4, [T(8, 0x8)]),
        (3, 10, 4, [T(3, 0xF), T(4, 0xC), T(8, 0xE), T(10, 0xF)]),
        # The worst case of a 4-bit field, 2w - 2 = 6 prefixes:
        (1, 14, 4, [T(1, 0xF), T(2, 0xE), T(4, 0xC), T(8, 0xC), T(12, 0xE), T(14, 0xF)]),
        (1000, 1999, 32, [T(0x3E8, 0xFFFFFFF8), T(0x3F0, 0xFFFFFFF0), T(0x400, 0xFFFFFE00),
                          T(0x600, 0xFFFFFF00), T(0x700, 0xFFFFFF80), T(0x780, 0xFFFFFFC0),
                          T(0x7C0, 0xFFFFFFF0)]),
    ],
)
def test_exact_prefixes(low: int, high: int, width: int, expected: list[Ternary]) -> None:
    assert list(range_to_prefixes(low, high, width)) == expected


@pytest.mark.parametrize("width", [1, 2, 3, 4, 5])
def test_every_range_is_covered_exactly_and_minimally(width: int) -> None:
    top = 1 << width
    for low in range(top):
        for high in range(low, top):
            prefixes = range_to_prefixes(low, high, width)
            covered = {k for k in range(top) if any(k & p.mask == p.value for p in prefixes)}
            assert covered == set(range(low, high + 1))
            assert all(p.value & ~p.mask == 0 for p in prefixes)
            assert len(prefixes) <= max(1, 2 * width - 2)
            # Minimal: no two prefixes merge into one (siblings differ only in the
            # highest non-masked bit).
            for a in prefixes:
                for b in prefixes:
                    if a != b and a.mask == b.mask:
                        sibling_bit = (~a.mask & (top - 1)) + 1
                        assert a.value ^ b.value != sibling_bit


@pytest.mark.parametrize(("low", "high", "width"), [(3, 2, 4), (-1, 2, 4), (0, 16, 4), (0, 0, 0)])
def test_bad_ranges(low: int, high: int, width: int) -> None:
    with pytest.raises(ValueError, match=r"range|width"):
        range_to_prefixes(low, high, width)


def test_latency_bins_in_ns_for_all_streams() -> None:
    fake = FakeBfrt()
    # Bins [0, 1) us and [1, 3) us -> [0, 999] ns and [1000, 2999] ns.
    written = bins.set_bins(fake, bins.LATENCY, bins.latency_edges_ns([0, 1, 3]))
    expected = [(0, p) for p in range_to_prefixes(0, 999, 32)]
    expected += [(1, p) for p in range_to_prefixes(1000, 2999, 32)]
    assert written == len(expected) == 6 + 9
    adds = fake.writes_to(LAT)
    assert [(w.data["bin"], w.key["latency"]) for w in adds] == expected
    assert {w.key["stream"] for w in adds} == {T(0, 0)}
    assert {w.key["$MATCH_PRIORITY"] for w in adds} == {2}
    assert {w.action for w in adds} == {"TesterIngress.checker.bins.set_latency_bin"}


def test_per_stream_bins_override_and_replace_only_their_own() -> None:
    fake = FakeBfrt()
    bins.set_bins(fake, bins.QDEPTH, [0, 4, 8])
    bins.set_bins(fake, bins.QDEPTH, [0, 2], stream_id=7)
    bins.set_bins(fake, bins.QDEPTH, [0, 1], stream_id=7)  # replaces stream 7's entries
    table = fake.entries("pipe.TesterIngress.checker.bins.qdepth_bins")
    keys = sorted((e.key["$MATCH_PRIORITY"], ternary(e.key["stream"]).mask,
                   ternary(e.key["qdepth"]).value, ternary(e.key["qdepth"]).mask) for e in table)
    assert keys == [(1, 0xFFFF, 0, 0xFFFF),
                    (2, 0, 0, 0xFFFC), (2, 0, 4, 0xFFFC)]


def test_bins_that_overflow_the_table_are_refused_before_writing() -> None:
    fake = FakeBfrt()
    edges = list(range(0, 32))  # 31 one-ns bins of a 32-bit value: 31 entries
    bins.set_bins(fake, bins.LATENCY, edges)
    odd = [1 + 2 * i for i in range(32)]  # each [odd, odd+1] costs 2 entries
    for stream in range(16):  # 31 + 16 x 62 = 1023 entries
        bins.set_bins(fake, bins.LATENCY, odd, stream_id=stream)
    before = len(fake.writes)
    with pytest.raises(ValueError, match=r"expand to 62 ternary entries; with the 1023 entries "
                                         r"of other streams that is more than the table's 1024"):
        bins.set_bins(fake, bins.LATENCY, odd, stream_id=16)
    assert len(fake.writes) == before


def test_latency_edges_beyond_32_bit_ns_are_refused() -> None:
    assert bins.latency_edges_ns([0, 4_294_967]) == (0, 4_294_967_000)
    with pytest.raises(ValueError, match=r"beyond the 32-bit nanosecond latency"):
        bins.latency_edges_ns([0, 4_294_968])
