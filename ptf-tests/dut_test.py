"""Reference DUT program: port-to-port forwarding, and queue depth / delay
stamping into passing tester headers."""

from __future__ import annotations

import time

import ptf.testutils as tu
from scapy.layers.inet import IP, UDP
from scapy.layers.l2 import Ether
from scapy.packet import Raw

from p4tester.dataplane import names
from p4tester.dataplane.constants import TESTER_FLAG_DUT_STAMPED
from p4tester.dataplane.headers import TesterHeader
from p4tester.lab.dut_impairments import DutImpairments, impairment_entities
from p4tester.lab.dut_mpls import mpls_entities
from p4tester.p4rt import Exact, build_table_entry

from tester_base import PORT_A, PORT_B, PORT_C, TesterBaseTest

SATURATED = 0xFFFF


class DutTest(TesterBaseTest):
    p4info_param = "dut_p4info"
    json_param = "dut_json"

    def setUp(self) -> None:
        super().setUp()
        self.client.insert(build_table_entry(
            self.schema, names.DUT_PORT_FORWARD, {"ingress_port": Exact(PORT_A)},
            names.DUT_FORWARD, {"port": PORT_B}))


class ForwardsAndStampsIdleQueue(DutTest):
    def runTest(self) -> None:
        foreign = Ether() / IP() / UDP(dport=53) / Raw(bytes(30))
        tu.send_packet(self, PORT_A, foreign)
        self.assertEqual(self.receive_frames(PORT_B, 1), [bytes(foreign)])
        tu.send_packet(self, PORT_A, self.tester_frame(TesterHeader(stream_id=3, seq=9)))
        (frame,) = self.receive_frames(PORT_B, 1)
        header = self.header_of(frame)
        self.assertEqual((header.stream_id, header.seq), (3, 9))
        self.assertEqual(header.flags, TESTER_FLAG_DUT_STAMPED)
        self.assertEqual(header.dut_qdepth, 0)
        self.assertLess(header.dut_qdelay, 10_000)  # an idle queue: microseconds
        self.assert_no_more_frames(PORT_B)


class StampsQueueDepthBehindABottleneck(DutTest):
    """Egress at 10 pps. The first frame finds the queue idle and leaves at once;
    once it is out, three more arrive together: the next may leave only 100 ms
    after the first, so depths at enqueue are 0, 0, 1, 2 and the queued frames
    wait longer than the 16-bit delay field holds (> 65.535 ms): saturated."""

    def runTest(self) -> None:
        self.set_queue_rate(PORT_B, 10)
        tu.send_packet(self, PORT_A, self.tester_frame(TesterHeader(stream_id=1, seq=0)))
        frames = self.receive_frames(PORT_B, 1)
        for seq in range(1, 4):
            tu.send_packet(self, PORT_A, self.tester_frame(TesterHeader(stream_id=1, seq=seq)))
        frames += self.receive_frames(PORT_B, 3, timeout_s=3.0)
        headers = [self.header_of(f) for f in frames]
        self.assertEqual([h.seq for h in headers], [0, 1, 2, 3])
        self.assertEqual([h.dut_qdepth for h in headers], [0, 0, 1, 2])
        self.assertLess(headers[0].dut_qdelay, 10_000)
        self.assertEqual([h.dut_qdelay for h in headers[1:]], [SATURATED] * 3)


class ImpairmentTest(DutTest):
    """The DUT's impairments (p4src/dut/impairments.p4) on port A's tester frames,
    written the way the lab writes them."""

    def impair(self, **periods: int) -> None:
        self.client.insert(*impairment_entities(self.schema, DutImpairments(**periods),
                                                {PORT_A: PORT_B}))

    def send_seqs(self, seqs: range) -> None:
        for seq in seqs:
            tu.send_packet(self, PORT_A, self.tester_frame(TesterHeader(stream_id=2, seq=seq)))

    def received_seqs(self, count: int) -> list[int]:
        frames = self.receive_frames(PORT_B, count, timeout_s=3.0)
        self.assert_no_more_frames(PORT_B)
        return [self.header_of(f).seq for f in frames]

    def impaired(self) -> list[int]:
        cells = self.client.read_counter(self.schema, names.DUT_IMPAIRED)
        return [cells[kind].packets for kind in range(7)]


class DropsEveryThirdTesterFrame(ImpairmentTest):
    def runTest(self) -> None:
        self.impair(drop_every=3)
        foreign = Ether() / IP() / UDP(dport=53) / Raw(bytes(30))
        self.send_seqs(range(0, 2))
        tu.send_packet(self, PORT_A, foreign)  # neither dropped nor counted
        self.assertEqual(self.receive_frames(PORT_B, 3, timeout_s=3.0)[2], bytes(foreign))
        self.send_seqs(range(2, 7))
        self.assertEqual(self.received_seqs(3), [3, 4, 6])
        self.assertEqual(self.impaired(), [2, 0, 0, 0, 0, 0, 0])


