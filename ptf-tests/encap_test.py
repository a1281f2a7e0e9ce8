"""Encapsulations, TCP, any ports: the generator stamps the tester header where
it sits behind each encapsulation and changes nothing else but the checksum-neutral
dut_qdelay; the checker finds the header there; varying streams cycle their L4
ports, VNIs and MACs."""

from __future__ import annotations

from dataclasses import replace

import ptf.testutils as tu
from scapy.layers.inet import IP, TCP, UDP
from scapy.layers.inet6 import IPv6
from scapy.layers.l2 import Ether
from scapy.layers.vxlan import VXLAN

from p4tester.dataplane import names
from p4tester.dataplane.constants import RX_KIND_COUNT, RX_KIND_FOREIGN, RX_KIND_STREAM
from p4tester.dataplane.cut_bytes import cut_bytes
from p4tester.dataplane.headers import TesterHeader
from p4tester.dataplane.program import pacer_port
from p4tester.dataplane.varied_fields import VariedFields
from p4tester.streams.addresses import DEFAULT_DST_MAC, DEFAULT_SRC_MAC, StreamAddresses
from p4tester.streams.frame_sizes import Encapsulation
from p4tester.streams.template import (
    FrameSpec,
    build_template,
    offset_of_tester_header,
    stamp_compensation,
)
from p4tester.streams.tunnels import GtpU, Srv6, Vxlan
from p4tester.streams.variation import (
    FieldVariation,
    field_cycle,
    mac_number,
    mac_text,
    stepped,
)

from checker_base import CheckerTest
from tester_base import PORT_A, PORT_B, TesterBaseTest

ENCAPSULATIONS = (
    Encapsulation(),
    Encapsulation(l4="tcp"),
    Encapsulation(ipv6=True, l4="tcp"),
    Encapsulation(vlan_id=10, outer_vlan_id=100),
    Encapsulation(mpls_labels=(16, 17, 18, 19)),
    Encapsulation(vlan_id=20, mpls_labels=(300,), ipv6=True),
    Encapsulation(tunnel=Vxlan(42, "10.0.0.1", "10.0.0.2")),
    Encapsulation(ipv6=True, tunnel=Vxlan(43, "2001:db8:f::1", "2001:db8:f::2")),
    Encapsulation(tunnel=GtpU(0x1234, "10.0.0.1", "10.0.0.2")),
    Encapsulation(ipv6=True, l4="tcp", tunnel=GtpU(0x99, "10.0.0.1", "10.0.0.2", qfi=9)),
    Encapsulation(tunnel=Srv6("2001:db8::a", ("2001:db8::b",))),
    Encapsulation(ipv6=True, tunnel=Srv6("2001:db8::a", ("2001:db8::b", "2001:db8::c",
                                                           "2001:db8::d", "2001:db8::e"))),
)
SEEDS = 2
TESTER_SEQ = slice(6, 10)
TESTER_TX_TS = slice(10, 14)
TESTER_QDELAY = slice(16, 18)


def size_for(enc: Encapsulation) -> int:
    return max(128, enc.min_frame_size)


def l4_ports(frame: bytes, enc: Encapsulation) -> tuple[int, int]:
    """The ports of the L4 header right before the tester header."""
    l4_start = offset_of_tester_header(enc) - (20 if enc.l4 == "tcp" else 8)
    return (int.from_bytes(frame[l4_start:l4_start + 2], "big"),
            int.from_bytes(frame[l4_start + 2:l4_start + 4], "big"))


class EncapGeneratorTest(TesterBaseTest):
    def run_encap(self, stream_id: int, spec: FrameSpec, budget: int,
                  cycle: tuple[VariedFields, ...] = ()) -> tuple[bytes, list[bytes]]:
        self.tester.configure_stream(stream_id, PORT_A)
        self.set_queue_rate(pacer_port(stream_id), 400)
        self.tester.set_variation(stream_id, cycle)
        self.tester.clear_stream(stream_id)
        self.tester.start_stream(stream_id, budget)
        template = build_template(spec)
        self.tester.seed_stream(stream_id, template, SEEDS)
        frames = self.receive_frames(PORT_A, budget, timeout_s=5.0)
        self.assert_no_more_frames(PORT_A)
        self.assertEqual(len(frames), budget)
        return template, frames


