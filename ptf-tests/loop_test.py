"""Generator and checker together: what the generator sends, fed back into a
tester port (PTF plays the cable), gives a clean stream on the checker."""

from __future__ import annotations

import time

import ptf.testutils as tu

from p4tester.dataplane import names
from p4tester.dataplane.constants import REFERENCE_LOOP_PORT, RX_KIND_STALE, RX_KIND_STREAM

from generator_test import GeneratorTest
from tester_base import PORT_A, PORT_B

REINJECT_GAP_S = 0.002


class GeneratedStreamChecksClean(GeneratorTest):
    def runTest(self) -> None:
        budget = 50
        # Frames of epoch 0 (the generator's default) come back on PORT_B.
        self.tester.expect_stream(12, PORT_B)
        frames = self.run_stream(stream_id=12, tx_port=PORT_A, frame_size=256, budget=budget,
                                 rate_pps=500)
        self.assertEqual(len(frames), budget)
        for frame in frames:
            tu.send_packet(self, PORT_B, frame)
            # BMv2 reads a port through a libpcap ring of about 32 frames: a faster
            # burst than it drains is cut there, before the switch sees it.
            time.sleep(REINJECT_GAP_S)
        deadline = time.monotonic() + 3.0
        state = self.tester.read_stream_registers(12)
        while state.rx_samples < budget and time.monotonic() < deadline:
            time.sleep(0.05)
            state = self.tester.read_stream_registers(12)
        kinds = self.tester.read_counter(names.RX_KIND)
        self.assertEqual(state.rx_samples, budget, f"rx kinds {kinds}, state {state}")
        self.assertEqual(state.rx_next_expected, budget)
        self.assertEqual(state.rx_lost, 0)
        self.assertEqual(self.tester.read_counter(names.RX_STREAM)[12].packets, budget)
        self.assertEqual(self.tester.read_counter(names.TX_STREAM)[12].packets, budget)
        self.assertEqual(self.tester.read_counter(names.RX_REORDERED)[12].packets, 0)
        self.assertEqual(self.tester.read_counter(names.RX_DUPLICATE)[12].packets, 0)
        self.assertGreater(state.latency_min, 0)
        self.assertLessEqual(state.latency_min, state.latency_max)


class ReferenceStreamLoopsInsideTheSwitch(GeneratorTest):
    """A stream sent to REFERENCE_LOOP_PORT never leaves the switch: every frame comes
    back to the checker, on that port, clean, with the switch's own latency; no front
    panel port sends or counts a frame of it."""

    def runTest(self) -> None:
        budget = 40
        stream = 21
        self.tester.expect_stream(stream, REFERENCE_LOOP_PORT)
        self.start(stream, REFERENCE_LOOP_PORT, frame_size=128, budget=budget, rate_pps=200)
        deadline = time.monotonic() + 3.0
        state = self.tester.read_stream_registers(stream)
        while state.rx_samples < budget and time.monotonic() < deadline:
            time.sleep(0.05)
            state = self.tester.read_stream_registers(stream)
        for port in (PORT_A, PORT_B):
            self.assert_no_more_frames(port)
        self.assertEqual(state.generated, budget)
        self.assertEqual(state.rx_samples, budget)
        self.assertEqual(state.rx_next_expected, budget)
        self.assertEqual(state.rx_lost, 0)
        self.assertEqual(self.tester.read_counter(names.TX_STREAM)[stream].packets, budget)
        self.assertEqual(self.tester.read_counter(names.RX_STREAM)[stream].packets, budget)
        self.assertEqual(self.tester.read_counter(names.RX_STREAM)[stream].bytes,
                         budget * (128 - 4))
        self.assertEqual(self.tester.read_counter(names.RX_DUPLICATE)[stream].packets, 0)
        self.assertEqual(self.tester.read_counter(names.RX_KIND)[RX_KIND_STREAM].packets, budget)
        for per_port in (names.RX_PORT, names.TX_PORT):
            counts = self.tester.read_counter(per_port).values()
            self.assertEqual(sum(c.packets for c in counts), 0, per_port)
        # The switch's own loop: well under a second (a missing RX time would wrap).
        self.assertGreater(state.latency_min, 0)
        self.assertLessEqual(state.latency_min, state.latency_max)
        self.assertLess(state.latency_max, 1_000_000)
        self.assertLessEqual(state.latency_min * budget, state.latency_sum)


class ReferenceFramesOfAnotherRunAreStale(GeneratorTest):
    """The loop's frames are classified like any received frame: with the checker
    expecting another run value, all of them are stale and no figure moves."""

    def runTest(self) -> None:
        budget = 10
        stream = 22
        self.tester.expect_stream(stream, REFERENCE_LOOP_PORT, run=5)
        self.start(stream, REFERENCE_LOOP_PORT, frame_size=64, budget=budget, rate_pps=200)
        deadline = time.monotonic() + 3.0
        kinds = self.tester.read_counter(names.RX_KIND)
        while kinds[RX_KIND_STALE].packets < budget and time.monotonic() < deadline:
            time.sleep(0.05)
            kinds = self.tester.read_counter(names.RX_KIND)
        self.assertEqual(kinds[RX_KIND_STALE].packets, budget)
        self.assertEqual(kinds[RX_KIND_STREAM].packets, 0)
        self.assertEqual(self.tester.read_stream_registers(stream).rx_samples, 0)
