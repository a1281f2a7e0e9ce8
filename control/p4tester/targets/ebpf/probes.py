"""The eBPF tester's side of the clock probes between testers (tester.clock_probes):
a probe is a stream of its own id, armed, sent and read as a trial's stream is, but
sent from the controller's thread (a burst of a few frames) and outside any trial."""

from __future__ import annotations

from typing import Final

from p4tester.config.profile import StreamConfig
from p4tester.config.testers import DEFAULT_PTP_UDS
from p4tester.dataplane.constants import IP_VERSION_4, IP_VERSION_6
from p4tester.dataplane.headers import epoch_flags
from p4tester.results.clocks import PtpState
from p4tester.targets.ebpf.sender import TemplateSender
from p4tester.targets.ebpf.session import EbpfSession
from p4tester.targets.ebpf.trials import stream_frame, tagged
from p4tester.tester.ptp_state import read_ptp_state

# The epoch probes carry: the checker's expectation is the probe's own, so any will do.
PROBE_EPOCH: Final = 0
# The sender stops a burst this long after its schedule at the latest.
BURST_SLACK_S: Final = 1.0


class EbpfProbeSide:
    """Probes sent and received by one eBPF tester of several. Mutable: it opens its
    sender socket on the first probe and closes it with close()."""

    def __init__(self, name: str, session: EbpfSession, run_value: int,
                 ptp_uds: str = DEFAULT_PTP_UDS) -> None:
        self._name = name
        self.session = session
        self.run_value = run_value
        self.ptp_uds = ptp_uds  # where this host's ptp4l answers
        self._sender: TemplateSender | None = None

    @property
    def name(self) -> str:
        return self._name

    def expect_probe(self, probe: StreamConfig) -> None:
        tester = self.session.tester
        tester.expect_stream(probe.id, run=self.run_value, epoch_flags=epoch_flags(PROBE_EPOCH),
                             rx_port=probe.rx_port,
                             ip_version=IP_VERSION_6 if probe.ipv6 else IP_VERSION_4)
        tester.clear_stream(probe.id)

    def send_probe(self, probe: StreamConfig, frames: int, rate_pps: float,
                   correction_ns: int) -> None:
        session, tester = self.session, self.session.tester
        size = min(probe.size_in(size) for size in session.profile.frame_sizes)
        template = tagged(probe, stream_frame(probe, size, PROBE_EPOCH, self.run_value))
        tester.clear_stream(probe.id)
        tester.set_tx_clock_correction(probe.id, correction_ns)
        tester.set_replication(probe.id, session.pipeline.ifindex(
            session.interface(probe.tx_port)), 1)
        tester.start_stream(probe.id, frames=frames, initial_seq=0, run=self.run_value,
                            epoch_flags=epoch_flags(PROBE_EPOCH))
        if self._sender is None:
            self._sender = TemplateSender(session.sender_interface)
        self._sender.send([template], frames, rate_pps, frames / rate_pps + BURST_SLACK_S)

    def probe_minimum(self, probe_id: int) -> tuple[int, int]:
        registers = self.session.tester.read_stream_registers(probe_id)
        return registers.rx_samples, registers.latency_min

    def end_probe(self, probe_id: int) -> None:
        tester = self.session.tester
        tester.stop_stream(probe_id)
        tester.forget_stream(probe_id)
        tester.set_tx_clock_correction(probe_id, 0)

    def ptp_state(self) -> PtpState:
        return read_ptp_state(self.ptp_uds)

    def close(self) -> None:
        if self._sender is not None:
            self._sender.close()
            self._sender = None
