"""Stream templates: exact sizes, header placement, valid checksums, and clear
errors for sizes that cannot hold the headers."""

from __future__ import annotations

import struct

import pytest
from scapy.layers.inet import IP, UDP
from scapy.layers.inet6 import IPv6
from scapy.layers.l2 import Dot1Q, Ether
from scapy.packet import NoPayload, Packet

from p4tester.dataplane.constants import TESTER_SIGNATURE, TESTER_UDP_DST_PORT
from p4tester.dataplane.headers import StreamRegisters, TesterHeader
from p4tester.streams.frame_sizes import Encapsulation, FrameSizeError
from p4tester.streams.template import FrameSpec, build_template, offset_of_tester_header


def _layers(frame: Packet) -> list[Packet]:
    layers = []
    layer: Packet = frame
    while not isinstance(layer, NoPayload):
        layers.append(layer)
        layer = layer.payload
    return layers


def _recomputed_checksum(data: bytes, layer_type: type[Packet]) -> int:
    """The layer's checksum as scapy computes it: parse, delete it, rebuild."""
    frame = Ether(data)
    del frame[layer_type].chksum
    return int(Ether(bytes(frame))[layer_type].chksum)


def _assert_checksum_valid(data: bytes, layer_type: type[Packet]) -> None:
    carried = Ether(data)[layer_type].chksum
    assert carried == _recomputed_checksum(data, layer_type)
    assert carried != 0  # 0 would mean "no checksum" (IPv4) or be invalid (IPv6)


@pytest.mark.parametrize("size", [64, 65, 128, 1518, 9216])
def test_ipv4_template_is_frame_size_minus_fcs(size: int) -> None:
    data = build_template(FrameSpec(stream_id=3, frame_size=size))
    assert len(data) == size - 4
    frame = Ether(data)
    assert [type(layer) for layer in _layers(frame)][:3] == [Ether, IP, UDP]
    assert frame[UDP].dport == TESTER_UDP_DST_PORT
    _assert_checksum_valid(data, UDP)
    _assert_checksum_valid(data, IP)
    assert frame[IP].len == size - 4 - 14
    assert frame[UDP].len == size - 4 - 14 - 20
    header = TesterHeader.unpack(data[offset_of_tester_header(Encapsulation()):])
    # A stream whose ports do not vary: seq and tx_ts 0, dut_qdelay = ~0.
    assert header == TesterHeader(stream_id=3, seq=0, tx_ts=0, dut_qdelay=0xFFFF)


@pytest.mark.parametrize("size", [84, 85, 128, 1518, 9216])
def test_ipv6_template_carries_a_valid_udp_checksum(size: int) -> None:
    encapsulation = Encapsulation(ipv6=True)
    data = build_template(FrameSpec(stream_id=4, frame_size=size, encapsulation=encapsulation))
    assert len(data) == size - 4
    frame = Ether(data)
    assert [type(layer) for layer in _layers(frame)][:3] == [Ether, IPv6, UDP]
    assert frame[IPv6].plen == size - 4 - 14 - 40
    _assert_checksum_valid(data, UDP)
    header = TesterHeader.unpack(data[offset_of_tester_header(encapsulation):])
    assert header == TesterHeader(stream_id=4, seq=0, tx_ts=0, dut_qdelay=0xFFFF)


def test_a_corrupted_template_fails_the_checksum_check() -> None:
    """The check above is not vacuous: one changed payload byte breaks the checksum."""
    data = bytearray(build_template(FrameSpec(stream_id=3, frame_size=128)))
    data[-1] ^= 0x01
    assert Ether(bytes(data))[UDP].chksum != _recomputed_checksum(bytes(data), UDP)


@pytest.mark.parametrize(
    ("encapsulation", "minimum"),
    [
        (Encapsulation(), 64),
        (Encapsulation(vlan_id=10), 68),
        (Encapsulation(ipv6=True), 84),
        (Encapsulation(ipv6=True, vlan_id=10), 88),
    ],
)
def test_minimum_frame_size_per_encapsulation(encapsulation: Encapsulation, minimum: int) -> None:
    assert encapsulation.min_frame_size == minimum
    data = build_template(FrameSpec(stream_id=1, frame_size=minimum, encapsulation=encapsulation))
    assert len(data) == minimum - 4
    header = TesterHeader.unpack(data[offset_of_tester_header(encapsulation):])
    assert header.signature == TESTER_SIGNATURE
    with pytest.raises(FrameSizeError, match=rf"outside {minimum}\.\.9216 B"):
        build_template(FrameSpec(stream_id=1, frame_size=minimum - 1, encapsulation=encapsulation))


def test_ipv6_vlan_template_layers() -> None:
    data = build_template(
        FrameSpec(stream_id=2, frame_size=200, encapsulation=Encapsulation(ipv6=True, vlan_id=7))
    )
    frame = Ether(data)
    assert frame[Dot1Q].vlan == 7
    assert frame[IPv6].plen == 200 - 4 - 14 - 4 - 40
    _assert_checksum_valid(data, UDP)
    header = TesterHeader.unpack(data[offset_of_tester_header(Encapsulation(ipv6=True,
                                                                            vlan_id=7)):])
    assert header == TesterHeader(stream_id=2, dut_qdelay=0xFFFF)


def test_too_large_frame_is_refused_with_the_range() -> None:
    with pytest.raises(FrameSizeError, match=r"frame size 9217 B is outside 64\.\.9216 B"):
        build_template(FrameSpec(stream_id=0, frame_size=9217))


def test_tester_header_round_trip_and_layout() -> None:
    header = TesterHeader(stream_id=0x0102, seq=0x03040506, tx_ts=0x0708090A, flags=1,
                          dut_qdepth=0x0B0C, dut_qdelay=0x0D0E, run=0xA5)
    packed = header.pack()
    assert packed == bytes.fromhex("5034 a5 01 0102 03040506 0708090a 0b0c 0d0e".replace(" ", ""))
    assert TesterHeader.unpack(packed) == header


def test_short_tester_header_is_an_error() -> None:
    with pytest.raises(ValueError, match="needs 18 bytes, got 17"):
        TesterHeader.unpack(bytes(17))


def test_stream_registers_unpack() -> None:
    values = (5, 10, 9, 10, 2, 100, 900, 4000, 800, 300, 12, 12, 77)
    data = struct.pack("!HIIQQIIQQIIII", *values)
    assert StreamRegisters.unpack(data) == StreamRegisters(*values)
    with pytest.raises(ValueError, match="needs 66 bytes"):
        StreamRegisters.unpack(data[:-1])
