"""Flows at scale on the eBPF tester: the sender writes a varying stream's frames,
one flow per frame (targets.ebpf.flow_templates), and the program numbers and stamps
each. Every frame that leaves carries frame i's fields as the data plane's patterns
say (read back by scapy), and scapy's recomputed checksums equal the ones it carries."""

from __future__ import annotations

import ipaddress
from typing import Any

import pytest
from scapy.layers.inet import IP, TCP, UDP
from scapy.layers.inet6 import IPv6
from scapy.layers.l2 import Ether
from scapy.packet import Packet

from p4tester.config.profile import StreamConfig
from p4tester.dataplane.headers import TesterHeader
from p4tester.streams.addresses import StreamAddresses
from p4tester.streams.field_patterns import (
    Draws,
    FieldPattern,
    Listed,
    Steps,
    data_plane_value,
    field_seed,
    frame_fields,
)
from p4tester.streams.template import FrameSpec, build_template, offset_of_tester_header
from p4tester.targets.ebpf.flow_templates import flow_frames
from p4tester.targets.ebpf.generator_tag import tag_template
from p4tester.targets.ebpf.pipeline import EbpfPipeline
from p4tester.targets.ebpf.tester import EbpfTester

from .frames import Capture, send
from .test_generator import start

RUN = 5
EPOCH = 3


def _ip4(text: str) -> int:
    return int(ipaddress.IPv4Address(text))


def fields_of(frame: bytes) -> dict[str, int]:
    """The varied fields as scapy reads them (IPv6: the low 64 bits)."""
    packet = Ether(frame)
    ip: Packet = packet[IPv6] if IPv6 in packet else packet[IP]
    l4: Packet = packet[TCP] if TCP in packet else packet[UDP]
    found = {"src_port": int(l4.sport), "dst_port": int(l4.dport),
             "dscp": int(ip.tc if IPv6 in packet else ip.tos) >> 2}
    if IPv6 in packet:
        found["src_ip6"] = int(ipaddress.IPv6Address(ip.src)) & ((1 << 64) - 1)
        found["dst_ip6"] = int(ipaddress.IPv6Address(ip.dst)) & ((1 << 64) - 1)
    else:
        found["src_ip"], found["dst_ip"] = _ip4(ip.src), _ip4(ip.dst)
    if TCP in packet:
        found["tcp_seq"], found["tcp_ack"] = int(l4.seq), int(l4.ack)
    return found


def checksums_hold(frame: bytes) -> bool:
    packet = Ether(frame)
    layers = [layer for layer in (IP, TCP, UDP) if layer in packet]
    for layer in layers:
        del packet[layer].chksum
    rebuilt = Ether(bytes(packet))
    return all(rebuilt[layer].chksum == Ether(frame)[layer].chksum for layer in layers)


CASES = [
    ("ipv4-udp", {}, (Steps("src_ip", _ip4("10.0.255.254"), 1, 3),
                      Listed("dscp", (0, 46)),
                      Draws("dst_port", 1024, 1000, field_seed(3, "dst_port"), 5))),
    ("ipv6-tcp", {"ipv6": True, "l4": "tcp"},
     (Steps("dst_ip6", int(ipaddress.IPv6Address("2001:db8:1::fffe")), 1, 4),
      Steps("tcp_seq", 0xFFFF_FF80, 64, 4))),  # wraps past 2^32 at its third value
    # (VLAN ids: the frame patcher's unit test; a veth hands a raw socket its frames
    # with the tag taken out, so this capture could not see them.)
    ("mpls", {"mpls_labels": (16, 17)}, (Steps("src_ip", _ip4("10.9.0.0"), 1, 4),
                                         Steps("src_port", 7, 1, 2))),
]


@pytest.mark.parametrize(("name", "headers", "patterns"), CASES, ids=[c[0] for c in CASES])
def test_each_frame_carries_its_flow(tester: EbpfTester, pipeline: EbpfPipeline, name: str,
                                     headers: dict[str, Any],
                                     patterns: tuple[FieldPattern, ...]) -> None:
    stream = StreamConfig(id=0, tx_port=1, rx_port=2, vary=patterns,
                          addresses=StreamAddresses(tcp_flags="PA"), **headers)
    template = build_template(FrameSpec(stream_id=0, frame_size=128, run=RUN, epoch=EPOCH,
                                        addresses=stream.addresses,
                                        encapsulation=stream.encapsulation))
    at = offset_of_tester_header(stream.encapsulation)
    cycle = flow_frames(stream, template)
    frames = 9
    start(tester, pipeline, 0, frames=frames, copies=1)
    capture = Capture("p4eb1b")
    try:
        send("p4ebgb", [tag_template(cycle[i % len(cycle)], 0, at, tx_port=1)
                        for i in range(frames)])
        received = capture.frames(frames + 1, timeout_s=1.5)
    finally:
        capture.close()
    assert len(received) == frames
    for index, frame in enumerate(received):
        assert TesterHeader.unpack(frame[at:]).seq == index
        expected = {field: data_plane_value(field, value)
                    for field, value in frame_fields(patterns, index, index).items()}
        found = fields_of(frame)
        assert {field: found[field] for field in expected} == expected, (name, index)
        assert checksums_hold(frame), (name, index)
