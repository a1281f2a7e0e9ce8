"""Per-field variation: stepped values, the (source, destination) port pairs and the
fields (ports, VNI, MACs) one cycle of a varying stream carries, and the limits of
the data plane's table."""

from __future__ import annotations

import pytest

from p4tester.dataplane.varied_fields import VariedFields
from p4tester.streams.variation import (
    MAX_VARY_ENTRIES,
    VARIABLE_FIELDS,
    FieldVariation,
    VariationError,
    field_cycle,
    mac_number,
    mac_text,
    port_pairs,
    stepped,
)


def test_variable_fields_and_table_size() -> None:
    assert VARIABLE_FIELDS == ("src_port", "dst_port", "vni", "src_mac", "dst_mac")
    assert MAX_VARY_ENTRIES == 4096


@pytest.mark.parametrize(
    ("start", "step", "count", "values"),
    [
        (5000, 2, 5, (5000, 5002, 5004, 5006, 5008)),
        (6000, -2, 4, (6000, 5998, 5996, 5994)),
        (7, 1, 1, (7,)),
        (0, 0, 3, (0, 0, 0)),
        (65533, 1, 3, (65533, 65534, 65535)),
        (2, -1, 3, (2, 1, 0)),
        (100, 1000, 3, (100, 1100, 2100)),
    ],
)
def test_stepped_values(start: int, step: int, count: int, values: tuple[int, ...]) -> None:
    assert stepped(start, step, count) == values


@pytest.mark.parametrize(
    ("start", "step", "count", "message"),
    [
        (65534, 1, 3, r"^vary: start 65534, step 1, count 3 reaches 65536, outside 0\.\.65535$"),
        (1, -1, 3, r"^vary: start 1, step -1, count 3 reaches -1, outside 0\.\.65535$"),
        (70000, 1, 1, r"^vary: start 70000, step 1, count 1 reaches 70000, outside 0\.\.65535$"),
        (5000, 1, 0, r"^vary: count 0 must be at least 1$"),
        (5000, 1, -3, r"^vary: count -3 must be at least 1$"),
    ],
)
def test_stepped_out_of_range(start: int, step: int, count: int, message: str) -> None:
    with pytest.raises(VariationError, match=message):
        stepped(start, step, count)


def test_nothing_varies_no_pairs() -> None:
    assert port_pairs((), 0xC020, 0x5054) == ()


def test_source_ports_vary_destination_keeps_its_port() -> None:
    variation = FieldVariation("src_port", (5000, 5001, 5002))
    assert port_pairs((variation,), 0xC020, 0x5054) == (
        (5000, 0x5054), (5001, 0x5054), (5002, 0x5054))


def test_destination_ports_vary_source_keeps_its_port() -> None:
    variation = FieldVariation("dst_port", stepped(6000, -2, 4))
    assert port_pairs((variation,), 0xC020, 0x5054) == (
        (0xC020, 6000), (0xC020, 5998), (0xC020, 5996), (0xC020, 5994))


def test_two_and_three_values_take_lcm_six_pairs() -> None:
    variations = (FieldVariation("src_port", (1000, 1001)),
                  FieldVariation("dst_port", (2000, 2001, 2002)))
    assert port_pairs(variations, 0xC020, 0x5054) == (
        (1000, 2000),
        (1001, 2001),
        (1000, 2002),
        (1001, 2000),
        (1000, 2001),
        (1001, 2002),
    )


def test_the_order_of_the_fields_does_not_matter() -> None:
    forward = (FieldVariation("src_port", (1, 2)), FieldVariation("dst_port", (3, 4, 5, 6)))
    assert port_pairs(forward, 9, 9) == port_pairs(tuple(reversed(forward)), 9, 9) == (
        (1, 3), (2, 4), (1, 5), (2, 6))


def test_one_count_dividing_the_other_takes_the_larger() -> None:
    variations = (FieldVariation("src_port", stepped(10, 1, 4)),
                  FieldVariation("dst_port", stepped(20, 1, 2)))
    assert port_pairs(variations, 0, 0) == ((10, 20), (11, 21), (12, 20), (13, 21))


def test_cycle_of_exactly_the_table_size_is_allowed() -> None:
    variations = (FieldVariation("src_port", stepped(1, 1, 4096)),
                  FieldVariation("dst_port", stepped(1, 1, 64)))
    pairs = port_pairs(variations, 0, 0)
    assert len(pairs) == 4096
    assert pairs[0] == (1, 1)
    assert pairs[4095] == (4096, 64)


