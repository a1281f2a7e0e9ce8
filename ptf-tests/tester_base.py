"""Base of the PTF suite: a P4Runtime session per test with the program pushed
fresh (so no state leaks between tests), helpers to build and parse test frames,
and cleanup of what the test configured.

Layers: TesterBaseTest (session, frames) -> one base class per feature
(generator_base, checker_base, dut_base) -> small concrete tests.
"""

from __future__ import annotations

import time
from typing import Any

import ptf
import ptf.testutils as tu
from ptf.base_tests import BaseTest
from scapy.layers.inet import IP, UDP
from scapy.layers.l2 import Ether
from scapy.packet import Packet, Raw

from p4tester.dataplane.constants import TESTER_UDP_DST_PORT
from p4tester.dataplane.headers import TesterHeader
from p4tester.dataplane.program import TesterDataplane
from p4tester.p4rt import P4InfoSchema, P4RuntimeClient
from p4tester.targets.bmv2_thrift import Bmv2Thrift

# PTF ports (device 0) wired to switch ports of the same number.
PORT_A = 1
PORT_B = 2
PORT_C = 3
PORT_D = 4

# How long the suite waits for frames that must (not) come.
FRAME_TIMEOUT_S = 2.0
QUIET_TIMEOUT_S = 0.5


def param(name: str) -> str:
    value = tu.test_param_get(name)
    if value is None:
        raise RuntimeError(f"PTF test parameter {name!r} missing: run through scripts/run-ptf.sh")
    return str(value)


class TesterBaseTest(BaseTest):
    """P4Runtime session with the tester program (or another one) pushed."""

    p4info_param = "tester_p4info"
    json_param = "tester_json"

    def setUp(self) -> None:
        BaseTest.setUp(self)
        self.dataplane = ptf.dataplane_instance
        self.dataplane.flush()
        self.schema = P4InfoSchema.from_text_file(param(self.p4info_param))
        self.client = P4RuntimeClient(param("grpcaddr"), election_id=(0, 1), timeout_s=10.0)
        self.client.connect()
        # A fresh pipeline resets every table, counter and register: tests are independent.
        self.client.set_pipeline(self.schema, param(self.json_param))
        self.thrift = Bmv2Thrift(int(param("thrift_port")))
        self.rate_limited_ports: list[int] = []
        self.tester = TesterDataplane(self.client, self.schema)

    def tearDown(self) -> None:
        if self.rate_limited_ports:
            self.thrift.set_queue_rates({port: 0 for port in self.rate_limited_ports})
        self.client.close()
        BaseTest.tearDown(self)

    def set_queue_rate(self, port: int, pps: int) -> None:
        self.thrift.set_queue_rate(port, pps)
        self.rate_limited_ports.append(port)

    # ---- frames -------------------------------------------------------------
    @staticmethod
    def tester_frame(header: TesterHeader, frame_size: int = 64, **fields: Any) -> Packet:
        """IPv4/UDP test frame of frame_size bytes incl. FCS (the wire has no FCS)."""
        base = (
            Ether(src="02:00:00:00:00:01", dst="02:00:00:00:00:02")
            / IP(src="192.0.2.1", dst="198.51.100.1", ttl=64)
            / UDP(sport=fields.get("sport", 0xC020), dport=fields.get("dport", TESTER_UDP_DST_PORT),
                  chksum=0)
        )
        payload = header.pack()
        padding = frame_size - 4 - len(base) - len(payload)
        return base / Raw(payload + bytes(max(padding, 0)))

    @staticmethod
    def header_of(frame: bytes) -> TesterHeader:
        return TesterHeader.unpack(frame[14 + 20 + 8:])

    def receive_frames(
        self, port: int, count: int, timeout_s: float = FRAME_TIMEOUT_S
    ) -> list[bytes]:
        """Exactly the frames that arrive on a PTF port within the time limits."""
        frames: list[bytes] = []
        deadline = time.monotonic() + timeout_s
        while len(frames) < count and time.monotonic() < deadline:
            result = tu.dp_poll(self, device_number=0, port_number=port, timeout=0.2)
            if isinstance(result, self.dataplane.PollSuccess):
                frames.append(bytes(result.packet))
        return frames

    def assert_no_more_frames(self, port: int) -> None:
        result = tu.dp_poll(self, device_number=0, port_number=port, timeout=QUIET_TIMEOUT_S)
        self.assertNotIsInstance(
            result, self.dataplane.PollSuccess, f"unexpected extra frame on port {port}"
        )
