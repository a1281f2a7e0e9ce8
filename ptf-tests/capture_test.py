"""Capture: copies of received frames to the controller by rule (port, stream, RX
kind), each rule rate-limited in the data plane; the originals are checked as
ever."""

from __future__ import annotations

import ptf.testutils as tu
from scapy.layers.inet import IP, UDP
from scapy.layers.l2 import Ether
from scapy.packet import Raw

from p4tester.dataplane import names
from p4tester.dataplane.constants import RX_KIND_FOREIGN, RX_KIND_STREAM
from p4tester.dataplane.headers import TesterHeader

from checker_base import CheckerTest
from tester_base import PORT_A, PORT_B

SECOND_US = 1_000_000


class CaptureTest(CheckerTest):
    def tearDown(self) -> None:
        for rule in range(3):
            self.tester.clear_capture_rule(rule)
        super().tearDown()

    def counter(self, name: str, rule: int) -> int:
        return self.stream_counter(name, rule)


class CopiesAStreamsFrames(CaptureTest):
    """Every frame of stream 3 arriving on port B is copied, byte for byte, with its
    port; stream 4's are not; both streams' figures are as without capture."""

    def runTest(self) -> None:
        self.tester.set_capture_rule(0, port=PORT_B, stream_id=3, rx_kind=RX_KIND_STREAM)
        frames = [self.tester_frame(TesterHeader(stream_id=stream, seq=seq), 128)
                  for seq in range(5) for stream in (3, 4)]
        self.send_frames(frames)
        copies = self.tester.captured_frames(timeout_s=3.0, wanted=5)
        self.assertEqual([(port, frame) for _, port, frame in copies],
                         [(PORT_B, bytes(f)) for f in frames[0::2]])
        self.assertEqual(self.tester.captured_frames(timeout_s=0.5, wanted=1), [])
        self.assertEqual((self.counter(names.CAPTURE_COPIED, 0),
                          self.counter(names.CAPTURE_SKIPPED, 0)), (5, 0))
        for stream in (3, 4):
            self.assert_stream_figures(stream, received=5, next_expected=5, lost=0,
                                       gap_events=0, reordered=0, duplicates=0)


class RateLimitSkipsAndCounts(CaptureTest):
    """At most one copy per min_gap_us: 6 frames in well under a second give one
    copy and 5 counted as skipped."""

    def runTest(self) -> None:
        self.tester.set_capture_rule(1, stream_id=2, rx_kind=RX_KIND_STREAM,
                                     min_gap_us=10 * SECOND_US)
        frames = [self.tester_frame(TesterHeader(stream_id=2, seq=seq)) for seq in range(6)]
        self.send_frames(frames)
        copies = self.tester.captured_frames(timeout_s=2.0, wanted=2)
        self.assertEqual([(port, frame) for _, port, frame in copies], [(PORT_B, bytes(frames[0]))])
        self.assertEqual((self.counter(names.CAPTURE_COPIED, 1),
                          self.counter(names.CAPTURE_SKIPPED, 1)), (1, 5))


class CopiesForeignFramesOfAPort(CaptureTest):
    def runTest(self) -> None:
        self.tester.set_capture_rule(2, port=PORT_A, rx_kind=RX_KIND_FOREIGN)
        foreign = Ether() / IP() / UDP(dport=53) / Raw(bytes(30))
        tu.send_packet(self, PORT_A, foreign)
        tu.send_packet(self, PORT_B, foreign)
        self.sent += 2
        self.settle()
        copies = self.tester.captured_frames(timeout_s=3.0, wanted=2)
        self.assertEqual([(port, frame) for _, port, frame in copies], [(PORT_A, bytes(foreign))])
