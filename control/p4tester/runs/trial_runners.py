"""The trial runner an experiment uses, chosen by the topology's switch target: BMv2
over P4Runtime, or Tofino over BfRt (the SDE's client is imported only then)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from p4tester.config.profile import Profile
from p4tester.config.topology import Topology
from p4tester.experiments.runner import TrialRunner


@contextmanager
def open_trial_runner(topology: Topology, profile: Profile, *,
                      push_pipeline: bool) -> Iterator[TrialRunner]:
    """Connected and wired for the profile's streams; disconnected after the block."""
    if topology.switch.target == "tofino":
        from p4tester.targets.tofino.runner import TofinoTrialRunner, target_from_config
        from p4tester.targets.tofino.sde_client import SdeBfrtClient

        # bf_switchd loads the program from its --conf-file: there is nothing to push.
        client = SdeBfrtClient(topology.switch.grpc, device_id=topology.switch.device_id)
        try:
            runner = TofinoTrialRunner(target_from_config(client, topology, profile),
                                       topology, profile)
            runner.open()
            yield runner
        finally:
            client.close()
        return

    from p4tester.targets.bmv2_session import TesterSession
    from p4tester.targets.bmv2_trials import SwitchTrialRunner

    with TesterSession(topology, profile, push_pipeline=push_pipeline) as session:
        yield SwitchTrialRunner(session)
