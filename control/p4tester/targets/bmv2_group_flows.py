"""OTG flows across several BMv2 testers (tester.group_flows): each tester's flow engine
(targets.bmv2_flows) on its own switch, opened as a tester of several is
(bmv2_group.GroupSession: its clock set to this host's, plus a simulated one where the
topology gives it), and the probes between every two testers that exchange flows.
A tester on another host runs its flows through its host's agent (targets.remote_flows).
Docs: docs/several-testers.md."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from p4tester.config.profile import Profile
from p4tester.config.topology import TesterSwitch, Topology
from p4tester.dataplane.run_identity import draw_run_value
from p4tester.targets.bmv2_flows import Bmv2FlowEngine
from p4tester.targets.bmv2_group import GroupSession, check_bmv2_group
from p4tester.targets.bmv2_probes import Bmv2ProbeSide
from p4tester.targets.bmv2_session import TesterSession
from p4tester.targets.remote_flows import remote_flow_member
from p4tester.tester.group_flows import FlowMember, GroupFlowEngine
from p4tester.tester.group_plan import check_group_profile, probe_pairs, probe_paths


def bmv2_flow_member(topology: Topology, profile: Profile, tester: TesterSwitch,
                     push_pipeline: bool, probe_run_value: int) -> FlowMember:
    """Tester `tester`'s flow engine and probes on this host's switch, not yet opened
    (the controller's group opens it, or the agent of the tester's host)."""
    def session(own: Topology, flows: Profile, *, push_pipeline: bool) -> TesterSession:
        return GroupSession(topology, flows, tester, push_pipeline=push_pipeline)

    engine = Bmv2FlowEngine(topology.tester(tester.name), profile,
                            push_pipeline=push_pipeline, session_factory=session)
    probes = Bmv2ProbeSide(tester.name, engine.session, probe_run_value, tester.ptp_uds)
    return FlowMember(tester.name, engine, probes,
                      frozenset(p.number for p in engine.session.topology.ports))


def bmv2_group_flow_engine(topology: Topology, profile: Profile, otg_config: Mapping[str, Any],
                           *, push_pipeline: bool) -> GroupFlowEngine:
    """Not yet opened (FlowEngine.open wires every switch, here or by its agent). One
    probe run value for the engine's life: the probes' stream ids are none of the
    flows'. otg_config: the config as posted, which an agent maps as the controller
    did."""
    check_bmv2_group(topology)
    check_group_profile(topology, profile)
    pairs = probe_pairs(topology, profile)
    probe_run_value = draw_run_value(())
    members = [remote_flow_member(topology, profile, tester, otg_config, probe_run_value)
               if tester.reach.agent
               else bmv2_flow_member(topology, profile, tester, push_pipeline, probe_run_value)
               for tester in topology.testers]
    return GroupFlowEngine(members, profile.streams, probe_paths(pairs, members),
                           topology.asymmetry_ns)
