"""Several testers of one target as one trial runner: the one trial loop over a
TesterGroup (tester.tester_group), with the probes between every two testers that
exchange streams and the lab DUT's counters. Each target's module opens its members
(targets.ebpf.group, targets.bmv2_group)."""

from __future__ import annotations

from collections.abc import Sequence

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
    """TrialRunner over several testers."""

    def __init__(self, topology: Topology, profile: Profile,
                 members: Sequence[GroupMember]) -> None:
        self.members = tuple(members)
        self.group = TesterGroup(self.members, profile.streams,
                                 probe_paths(probe_pairs(topology, profile), self.members),
                                 asymmetry_ns=topology.asymmetry_ns)
        self.loop = TrialLoop(self.group, dut_counters_for(topology))

    def run_trial(self, spec: TrialSpec) -> TrialResult:
        try:
            return self.loop.run_trial(spec)
        except TesterUnanswered:
            # The others stop sending: the run goes on (or ends) without this trial.
            self.group.stop_what_answers()
            raise
