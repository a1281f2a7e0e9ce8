"""Integers <-> P4Runtime bytestrings, and the address notations tests are written in.

P4Runtime spec section 8.4: a bytestring is big-endian; the canonical form drops the
leading zero bytes but keeps at least one byte, so 0 is b'\\x00'. Servers must accept
padded forms too and may answer with either, which is why decoding accepts any length.
"""

from __future__ import annotations

import ipaddress

from .errors import EncodingError

_MAC_OCTETS = 6
_MAC_BITS = 48


def encode_value(value: int, bitwidth: int, what: str) -> bytes:
    """Canonical bytestring of `value` for a field of `bitwidth` bits.

    `what` names the field in error messages, e.g. "match field 'hdr.x' of table 'T'".
    """
    # bool is an int subclass; True for a 48-bit MAC is always a mistake.
    if isinstance(value, bool) or not isinstance(value, int):
        raise EncodingError(f"{what} needs an int, got {type(value).__name__} {value!r}")
    if value < 0:
        raise EncodingError(f"value {value} of {what} is negative; P4Runtime values are unsigned")
    if value.bit_length() > bitwidth:
        raise EncodingError(f"value {value} does not fit in {bitwidth} bits of {what}")
    return value.to_bytes(max(1, (value.bit_length() + 7) // 8), "big")


def decode_value(data: bytes) -> int:
    """Integer value of a bytestring in any (canonical or padded) form."""
    return int.from_bytes(data, "big")


def mac_to_int(mac: str) -> int:
    """'aa:bb:cc:dd:ee:ff' (or with '-') as a 48-bit integer."""
    octets = mac.replace("-", ":").split(":")
    if len(octets) != _MAC_OCTETS or not all(_is_hex_octet(octet) for octet in octets):
        raise EncodingError(f"{mac!r} is not a MAC address like 'aa:bb:cc:dd:ee:ff'")
    return int("".join(octets), 16)


def int_to_mac(value: int) -> str:
    """A 48-bit integer in 'aa:bb:cc:dd:ee:ff' notation."""
    raw = encode_value(value, _MAC_BITS, "MAC address").rjust(_MAC_OCTETS, b"\x00")
    return ":".join(f"{octet:02x}" for octet in raw)


def ipv4_to_int(address: str) -> int:
    """'10.0.0.1' as a 32-bit integer."""
    try:
        return int(ipaddress.IPv4Address(address))
    except ipaddress.AddressValueError as exc:
        raise EncodingError(f"{address!r} is not an IPv4 address like '10.0.0.1'") from exc


def int_to_ipv4(value: int) -> str:
    """A 32-bit integer in dotted-quad notation."""
    encode_value(value, 32, "IPv4 address")  # same range checks and messages
    return str(ipaddress.IPv4Address(value))


def _is_hex_octet(text: str) -> bool:
    return len(text) == 2 and all(char in "0123456789abcdefABCDEF" for char in text)
