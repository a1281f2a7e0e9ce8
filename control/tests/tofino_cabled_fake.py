"""Fake Tofino switches cabled to each other, for several testers in one test: each
has a clock of its own (`offset_ns` ahead of the common time the tests advance both
by), and a frame sent on a cabled port arrives at the other switch's port `path_ns`
later, stamped as egress stamps it (the low 32 bits of its switch's clock plus the
stream's tx_clock_correction) and checked there against the receiver's clock, as
p4src/tna does it."""

from __future__ import annotations

from typing import Final

from tofino_fake import _frozen
from tofino_loopback_fake import LoopbackFake

from p4tester.targets.tofino import names

U32: Final = 1 << 32


class CabledFake(LoopbackFake):
    def __init__(self, chip: str = "tofino1", *, offset_ns: int = 0) -> None:
        super().__init__(chip)
        self.offset_ns = offset_ns
        # dev port -> (the other switch, its dev port, the path's delay in ns)
        self.cables: dict[int, tuple[CabledFake, int, int]] = {}

    def cable(self, dev: int, other: CabledFake, other_dev: int, path_ns: int) -> None:
        """A cable both ways between this switch's dev port and the other's."""
        self.cables[dev] = (other, other_dev, path_ns)
        other.cables[other_dev] = (self, dev, path_ns)

    def correction_ns(self, stream: int) -> int:
        """What egress adds to the stream's stamps (tx_clock_correction; 0 without)."""
        entry = self._rows(names.TX_CLOCK_CORRECTION, None).get(
            _frozen({names.TX_CLOCK_CORRECTION_KEY: stream}))
        if entry is None:
            return 0
        return int(str(entry.data[names.STAMP_WITH_CORRECTION]))

    def _carry(self, dev: int, stream: int, first: int, count: int, frame: int) -> None:
        cable = self.cables.get(dev)
        if cable is None:
            return
        other, other_dev, path_ns = cable
        # The receiver's clock when a frame arrives, less the stamp it carries: the two
        # clocks' offset and the path, less the sender's correction (mod 2^32).
        latency = (other.offset_ns + path_ns - self.offset_ns
                   - self.correction_ns(stream)) % U32
        other.arrive(other_dev, stream, first, count, frame, latency)

    def arrive(self, dev: int, stream: int, first: int, count: int, frame: int,
               latency_ns: int) -> None:
        """Frames from a cable into this switch's port: its MAC and the checker."""
        pipe = dev // 128
        self.add_port_stat(dev, received_ok=count)
        self.count(names.RX_PORT, dev, pipe, count, count * frame)
        self._receive(pipe, stream, first, count, frame, latency_ns)
