"""Canonical P4Runtime bytestrings and address notations."""

from __future__ import annotations

import re

import pytest

from p4tester.p4rt import (
    EncodingError,
    decode_value,
    encode_value,
    int_to_ipv4,
    int_to_mac,
    ipv4_to_int,
    mac_to_int,
)


@pytest.mark.parametrize(
    ("value", "bitwidth", "expected"),
    [
        (0, 8, b"\x00"),  # zero keeps one byte
        (0, 48, b"\x00"),
        (1, 9, b"\x01"),
        (255, 8, b"\xff"),
        (256, 9, b"\x01\x00"),
        (0x1FF, 9, b"\x01\xff"),
        (0x0A000001, 32, b"\x0a\x00\x00\x01"),
        (0x00000001, 32, b"\x01"),  # shortest: no leading zero bytes
        (0xAABBCCDDEEFF, 48, b"\xaa\xbb\xcc\xdd\xee\xff"),
    ],
)
def test_encode_is_canonical(value: int, bitwidth: int, expected: bytes) -> None:
    assert encode_value(value, bitwidth, "field 'f'") == expected


def test_value_too_wide_names_the_field() -> None:
    with pytest.raises(EncodingError) as info:
        encode_value(300, 8, "match field 'hdr.x' of table 'T'")
    assert str(info.value) == "value 300 does not fit in 8 bits of match field 'hdr.x' of table 'T'"


def test_negative_and_non_int_values_are_rejected() -> None:
    with pytest.raises(EncodingError, match="value -1 of parameter 'p' is negative"):
        encode_value(-1, 8, "parameter 'p'")
    with pytest.raises(EncodingError, match="parameter 'p' needs an int, got bool"):
        encode_value(True, 8, "parameter 'p'")
    with pytest.raises(EncodingError, match="needs an int, got str"):
        encode_value("10.0.0.1", 32, "parameter 'p'")  # type: ignore[arg-type]


@pytest.mark.parametrize("data", [b"\x05", b"\x00\x05", b"\x00\x00\x00\x05"])
def test_decode_accepts_padded_forms(data: bytes) -> None:
    assert decode_value(data) == 5


@pytest.mark.parametrize("value", [0, 1, 0x7F, 0x80, 0xFFFF, 2**47 + 3])
def test_round_trip(value: int) -> None:
    assert decode_value(encode_value(value, 48, "f")) == value


def test_mac_conversions() -> None:
    assert mac_to_int("aa:bb:cc:dd:ee:ff") == 0xAABBCCDDEEFF
    assert mac_to_int("00-00-00-00-00-01") == 1
    assert int_to_mac(0x0000000A0B0C) == "00:00:00:0a:0b:0c"
    with pytest.raises(EncodingError, match="'aa:bb:cc' is not a MAC address"):
        mac_to_int("aa:bb:cc")
    with pytest.raises(EncodingError, match="is not a MAC address"):
        mac_to_int("gg:bb:cc:dd:ee:ff")


def test_ipv4_conversions() -> None:
    assert ipv4_to_int("10.0.0.1") == 0x0A000001
    assert int_to_ipv4(0xC0A80101) == "192.168.1.1"
    with pytest.raises(EncodingError, match=re.escape("'10.0.0.256' is not an IPv4 address")):
        ipv4_to_int("10.0.0.256")
    with pytest.raises(EncodingError, match="does not fit in 32 bits"):
        int_to_ipv4(2**32)
