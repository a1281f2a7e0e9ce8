"""Generator and checker together: what the generator sends, fed back into a
tester port (PTF plays the cable), gives a clean stream on the checker."""

from __future__ import annotations

import ptf.testutils as tu

from p4tester.dataplane import names

from generator_test import GeneratorTest
from tester_base import PORT_A, PORT_B


class GeneratedStreamChecksClean(GeneratorTest):
    def runTest(self) -> None:
        budget = 50
        frames = self.run_stream(stream_id=12, tx_port=PORT_A, frame_size=256, budget=budget,
                                 rate_pps=500)
        self.assertEqual(len(frames), budget)
        for frame in frames:
            tu.send_packet(self, PORT_B, frame)
        state = self.tester.read_stream_registers(12)
        for _ in range(40):
            if state.rx_samples == budget:
                break
            state = self.tester.read_stream_registers(12)
        self.assertEqual(state.rx_samples, budget)
        self.assertEqual(state.rx_next_expected, budget)
        self.assertEqual(state.rx_lost, 0)
        self.assertEqual(self.tester.read_counter(names.RX_STREAM)[12].packets, budget)
        self.assertEqual(self.tester.read_counter(names.TX_STREAM)[12].packets, budget)
        self.assertEqual(self.tester.read_counter(names.RX_REORDERED).get(12).packets, 0)
        self.assertGreater(state.latency_min, 0)
        self.assertLessEqual(state.latency_min, state.latency_max)
