"""Several eBPF testers as one trial runner (tester.tester_group): each loads the
program onto its own ports with a session of its own, here or through its host's
agent (targets.remote_tester), one run value across all (one run identity: a frame of
another run is stale on every tester), and a simulated clock where the topology gives
one (config.testers)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import ExitStack, contextmanager, suppress
from pathlib import Path

from p4tester.config.errors import ConfigError
from p4tester.config.profile import Profile
from p4tester.config.serving import read_token
from p4tester.config.topology import TesterSwitch, Topology
from p4tester.dataplane.run_identity import draw_run_value
from p4tester.experiments.errors import TesterUnanswered
from p4tester.experiments.runner import TrialRunner
from p4tester.targets.ebpf.local_tester import open_local_tester
from p4tester.targets.group_runner import GroupRunner
from p4tester.targets.remote_tester import RemoteTester
from p4tester.tester.group_plan import check_group_profile, probe_pairs
from p4tester.tester.tester_group import GroupMember


def _local_member(stack: ExitStack, topology: Topology, profile: Profile,
                  tester: TesterSwitch, run_value: int) -> GroupMember:
    local = open_local_tester(topology, profile, tester, run_value)
    stack.callback(local.close)
    return GroupMember(tester.name, local.trials, local.probes,
                       frozenset(local.session.port_numbers))


def _remote_member(stack: ExitStack, topology: Topology, profile: Profile,
                   tester: TesterSwitch, run_value: int) -> GroupMember:
    """A tester on another host (or process), through its agent: the agent loads the
    program with the controller's topology and profile, as they are on file."""
    token = read_token(Path(tester.reach.token_file)) if tester.reach.token_file else None
    remote = RemoteTester(tester.name, tester.reach.agent, token, profile,
                          tls_ca=tester.reach.tls_ca)
    remote.open(topology_text(topology), topology.source,
                _text(profile.source, "profile"), profile.source, run_value)
    stack.callback(_closed, remote)
    ports = frozenset(p.number for p in topology.ports if p.tester == tester.name)
    return GroupMember(tester.name, remote, remote, ports)


def _closed(remote: RemoteTester) -> None:
    """At the run's end: an agent that stopped answering has nothing left to close."""
    with suppress(TesterUnanswered):
        remote.close()


def topology_text(topology: Topology) -> str:
    """The topology as it is on file, for a remote tester's agent to load."""
    return _text(topology.source, "topology")


def _text(source: str, what: str) -> str:
    try:
        return Path(source).read_text()
    except OSError as unread:
        raise ConfigError(f"{source}: a tester reached through its agent gets the {what} "
                          f"as it is on file, and it cannot be read: {unread}") from None


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
        members = [(_remote_member if tester.reach.agent else _local_member)(
            stack, topology, profile, tester, run_value) for tester in topology.testers]
        yield GroupRunner(topology, profile, members)
