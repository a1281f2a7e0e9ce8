"""Several BMv2 testers as one trial runner (tester.tester_group): each a switch of
its own (its grpc and thrift ports), sending the streams whose TX port is its own and
checking those whose RX ports are, one run value across all. A tester on another host
is driven through that host's agent (targets.remote_member), which opens it there as
open_local_tester does here: its ports' interface counters and its thrift server are
that host's.

Clocks: a BMv2 switch stamps with its clock in us since the switch started, so two
switches differ by when they started. At open, each tester's clock is set to this
host's realtime clock (modulo 2^32 us) as far as a read over thrift can tell
(Bmv2Thrift.clock_start_us), plus the simulated clock the topology gives it: the
testers' offsets are then those of their hosts' clocks (what NTP or PTP leaves) and
the simulated ones, well within what the probes measure, and the probes measure them.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from typing import Final

from p4tester.config.errors import ConfigError
from p4tester.config.profile import Profile
from p4tester.config.testers import SimulatedClock
from p4tester.config.topology import TesterSwitch, Topology
from p4tester.dataplane.program import DataplaneError
from p4tester.dataplane.run_identity import draw_run_value
from p4tester.experiments.runner import TrialRunner
from p4tester.lab.ifaces import tester_iface
from p4tester.p4rt.errors import P4RuntimeError
from p4tester.targets.bmv2_probes import Bmv2ProbeSide
from p4tester.targets.bmv2_session import TesterSession
from p4tester.targets.bmv2_thrift import Bmv2Thrift, ClockStart, ThriftError
from p4tester.targets.bmv2_trials import Bmv2Trials
from p4tester.targets.group_runner import SwitchGroupRunner
from p4tester.targets.remote_member import remote_member
from p4tester.tester.group_clocks import NS_PER_US
from p4tester.tester.group_plan import check_group_profile, probe_pairs
from p4tester.tester.port_counters import KernelInterfaceCounters
from p4tester.tester.receive_slots import profile_receive_slots, slot_entries
from p4tester.tester.tester_group import GroupMember

US_WRAP: Final = 1 << 32  # BMv2 stamps: 32-bit microseconds


def clock_setting(start: ClockStart, clock: SimulatedClock, elapsed_us: int) -> int:
    """The tester clock's offset (us, modulo 2^32) that makes the switch's stamps this
    host's realtime clock plus the simulated offset, less the drift the setting's shift
    has gained by `elapsed_us` (so the drift starts from now)."""
    gained = elapsed_us >> clock.drift_shift if clock.drift_shift else 0
    return (start.epoch_us + clock.offset_ns // NS_PER_US - gained) % US_WRAP


class GroupSession(TesterSession):
    """The session of one tester of several: at open, the switch gets its program
    (pushed if asked or missing), the streams it sends wired, the several-port streams
    it checks their slots, and its clock set. Its profile keeps every stream (the
    trials and flows send their own and check theirs)."""

    def __init__(self, whole: Topology, profile: Profile, tester: TesterSwitch, *,
                 push_pipeline: bool) -> None:
        own = whole.tester(tester.name)
        ports = {p.number for p in own.ports}
        super().__init__(own, dataclasses.replace(
            profile, streams=tuple(s for s in profile.streams if s.tx_port in ports)),
            push_pipeline=push_pipeline)
        self.tester = tester
        self.every_stream = profile.streams

    def open(self) -> None:
        super().open()
        try:
            prepared = {s.id: s for s in self.profile.streams}  # neighbours resolved
            self.profile = dataclasses.replace(
                self.profile, streams=tuple(prepared.get(s.id, s) for s in self.every_stream))
            self.receive = profile_receive_slots(self.profile)
            self.dataplane.set_receive_slots(slot_entries(self.receive))
            start = Bmv2Thrift(self.topology.switch.thrift_port).clock_start_us()
            elapsed_us = time.time_ns() // NS_PER_US - start.epoch_us
            self.dataplane.set_tester_clock(
                clock_setting(start, self.tester.clock, elapsed_us),
                self.tester.clock.drift_shift)
        except BaseException:
            self.close()
            raise


def open_session(stack: ExitStack, topology: Topology, profile: Profile,
                 tester: TesterSwitch, push_pipeline: bool) -> TesterSession:
    """The tester's GroupSession opened, closed when the stack closes."""
    session = GroupSession(topology, profile, tester, push_pipeline=push_pipeline)
    session.open()
    stack.callback(session.close)
    return session


