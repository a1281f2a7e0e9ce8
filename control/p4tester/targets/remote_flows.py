"""OTG flows on one tester of several reached through its host's agent (otg.agent):
the flow engine (tester.flow_engine) the controller's group (tester.group_flows) uses,
each call a request to the agent. The agent maps the same OTG config onto the same
streams as the controller, so a flow is named by its stream id and its plan crosses
as plain values: rate, budget, template (hex) and burst. The agent runs eBPF or BMv2
testers' flows (TARGET_FLOWS)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from contextlib import suppress
from pathlib import Path
from typing import Any, Final

from p4tester.config.profile import Profile
from p4tester.config.serving import read_token
from p4tester.config.topology import TesterSwitch, Topology
from p4tester.experiments.errors import TesterUnanswered
from p4tester.targets.bmv2_flows import BMV2_COUNTERS
from p4tester.targets.ebpf.flows import EBPF_COUNTERS
from p4tester.targets.remote_member import topology_text
from p4tester.targets.remote_tester import RemoteTester
from p4tester.tester.dut_source import DutCounterSource
from p4tester.tester.flow_engine import CounterNames, FlowLatency, FlowPlan
from p4tester.tester.group_flows import FlowMember
from p4tester.tester.snapshot import CounterSnapshot
from p4tester.tester.trial_loop import TrialLoop


def plan_values(flows: Sequence[FlowPlan]) -> list[list[Any]]:
    """What an agent rebuilds each FlowPlan from, with its own stream of that id."""
    return [[f.stream_id, f.rate_pps, f.budget, f.template.hex(), f.burst_frames,
             f.burst_gap_bytes] for f in flows]


# Per target an agent runs flows on: the names its snapshot's counters have, and
# whether its stamp counts a varying flow's ports (FlowEngine.stamp_counts_ports).
TARGET_FLOWS: Final[Mapping[str, tuple[CounterNames, bool]]] = {
    "ebpf": (EBPF_COUNTERS, False),  # the sender writes each frame whole
    "bmv2": (BMV2_COUNTERS, True),  # the field patterns rewrite ports
}


class RemoteFlowEngine:
    """Mutable: opened once per config, closed after."""

    def __init__(self, remote: RemoteTester, topology_text: str, topology_source: str,
                 otg_config: Mapping[str, Any], drain_s: float, probe_run_value: int,
                 target: str = "ebpf") -> None:
        self.remote = remote
        self.counters, self.stamp_counts_ports = TARGET_FLOWS[target]
        self._open_with = (topology_text, topology_source, dict(otg_config), drain_s,
                           probe_run_value)

    def open(self) -> None:
        self.remote.open_flows(*self._open_with)

    def close(self) -> None:
        with suppress(TesterUnanswered):  # an agent gone has nothing left to close
            self.remote.close()

    def snapshot(self) -> CounterSnapshot:
        snapshot: CounterSnapshot = self.remote.call("flow_snapshot")
        return snapshot

    def run_values_in_use(self) -> frozenset[int]:
        return frozenset(self.remote.call("flow_run_values_in_use"))

    def self_check(self, run_value: int, dut: DutCounterSource | None) -> TrialLoop:
        # The agent's trial reads serve the check (their run value is not used).
        return TrialLoop(self.remote, dut)

    def expect(self, flows: Sequence[FlowPlan], epoch: int, run_value: int) -> None:
        self.remote.call("flow_expect", plan_values(flows), epoch, run_value)

    def start(self, flows: Sequence[FlowPlan], epoch: int, run_value: int) -> None:
        self.remote.call("flow_start", plan_values(flows), epoch, run_value)

    def generated(self, stream_id: int) -> int:
        return int(self.remote.call("flow_generated", stream_id))

    def stop_flow(self, stream_id: int) -> None:
        self.remote.call("flow_stop", stream_id)

    def pause(self, stream_ids: Sequence[int]) -> None:
        self.remote.call("flow_pause", list(stream_ids))

    def resume(self, flows: Sequence[FlowPlan], epoch: int, run_value: int) -> None:
        self.remote.call("flow_resume", plan_values(flows), epoch, run_value)

    def latency(self, stream_id: int) -> FlowLatency | None:
        latency: FlowLatency | None = self.remote.call("flow_latency", stream_id)
        return latency

    def set_tx_clock_correction(self, stream_id: int, correction_ns: int) -> None:
        self.remote.call("flow_set_tx_clock_correction", stream_id, correction_ns)

    def closing_verdict(self) -> str | None:
        return None

    def start_notes(self) -> tuple[str, ...]:
        return ()


def remote_flow_member(topology: Topology, profile: Profile, tester: TesterSwitch,
                       otg_config: Mapping[str, Any], probe_run_value: int) -> FlowMember:
    """Tester `tester`'s flows through its agent, which maps `otg_config` as the
    controller did; its probes through the same agent."""
    token = read_token(Path(tester.reach.token_file)) if tester.reach.token_file else None
    remote = RemoteTester(tester.name, tester.reach.agent, token, profile,
                          tls_ca=tester.reach.tls_ca)
    engine = RemoteFlowEngine(remote, topology_text(topology), topology.source, otg_config,
                              profile.trial.drain_s, probe_run_value, tester.switch.target)
    ports = frozenset(p.number for p in topology.ports if p.tester == tester.name)
    return FlowMember(tester.name, engine, remote, ports)