class StampsBehindEveryEncapsulation(EncapGeneratorTest):
    """Seq and TX timestamp land in the tester header behind each encapsulation,
    dut_qdelay is ~(seq + tx_ts) so the template's checksums hold, and every
    other byte is the template's."""

    def runTest(self) -> None:
        for stream_id, enc in enumerate(ENCAPSULATIONS):
            spec = FrameSpec(stream_id=stream_id, frame_size=size_for(enc), encapsulation=enc)
            template, frames = self.run_encap(stream_id, spec, budget=3)
            at = offset_of_tester_header(enc)
            for seq, frame in enumerate(frames):
                where = f"{enc.describe()} frame {seq}"
                self.assertEqual(len(frame), len(template), where)
                header = TesterHeader.unpack(frame[at:])
                self.assertEqual((header.stream_id, header.seq), (stream_id, seq), where)
                self.assertEqual(header.dut_qdelay,
                                 stamp_compensation(header.seq, header.tx_ts, 0, 0,
                                                    widths=(32, 32, 16, 16)), where)
                self.assertEqual(frame[:at + TESTER_SEQ.start], template[:at + TESTER_SEQ.start],
                                 where)
                self.assertEqual(frame[at + TESTER_QDELAY.stop:],
                                 template[at + TESTER_QDELAY.stop:], where)
                self.assertEqual(frame[at + TESTER_TX_TS.stop:at + TESTER_QDELAY.start],
                                 template[at + TESTER_TX_TS.stop:at + TESTER_QDELAY.start], where)


class VariesPortsFrameByFrame(EncapGeneratorTest):
    """Frame i carries entry i mod len: 2 source x 3 destination ports cycle in 6;
    a VxLAN stream's VNI cycles too, its outer UDP checksum updated for it (over
    IPv6, where it may not be zero), the inner one kept by the stamp."""

    def runTest(self) -> None:
        varied = (FieldVariation("src_port", stepped(5000, 2, 2)),
                  FieldVariation("dst_port", stepped(6000, -2, 3)))
        with_vni = (*varied, FieldVariation("vni", (1000, 1001, 1002, 1003, 1004, 1005)))
        for stream_id, enc, variations in (
                (1, Encapsulation(), varied),
                (2, Encapsulation(ipv6=True, l4="tcp"), varied),
                (3, Encapsulation(tunnel=Vxlan(7, "10.0.0.1", "10.0.0.2")), varied),
                (4, Encapsulation(l4="tcp", tunnel=Vxlan(7, "2001:db8:f::1", "2001:db8:f::2",
                                                         udp_src_port=4789)), with_vni)):
            vni = enc.tunnel.vni if isinstance(enc.tunnel, Vxlan) else 0
            cycle = field_cycle(variations, 0, 0, vni, mac_number(DEFAULT_SRC_MAC),
                                mac_number(DEFAULT_DST_MAC))
            self.assertEqual([(s, d) for s, d, *_ in cycle],
                             [(5000, 6000), (5002, 5998), (5000, 5996),
                              (5002, 6000), (5000, 5998), (5002, 5996)])
            first_src, first_dst, first_vni, _, _ = cycle[0]
            if isinstance(enc.tunnel, Vxlan):
                enc = replace(enc, tunnel=replace(enc.tunnel, vni=first_vni))
            addresses = StreamAddresses(udp_src_port=first_src, l4_dst_port=first_dst)
            spec = FrameSpec(stream_id=stream_id, frame_size=size_for(enc), encapsulation=enc,
                             addresses=addresses, varies_ports=True)
            _template, frames = self.run_encap(stream_id, spec, budget=8, cycle=cycle)
            at = offset_of_tester_header(enc)
            self.assertEqual([l4_ports(f, enc) for f in frames],
                             [cycle[i % 6][:2] for i in range(8)], enc.describe())
            # The MACs, which do not vary here, stay the template's.
            self.assertEqual({(Ether(f).src, Ether(f).dst) for f in frames},
                             {(DEFAULT_SRC_MAC, DEFAULT_DST_MAC)}, enc.describe())
            for index, frame in enumerate(frames):
                header = TesterHeader.unpack(frame[at:])
                src, dst = l4_ports(frame, enc)
                self.assertEqual(header.dut_qdelay,
                                 stamp_compensation(header.seq, header.tx_ts, src, dst,
                                                    widths=(32, 32, 16, 16)))
                if isinstance(enc.tunnel, Vxlan):
                    packet = Ether(frame)
                    self.assertEqual(packet[VXLAN].vni, cycle[index % 6][2])
                    self.assertEqual(packet[UDP].sport, enc.tunnel.udp_src_port)
                    # The outer UDP (the first) and the inner TCP: each recomputed by
                    # scapy equals what the switch sent.
                    for layer in (UDP, TCP):
                        if layer in packet:
                            checked = packet[layer]
                            stored = checked.chksum
                            del checked.chksum
                            self.assertEqual(Ether(bytes(packet))[layer].chksum, stored,
                                             f"{enc.describe()} frame {index} {layer.__name__}")
                            checked.chksum = stored


