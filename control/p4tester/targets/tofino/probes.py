"""The Tofino tester's side of the clock probes between testers (tester.clock_probes):
a probe is a stream of its own id, sent by the generator application a tester of
several keeps for probes (TofinoTarget.probe_app_id) and checked as a trial's stream
is, outside any trial.

The group probes after it armed a trial, when the trial's applications, templates and
groups are already written, so a probe takes none of theirs: its template goes after
theirs in its pipe's buffer (their slots do not move), its multicast group is the kept
application's, and every entry it writes (its expectation, stamp correction, budget
and group) goes when it ends.

The Tofino program stamps in nanoseconds: a probe's bias goes out as it is, and its
least latency comes back as the register holds it. The stamps are 32 bits of the
switch's clock, so only the offset modulo 2^32 ns matters, and it is what the probes
measure: two switches started at any time apart need no setting first.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from p4tester.config.profile import StreamConfig
from p4tester.results.clocks import PtpState
from p4tester.streams.frame_sizes import FCS_BYTES
from p4tester.targets.tofino import multicast, names, pktgen, state
from p4tester.targets.tofino.apps import AppPlan
from p4tester.targets.tofino.driver import STAMP_WRAP, TofinoTarget
from p4tester.targets.tofino.expectation import template_expectation, write_expectations
from p4tester.targets.tofino.hardware import pipe_of
from p4tester.targets.tofino.runner import stream_template

# The epoch probes carry (their expectation is their own: any will do).
PROBE_EPOCH: Final = 0
# What a Tofino tester says of PTP: it stamps with the switch's own clock, whose PTP
# state (the SDE's) BfRt does not give.
NO_PTP: Final = PtpState(False, why="not read: a Tofino stamps with the switch's clock, "
                                    "whose PTP state BfRt does not give")


@dataclass(frozen=True, slots=True)
class _Sending:
    """A probe this tester sends: its application and its pipe."""

    app: AppPlan
    pipe: int


class TofinoProbeSide:
    """Probes sent and received by one Tofino tester of several. Mutable: it keeps the
    probes under way (what each wrote, to take it back at the end)."""

    def __init__(self, name: str, target: TofinoTarget, run_value: int,
                 frame_sizes: tuple[int, ...]) -> None:
        if target.probe_app_id is None:
            raise ValueError("a Tofino tester sends probes only as one of several testers: "
                             "give its target the other testers' ports (elsewhere)")
        self._name = name
        self.target = target
        self.run_value = run_value
        self.frame_sizes = frame_sizes
        self._sending: dict[int, _Sending] = {}
        self._expecting: dict[int, tuple[int, int]] = {}  # probe -> (RX pipe, rx at start)

    @property
    def name(self) -> str:
        return self._name

    def _dev_port(self, port: int, role: str, probe: StreamConfig) -> int:
        dev = self.target.dev_ports.get(port)
        if dev is None:
            raise ValueError(f"probe {probe.id}: {role} {port} is not one of tester "
                             f"{self._name}'s ports in use")
        return dev

    def _template(self, probe: StreamConfig) -> bytes:
        size = min(probe.size_in(size) for size in self.frame_sizes)
        return stream_template(probe, size, PROBE_EPOCH, self.run_value)

    def expect_probe(self, probe: StreamConfig) -> None:
        client = self.target.client
        dev = self._dev_port(probe.rx_port, "its RX port", probe)
        pipe = pipe_of(dev)
        state.zero_streams(client, [probe.id])
        write_expectations(client, {probe.id: template_expectation(self._template(probe), dev)},
                           set())
        # rx_stream is a counter, never cleared: the probe's frames count from here.
        frames, _ = state.read_received(client, {probe.id: pipe})[probe.id]
        self._expecting[probe.id] = (pipe, frames)

    def send_probe(self, probe: StreamConfig, frames: int, rate_pps: float,
                   correction_ns: int) -> None:
        target, client, chip = self.target, self.target.client, self.target.chip
        app_id = target.probe_app_id
        assert app_id is not None  # checked at construction
        dev = self._dev_port(probe.tx_port, "its TX port", probe)
        pipe = pipe_of(dev)
        template = self._template(probe)
        app = AppPlan(app_id, (pipe,), (probe.id,), template, rate_pps,
                      target.pipe_timer(rate_pps, len(template) + FCS_BYTES, 1))
        # After the trial's templates of this pipe: laid out in the same order, theirs
        # keep their offsets.
        slot = pktgen.buffer_slots((*target.apps, app))[pipe][app_id]
        pktgen.write_templates(client, pipe, [slot], chip)
        pktgen.configure_app(client, app, slot, pipe, chip)
        multicast.add_app_group(client, app, {probe.id: dev})
        client.add_entry(names.TX_CLOCK_CORRECTION, {names.TX_CLOCK_CORRECTION_KEY: probe.id},
                         {names.STAMP_WITH_CORRECTION: correction_ns % STAMP_WRAP},
                         action=names.STAMP_WITH)
        state.zero_streams(client, [probe.id])
        state.zero_generated(client, [app_id])
        client.add_entry(names.GEN_APPS, {names.GEN_APPS_PIPE_KEY: pipe,
                                          names.GEN_APPS_KEY: app_id},
                         {names.GEN_RUN_GROUP: app.mcast_group, names.GEN_RUN_BUDGET: frames,
                          names.GEN_RUN_DROP_BELOW: app.drop_below}, action=names.GEN_RUN)
        self._sending[probe.id] = _Sending(app, pipe)
        pktgen.set_app_enabled(client, app_id, True, pipe, chip)

    def probe_minimum(self, probe_id: int) -> tuple[int, int]:
        pipe, at_start = self._expecting[probe_id]
        client = self.target.client
        frames, _ = state.read_received(client, {probe_id: pipe})[probe_id]
        least = state.read_streams(client, {probe_id: pipe})[probe_id].latency_min_ns
        return frames - at_start, least

    def end_probe(self, probe_id: int) -> None:
        client, chip = self.target.client, self.target.chip
        sending = self._sending.pop(probe_id, None)
        if sending is not None:
            app = sending.app
            pktgen.set_app_enabled(client, app.app_id, False, sending.pipe, chip)
            client.delete_entry(names.GEN_APPS, {names.GEN_APPS_PIPE_KEY: sending.pipe,
                                                 names.GEN_APPS_KEY: app.app_id})
            multicast.remove_app_groups(client, [app])
            client.delete_entry(names.TX_CLOCK_CORRECTION,
                                {names.TX_CLOCK_CORRECTION_KEY: probe_id})
        if self._expecting.pop(probe_id, None) is not None:
            client.delete_entry(names.RX_EXPECTED, {names.RX_EXPECTED_KEY: probe_id})

    def ptp_state(self) -> PtpState:
        return NO_PTP
