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


# A frame's source address and UDP destination port: IPv4 without options after an
# untagged Ethernet header.
SRC_IP_AT = 14 + 12
DST_PORT_AT = 14 + 20 + 2
MANY = 65536
BATCH = 512  # under a veth's backlog (net.core.netdev_max_backlog 1000): none dropped


def test_a_stream_of_65536_flows_sends_each_once_a_cycle(tester: EbpfTester,
                                                        pipeline: EbpfPipeline) -> None:
    """65 536 source addresses (a /16) with 4 destination ports: a cycle of 65 536
    frames, each a flow of its own, and then the first flow again. Sent in batches,
    each captured before the next: every frame in order, seq = its index, with frame
    i's fields; scapy's checksums equal the carried ones at the start, the wrap and
    the end."""
    patterns = (Steps("src_ip", _ip4("10.64.0.0"), 1, MANY), Steps("dst_port", 5000, 1, 4))
    stream = StreamConfig(id=0, tx_port=1, rx_port=2, vary=patterns)
    assert stream.flows_cycle == MANY
    template = build_template(FrameSpec(stream_id=0, frame_size=64, run=RUN, epoch=EPOCH,
                                        addresses=stream.addresses,
                                        encapsulation=stream.encapsulation))
    at = offset_of_tester_header(stream.encapsulation)
    cycle = flow_frames(stream, template)
    assert len(cycle) == MANY
    frames = MANY + 3
    start(tester, pipeline, 0, frames=frames, copies=1)
    received: list[bytes] = []
    capture = Capture("p4eb1b", buffer_bytes=16 << 20)
    try:
        for first in range(0, frames, BATCH):
            batch = range(first, min(first + BATCH, frames))
            send("p4ebgb", [tag_template(cycle[i % MANY], 0, at, tx_port=1) for i in batch])
            got = capture.frames(len(batch), timeout_s=5.0)
            assert len(got) == len(batch), f"frames {first}..: {len(got)} of {len(batch)}"
            received += got
    finally:
        capture.close()
    flows = set()
    for index, frame in enumerate(received):
        assert TesterHeader.unpack(frame[at:]).seq == index
        src_ip = int.from_bytes(frame[SRC_IP_AT:SRC_IP_AT + 4], "big")
        dst_port = int.from_bytes(frame[DST_PORT_AT:DST_PORT_AT + 2], "big")
        assert (src_ip, dst_port) == (_ip4("10.64.0.0") + index % MANY, 5000 + index % 4)
        if index < MANY:
            flows.add((src_ip, dst_port))
    assert len(flows) == MANY
    for index in (0, 1, MANY - 1, MANY, MANY + 2):
        assert checksums_hold(received[index]), index
