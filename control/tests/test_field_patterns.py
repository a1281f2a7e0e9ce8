"""Field patterns: the values frame i carries for steps, lists and draws (first,
last, wrapping; draws within a prefix, seeded), what the data plane's tables get,
and the limits, each refused with its reason."""

from __future__ import annotations

import ipaddress

import pytest

from p4tester.dataplane.field_entries import CycleEntry, DrawEntry, StepEntry
from p4tester.streams.field_patterns import (
    MAX_LISTED,
    PATTERN_FIELDS,
    Draws,
    Listed,
    Steps,
    check_listed_total,
    data_plane_entries,
    draw,
    drawn_on_seq,
    field_seed,
    flows_cycle,
    frame_fields,
)
from p4tester.streams.variation import VariationError


def ip4(text: str) -> int:
    return int(ipaddress.IPv4Address(text))


def ip6(text: str) -> int:
    return int(ipaddress.IPv6Address(text))


def test_fields_in_data_plane_order() -> None:
    assert PATTERN_FIELDS == ("src_port", "dst_port", "src_ip", "dst_ip", "src_ip6",
                              "dst_ip6", "dscp", "vlan", "outer_vlan", "tcp_seq", "tcp_ack")
    assert MAX_LISTED == 4096


def test_steps_first_last_and_wrap() -> None:
    up = Steps("src_ip", ip4("10.0.255.254"), 1, 4)
    assert [str(ipaddress.IPv4Address(up.value(i, 0))) for i in range(6)] == [
        "10.0.255.254", "10.0.255.255", "10.1.0.0", "10.1.0.1", "10.0.255.254", "10.0.255.255"]
    down = Steps("dst_port", 6000, -2, 3)
    assert [down.value(i, 0) for i in range(4)] == [6000, 5998, 5996, 6000]


def test_65536_flows_of_one_field() -> None:
    every = Steps("src_ip", ip4("10.1.0.0"), 1, 65536)
    assert every.value(65535, 0) == ip4("10.1.255.255")
    assert every.value(65536, 0) == ip4("10.1.0.0")
    assert flows_cycle((every,)) == 65536
    assert data_plane_entries((every,)) == (StepEntry("src_ip", ip4("10.1.0.0"), 1, 65535),)


def test_fields_of_different_counts_repeat_at_their_lcm() -> None:
    patterns = (Steps("src_ip", ip4("10.0.0.1"), 1, 4), Listed("dscp", (0, 46, 10)),
                Steps("vlan", 100, 10, 2))
    assert flows_cycle(patterns) == 12
    assert frame_fields(patterns, 5, 0) == {"src_ip": ip4("10.0.0.2"), "dscp": 10, "vlan": 110}
    assert frame_fields(patterns, 12, 0) == frame_fields(patterns, 0, 0)
    assert len({tuple(frame_fields(patterns, i, 0).values()) for i in range(24)}) == 12


def test_draws_within_a_prefix_from_seed_and_seq() -> None:
    seed = field_seed(7, "src_ip")
    assert seed == 2193623690
    assert [draw(seed, seq) for seq in range(3)] == [3807136016, 2515237254, 216148028]
    drawn = Draws("src_ip", ip4("10.1.0.0"), 65536, seed)
    assert [str(ipaddress.IPv4Address(drawn.value(0, seq))) for seq in range(4)] == [
        "10.1.73.16", "10.1.121.134", "10.1.40.60", "10.1.24.170"]
    # The frame's index does not matter, only its sequence number.
    assert drawn.value(9, 2) == drawn.value(0, 2)
    values = {drawn.value(0, seq) for seq in range(5000)}
    assert min(values) >= ip4("10.1.0.0") and max(values) <= ip4("10.1.255.255")
    assert drawn_on_seq((drawn,))
    assert flows_cycle((drawn, Steps("dscp", 0, 1, 3))) == 3


