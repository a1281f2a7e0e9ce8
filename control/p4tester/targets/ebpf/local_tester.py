"""One eBPF tester of several, on this host: the program loaded onto its own ports
(Topology.tester), its simulated clock set where the topology gives one, and its
trial target and probe side. The controller's group opens one per local tester
(targets.ebpf.group), a host's agent the one it serves (otg.agent)."""

from __future__ import annotations

from dataclasses import dataclass

from p4tester.config.profile import Profile
from p4tester.config.topology import TesterSwitch, Topology
from p4tester.targets.ebpf.probes import EbpfProbeSide
from p4tester.targets.ebpf.session import EbpfSession
from p4tester.targets.ebpf.trials import EbpfTrials


@dataclass(frozen=True, slots=True)
class LocalTester:
    session: EbpfSession
    trials: EbpfTrials
    probes: EbpfProbeSide

    def close(self) -> None:
        self.trials.close()
        self.probes.close()
        self.session.close()


def open_local_tester(topology: Topology, profile: Profile, tester: TesterSwitch,
                      run_value: int) -> LocalTester:
    """Loaded until close(); `topology` is the whole one (the streams' line rates)."""
    session = EbpfSession(topology.tester(tester.name), profile)
    session.open()
    try:
        session.set_simulated_clock(tester.clock)
        return LocalTester(session, EbpfTrials(session, run_value, whole=topology),
                           EbpfProbeSide(tester.name, session, run_value, tester.ptp_uds))
    except BaseException:
        session.close()
        raise