class VariesMacsFrameByFrame(EncapGeneratorTest):
    """Many addresses for a learning switch (RFC 2889 address caching): 4 source x 2
    destination MACs cycle in 4, the outer Ethernet header's (a VxLAN stream's inner
    one stays the template's); the L4 ports stay the template's, and the stamp still
    keeps the checksums (no checksum covers a MAC)."""

    def runTest(self) -> None:
        sources = stepped(0x02_89_01_00_00_00, 1, 4, limit=0xFFFF_FFFF_FFFF)
        destinations = (0x02_89_02_00_00_00, 0x02_89_02_00_00_ff)
        variations = (FieldVariation("src_mac", sources),
                      FieldVariation("dst_mac", destinations))
        for stream_id, enc in ((5, Encapsulation()),
                               (6, Encapsulation(tunnel=Vxlan(7, "10.0.0.1", "10.0.0.2")))):
            vni = enc.tunnel.vni if isinstance(enc.tunnel, Vxlan) else 0
            cycle = field_cycle(variations, 0xC020, 7777, vni, 0, 0)
            addresses = StreamAddresses(udp_src_port=0xC020, l4_dst_port=7777,
                                        src_mac=mac_text(sources[0]),
                                        dst_mac=mac_text(destinations[0]))
            spec = FrameSpec(stream_id=stream_id, frame_size=size_for(enc), encapsulation=enc,
                             addresses=addresses, varies_ports=True)
            template, frames = self.run_encap(stream_id, spec, budget=6, cycle=cycle)
            self.assertEqual(
                [(Ether(f).src, Ether(f).dst) for f in frames],
                [(mac_text(sources[i % 4]), mac_text(destinations[i % 2])) for i in range(6)],
                enc.describe())
            self.assertEqual({l4_ports(f, enc) for f in frames}, {(0xC020, 7777)})
            at = offset_of_tester_header(enc)
            for frame in frames:
                # Beyond the two MACs, the frame is the template's up to the stamp.
                self.assertEqual(frame[12:at + TESTER_SEQ.start],
                                 template[12:at + TESTER_SEQ.start])
                if isinstance(enc.tunnel, Vxlan):
                    inner = Ether(frame)[VXLAN].payload
                    self.assertEqual((inner.src, inner.dst), (enc.tunnel.inner_src_mac,
                                                               enc.tunnel.inner_dst_mac))