class HoldsEverySecondBehindTheNext(ImpairmentTest):
    """Frame 2 waits for frame 3 and leaves after it; frame 4 has no successor and
    leaves when its hold runs out."""

    def runTest(self) -> None:
        self.impair(reorder_every=2)
        self.send_seqs(range(4))
        self.assertEqual(self.received_seqs(4), [0, 2, 1, 3])
        self.assertEqual(self.impaired(), [0, 0, 2, 1, 1, 0, 0])


class DuplicatesEverySecond(ImpairmentTest):
    def runTest(self) -> None:
        self.impair(duplicate_every=2)
        self.send_seqs(range(4))
        self.assertEqual(self.received_seqs(6), [0, 1, 1, 2, 3, 3])
        self.assertEqual(self.impaired(), [0, 2, 0, 0, 0, 0, 0])


class DelaysEveryFrame(ImpairmentTest):
    """100 ms: long against BMv2's own sub-millisecond latency, so the host's
    clock in PTF can tell; the frames keep their order."""

    def runTest(self) -> None:
        self.impair(delay_us=100_000)
        started = time.monotonic()
        self.send_seqs(range(3))
        frames = self.receive_frames(PORT_B, 1, timeout_s=3.0)
        elapsed = time.monotonic() - started
        frames += self.receive_frames(PORT_B, 2, timeout_s=3.0)
        self.assert_no_more_frames(PORT_B)
        self.assertGreaterEqual(elapsed, 0.1)
        self.assertLess(elapsed, 0.5)
        self.assertEqual([self.header_of(f).seq for f in frames], [0, 1, 2])
        impaired = self.impaired()
        self.assertEqual(impaired[:6], [0, 0, 0, 0, 0, 3])
        self.assertGreater(impaired[6], 3)  # each frame went round the loop more than once


class CountsFramesInAndOutPerPort(DutTest):
    """dut_rx_port counts every frame the DUT received, forwarded or not; dut_tx_port
    every frame it sent: the lab's check that the DUT was not starved of CPU."""

    def runTest(self) -> None:
        tester = self.tester_frame(TesterHeader(stream_id=2, seq=0))
        tu.send_packet(self, PORT_A, tester)
        tu.send_packet(self, PORT_A, tester)
        tu.send_packet(self, PORT_C, tester)  # no forwarding entry: dropped
        self.assertEqual(len(self.receive_frames(PORT_B, 2)), 2)
        self.assert_no_more_frames(PORT_B)
        rx = self.client.read_counter(self.schema, names.DUT_RX_PORT)
        tx = self.client.read_counter(self.schema, names.DUT_TX_PORT)
        self.assertEqual({p: c.packets for p, c in rx.items() if c.packets},
                         {PORT_A: 2, PORT_C: 1})
        self.assertEqual({p: c.packets for p, c in tx.items() if c.packets}, {PORT_B: 2})


class MplsEdgePushesAndPops(DutTest):
    """Port A's IP frames leave with label 1000 pushed (EtherType 0x8847, bottom of
    stack, TTL 64); port C's one-label frames leave without it, EtherType by their
    IP version. Frames with no entry pass unchanged."""

    def runTest(self) -> None:
        self.client.insert(build_table_entry(
            self.schema, names.DUT_PORT_FORWARD, {"ingress_port": Exact(PORT_C)},
            names.DUT_FORWARD, {"port": PORT_B}))
        self.client.insert(*mpls_entities(self.schema, {"mpls_push": f"{PORT_A}:1000",
                                                         "mpls_pop": str(PORT_C)}, "test"))
        plain = self.tester_frame(TesterHeader(stream_id=1, seq=0), 128)
        tu.send_packet(self, PORT_A, plain)
        (pushed,) = self.receive_frames(PORT_B, 1)
        frame = bytes(plain)
        # The DUT also stamps the tester header (bytes 42..59 of the plain frame):
        # everything else is compared exactly.
        header, end = 42, 60
        expected = frame[:12] + b"\x88\x47" + bytes.fromhex("003e8140") + frame[14:]
        self.assertEqual((pushed[:header + 4], pushed[end + 4:]),
                         (expected[:header + 4], expected[end + 4:]))
        self.assertEqual(self.header_of(pushed[:12] + pushed[16:]).seq, 0)
        labelled = frame[:12] + b"\x88\x47" + bytes.fromhex("007d0140") + frame[14:]
        tu.send_packet(self, PORT_C, labelled)
        (popped,) = self.receive_frames(PORT_B, 1)
        self.assertEqual((popped[:header], popped[end:]), (frame[:header], frame[end:]))
        self.assert_no_more_frames(PORT_B)
