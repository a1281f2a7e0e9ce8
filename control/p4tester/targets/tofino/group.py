"""Several Tofino testers as one trial runner (tester.tester_group): each a switch of
its own (its BfRt server and device), sending the streams whose TX port is its own and
checking those whose RX ports are, one run value across all. Each keeps its chip's
last generator application for the clock probes (targets.tofino.probes).

Clocks: a Tofino stamps with 32 bits of its switch's clock in ns, so two switches
differ by whenever each was started, modulo 2^32 ns; that offset is all the stamps'
correction needs, and the probes measure it (no setting first, unlike BMv2's).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, ExitStack, contextmanager

from p4tester.config.errors import ConfigError
from p4tester.config.profile import Profile
from p4tester.config.topology import TesterSwitch, Topology
from p4tester.dataplane.run_identity import draw_run_value
from p4tester.experiments.runner import TrialRunner
from p4tester.targets.group_runner import SwitchGroupRunner
from p4tester.targets.tofino.bfrt import BfrtClient, BfrtError
from p4tester.targets.tofino.port_stats import MacPortCounters
from p4tester.targets.tofino.probes import TofinoProbeSide
from p4tester.targets.tofino.runner import TofinoTrials, open_target, target_from_config
from p4tester.tester.group_plan import check_group_profile, probe_pairs
from p4tester.tester.tester_group import GroupMember

# A BfRt client of one tester's switch (bf_switchd's gRPC server at its grpc address),
# closed after the block.
ClientOf = Callable[[TesterSwitch], AbstractContextManager[BfrtClient]]


@contextmanager
def sde_client(tester: TesterSwitch) -> Iterator[BfrtClient]:
    """The SDE's BfRt client of the tester's switch (imported only now: the SDE's
    Python modules need not be on a host without a Tofino tester)."""
    from p4tester.targets.tofino.sde_client import SdeBfrtClient

    client = SdeBfrtClient(tester.switch.grpc, device_id=tester.switch.device_id)
    try:
        yield client
    finally:
        client.close()


def open_member(stack: ExitStack, topology: Topology, profile: Profile, tester: TesterSwitch,
                run_value: int, client_of: ClientOf,
                clock: Callable[[], float] = time.monotonic) -> GroupMember:
    """One tester's switch, its target over the streams of its ports, ready for a run;
    its client closed when the stack closes."""
    client = stack.enter_context(client_of(tester))
    own = topology.tester(tester.name)
    target = target_from_config(client, own, profile, whole=topology)
    open_target(target, profile)
    ports = MacPortCounters(client, lambda: target.dev_ports, target.front_panel)
    trials = TofinoTrials(target, own, profile, ports, run_value, clock, whole=topology)
    return GroupMember(tester.name, trials,
                       TofinoProbeSide(tester.name, target, run_value, profile.frame_sizes),
                       frozenset(p.number for p in own.ports))


class TofinoGroupRunner(SwitchGroupRunner):
    """GroupRunner over several Tofino switches, which names a switch that stopped
    answering."""

    failures = (BfrtError, OSError)
    server = "bf_switchd"


def check_tofino_group(topology: Topology) -> None:
    """Each Tofino tester a switch of its own: its BfRt address and device."""
    seen: dict[tuple[str, int], str] = {}
    for tester in topology.testers:
        where = (tester.switch.grpc, tester.switch.device_id)
        other = seen.setdefault(where, tester.name)
        if other != tester.name:
            raise ConfigError(f"{topology.source}: testers {other} and {tester.name} have the "
                              f"same grpc {where[0]} and device_id {where[1]}: each Tofino "
                              f"tester is a switch of its own; give {tester.name} its own")


def refuse_push_pipeline() -> None:
    raise ConfigError(
        "--push-pipeline: a Tofino switch runs the program bf_switchd loaded from its "
        "--conf-file, which no client can replace; start each tester's bf_switchd with "
        "the tester's program (docs/tofino.md) and run without --push-pipeline")


@contextmanager
def open_tofino_group_trials(topology: Topology, profile: Profile, *, push_pipeline: bool,
                             client_of: ClientOf = sde_client) -> Iterator[TrialRunner]:
    """Every tester's switch connected and set up for the block."""
    if push_pipeline:
        refuse_push_pipeline()
    check_tofino_group(topology)
    check_group_profile(topology, profile)
    probe_pairs(topology, profile)  # refused before anything is written
    run_value = draw_run_value(())
    with ExitStack() as stack:
        members = [open_member(stack, topology, profile, tester, run_value, client_of)
                   for tester in topology.testers]
        yield TofinoGroupRunner(topology, profile, members)
