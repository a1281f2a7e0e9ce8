"""Frames of a pcap file with their Ethernet FCS put back.

A Linux interface hands captures the frame without its 4-byte FCS; OTG captures
(and frame sizes everywhere in the tester) count it. with_fcs appends the CRC-32
the frame carried on the wire (IEEE 802.3 clause 3.2.9: the CRC over destination
address to the end of the data, sent least significant byte first), so a captured
frame is frame_size bytes long as the flow's size says.
"""

from __future__ import annotations

import struct
import zlib
from typing import Final

from p4tester.streams.frame_sizes import FCS_BYTES

GLOBAL_HEADER_BYTES: Final = 24
RECORD_HEADER_BYTES: Final = 16
_MAGICS: Final = {b"\xd4\xc3\xb2\xa1": "<", b"\xa1\xb2\xc3\xd4": ">",
                  b"\x4d\x3c\xb2\xa1": "<", b"\xa1\xb2\x3c\x4d": ">"}
LINKTYPE_ETHERNET: Final = 1


class PcapError(ValueError):
    """Not a classic pcap file of Ethernet frames."""


def fcs(frame: bytes) -> bytes:
    return struct.pack("<I", zlib.crc32(frame) & 0xFFFFFFFF)


def with_fcs(data: bytes) -> bytes:
    if len(data) < GLOBAL_HEADER_BYTES or data[:4] not in _MAGICS:
        raise PcapError("not a pcap file")
    order = _MAGICS[data[:4]]
    (linktype,) = struct.unpack(order + "I", data[20:24])
    if linktype != LINKTYPE_ETHERNET:
        raise PcapError(f"link type {linktype}, not Ethernet")
    snaplen = struct.unpack(order + "I", data[16:20])[0]
    out = [data[:16], struct.pack(order + "I", snaplen + FCS_BYTES), data[20:24]]
    offset = GLOBAL_HEADER_BYTES
    while offset + RECORD_HEADER_BYTES <= len(data):
        seconds, fraction, captured, length = struct.unpack(
            order + "IIII", data[offset:offset + RECORD_HEADER_BYTES])
        start = offset + RECORD_HEADER_BYTES
        frame = data[start:start + captured]
        if len(frame) < captured:
            break  # a record the writer had not finished: not a frame
        offset = start + captured
        if captured == length:  # a whole frame: its FCS can be computed
            frame += fcs(frame)
            captured += FCS_BYTES
        out.append(struct.pack(order + "IIII", seconds, fraction, captured,
                               length + FCS_BYTES))
        out.append(frame)
    return b"".join(out)
