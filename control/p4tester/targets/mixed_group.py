"""eBPF and Tofino testers as one trial runner (tester.tester_group): both stamp in
nanoseconds, so a stream may leave one and be checked by the other. Each tester is
opened as its own target's group opens it: an eBPF tester here
(targets.ebpf.local_tester) or through its host's agent (targets.remote_member), a
Tofino switch at its BfRt server (targets.tofino.group); one run value across all."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager

from p4tester.config.errors import ConfigError
from p4tester.config.profile import Profile
from p4tester.config.topology import TesterSwitch, Topology
from p4tester.dataplane.run_identity import draw_run_value
from p4tester.experiments.runner import TrialRunner
from p4tester.targets.ebpf.local_tester import open_local_tester
from p4tester.targets.remote_member import remote_member
from p4tester.targets.tofino.group import (
    ClientOf,
    TofinoGroupRunner,
    check_tofino_group,
    open_member,
    refuse_push_pipeline,
    sde_client,
)
from p4tester.tester.group_plan import check_group_profile, probe_pairs
from p4tester.tester.tester_group import GroupMember

MIXED_TARGETS = frozenset({"ebpf", "tofino"})


def _ebpf_member(stack: ExitStack, topology: Topology, profile: Profile,
                 tester: TesterSwitch, run_value: int) -> GroupMember:
    if tester.reach.agent:
        return remote_member(stack, topology, profile, tester, run_value)
    local = open_local_tester(topology, profile, tester, run_value)
    stack.callback(local.close)
    return GroupMember(tester.name, local.trials, local.probes,
                       frozenset(local.session.port_numbers))


@contextmanager
def open_mixed_group_trials(topology: Topology, profile: Profile, *, push_pipeline: bool,
                            client_of: ClientOf = sde_client) -> Iterator[TrialRunner]:
    """Every tester opened for the block: eBPF programs loaded (here or by their
    agents), Tofino switches connected and set up."""
    targets = {t.switch.target for t in topology.testers}
    if not targets <= MIXED_TARGETS:
        raise ConfigError(f"{topology.source}: testers of targets {', '.join(sorted(targets))} "
                          f"do not run together; eBPF and Tofino testers do")
    if push_pipeline:
        refuse_push_pipeline()
    switches = dataclasses.replace(
        topology, testers=tuple(t for t in topology.testers if t.switch.target == "tofino"))
    check_tofino_group(switches)
    check_group_profile(topology, profile)
    probe_pairs(topology, profile)  # refused before anything is written or loaded
    run_value = draw_run_value(())
    with ExitStack() as stack:
        members = [open_member(stack, topology, profile, tester, run_value, client_of)
                   if tester.switch.target == "tofino"
                   else _ebpf_member(stack, topology, profile, tester, run_value)
                   for tester in topology.testers]
        # Names a Tofino switch that stops answering (an agent answers for its tester).
        yield TofinoGroupRunner(topology, profile, members)
