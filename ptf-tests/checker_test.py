"""Checker: one test per figure, each with the exact value the frames imply."""

from __future__ import annotations

from scapy.layers.inet import IP, UDP
from scapy.layers.inet6 import IPv6
from scapy.layers.l2 import Ether
from scapy.packet import Raw

from p4tester.dataplane import names
from p4tester.dataplane.constants import (
    PUNT_REASON_FOREIGN,
    RX_KIND_BAD_SIGNATURE,
    RX_KIND_BAD_STREAM,
    RX_KIND_FOREIGN,
    RX_KIND_MISMATCHED,
    RX_KIND_STALE,
    RX_KIND_STREAM,
    RX_KIND_TRUNCATED,
    TESTER_FLAG_DUT_STAMPED,
    TESTER_UDP_DST_PORT,
)
from p4tester.dataplane.headers import TesterHeader, epoch_flags
from p4tester.dataplane.program import ForeignPolicy
from p4tester.p4rt import decode_packet_in

from checker_base import CheckerTest
from tester_base import PORT_C


class InOrder(CheckerTest):
    def runTest(self) -> None:
        self.tester.clear_stream(4)
        self.send_seqs(4, range(10), frame_size=100)
        self.assert_stream_figures(4, received=10, next_expected=10, lost=0, gap_events=0,
                                   reordered=0, duplicates=0)
        self.assertEqual(self.tester.read_counter(names.RX_STREAM)[4].bytes, 10 * 96)
        self.assertEqual(self.rx_kinds(), [10, 0, 0, 0, 0, 0, 0, 0])


class GapOfK(CheckerTest):
    def runTest(self) -> None:
        self.tester.clear_stream(1)
        self.send_seqs(1, [0, 1, 2, 10, 11])  # 3..9 missing: k = 7
        self.assert_stream_figures(1, received=5, next_expected=12, lost=7, gap_events=1,
                                   reordered=0, duplicates=0)


class SwapIsReordering(CheckerTest):
    """0 1 3 2 4: 3 opens a gap of 1 (kept: gaps are not netted), 2 is reordered."""

    def runTest(self) -> None:
        self.tester.clear_stream(2)
        self.send_seqs(2, [0, 1, 3, 2, 4])
        self.assert_stream_figures(2, received=5, next_expected=5, lost=1, gap_events=1,
                                   reordered=1, duplicates=0)


class Duplicate(CheckerTest):
    def runTest(self) -> None:
        self.tester.clear_stream(3)
        self.send_seqs(3, [0, 1, 1, 2])
        self.assert_stream_figures(3, received=4, next_expected=3, lost=0, gap_events=0,
                                   reordered=0, duplicates=1)
        self.assertEqual(self.registers(3).rx_last_seq, 2)


class WrapAround(CheckerTest):
    """In-order across 2^32 is in order; a gap across 2^32 counts exactly."""

    def runTest(self) -> None:
        self.tester.clear_stream(5, initial_seq=2**32 - 2)
        self.send_seqs(5, [2**32 - 2, 2**32 - 1, 0, 1])
        self.assert_stream_figures(5, received=4, next_expected=2, lost=0, gap_events=0,
                                   reordered=0, duplicates=0)
        self.tester.clear_stream(6, initial_seq=2**32 - 2)
        self.send_seqs(6, [2**32 - 2, 1, 2**32 - 1])  # 2^32-1 and 0 missing; then a late one
        self.assert_stream_figures(6, received=3, next_expected=2, lost=2, gap_events=1,
                                   reordered=1, duplicates=0)


class ForeignFrame(CheckerTest):
    """Non-tester frames are counted apart, dropped by default, and touch no stream."""

    def runTest(self) -> None:
        self.send_frames([
            Ether() / IP(dst="198.51.100.7") / UDP(dport=53) / Raw(bytes(30)),
            Ether(type=0x88B5) / Raw(bytes(50)),
        ])
        self.assertEqual(self.rx_kinds()[RX_KIND_FOREIGN], 2)
        self.assertEqual(sum(self.rx_kinds()), 2)
        self.assert_no_stream_touched()
        self.assert_no_more_frames(PORT_C)