def group_member(session: TesterSession, topology: Topology, tester: TesterSwitch,
                 run_value: int) -> GroupMember:
    trials = Bmv2Trials(session, KernelInterfaceCounters(tester_iface), run_value,
                        whole=topology)
    return GroupMember(tester.name, trials,
                       Bmv2ProbeSide(tester.name, session, run_value, tester.ptp_uds),
                       frozenset(p.number for p in session.topology.ports))


@dataclass(frozen=True, slots=True)
class LocalBmv2Tester:
    """One BMv2 tester of several, opened on this host (a host's agent serves it)."""

    member: GroupMember
    close: Callable[[], None]


def open_local_tester(topology: Topology, profile: Profile, tester: TesterSwitch,
                      run_value: int) -> LocalBmv2Tester:
    """Tester `tester`'s switch on this host wired and its clock set (its program pushed
    where it has none), until close()."""
    stack = ExitStack()
    try:
        session = open_session(stack, topology, profile, tester, push_pipeline=False)
        return LocalBmv2Tester(group_member(session, topology, tester, run_value),
                               stack.close)
    except BaseException:
        stack.close()
        raise


class Bmv2GroupRunner(SwitchGroupRunner):
    """GroupRunner over several BMv2 switches, which names a switch that died."""

    failures = (P4RuntimeError, DataplaneError, ThriftError, OSError)
    server = "simple_switch_grpc"


def check_bmv2_group(topology: Topology) -> None:
    """Each BMv2 tester a switch of its own: its grpc address and thrift port on its
    host (this one, or its agent's)."""
    seen: dict[tuple[str, str, str], str] = {}
    for tester in topology.testers:
        for key, value in (("grpc", tester.switch.grpc),
                           ("thrift_port", str(tester.switch.thrift_port))):
            other = seen.setdefault((tester.reach.agent, key, value), tester.name)
            if other != tester.name:
                where = (f" on the host of agent {tester.reach.agent}" if tester.reach.agent
                         else "")
                raise ConfigError(f"{topology.source}: testers {other} and {tester.name} have "
                                  f"the same {key} {value}{where}: each BMv2 tester is a "
                                  f"switch of its own; give {tester.name} its own grpc and "
                                  "thrift_port")


@contextmanager
def open_bmv2_group_trials(topology: Topology, profile: Profile, *,
                           push_pipeline: bool) -> Iterator[TrialRunner]:
    """Every tester's switch connected and wired for the block."""
    check_bmv2_group(topology)
    check_group_profile(topology, profile)
    probe_pairs(topology, profile)  # refused before anything is written
    with ExitStack() as stack:
        sessions = {tester.name: open_session(stack, topology, profile, tester, push_pipeline)
                    for tester in topology.testers if not tester.reach.agent}
        # Apart from every switch's previous run here: its frames may still be in a DUT.
        # An agent's switch is not asked (as for eBPF testers): 1 chance in 256 that
        # this run's value is its previous run's.
        run_value = draw_run_value(frozenset().union(
            *(s.dataplane.run_values_in_use() for s in sessions.values())))
        yield Bmv2GroupRunner(topology, profile, [
            group_member(sessions[tester.name], topology, tester, run_value)
            if tester.name in sessions
            else remote_member(stack, topology, profile, tester, run_value)
            for tester in topology.testers])
