"""Trials on a Tofino switch: the TrialRunner the experiments use, over TofinoTarget.

Rates are not rounded to whole frames per second as on BMv2: the generator's timer
makes fractional rates, and each application reports the rate it really makes
(AppPlan.schedule), which is what TrialResult.offered_pps sums.

Each trial checks itself (issue 10) as on BMv2 (tester.session): the ports' MAC
counters ($PORT_STAT, port_stats.MacPortCounters) against the program's rx_port /
tx_port, read programs-first before the trial and ports-first after the drain
(tester.selfcheck says why), re-read a few times before a difference is believed.
A trial where the tester lost frames itself is invalid, "tester-limited".
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from typing import Final

from p4tester.config.errors import ConfigError
from p4tester.config.profile import Profile, StreamConfig
from p4tester.config.stream_rates import stream_pps
from p4tester.config.topology import Topology
from p4tester.dataplane.constants import (
    EPOCHS,
    RX_KIND_FOREIGN,
    RX_KIND_MISMATCHED,
    RX_KIND_STALE,
)
from p4tester.dataplane.run_identity import draw_run_value
from p4tester.experiments.runner import TrialSpec
from p4tester.results.checks import TESTER_LIMITED, SelfCheck
from p4tester.results.model import TrialResult
from p4tester.streams.template import FrameSpec, build_template
from p4tester.targets.tofino import names
from p4tester.targets.tofino.bfrt import BfrtClient
from p4tester.targets.tofino.driver import StreamPorts, TofinoTarget
from p4tester.targets.tofino.port_stats import MacPortCounters
from p4tester.tester.port_counters import InterfaceCounters, PortCounterSource
from p4tester.tester.selfcheck import ProgramPortCounts, build_self_check
from p4tester.tester.session import QDEPTH_EDGES, SETTLE_READS, SETTLE_S, TrialFailed
from p4tester.tester.snapshot import CounterSnapshot, packets_between

POLL_S: Final = 0.2
# rx_lost is 32 bits: at 100G and 64 B, 2^32 lost frames take 29 s.
LOST_POLL_S: Final = 10.0
SEND_SLACK: Final = 1.5
SEND_GRACE_S: Final = 5.0


def target_from_config(client: BfrtClient, topology: Topology, profile: Profile) -> TofinoTarget:
    if topology.switch.target != "tofino":
        raise ConfigError(f"{topology.source or topology.name}: switch target is "
                          f"{topology.switch.target!r}; the Tofino runner needs target: tofino")
    for stream in profile.streams:
        # Tofino 1's parse depth leaves tunnels out (p4src/common/constants.p4), and
        # p4src/tna has no port-variation tables: such frames would leave unstamped.
        # Tofino 1's parse depth leaves tunnels out (p4src/common/constants.p4), and
        # p4src/tna has no variation tables: such frames would leave unstamped.
        unsupported = [what for what, used in (
            ("a tunnel", stream.tunnel is not None),
            ("per-frame variation (vary)", bool(stream.vary))) if used]
        if unsupported:
            raise ConfigError(f"{profile.source}: stream {stream.id}: {', '.join(unsupported)} "
                              "not supported on Tofino 1 (BMv2 supports it); "
                              "drop it from the stream")
    streams = [StreamPorts(s.id, s.tx_port, s.rx_port) for s in profile.streams]
    return TofinoTarget(client, streams, {p.number: p.front_panel for p in topology.ports})


def stream_template(stream: StreamConfig, frame_size: int, epoch: int = 0,
                    run: int = 0) -> bytes:
    """The frame a stream's generator application sends. Egress stamps the stream id
    (the multicast rid), so every template carries id 0: equal streams share one. The
    run value and the trial's epoch go into the header: the checker counts frames of
    another run or trial as stale (the driver writes each stream's expectation from
    its template)."""
    return build_template(FrameSpec(stream_id=0, frame_size=frame_size,
                                    addresses=stream.addresses, epoch=epoch, run=run,
                                    encapsulation=stream.encapsulation))


class TofinoTrialRunner:
    """TrialRunner on a Tofino tester; open() once before the first trial.

    `ports`: where the tester ports' own counters come from; by default their MAC
    counters through the target's BfRt client. A port without them (None from the
    source) gives trials without a self-check. `run_value`: the header's run byte
    for this run's frames (dataplane.run_identity; drawn at random by default).
    """

    def __init__(self, target: TofinoTarget, topology: Topology, profile: Profile, *,
                 sleep: Callable[[float], None] = time.sleep,
                 clock: Callable[[], float] = time.monotonic,
                 ports: PortCounterSource | None = None,
                 run_value: int | None = None) -> None:
        self.target = target
        self.run_value = draw_run_value(()) if run_value is None else run_value
        self.topology = topology
        self.profile = profile
        self._sleep = sleep
        self._clock = clock
        self.ports: PortCounterSource = ports or MacPortCounters(
            target.client, lambda: target.dev_ports, target.front_panel)

    def open(self) -> None:
        streams = self.profile.streams
        self.target.prepare([s.id for s in streams], [s.tx_port for s in streams])
        self.target.set_latency_bins(self.profile.latency_bins_us)
        self.target.set_qdepth_bins(QDEPTH_EDGES)

    def run_trial(self, spec: TrialSpec) -> TrialResult:
        rates: dict[int, float] = {}
        budgets: dict[int, int] = {}
        templates: dict[int, bytes] = {}
        for stream in self.profile.streams:
            size = stream.size_in(spec.frame_size)
            rates[stream.id] = stream_pps(self.topology, stream, spec.frame_size,
                                          spec.offered_fraction)
            budgets[stream.id] = spec.frame_count or max(1, round(rates[stream.id]
                                                                  * spec.duration_s))
            templates[stream.id] = stream_template(stream, size, spec.trial_index % EPOCHS,
                                                   self.run_value)
        target = self.target
        target.set_templates(templates)
        target.set_stream_rates(rates)
        started = time.time()
        ports = tuple(sorted(target.dev_ports))
        before = target.snapshot()
        # Programs before ports at the start: see tester.selfcheck.
        program_before = target.port_counts()
        ports_before = self.ports.read(ports)
        target.start_trial(budgets)
        try:
            self._wait_until_sent(budgets)
        finally:
            target.stop_trial()
        self._sleep(self.profile.trial.drain_s)
        after, check = self._settled_snapshot(ports, program_before, ports_before)
        error = None
        if check is not None and not check.ok:
            error = f"{TESTER_LIMITED}: {check.describe()}"
        return TrialResult(
            experiment=spec.experiment,
            trial_index=spec.trial_index,
            offered_fraction=spec.offered_fraction,
            offered_pps=sum(a.schedule.achieved_pps * len(a.stream_ids) for a in target.apps),
            duration_s=spec.duration_s,
            frame_size=spec.frame_size,
            streams=target.stream_stats(before, after),
            started_at=started,
            rx_foreign=packets_between(before, after, names.RX_KIND, RX_KIND_FOREIGN),
            rx_stale=packets_between(before, after, names.RX_KIND, RX_KIND_STALE),
            rx_mismatched=packets_between(before, after, names.RX_KIND, RX_KIND_MISMATCHED),
            labels=spec.labels,
            valid=error is None,
            error=error,
            self_check=check,
        )

    def _settled_snapshot(self, ports: tuple[int, ...], program_before: ProgramPortCounts,
                          ports_before: Mapping[int, InterfaceCounters] | None,
                          ) -> tuple[CounterSnapshot, SelfCheck | None]:
        """The closing snapshot and the self-check; re-read (bounded) while a frame a
        MAC counted may still be on its way through the pipeline."""
        check: SelfCheck | None = None
        for attempt in range(SETTLE_READS + 1):
            if attempt:
                self._sleep(SETTLE_S)
            # Ports before programs at the end: see tester.selfcheck.
            ports_after = self.ports.read(ports)
            program_after = self.target.port_counts()
            after = self.target.snapshot()
            if ports_before is None or ports_after is None:
                return after, None
            check = build_self_check({p: self.ports.interface(p) for p in ports}, ports_before,
                                     ports_after, program_before, program_after)
            if check.ok:
                break
        return after, check

    def _wait_until_sent(self, budgets: dict[int, int]) -> None:
        apps = {a.app_id: (budgets[a.stream_ids[0]], a.schedule.achieved_pps)
                for a in self.target.apps}
        allowed = max(b / pps for b, pps in apps.values()) * SEND_SLACK + SEND_GRACE_S
        start = self._clock()
        last_lost_poll = start
        while True:
            self._sleep(POLL_S)
            made = self.target.generated()
            if all(made.get(app, 0) >= budget for app, (budget, _) in apps.items()):
                return
            now = self._clock()
            if now - last_lost_poll >= LOST_POLL_S:
                self.target.poll_lost()
                last_lost_poll = now
            if now - start > allowed:
                short = sorted(a for a, (b, _) in apps.items() if made.get(a, 0) < b)
                raise TrialFailed(
                    f"generator applications {short} did not make their budgets within "
                    f"{allowed:.1f} s: is the program loaded and the pktgen port enabled?")
