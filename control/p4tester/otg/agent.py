"""A tester agent: a host's OTG server (`p4tester otg`) also serves, under AGENT_PATH,
what a controller's trial loop reads and writes of one tester of several
(docs/several-testers.md): its trial target (targets.ebpf.trials, targets.bmv2_trials)
and its side of the clock probes. An eBPF tester needs its host's kernel, and a BMv2
tester its host's interface counters and thrift server, so a controller elsewhere
reaches them through such an agent.

POST AGENT_PATH/open with the controller's topology and profile (their YAML text),
the tester's name and the run value opens that tester on this host; POST
AGENT_PATH/call/<method> with {"args": [...]} (tester.agent_codec) calls one of
METHODS; POST AGENT_PATH/close closes it. One tester per agent, opened by one
controller at a time.

For OTG flows across testers (tester.group_flows) the controller opens with its OTG
config (`otg_config`, and `drain_s`) instead of a profile: the agent maps it as the
controller did, so both have the same streams, and the flow_* METHODS drive the
tester's flow engine (targets.ebpf.flows, targets.bmv2_flows) beside its trial reads,
which check each start.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any, Final

import yaml

from p4tester.config.errors import ConfigError
from p4tester.config.profile import Profile, StreamConfig, profile_from_dict
from p4tester.config.topology import TesterSwitch, Topology, topology_from_dict
from p4tester.experiments.runner import TrialSpec
from p4tester.targets.bmv2_group import open_local_tester as open_local_bmv2_tester
from p4tester.targets.bmv2_group_flows import bmv2_flow_member
from p4tester.targets.ebpf.flows import EbpfFlowEngine
from p4tester.targets.ebpf.local_tester import open_local_tester
from p4tester.targets.ebpf.probes import EbpfProbeSide
from p4tester.targets.ebpf.session import EbpfSession
from p4tester.tester.agent_codec import decode, encode
from p4tester.tester.flow_engine import FlowPlan
from p4tester.tester.trial_loop import ArmedTrial

from .errors import OtgError
from .mapping import map_config
from .switch_driver import DRAIN_S, flows_profile

AGENT_PATH: Final = "/p4tester/agent"
# What the trial loop asks of a target without arguments: sent once, at open.
PROPERTIES: Final = ("poll_s", "drain_s", "settle_s", "settle_max_s", "host_bound",
                     "dut_between", "queues_input")


class AgentError(ValueError):
    """A request the agent refuses: its message says why and what to do."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status


@dataclass
class _Opened:
    """An opened tester: its trial target, its probe side, the profile, and what
    closes them."""

    trials: Any  # an EbpfTrials or Bmv2Trials (or a test's stand-in)
    probes: Any  # its target's ProbeSide
    profile: Profile
    close: Callable[[], None]
    armed: ArmedTrial | None = None
    flows: Any = None  # opened for OTG flows: targets.ebpf.flows.EbpfFlowEngine

    def stream(self, stream_id: int) -> StreamConfig:
        found = next((s for s in self.profile.streams if s.id == stream_id), None)
        if found is None:
            raise AgentError(f"stream {stream_id} is not in the profile")
        return found


Opener = Callable[[Topology, Profile, str, int], _Opened]


def _tester(topology: Topology, name: str) -> TesterSwitch:
    member = next((t for t in topology.testers if t.name == name), None)
    if member is None:
        raise AgentError(f"the topology has no tester {name!r}")
    return member


def open_tester(topology: Topology, profile: Profile, name: str, run_value: int) -> _Opened:
    """Tester `name` on this host for trials: an eBPF tester's program loaded onto its
    ports, a BMv2 tester's switch wired (its program pushed where it has none); its
    clock set."""
    member = _tester(topology, name)
    if member.switch.target == "bmv2":
        bmv2 = open_local_bmv2_tester(topology, profile, member, run_value)
        return _Opened(bmv2.member.target, bmv2.member.probes, profile, bmv2.close)
    local = open_local_tester(topology, profile, member, run_value)
    return _Opened(local.trials, local.probes, profile, local.close)


