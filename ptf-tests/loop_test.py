"""Generator and checker together: what the generator sends, fed back into a
tester port (PTF plays the cable), gives a clean stream on the checker."""

from __future__ import annotations

import time

import ptf.testutils as tu

from p4tester.dataplane import names

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