class ChecksBehindEveryEncapsulation(CheckerTest):
    """Frames of each encapsulation, sent into the tester, are their stream's: the
    checker counts them in order; the IP version it checks is the innermost."""

    def runTest(self) -> None:
        for stream_id, enc in enumerate(ENCAPSULATIONS):
            self.tester.expect_stream(stream_id, self.rx_port, ipv6=enc.ipv6)
            template = build_template(FrameSpec(stream_id=stream_id, frame_size=size_for(enc),
                                                encapsulation=enc))
            at = offset_of_tester_header(enc)
            frames = []
            for seq in range(3):
                frame = bytearray(template)
                frame[at + TESTER_SEQ.start:at + TESTER_SEQ.stop] = seq.to_bytes(4, "big")
                frames.append(bytes(frame))
            self.send_raw(frames)
            self.assert_stream_figures(stream_id, received=3, next_expected=3, lost=0,
                                       gap_events=0, reordered=0, duplicates=0)
        kinds = self.rx_kinds()
        self.assertEqual(kinds[RX_KIND_STREAM], 3 * len(ENCAPSULATIONS))
        self.assertEqual(sum(kinds), 3 * len(ENCAPSULATIONS))

    def send_raw(self, frames: list[bytes]) -> None:
        for frame in frames:
            tu.send_packet(self, self.rx_port, frame)
            self.sent += 1
        self.settle()


class SignatureFoundOnAnyPort(CheckerTest):
    """A UDP or TCP payload to any port is the tester's when it starts with the
    signature; without it, the frame is foreign."""

    def runTest(self) -> None:
        frames = []
        for stream_id, enc, port in ((4, Encapsulation(), 6000), (5, Encapsulation(l4="tcp"), 80)):
            spec = FrameSpec(stream_id=stream_id, frame_size=128, encapsulation=enc,
                             addresses=StreamAddresses(l4_dst_port=port))
            frames.append(build_template(spec))
        other = bytearray(frames[0])
        at = offset_of_tester_header(Encapsulation())
        other[at:at + 3] = b"XYZ"
        for frame in (*frames, bytes(other)):
            tu.send_packet(self, PORT_B, frame)
            self.sent += 1
        self.settle()
        kinds = self.rx_kinds()
        self.assertEqual(kinds, [2 if k == RX_KIND_STREAM else 1 if k == RX_KIND_FOREIGN else 0
                                 for k in range(RX_KIND_COUNT)])
        self.assert_stream_figures(4, received=1, next_expected=1, lost=0, gap_events=0,
                                   reordered=0, duplicates=0)
        self.assert_stream_figures(5, received=1, next_expected=1, lost=0, gap_events=0,
                                   reordered=0, duplicates=0)


class SamePortTxAndRx(EncapGeneratorTest):
    """A one-armed DUT (router on a stick) sends a stream back on the port it left
    by: the stream's frames, returned on port A, are its own there."""

    def runTest(self) -> None:
        self.tester.expect_stream(6, PORT_A)
        spec = FrameSpec(stream_id=6, frame_size=128)
        _template, frames = self.run_encap(6, spec, budget=5)
        for frame in frames:
            tu.send_packet(self, PORT_A, frame)
        self.assert_no_more_frames(PORT_A)  # received and checked, not sent back
        state = self.tester.read_stream_registers(6)
        self.assertEqual((state.rx_samples, state.rx_next_expected, state.rx_lost), (5, 5, 0))
        self.assertEqual(state.generated, 5)


