"""Captured frames get back the FCS the interface stripped: the Ethernet CRC-32."""

from __future__ import annotations

import struct

import pytest

from p4tester.otg.pcap import PcapError, fcs, with_fcs


def pcap(*frames: bytes, truncate_last: bool = False) -> bytes:
    out = [struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1)]
    for i, frame in enumerate(frames):
        out.append(struct.pack("<IIII", 100 + i, 5, len(frame), len(frame)))
        out.append(frame)
    data = b"".join(out)
    return data[:-3] if truncate_last else data


def test_fcs_of_a_known_frame() -> None:
    # The classic check value of CRC-32 (IEEE 802.3): "123456789" -> 0xCBF43926,
    # sent least significant byte first.
    assert fcs(b"123456789") == bytes([0x26, 0x39, 0xF4, 0xCB])


def test_frames_get_their_fcs() -> None:
    frames = (bytes(range(60)), bytes(124))
    out = with_fcs(pcap(*frames))
    assert struct.unpack("<I", out[16:20]) == (65539,)
    first = struct.unpack("<IIII", out[24:40])
    assert first == (100, 5, 64, 64)
    assert out[40:104] == frames[0] + fcs(frames[0])
    second = struct.unpack("<IIII", out[104:120])
    assert second == (101, 5, 128, 128)
    assert out[120:] == frames[1] + fcs(frames[1])


def test_unfinished_record_is_dropped() -> None:
    out = with_fcs(pcap(bytes(60), bytes(60), truncate_last=True))
    assert len(out) == 24 + 16 + 64


def test_not_pcap() -> None:
    with pytest.raises(PcapError, match="not a pcap file"):
        with_fcs(b"\x0a\x0d\x0d\x0a" + bytes(40))
