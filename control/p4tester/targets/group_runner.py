"""Several testers of one target as one trial runner: the one trial loop over a
TesterGroup (tester.tester_group), with the probes between every two testers that
exchange streams and the lab DUT's counters. Each target's module opens its members
(targets.ebpf.group, targets.bmv2_group, targets.tofino.group)."""

from __future__ import annotations

import socket
import time
from collections.abc import Callable, Sequence
from typing import Final

from p4tester.config.profile import Profile
from p4tester.config.topology import Topology
from p4tester.experiments.errors import TesterUnanswered
from p4tester.experiments.runner import TrialSpec
from p4tester.lab.dut_counters import dut_counters_for
from p4tester.results.model import TrialResult
from p4tester.tester.group_plan import probe_pairs, probe_paths
from p4tester.tester.tester_group import GroupMember, TesterGroup
from p4tester.tester.trial_loop import TrialLoop


class GroupRunner:
    """TrialRunner over several testers (clock and sleep: injectable for tests)."""

    def __init__(self, topology: Topology, profile: Profile,
                 members: Sequence[GroupMember], *,
                 sleep: Callable[[float], None] = time.sleep,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.members = tuple(members)
        self.group = TesterGroup(self.members, profile.streams,
                                 probe_paths(probe_pairs(topology, profile), self.members),
                                 asymmetry_ns=topology.asymmetry_ns, clock=clock, sleep=sleep)
        self.loop = TrialLoop(self.group, dut_counters_for(topology), sleep=sleep, clock=clock)

    def run_trial(self, spec: TrialSpec) -> TrialResult:
        try:
            return self.loop.run_trial(spec)
        except TesterUnanswered:
            # The others stop sending: the run goes on (or ends) without this trial.
            self.group.stop_what_answers()
            raise


# The targets whose testers are switches reached at their grpc address.
SWITCH_TARGETS: Final = ("bmv2", "tofino")


class SwitchGroupRunner(GroupRunner):
    """GroupRunner over testers that are switches reached at their grpc address (BMv2,
    Tofino), which names a switch that stopped answering. A subclass gives the errors
    its clients raise (`failures`) and what serves that address (`server`)."""

    failures: tuple[type[Exception], ...] = (OSError,)
    server = "the switch"

    def __init__(self, topology: Topology, profile: Profile,
                 members: Sequence[GroupMember], *,
                 sleep: Callable[[float], None] = time.sleep,
                 clock: Callable[[], float] = time.monotonic) -> None:
        super().__init__(topology, profile, members, sleep=sleep, clock=clock)
        self._sleep = sleep
        # The switches this host reaches at their grpc address: an agent's is its
        # host's (its agent answers for it: targets.remote_tester raises
        # TesterUnanswered), and an eBPF tester of a mixed group has none.
        self._testers = tuple(t for t in topology.testers
                              if not t.reach.agent and t.switch.target in SWITCH_TARGETS)

    def run_trial(self, spec: TrialSpec) -> TrialResult:
        try:
            return super().run_trial(spec)
        except self.failures as failure:
            # A switch that went away fails a trial in whatever call met it first (a
            # write, a read): which one is gone, its grpc port tells. A killed process
            # may still accept on its port while the kernel tears it down (a busy host
            # took longer than one look): looked at again, bounded.
            gone = [t for t in self._testers if not listening(t.switch.grpc)]
            for _ in range(GONE_LOOKS - 1):
                if gone:
                    break
                self._sleep(GONE_LOOK_S)
                gone = [t for t in self._testers if not listening(t.switch.grpc)]
            if not gone:
                raise
            self.group.stop_what_answers()  # the others stop sending
            raise TesterUnanswered("; ".join(
                f"tester {t.name}'s switch at {t.switch.grpc} does not answer" for t in gone)
                + f" ({failure}): is {self.server} still running there?") from None


# How long a switch's gRPC port may take to accept a connection before it is gone.
LISTEN_TIMEOUT_S: Final = 2.0
# After a failed call, how often and how far apart the switches' ports are looked at
# before the failure is taken as no switch's going away.
GONE_LOOKS: Final = 5
GONE_LOOK_S: Final = 0.5


def listening(address: str, timeout_s: float = LISTEN_TIMEOUT_S) -> bool:
    """Whether something accepts connections at host:port (a switch's gRPC server)."""
    host, _, port = address.rpartition(":")
    try:
        with socket.create_connection((host, int(port)), timeout=timeout_s):
            return True
    except OSError:
        return False
