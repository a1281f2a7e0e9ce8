"""Field patterns (p4src/v1model/field_steps.p4): addresses, DSCP, VLAN ids and
ports stepped, listed and drawn frame by frame. Each frame is compared with the
one scapy builds from the template with the fields the pattern predicts, every
checksum recomputed by scapy: so a field, a checksum or any other byte the switch
got wrong fails the test."""

from __future__ import annotations

import ipaddress

from scapy.layers.inet import IP, TCP, UDP
from scapy.layers.inet6 import IPv6
from scapy.layers.l2 import Dot1AD, Dot1Q, Ether
from scapy.packet import Packet

from p4tester.dataplane.headers import TesterHeader
from p4tester.dataplane.program import pacer_port
from p4tester.streams.addresses import StreamAddresses
from p4tester.streams.field_patterns import (
    Draws,
    FieldPattern,
    Listed,
    Steps,
    data_plane_entries,
    field_seed,
    frame_fields,
)
from p4tester.streams.frame_sizes import Encapsulation
from p4tester.streams.template import FrameSpec, build_template, offset_of_tester_header

from tester_base import PORT_A, TesterBaseTest

SEEDS = 2
# The stamped bytes of the tester header: seq, tx_ts (6..14) and dut_qdelay (16..18).
STAMPED = ((6, 14), (16, 18))


def _ip4(text: str) -> int:
    return int(ipaddress.IPv4Address(text))


def _ip6(text: str) -> int:
    return int(ipaddress.IPv6Address(text))


def expected_frame(template: bytes, sent: bytes, enc: Encapsulation,
                   fields: dict[str, int]) -> bytes:
    """The template with the pattern's fields and the switch's stamp (copied from the
    frame it sent), every length and checksum recomputed by scapy."""
    at = offset_of_tester_header(enc)
    frame = bytearray(template)
    for start, stop in STAMPED:
        frame[at + start:at + stop] = sent[at + start:at + stop]
    packet = Ether(bytes(frame))
    ip: Packet = packet[IPv6] if IPv6 in packet else packet[IP]
    l4: Packet = packet[TCP] if TCP in packet else packet[UDP]
    for name, value in fields.items():
        if name in ("src_ip", "dst_ip"):
            setattr(ip, name[:3], str(ipaddress.IPv4Address(value)))
        elif name in ("src_ip6", "dst_ip6"):
            setattr(ip, name[:3], str(ipaddress.IPv6Address(value)))
        elif name == "dscp":
            if IPv6 in packet:
                ip.tc = (value << 2) | (ip.tc & 3)
            else:
                ip.tos = (value << 2) | (ip.tos & 3)
        elif name == "vlan":
            packet[Dot1Q].vlan = value
        elif name == "outer_vlan":
            packet[Dot1AD].vlan = value
        elif name in ("src_port", "dst_port"):
            setattr(l4, "sport" if name == "src_port" else "dport", value)
        elif name in ("tcp_seq", "tcp_ack"):
            setattr(l4, "seq" if name == "tcp_seq" else "ack", value)
    if IP in packet:
        del packet[IP].chksum
    del l4.chksum
    return bytes(packet)


class FieldStepsTest(TesterBaseTest):
    def run_patterns(self, stream_id: int, enc: Encapsulation, addresses: StreamAddresses,
                     patterns: tuple[FieldPattern, ...], budget: int,
                     initial_seq: int = 0) -> None:
        """Send `budget` frames and compare each with scapy's."""
        self.tester.configure_stream(stream_id, PORT_A)
        self.set_queue_rate(pacer_port(stream_id), 400)
        self.tester.set_field_patterns(stream_id, data_plane_entries(patterns))
        self.tester.clear_stream(stream_id, initial_seq)
        self.tester.start_stream(stream_id, budget)
        template = build_template(FrameSpec(stream_id=stream_id, frame_size=128,
                                            addresses=addresses, encapsulation=enc,
                                            varies_ports=True))
        self.tester.seed_stream(stream_id, template, SEEDS)
        frames = self.receive_frames(PORT_A, budget, timeout_s=10.0)
        self.assert_no_more_frames(PORT_A)
        self.assertEqual(len(frames), budget)
        at = offset_of_tester_header(enc)
        for index, frame in enumerate(frames):
            seq = TesterHeader.unpack(frame[at:]).seq
            self.assertEqual(seq, initial_seq + index)
            fields = frame_fields(patterns, index, seq)
            self.assertEqual(frame.hex(), expected_frame(template, frame, enc, fields).hex(),
                             f"{enc.describe()} frame {index}: {fields}")