def open_tester_flows(topology: Topology, profile: Profile, name: str,
                      run_value: int) -> _Opened:
    """Tester `name`'s flow engine on this host's ports, its clock set; its trial reads
    serve the starts' self-checks. run_value: the probes' (each start draws its own)."""
    member = _tester(topology, name)
    if member.switch.target == "bmv2":
        bmv2 = bmv2_flow_member(topology, profile, member, False, run_value)
        bmv2.engine.open()
        try:
            bmv2_checks = bmv2.engine.self_check(run_value, None).target
        except BaseException:
            bmv2.engine.close()
            raise
        return _Opened(bmv2_checks, bmv2.probes, profile, bmv2.engine.close, flows=bmv2.engine)
    own = topology.tester(name)
    session = EbpfSession(own, profile)
    engine = EbpfFlowEngine(own, profile, push_pipeline=False, session=session,
                            simulated_clock=member.clock)
    engine.open()
    try:
        probes = EbpfProbeSide(name, session, run_value, member.ptp_uds)
        checks = engine.self_check(run_value, None).target
    except BaseException:
        engine.close()
        raise

    def close() -> None:
        probes.close()
        engine.close()

    return _Opened(checks, probes, profile, close, flows=engine)


class TesterAgent:
    """The one tester this agent opened for a controller. Mutable: it keeps the
    opened tester, and the trial armed last (the loop's later calls are about it)."""

    def __init__(self, opener: Opener = open_tester, flows_opener: Opener = open_tester_flows
                 ) -> None:
        self._opener = opener
        self._flows_opener = flows_opener
        self._opened: _Opened | None = None

    def open(self, document: object) -> dict[str, Any]:
        if not isinstance(document, dict) or not {"topology", "tester", "run_value"} \
                <= set(document) or not {"profile", "otg_config"} & set(document):
            raise AgentError("open needs {topology, profile or otg_config, tester, "
                             "run_value}: the controller's topology and profile as YAML "
                             "text, or its OTG config")
        if self._opened is not None:
            raise AgentError("this agent's tester is open for another run: close it first "
                             "(POST .../close), or wait for that run to end", status=409)
        try:
            topology_data = yaml.safe_load(str(document["topology"]))
            profile_data = (yaml.safe_load(str(document["profile"]))
                            if "profile" in document else None)
        except yaml.YAMLError as unread:
            raise AgentError(f"the topology or profile sent is not YAML: {unread}") from None
        topology = topology_from_dict(topology_data,
                                      str(document.get("topology_source", "topology")))
        opener = self._opener
        if profile_data is not None:
            profile = profile_from_dict(profile_data,
                                        str(document.get("profile_source", "profile")))
        else:
            # The same streams as the controller's: the same config, mapped the same way.
            try:
                drain_s = float(document.get("drain_s", DRAIN_S))
            except (TypeError, ValueError):
                raise AgentError(f"drain_s {document.get('drain_s')!r}: expected seconds") \
                    from None
            try:
                config = map_config(document["otg_config"], topology)
            except OtgError as unmapped:
                raise AgentError("the OTG config sent does not map onto this agent's "
                                 f"topology: {'; '.join(unmapped.errors)}") from None
            profile = flows_profile(config, drain_s)
            opener = self._flows_opener
        self._opened = opener(topology, profile, str(document["tester"]),
                              int(document["run_value"]))
        return {name: encode(getattr(self._opened.trials, name)) for name in PROPERTIES}

    def close(self) -> None:
        opened, self._opened = self._opened, None
        if opened is not None:
            opened.close()

    def call(self, method: str, args: list[Any]) -> Any:
        opened = self._opened
        if opened is None:
            raise AgentError("no tester is open here: POST .../open first", status=409)
        handler = _METHODS.get(method)
        if handler is None:
            raise AgentError(f"unknown method {method!r}; known: {', '.join(sorted(_METHODS))}",
                             status=404)
        try:
            return encode(handler(opened, *[decode(arg) for arg in args]))
        except AgentError:
            raise  # already says why, with its status
        except (ConfigError, ValueError, TypeError) as refused:
            raise AgentError(str(refused)) from None