class ForeignFramePolicies(CheckerTest):
    """The controller chooses: forward to a port, or punt to the controller."""

    def runTest(self) -> None:
        frame = Ether(src="02:00:00:00:00:09") / IP() / UDP(dport=4789) / Raw(bytes(40))
        self.tester.set_foreign_policy(ForeignPolicy("forward", self.rx_port, PORT_C))
        self.send_frames([frame])
        received = self.receive_frames(PORT_C, 1)
        self.assertEqual(received, [bytes(frame)])
        self.tester.set_foreign_policy(ForeignPolicy("punt"))
        self.client.drain_packet_ins()
        self.tester.set_foreign_policy(ForeignPolicy("drop", self.rx_port))
        self.tester.set_foreign_policy(ForeignPolicy("punt", self.rx_port))
        self.send_frames([frame])
        punted = self.client.packet_in(2.0)
        self.assertIsNotNone(punted)
        assert punted is not None
        got = decode_packet_in(self.schema, punted)
        self.assertEqual(got.metadata["reason"], PUNT_REASON_FOREIGN)
        self.assertEqual(got.metadata["ingress_port"], self.rx_port)
        self.assertEqual(got.payload, bytes(frame))
        self.assertEqual(self.rx_kinds()[RX_KIND_FOREIGN], 2)
        self.assert_no_stream_touched()


class TruncatedFrame(CheckerTest):
    """Cut inside the tester header (short frame), or cut with Ethernet padding
    hiding it (UDP length too small): both are truncated, neither touches a stream."""

    def runTest(self) -> None:
        base = Ether() / IP() / UDP(dport=TESTER_UDP_DST_PORT, chksum=0)
        header = TesterHeader(stream_id=1, seq=0).pack()
        short = base / Raw(header[:10])
        padded = Ether() / IP(len=20 + 8 + 10) / UDP(dport=TESTER_UDP_DST_PORT, len=8 + 10,
                                                      chksum=0) / Raw(header + bytes(8))
        self.send_frames([short, padded])
        self.assertEqual(self.rx_kinds(), [0, 0, 2, 0, 0, 0, 0, 0])
        self.assertEqual(self.rx_kinds()[RX_KIND_TRUNCATED], 2)
        self.assert_no_stream_touched()


class BadSignature(CheckerTest):
    def runTest(self) -> None:
        self.send_frames([self.tester_frame(TesterHeader(stream_id=1, signature=0x5035))])
        self.assertEqual(self.rx_kinds()[RX_KIND_BAD_SIGNATURE], 1)
        self.assertEqual(sum(self.rx_kinds()), 1)
        self.assert_no_stream_touched()


class StreamIdOutOfRange(CheckerTest):
    def runTest(self) -> None:
        self.send_frames([self.tester_frame(TesterHeader(stream_id=64)),
                          self.tester_frame(TesterHeader(stream_id=0xFFFF))])
        self.assertEqual(self.rx_kinds()[RX_KIND_BAD_STREAM], 2)
        self.assertEqual(self.rx_kinds()[RX_KIND_STREAM], 0)
        self.assert_no_stream_touched()


class MalformedDoesNotDisturbAStream(CheckerTest):
    """Malformed and foreign frames between a stream's frames change none of its figures."""

    def runTest(self) -> None:
        self.tester.clear_stream(8)
        bad = [self.tester_frame(TesterHeader(stream_id=8, seq=1, signature=0x1111)),
               Ether() / IP() / UDP(dport=TESTER_UDP_DST_PORT) / Raw(b"xy")]
        good = [self.tester_frame(TesterHeader(stream_id=8, seq=s)) for s in range(3)]
        self.send_frames([good[0], bad[0], good[1], bad[1], good[2]])
        self.assert_stream_figures(8, received=3, next_expected=3, lost=0, gap_events=0,
                                   reordered=0, duplicates=0)


