"""Several eBPF testers as one trial runner (tester.tester_group): each loads the
program onto its own ports with a session of its own, here or through its host's
agent (targets.remote_member), one run value across all (one run identity: a frame of
another run is stale on every tester), and a simulated clock where the topology gives
one (config.testers)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import ExitStack, contextmanager

from p4tester.config.profile import Profile
from p4tester.config.topology import TesterSwitch, Topology
from p4tester.dataplane.run_identity import draw_run_value
from p4tester.experiments.runner import TrialRunner
from p4tester.targets.ebpf.local_tester import open_local_tester
from p4tester.targets.group_runner import GroupRunner
from p4tester.targets.remote_member import remote_member
from p4tester.tester.group_plan import check_group_profile, probe_pairs
from p4tester.tester.tester_group import GroupMember


def _local_member(stack: ExitStack, topology: Topology, profile: Profile,
                  tester: TesterSwitch, run_value: int) -> GroupMember:
    local = open_local_tester(topology, profile, tester, run_value)
    stack.callback(local.close)
    return GroupMember(tester.name, local.trials, local.probes,
                       frozenset(local.session.port_numbers))


@contextmanager
def open_ebpf_group_trials(topology: Topology, profile: Profile, *,
                           push_pipeline: bool) -> Iterator[TrialRunner]:
    """Every tester's program loaded onto its ports for the block (here, or by its
    agent), removed after."""
    del push_pipeline
    check_group_profile(topology, profile)
    probe_pairs(topology, profile)  # refused before anything loads
    run_value = draw_run_value(())
    with ExitStack() as stack:
        members = [(remote_member if tester.reach.agent else _local_member)(
            stack, topology, profile, tester, run_value) for tester in topology.testers]
        yield GroupRunner(topology, profile, members)