def _armed(opened: _Opened) -> ArmedTrial:
    if opened.armed is None:
        raise AgentError("no trial is armed here: call arm first", status=409)
    return opened.armed


def _arm(opened: _Opened, spec: TrialSpec) -> ArmedTrial:
    opened.armed = opened.trials.arm(spec)
    return opened.armed


def _probe(opened: _Opened, source: int, probe_id: int) -> StreamConfig:
    return replace(opened.stream(source), id=probe_id)


def _flows(opened: _Opened) -> Any:
    if opened.flows is None:
        raise AgentError("this tester is open for trials, not OTG flows: open it with "
                         "otg_config", status=409)
    return opened.flows


def _plans(opened: _Opened, values: list[list[Any]]) -> list[FlowPlan]:
    """targets.remote_flows.plan_values, back: each with this agent's stream."""
    try:
        return [FlowPlan(opened.stream(int(sid)), int(rate), int(budget),
                         bytes.fromhex(str(template)), int(burst), int(gap))
                for sid, rate, budget, template, burst, gap in values]
    except (TypeError, ValueError) as malformed:
        raise AgentError(f"a flow plan is malformed: {malformed}") from None


_METHODS: Final[dict[str, Callable[..., Any]]] = {
    "port_names": lambda o: dict(o.trials.port_names()),
    "read_ports": lambda o: o.trials.read_ports(),
    "read_program": lambda o: o.trials.read_program(),
    "read_arrivals": lambda o: o.trials.read_arrivals(),
    "arm": _arm,
    "start": lambda o, spec: o.trials.start(_armed(o), spec),
    "retune": lambda o, rates: o.trials.retune(_armed(o), rates),
    "read_sent": lambda o, senders: dict(o.trials.read_sent(senders)),
    "read_received": lambda o, ids: dict(o.trials.read_received(ids)),
    "set_tx_clock_correction": lambda o, sid, ns: o.trials.set_tx_clock_correction(sid, ns),
    "stop": lambda o: o.trials.stop(_armed(o)),
    "rx_kinds": lambda o, before, after: o.trials.rx_kinds(before, after),
    "widen_latency_bins": lambda o, edges: o.trials.widen_latency_bins(tuple(edges)),
    "stream_stats": lambda o, spec, before, after: o.trials.stream_stats(_armed(o), spec,
                                                                         before, after),
    "extras": lambda o, streams, before, after: o.trials.extras(_armed(o), streams, before,
                                                                after),
    "expect_probe": lambda o, source, pid: o.probes.expect_probe(_probe(o, source, pid)),
    "send_probe": lambda o, source, pid, frames, rate, correction: o.probes.send_probe(
        _probe(o, source, pid), frames, rate, correction),
    "probe_minimum": lambda o, pid: o.probes.probe_minimum(pid),
    "end_probe": lambda o, pid: o.probes.end_probe(pid),
    "ptp_state": lambda o: o.probes.ptp_state(),
    "flow_snapshot": lambda o: _flows(o).snapshot(),
    "flow_run_values_in_use": lambda o: tuple(sorted(_flows(o).run_values_in_use())),
    "flow_expect": lambda o, plans, epoch, run: _flows(o).expect(_plans(o, plans), epoch, run),
    "flow_start": lambda o, plans, epoch, run: _flows(o).start(_plans(o, plans), epoch, run),
    "flow_resume": lambda o, plans, epoch, run: _flows(o).resume(_plans(o, plans), epoch,
                                                                 run),
    "flow_generated": lambda o, sid: _flows(o).generated(sid),
    "flow_stop": lambda o, sid: _flows(o).stop_flow(sid),
    "flow_pause": lambda o, sids: _flows(o).pause(list(sids)),
    "flow_latency": lambda o, sid: _flows(o).latency(sid),
    "flow_set_tx_clock_correction": lambda o, sid, ns: _flows(o).set_tx_clock_correction(sid,
                                                                                        ns),
}
METHODS: Final = tuple(sorted(_METHODS))