def test_cycle_above_4096_is_refused() -> None:
    variations = (FieldVariation("src_port", stepped(1, 1, 64)),
                  FieldVariation("dst_port", stepped(1, 1, 65)))
    with pytest.raises(VariationError) as error:
        port_pairs(variations, 0, 0)
    assert str(error.value) == (
        "vary: 64 source x 65 destination ports repeat every 4160 frames, more than the "
        "data plane's 4096 entries; choose counts where one divides the other")


def test_a_single_field_with_4097_values_is_refused() -> None:
    variation = FieldVariation("dst_port", stepped(1, 1, 4097))
    with pytest.raises(VariationError, match=r"^vary: 1 source x 4097 destination ports "
                                             r"repeat every 4097 frames"):
        port_pairs((variation,), 0, 0)


def test_a_field_listed_twice_is_refused() -> None:
    variations = (FieldVariation("src_port", (1,)), FieldVariation("src_port", (2,)))
    with pytest.raises(VariationError, match=r"^vary: a field is listed twice$"):
        port_pairs(variations, 0, 0)


@pytest.mark.parametrize(
    ("field", "values", "message"),
    [
        ("ttl", (1, 2),
         r"^vary: field 'ttl' cannot vary; the tester varies src_port, dst_port, vni, "
         r"src_mac, dst_mac$"),
        ("src_port", (), r"^vary: src_port: give at least one value$"),
        ("dst_port", (5, 65536), r"^vary: dst_port: 65536 is not a port \(0\.\.65535\)$"),
        ("src_port", (-1,), r"^vary: src_port: -1 is not a port \(0\.\.65535\)$"),
    ],
)
def test_invalid_field_variations(field: str, values: tuple[int, ...], message: str) -> None:
    with pytest.raises(VariationError, match=message):
        FieldVariation(field, values)


def test_macs_as_numbers_and_text() -> None:
    assert mac_number("02:89:01:00:00:FF") == 0x02_89_01_00_00_FF
    assert mac_text(0x02_89_01_00_00_FF) == "02:89:01:00:00:ff"
    assert mac_text(1) == "00:00:00:00:00:01"
    with pytest.raises(VariationError, match=r"^vary: '02:89:01' is not a MAC address"):
        mac_number("02:89:01")


def test_source_macs_vary_other_fields_keep_the_template() -> None:
    sources = FieldVariation("src_mac", stepped(0x02_89_01_00_00_00, 1, 3,
                                                limit=0xFFFF_FFFF_FFFF))
    cycle = field_cycle((sources,), 5000, 7777, 0, 0x02_00_00_00_00_01, 0x02_00_00_00_00_02)
    assert cycle == (
        VariedFields(5000, 7777, 0, 0x02_89_01_00_00_00, 0x02_00_00_00_00_02),
        VariedFields(5000, 7777, 0, 0x02_89_01_00_00_01, 0x02_00_00_00_00_02),
        VariedFields(5000, 7777, 0, 0x02_89_01_00_00_02, 0x02_00_00_00_00_02))


def test_macs_and_ports_cycle_together() -> None:
    variations = (FieldVariation("dst_mac", (0xA, 0xB)), FieldVariation("src_port", (1, 2, 3)))
    cycle = field_cycle(variations, 0, 9, 0, 0x1, 0x2)
    assert [(entry.src_port, entry.dst_mac) for entry in cycle] == [
        (1, 0xA), (2, 0xB), (3, 0xA), (1, 0xB), (2, 0xA), (3, 0xB)]


def test_a_mac_cycle_names_its_fields_when_too_long() -> None:
    variations = (FieldVariation("src_mac", tuple(range(64))),
                  FieldVariation("dst_mac", tuple(range(65))))
    with pytest.raises(VariationError) as error:
        field_cycle(variations, 0, 0, 0, 0, 0)
    assert str(error.value) == (
        "vary: 64 source MACs x 65 destination MACs repeat every 4160 frames, more than the "
        "data plane's 4096 entries; choose counts where one divides the others")


def test_a_mac_beyond_48_bits_is_refused() -> None:
    with pytest.raises(VariationError, match=r"^vary: dst_mac: 281474976710656 is not a MAC "):
        FieldVariation("dst_mac", (1 << 48,))