class StepsIpv4AddressesAndDscp(FieldStepsTest):
    """IPv4 over UDP and TCP: source addresses up, destination addresses down, DSCP
    from a list: the header checksum and the L4 checksum (pseudo header) hold."""

    def runTest(self) -> None:
        patterns = (Steps("src_ip", _ip4("10.0.0.254"), 1, 3),
                    Steps("dst_ip", _ip4("198.51.100.10"), -2, 2),
                    Listed("dscp", (0, 46, 10)))
        addresses = StreamAddresses(src_ip="10.0.0.254", dst_ip="198.51.100.10")
        for stream_id, enc in ((1, Encapsulation()), (2, Encapsulation(l4="tcp"))):
            self.run_patterns(stream_id, enc, addresses, patterns, budget=7)


class DrawsIpv6AddressesWithinPrefix(FieldStepsTest):
    """IPv6: source addresses drawn within a /112 (crc32 of seed and seq, as the
    controller recomputes it), destinations stepped in their low 64 bits across a
    32-bit boundary, with TCP and UDP checksums."""

    def runTest(self) -> None:
        patterns = (Draws("src_ip6", _ip6("2001:db8::a:0"), 1 << 16, field_seed(7, "src_ip6")),
                    Steps("dst_ip6", _ip6("2001:db8:1::ffff:fffe"), 1, 4))
        addresses = StreamAddresses(src_ip6="2001:db8::a:0", dst_ip6="2001:db8:1::ffff:fffe")
        for stream_id, enc in ((3, Encapsulation(ipv6=True)),
                               (4, Encapsulation(ipv6=True, l4="tcp"))):
            self.run_patterns(stream_id, enc, addresses, patterns, budget=9, initial_seq=1000)


class VlanIdsAndRandomPorts(FieldStepsTest):
    """QinQ: the customer VLAN id steps, the service one cycles a list; the L4
    source port is drawn and the destination port stepped (beyond 4096 flows: the
    pattern needs no table entry per flow)."""

    def runTest(self) -> None:
        patterns = (Steps("vlan", 100, 5, 3), Listed("outer_vlan", (10, 20)),
                    Draws("src_port", 1024, 64512, field_seed(3, "src_port")),
                    Steps("dst_port", 1, 1, 65535))
        enc = Encapsulation(vlan_id=100, outer_vlan_id=10)
        addresses = StreamAddresses(udp_src_port=1024, l4_dst_port=1)
        self.run_patterns(5, enc, addresses, patterns, budget=8)


class ManyFlowsWrapAndRestart(FieldStepsTest):
    """65 536 source addresses (a /16) combined with 3 DSCP values: the first frames
    step as predicted, a 2-value field wraps, and a new trial's CLEAR starts every
    offset again."""

    def runTest(self) -> None:
        patterns = (Steps("src_ip", _ip4("10.1.0.0"), 1, 65536), Listed("dscp", (8, 16, 24)),
                    Steps("dst_port", 5000, 1, 2))
        addresses = StreamAddresses(src_ip="10.1.0.0", udp_src_port=4000, l4_dst_port=5000)
        self.run_patterns(6, Encapsulation(), addresses, patterns, budget=20)
        self.run_patterns(6, Encapsulation(), addresses, patterns, budget=5)


class RedrawsRepeatEveryCountFrames(FieldStepsTest):
    """A draw with a repeat (OTG's random count) draws on the frame's index modulo
    the repeat: 3 destination addresses drawn in a /24, then the same 3 again."""

    def runTest(self) -> None:
        patterns = (Draws("dst_ip", _ip4("198.51.100.0"), 256, field_seed(11, "dst_ip"), 3),)
        addresses = StreamAddresses(dst_ip="198.51.100.0")
        self.run_patterns(7, Encapsulation(), addresses, patterns, budget=7, initial_seq=50)


class TcpSequenceNumbersStepAndWrap(FieldStepsTest):
    """A TCP stream with its own flags: the sequence number steps by 1000 across 2^32
    (TCP's wrap), the acknowledgment number cycles a list, the flags stay PSH+ACK, and
    the TCP checksum holds, over IPv4 and IPv6."""

    def runTest(self) -> None:
        patterns = (Steps("tcp_seq", 0xFFFF_F000, 1000, 1 << 32), Listed("tcp_ack", (1, 7)))
        addresses = StreamAddresses(tcp_flags="PA", tcp_seq=0xFFFF_F000, tcp_ack=1)
        for stream_id, enc in ((8, Encapsulation(l4="tcp")),
                               (9, Encapsulation(ipv6=True, l4="tcp"))):
            self.run_patterns(stream_id, enc, addresses, patterns, budget=7)
            # The wrap: frame 5 is past 2^32.
            self.assertEqual(patterns[0].value(5, 0), 0xFFFF_F000 + 5000 - (1 << 32))
