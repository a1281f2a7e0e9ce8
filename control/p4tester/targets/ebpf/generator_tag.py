"""The tag the sender puts into a template before writing it into the generator
interface (p4src/psa/platform.p4, generator_tag_h): after the MAC addresses,
EtherType IPv4, then signature, stream, where the tester header is, the port the
copies leave by and the template's own EtherType. Egress removes it."""

from __future__ import annotations

import struct

from p4tester.dataplane.constants import TESTER_SIGNATURE

GENERATOR_TAG_SIGNATURE = 0x5047
GENERATOR_TAG_BYTES = 8
_TAG = struct.Struct("!HHBBH")
_ETHERNET_BYTES = 14
_ETHERTYPE_IPV4 = 0x0800
# What the egress parser's chunks (64, 32, 16, 8, 4 bytes) carry between the tag and
# the tester header.
_MAX_HEADERS_AFTER_TAG = 124
# The tag's port byte; the program's per-port counters have cells below 256.
MAX_TAGGED_PORT = 255


class TemplateError(ValueError):
    """A template the eBPF generator cannot send."""


def tag_template(frame: bytes, stream_id: int, tester_offset: int, tx_port: int) -> bytes:
    """The template as the sender writes it into the generator interface.
    `tester_offset`: where its tester header starts (streams.template's
    offset_of_tester_header for a stream's encapsulation); `tx_port`: the topology
    number of the port the stream's copies leave by, which egress counts them on."""
    if not 1 <= tx_port <= MAX_TAGGED_PORT:
        raise TemplateError(f"tx port {tx_port}: the eBPF generator numbers ports "
                            f"1..{MAX_TAGGED_PORT}; renumber the topology's ports")
    if frame[tester_offset:tester_offset + 2] != TESTER_SIGNATURE.to_bytes(2, "big"):
        raise TemplateError(f"no tester header at byte {tester_offset} of the template")
    after_tag = tester_offset - _ETHERNET_BYTES
    if not 0 <= after_tag <= _MAX_HEADERS_AFTER_TAG or after_tag % 4:
        raise TemplateError(f"tester header at byte {tester_offset}: the eBPF generator "
                            f"carries up to {_MAX_HEADERS_AFTER_TAG} bytes of headers after "
                            "the Ethernet header, in 4-byte units")
    ether_type = int.from_bytes(frame[12:14], "big")
    tag = _TAG.pack(GENERATOR_TAG_SIGNATURE, stream_id, after_tag, tx_port, ether_type)
    return frame[:12] + _ETHERTYPE_IPV4.to_bytes(2, "big") + tag + frame[14:]