class PortCountersSeeEveryFrame(CheckerTest):
    """rx_port counts every frame from a front-panel port, whatever its kind, before
    classification; tx_port every frame leaving one (here foreign frames forwarded
    from port B to port C). The controller's self-check compares both with the
    interfaces' kernel counters."""

    def runTest(self) -> None:
        self.tester.set_foreign_policy(
            ForeignPolicy("forward", ingress_port=self.rx_port, forward_port=PORT_C))
        foreign = Ether() / IP() / UDP(dport=53) / Raw(bytes(30))
        self.send_seqs(6, range(3))
        self.send_frames([foreign, foreign])
        self.send_frames([self.tester_frame(TesterHeader(stream_id=6, seq=3, signature=0x5035))])
        self.assertEqual(len(self.receive_frames(PORT_C, 2)), 2)
        rx = self.tester.read_counter(names.RX_PORT)
        self.assertEqual({port: cell.packets for port, cell in rx.items() if cell.packets},
                         {self.rx_port: 6})
        tx = self.tester.read_counter(names.TX_PORT)
        self.assertEqual({port: cell.packets for port, cell in tx.items() if cell.packets},
                         {PORT_C: 2})
        self.assertEqual(tx[PORT_C].bytes, 2 * len(foreign))


class StaleEpochFrame(CheckerTest):
    """Frames of the stream from another trial (another epoch, one of them with the
    top epoch bit only, so all 7 bits are compared) are counted as stale and leave
    the stream's figures exactly as its own frames make them; the DUT's flag bit
    is not part of the epoch."""

    def runTest(self) -> None:
        stream, epoch = 7, 3
        self.tester.expect_stream(stream, self.rx_port, epoch=epoch)
        self.tester.clear_stream(stream)
        own = [TesterHeader(stream_id=stream, seq=s, flags=epoch_flags(epoch)) for s in range(5)]
        own[4] = TesterHeader(stream_id=stream, seq=4,
                              flags=epoch_flags(epoch) | TESTER_FLAG_DUT_STAMPED)
        stale = [TesterHeader(stream_id=stream, seq=seq, flags=epoch_flags(old))
                 for seq, old in ((1, 2), (5, 2), (0, epoch + 64), (2, 0))]
        order = [own[0], own[1], stale[0], own[2], stale[1], stale[2], own[3], stale[3], own[4]]
        self.send_frames(self.tester_frame(h) for h in order)
        self.assert_stream_figures(stream, received=5, next_expected=5, lost=0, gap_events=0,
                                   reordered=0, duplicates=0)
        self.assertEqual(self.rx_kinds(), [5, 0, 0, 0, 0, 4, 0, 0])
        self.assert_stream_untouched_by(stream, stale=4, mismatched=0)


class StaleRunFrame(CheckerTest):
    """Frames a DUT still held from the run before, with the same epoch as this
    trial's (every run counts its epochs from 0) but that run's value, are stale:
    the stream's figures are exactly its own frames'. All 8 bits of the run byte
    are compared (0x27 differs from 0xA7 in the top bit only)."""

    def runTest(self) -> None:
        stream, epoch, run = 12, 0, 0xA7
        self.tester.expect_stream(stream, self.rx_port, epoch=epoch, run=run)
        self.tester.clear_stream(stream)
        own = [TesterHeader(stream_id=stream, seq=s, run=run) for s in range(4)]
        earlier = [TesterHeader(stream_id=stream, seq=seq, run=other)
                   for seq, other in ((0, 0x27), (4, 0xA6), (7, 0x00), (1, 0xFF))]
        order = [earlier[0], own[0], earlier[1], own[1], earlier[2], own[2], earlier[3], own[3]]
        self.send_frames(self.tester_frame(h) for h in order)
        self.assert_stream_figures(stream, received=4, next_expected=4, lost=0, gap_events=0,
                                   reordered=0, duplicates=0)
        self.assertEqual(self.rx_kinds(), [4, 0, 0, 0, 0, 4, 0, 0])
        self.assert_stream_untouched_by(stream, stale=4, mismatched=0)


class StreamInNoTrial(CheckerTest):
    """A stream the controller wrote no expectation for takes no frame: stale."""

    def runTest(self) -> None:
        self.tester.forget_stream(9)
        self.tester.clear_stream(9)
        self.send_seqs(9, range(3))
        self.assertEqual(self.rx_kinds()[RX_KIND_STALE], 3)
        self.assertEqual(self.rx_kinds()[RX_KIND_STREAM], 0)
        self.assert_stream_untouched_by(9, stale=3, mismatched=0)
        self.assert_no_stream_touched()


