"""OTG flows across several eBPF testers (tester.group_flows): each tester's flow
engine on its own ports, here or through its host's agent (targets.remote_flows), a
simulated clock where the topology gives one, and the probes between every two
testers that exchange flows. Docs: docs/several-testers.md."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from p4tester.config.profile import Profile
from p4tester.config.topology import TesterSwitch, Topology
from p4tester.dataplane.run_identity import draw_run_value
from p4tester.targets.ebpf.flows import EbpfFlowEngine
from p4tester.targets.ebpf.probes import EbpfProbeSide
from p4tester.targets.ebpf.session import EbpfSession
from p4tester.targets.remote_flows import remote_flow_member
from p4tester.tester.group_flows import FlowMember, GroupFlowEngine
from p4tester.tester.group_plan import check_group_profile, probe_pairs, probe_paths


def _local(topology: Topology, profile: Profile, tester: TesterSwitch,
           otg_config: Mapping[str, Any], probe_run_value: int) -> FlowMember:
    del otg_config  # this process mapped it
    own = topology.tester(tester.name)
    session = EbpfSession(own, profile)
    probes = EbpfProbeSide(tester.name, session, probe_run_value, tester.ptp_uds)
    engine = EbpfFlowEngine(own, profile, push_pipeline=False, session=session,
                            simulated_clock=tester.clock)
    return FlowMember(tester.name, engine, probes, frozenset(session.port_numbers),
                      probes.close)


def ebpf_group_flow_engine(topology: Topology, profile: Profile,
                           otg_config: Mapping[str, Any]) -> GroupFlowEngine:
    """Not yet opened (FlowEngine.open loads every tester). One probe run value for
    the engine's life: the probes' stream ids are none of the flows'."""
    check_group_profile(topology, profile)
    pairs = probe_pairs(topology, profile)
    probe_run_value = draw_run_value(())
    members = [(remote_flow_member if tester.reach.agent else _local)(
        topology, profile, tester, otg_config, probe_run_value) for tester in topology.testers]
    return GroupFlowEngine(members, profile.streams, probe_paths(pairs, members),
                           topology.asymmetry_ns)