class RandomSizesAreCutFrameByFrame(EncapGeneratorTest):
    """tx_resize: each frame leaves its template's size less a uniform 0..max_cut bytes
    of padding; its IP and L4 lengths follow, its IPv4 header and L4 checksums are
    valid (the stamp takes in the L4 length words), varied ports included; the TX
    counters' bytes less the cut bits' are the bytes that left, per stream and port;
    once the cuts are cleared, frames leave whole."""

    def runTest(self) -> None:
        varied = (FieldVariation("src_port", stepped(5000, 1, 3)),)
        budget = 200
        for stream_id, enc, largest, variations in (
                (8, Encapsulation(), 600, varied),
                (9, Encapsulation(vlan_id=7, ipv6=True, l4="tcp"), 400, ()),
                (10, Encapsulation(l4="tcp", mpls_labels=(16,)), 300, varied)):
            smallest = enc.min_frame_size
            cycle = field_cycle(variations, 0, 0, 0, mac_number(DEFAULT_SRC_MAC),
                                mac_number(DEFAULT_DST_MAC)) if variations else ()
            addresses = (StreamAddresses(udp_src_port=cycle[0][0], l4_dst_port=cycle[0][1])
                         if cycle else StreamAddresses())
            spec = FrameSpec(stream_id=stream_id, frame_size=largest, encapsulation=enc,
                             addresses=addresses, varies_ports=bool(cycle))
            template = build_template(spec)
            self.tester.set_resize(stream_id, largest - smallest, len(template))
            before = self.tester.read_counter(names.TX_STREAM).get(stream_id)
            port_before = self.tester.read_counter(names.TX_PORT)[PORT_A]
            cut_before = cut_bytes(self.tester.read_counter(names.TX_CUT_BITS))
            _template, frames = self.run_encap(stream_id, spec, budget, cycle)
            where = enc.describe()
            sizes = [len(f) + 4 for f in frames]
            self.assertTrue(all(smallest <= s <= largest for s in sizes), (where, sizes))
            # 200 draws of ~300-537 sizes: well over 100 distinct, mean near the middle.
            self.assertGreater(len(set(sizes)), 100, where)
            middle = (smallest + largest) / 2
            self.assertLess(abs(sum(sizes) / budget - middle), (largest - smallest) / 8, where)
            at = offset_of_tester_header(enc)
            for seq, frame in enumerate(frames):
                self.assertEqual(TesterHeader.unpack(frame[at:]).seq, seq, where)
                self.assertEqual(frame[:12], template[:12], where)
                packet = Ether(frame)
                ip = packet[IPv6] if enc.ipv6 else packet[IP]
                ip_bytes = len(frame) - (at - (20 if enc.l4 == "tcp" else 8)
                                         - (40 if enc.ipv6 else 20))
                if enc.ipv6:
                    self.assertEqual(ip.plen, ip_bytes - 40, where)
                else:
                    self.assertEqual(ip.len, ip_bytes, where)
                    self.assert_checksum(packet, IP, f"{where} frame {seq}")
                if enc.l4 == "udp":
                    self.assertEqual(packet[UDP].len, ip_bytes - 20, where)
                if cycle:
                    self.assertEqual(l4_ports(frame, enc), cycle[seq % len(cycle)][:2], where)
                self.assert_checksum(packet, TCP if enc.l4 == "tcp" else UDP,
                                     f"{where} frame {seq}")
            after = self.tester.read_counter(names.TX_STREAM)[stream_id]
            cut_after = cut_bytes(self.tester.read_counter(names.TX_CUT_BITS))
            port_after = self.tester.read_counter(names.TX_PORT)[PORT_A]
            sent = sum(len(f) for f in frames)
            cut = budget * len(template) - sent
            raw = after.bytes - (before.bytes if before else 0)
            self.assertEqual(raw, budget * len(template), where)
            self.assertEqual(cut_after[0].get(stream_id, 0) - cut_before[0].get(stream_id, 0),
                             cut, where)
            self.assertEqual(cut_after[1].get(PORT_A, 0) - cut_before[1].get(PORT_A, 0), cut,
                             where)
            self.assertEqual(port_after.bytes - port_before.bytes, budget * len(template),
                             where)
        # Cleared (as a session's open clears them): every stream's frames leave whole.
        self.tester.clear_resizes()
        _template, frames = self.run_encap(8, FrameSpec(stream_id=8, frame_size=600), 5)
        self.assertEqual({len(f) for f in frames}, {600 - 4})

    def assert_checksum(self, packet: Ether, layer: type, where: str) -> None:
        """scapy's checksum of the layer, recomputed, equals what the switch sent."""
        checked = packet[layer]
        stored = checked.chksum
        del checked.chksum
        self.assertEqual(Ether(bytes(packet))[layer].chksum, stored, where)
        checked.chksum = stored
