"""The trial runner an experiment uses, chosen by the topology's switch target from
the targets that offer one (each target module opens its own: BMv2 over P4Runtime,
Tofino over BfRt, whose SDE client is imported only when a Tofino runner opens, eBPF
over its BPF maps), or a group of several testers (config.testers)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from contextlib import AbstractContextManager
from typing import Final

from p4tester.config.errors import ConfigError
from p4tester.config.profile import Profile
from p4tester.config.topology import Topology
from p4tester.experiments.runner import TrialRunner
from p4tester.targets.bmv2_group import open_bmv2_group_trials
from p4tester.targets.bmv2_trials import open_bmv2_trials
from p4tester.targets.ebpf.group import open_ebpf_group_trials
from p4tester.targets.ebpf.trials import open_ebpf_trials
from p4tester.targets.mixed_group import open_mixed_group_trials
from p4tester.targets.tofino.group import open_tofino_group_trials
from p4tester.targets.tofino.runner import open_tofino_trials

Opener = Callable[..., AbstractContextManager[TrialRunner]]
TRIAL_RUNNERS: Final[Mapping[str, Opener]] = {"bmv2": open_bmv2_trials,
                                              "tofino": open_tofino_trials,
                                              "ebpf": open_ebpf_trials}
GROUP_RUNNERS: Final[Mapping[str, Opener]] = {"bmv2": open_bmv2_group_trials,
                                              "ebpf": open_ebpf_group_trials,
                                              "tofino": open_tofino_group_trials}


def open_trial_runner(topology: Topology, profile: Profile, *,
                      push_pipeline: bool) -> AbstractContextManager[TrialRunner]:
    """Connected and wired for the profile's streams; disconnected after the block."""
    if topology.testers:
        # config.testers admits a group of one target (GROUP_TARGETS), or of eBPF and
        # Tofino testers, which stamp in one unit.
        targets = {t.switch.target for t in topology.testers}
        group = (GROUP_RUNNERS[targets.pop()] if len(targets) == 1
                 else open_mixed_group_trials)
        return group(topology, profile, push_pipeline=push_pipeline)
    target = topology.switch.target
    if target not in TRIAL_RUNNERS:
        raise ConfigError(f"{topology.source}: switch target {target!r} runs no trials; "
                          f"known: {', '.join(sorted(TRIAL_RUNNERS))}")
    return TRIAL_RUNNERS[target](topology, profile, push_pipeline=push_pipeline)