class WrongRxPortFrame(CheckerTest):
    """A frame of this trial arriving on another port than the stream's RX port
    (PORT_C instead of PORT_B) is mismatched, not a duplicate or a gap."""

    def runTest(self) -> None:
        stream = 11
        self.tester.clear_stream(stream)
        self.send_seqs(stream, range(2))
        self.send_frames([self.tester_frame(TesterHeader(stream_id=stream, seq=s))
                          for s in (1, 9)], port=PORT_C)
        self.send_seqs(stream, range(2, 4))
        self.assert_stream_figures(stream, received=4, next_expected=4, lost=0, gap_events=0,
                                   reordered=0, duplicates=0)
        self.assertEqual(self.rx_kinds(), [4, 0, 0, 0, 0, 0, 2, 0])
        self.assertEqual(self.rx_kinds()[RX_KIND_MISMATCHED], 2)
        self.assert_stream_untouched_by(stream, stale=0, mismatched=2)
        rx = self.tester.read_counter(names.RX_PORT)
        self.assertEqual(rx[PORT_C].packets, 2)


class Ipv6LookAlike(CheckerTest):
    """IPv6/UDP frames carrying the tester header with stream 0's id, this trial's
    epoch and seq 5, on stream 0's RX port, while stream 0 is IPv4: mismatched
    (issue 10's look-alikes that made 25 duplicates, 28 reordered and a gap)."""

    def runTest(self) -> None:
        self.tester.clear_stream(0)
        look_alike = (Ether(src="02:00:00:00:00:01", dst="02:00:00:00:00:02")
                      / IPv6(src="2001:db8::1", dst="2001:db8::2")
                      / UDP(sport=0xC020, dport=TESTER_UDP_DST_PORT)
                      / Raw(TesterHeader(stream_id=0, seq=5).pack() + bytes(8)))
        self.send_seqs(0, range(3))
        self.send_frames([look_alike] * 3)
        self.send_seqs(0, range(3, 6))
        self.send_frames([look_alike] * 2)
        self.send_seqs(0, range(6, 8))
        self.assert_stream_figures(0, received=8, next_expected=8, lost=0, gap_events=0,
                                   reordered=0, duplicates=0)
        self.assertEqual(self.rx_kinds(), [8, 0, 0, 0, 0, 0, 5, 0])
        self.assert_stream_untouched_by(0, stale=0, mismatched=5)


class Ipv6StreamTakesIpv6(CheckerTest):
    """The same look-alike is the stream's own frame when the stream is IPv6, and
    an IPv4 frame of that stream is then the mismatched one."""

    def runTest(self) -> None:
        self.tester.expect_stream(0, self.rx_port, ipv6=True)
        self.tester.clear_stream(0)
        frame6 = (Ether() / IPv6(src="2001:db8::1", dst="2001:db8::2")
                  / UDP(sport=0xC020, dport=TESTER_UDP_DST_PORT)
                  / Raw(TesterHeader(stream_id=0, seq=0).pack() + bytes(8)))
        self.send_frames([frame6, self.tester_frame(TesterHeader(stream_id=0, seq=1))])
        self.assert_stream_figures(0, received=1, next_expected=1, lost=0, gap_events=0,
                                   reordered=0, duplicates=0)
        self.assertEqual(self.rx_kinds(), [1, 0, 0, 0, 0, 0, 1, 0])


class TunnelPortsWithTheSignatureAreTheStreams(CheckerTest):
    """An untunnelled stream whose destination port is drawn or stepped may send to
    VxLAN's 4789 or GTP-U's 2152: those frames carry the tester header right after UDP
    and are the stream's, as every other port's are (they were parsed as tunnels and
    counted as lost)."""

    def runTest(self) -> None:
        self.tester.clear_stream(6)
        self.send_frames([
            self.tester_frame(TesterHeader(stream_id=6, seq=seq), dport=dport)
            for seq, dport in enumerate((TESTER_UDP_DST_PORT, 4789, 2152, 4790, 4789))])
        self.assert_stream_figures(6, received=5, next_expected=5, lost=0, gap_events=0,
                                   reordered=0, duplicates=0)
        self.assertEqual(self.rx_kinds(), [5, 0, 0, 0, 0, 0, 0, 0])
