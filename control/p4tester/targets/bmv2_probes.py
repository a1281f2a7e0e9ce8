"""The BMv2 tester's side of the clock probes between testers (tester.clock_probes):
a probe is a stream of its own id, wired on first use, sent as a budget of frames
from the generator's loop and checked as a trial's stream is, outside any trial.

BMv2 stamps in microseconds; the probes' arithmetic is in nanoseconds: the bias goes
out in microseconds and the least latency comes back as a nanosecond clock's
register would hold it."""

from __future__ import annotations

from typing import Final

from p4tester.config.profile import StreamConfig
from p4tester.config.testers import DEFAULT_PTP_UDS
from p4tester.dataplane.program import seeds_for_rate
from p4tester.results.clocks import PtpState
from p4tester.streams.template import build_template
from p4tester.targets.bmv2_session import TesterSession, frame_spec
from p4tester.tester.clock_probes import PROBE_BIAS
from p4tester.tester.group_clocks import NS_PER_US
from p4tester.tester.ptp_state import read_ptp_state

# The epoch probes carry (their expectation is their own: any will do).
PROBE_EPOCH: Final = 0
# A probe's bias (clock_probes.PROBE_BIAS, in ns) in this switch's unit.
PROBE_BIAS_US: Final = PROBE_BIAS // NS_PER_US
REGISTER_RANGE: Final = 1 << 32  # a 32-bit latency register


def probe_register_ns(latency_register_us: int) -> int:
    """A BMv2 probe's latency register (delay + offset + PROBE_BIAS_US, us) as the
    register of a nanosecond clock would hold it (delay + offset in ns + PROBE_BIAS),
    what clock_probes reads: exact for delays and offsets within +-2.1 s."""
    signed_us = (latency_register_us - PROBE_BIAS_US) % REGISTER_RANGE
    if signed_us >= REGISTER_RANGE // 2:
        signed_us -= REGISTER_RANGE
    return (signed_us * NS_PER_US + PROBE_BIAS) % REGISTER_RANGE


class Bmv2ProbeSide:
    """Probes sent and received by one BMv2 tester of several: a probe is a stream of
    its own id, wired on first use, sent as a budget of frames from the generator's
    loop and checked as a trial's stream is. Mutable: it keeps the probes it wired."""

    def __init__(self, name: str, session: TesterSession, run_value: int,
                 ptp_uds: str = DEFAULT_PTP_UDS) -> None:
        self._name = name
        self.session = session
        self.run_value = run_value
        self.ptp_uds = ptp_uds
        self._wired: set[int] = set()

    @property
    def name(self) -> str:
        return self._name

    def expect_probe(self, probe: StreamConfig) -> None:
        dataplane = self.session.dataplane
        dataplane.expect_stream(probe.id, probe.rx_port, ipv6=probe.ipv6, epoch=PROBE_EPOCH,
                                run=self.run_value)
        dataplane.clear_stream(probe.id)

    def send_probe(self, probe: StreamConfig, frames: int, rate_pps: float,
                   correction_ns: int) -> None:
        dataplane, target = self.session.dataplane, self.session.target
        if probe.id not in self._wired:
            dataplane.configure_stream(probe.id, probe.tx_port)
            target.prepare([probe.id], [probe.tx_port])
            self._wired.add(probe.id)
        dataplane.clear_stream(probe.id)
        target.set_stream_rates({probe.id: max(1, round(rate_pps))})
        dataplane.start_stream(probe.id, frames, PROBE_EPOCH, self.run_value,
                               tx_clock_correction_us=round(correction_ns / NS_PER_US))
        size = min(probe.size_in(size) for size in self.session.profile.frame_sizes)
        dataplane.seed_stream(probe.id, build_template(
            frame_spec(probe, size, PROBE_EPOCH, self.run_value)), seeds_for_rate(rate_pps))

    def probe_minimum(self, probe_id: int) -> tuple[int, int]:
        registers = self.session.dataplane.read_stream_registers(probe_id)
        return registers.rx_samples, probe_register_ns(registers.latency_min)

    def end_probe(self, probe_id: int) -> None:
        self.session.dataplane.stop_stream(probe_id)
        self.session.dataplane.forget_stream(probe_id)

    def ptp_state(self) -> PtpState:
        return read_ptp_state(self.ptp_uds)
