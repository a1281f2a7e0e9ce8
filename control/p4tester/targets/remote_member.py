"""One tester of several on another host, through its host's agent (targets.
remote_tester): the agent opens it with the controller's topology and profile as they
are on file, whatever its target (eBPF, BMv2), and closes it when the run ends."""

from __future__ import annotations

from contextlib import ExitStack, suppress
from pathlib import Path

from p4tester.config.errors import ConfigError
from p4tester.config.profile import Profile
from p4tester.config.serving import read_token
from p4tester.config.topology import TesterSwitch, Topology
from p4tester.experiments.errors import TesterUnanswered
from p4tester.targets.remote_tester import RemoteTester
from p4tester.tester.tester_group import GroupMember


def remote_member(stack: ExitStack, topology: Topology, profile: Profile,
                  tester: TesterSwitch, run_value: int) -> GroupMember:
    """Opened through the tester's agent until the stack closes."""
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