def test_draws_with_a_repeat_come_again_every_repeat_frames() -> None:
    seed = field_seed(7, "src_ip")
    again = Draws("src_ip", ip4("10.1.0.0"), 65536, seed, repeat=3)
    # Drawn on the frame's index modulo 3, not on its sequence number.
    assert [again.value(i, 1000 + i) for i in range(6)] == [
        ip4("10.1.73.16"), ip4("10.1.121.134"), ip4("10.1.40.60")] * 2
    assert flows_cycle((again, Steps("dscp", 0, 1, 2))) == 6
    assert not drawn_on_seq((again,))
    assert data_plane_entries((again,)) == (DrawEntry("src_ip", ip4("10.1.0.0"), 65536, seed,
                                                      3),)


def test_fields_draw_independently() -> None:
    assert field_seed(7, "src_ip") != field_seed(7, "dst_ip")
    assert field_seed(7, "src_ip") != field_seed(8, "src_ip")


def test_data_plane_entries() -> None:
    patterns = (Steps("dst_ip", ip4("198.51.100.10"), -2, 3),
                Steps("dst_ip6", ip6("2001:db8:1::ffff:fffe"), 1, 4),
                Draws("src_ip6", ip6("2001:db8::a:0"), 1 << 16, 5),
                Listed("dscp", (0, 46)))
    assert data_plane_entries(patterns) == (
        # A decrement is the two's complement step, its span likewise.
        StepEntry("dst_ip", ip4("198.51.100.10"), 0xFFFF_FFFE, 0xFFFF_FFFC),
        # IPv6: the low 64 bits.
        StepEntry("dst_ip6", 0xFFFF_FFFE, 1, 3),
        DrawEntry("src_ip6", 0xA_0000, 1 << 16, 5),
        CycleEntry("dscp", (0, 46)))


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda: Steps("src_ip", ip4("255.255.255.254"), 1, 3),
         r"^vary: src_ip: start 255\.255\.255\.254, step 1, count 3 reaches 4294967296, "
         r"outside 0\.0\.0\.0\.\.255\.255\.255\.255$"),
        (lambda: Steps("dscp", 60, 1, 5),
         r"^vary: dscp: start 60, step 1, count 5 reaches 64, outside 0\.\.63$"),
        (lambda: Steps("vlan", 1, 1, 0), r"^vary: vlan: count 0 must be at least 1$"),
        (lambda: Steps("dst_ip6", ip6("2001:db8::ffff:ffff:ffff:ffff"), 1, 2),
         r"^vary: dst_ip6: 2001:db8::ffff:ffff:ffff:ffff \.\. 2001:db8:0:1:: span more than "
         r"one /64; the tester varies the low 64 bits of an IPv6 address$"),
        (lambda: Listed("dscp", ()), r"^vary: dscp: give at least one value$"),
        (lambda: Listed("vlan", (1, 4096)), r"^vary: vlan: 4096 is outside 0\.\.4095$"),
        (lambda: Listed("src_ip", tuple(range(4097))),
         r"^vary: src_ip: 4097 values, more than the data plane's 4096; give "
         r"\{start, step, count\} or random for more$"),
        (lambda: Draws("src_ip6", ip6("2001:db8::"), (1 << 32) + 1, 1),
         r"^vary: src_ip6: random over 4294967297 values; the tester draws from 1 to "
         r"4294967296"),
        (lambda: Draws("src_port", 65000, 1000, 1),
         r"^vary: src_port: 65999 is outside 0\.\.65535$"),
        (lambda: Steps("ttl", 1, 1, 2),
         r"^vary: field 'ttl' has no pattern; these do: src_port, dst_port, src_ip, dst_ip, "
         r"src_ip6, dst_ip6, dscp, vlan, outer_vlan, tcp_seq, tcp_ack$"),
    ],
)
def test_refused_with_the_reason(make: object, message: str) -> None:
    with pytest.raises(VariationError, match=message):
        make()  # type: ignore[operator]


def test_lists_share_each_fields_table() -> None:
    half = Listed("src_ip", tuple(range(1, 2049)))
    check_listed_total([(half,), (half,)])
    with pytest.raises(VariationError, match=r"^vary: the streams list 4097 values of src_ip, "
                                             r"more than the data plane's 4096"):
        check_listed_total([(half,), (half, Listed("dscp", (1,))), (Listed("src_ip", (9,)),)])
