"""Several BMv2 testers as one trial runner (tester.tester_group): each a switch of
its own (its grpc and thrift ports), sending the streams whose TX port is its own and
checking those whose RX ports are, one run value across all.

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
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
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


def open_session(stack: ExitStack, topology: Topology, profile: Profile,
                 tester: TesterSwitch, push_pipeline: bool) -> TesterSession:
    """The tester's switch with the program (pushed if asked or missing), the streams
    it sends wired, the several-port streams it checks given their slots, its clock
    set; closed when the stack closes. Its profile keeps every stream (the trials
    send their own and check theirs)."""
    own = topology.tester(tester.name)
    ports = {p.number for p in own.ports}
    session = TesterSession(own, dataclasses.replace(
        profile, streams=tuple(s for s in profile.streams if s.tx_port in ports)),
        push_pipeline=push_pipeline)
    session.open()
    stack.callback(session.close)
    prepared = {s.id: s for s in session.profile.streams}  # neighbours resolved
    session.profile = dataclasses.replace(
        session.profile, streams=tuple(prepared.get(s.id, s) for s in profile.streams))
    session.receive = profile_receive_slots(session.profile)
    session.dataplane.set_receive_slots(slot_entries(session.receive))
    start = Bmv2Thrift(own.switch.thrift_port).clock_start_us()
    elapsed_us = time.time_ns() // NS_PER_US - start.epoch_us
    session.dataplane.set_tester_clock(clock_setting(start, tester.clock, elapsed_us),
                                       tester.clock.drift_shift)
    return session


def group_member(session: TesterSession, topology: Topology, tester: TesterSwitch,
                 run_value: int) -> GroupMember:
    trials = Bmv2Trials(session, KernelInterfaceCounters(tester_iface), run_value,
                        whole=topology)
    return GroupMember(tester.name, trials,
                       Bmv2ProbeSide(tester.name, session, run_value, tester.ptp_uds),
                       frozenset(p.number for p in session.topology.ports))


class Bmv2GroupRunner(SwitchGroupRunner):
    """GroupRunner over several BMv2 switches, which names a switch that died."""

    failures = (P4RuntimeError, DataplaneError, ThriftError, OSError)
    server = "simple_switch_grpc"


def check_bmv2_group(topology: Topology) -> None:
    """Each BMv2 tester a switch of its own: its grpc address and thrift port."""
    seen: dict[tuple[str, str], str] = {}
    for tester in topology.testers:
        for key, value in (("grpc", tester.switch.grpc),
                           ("thrift_port", str(tester.switch.thrift_port))):
            other = seen.setdefault((key, value), tester.name)
            if other != tester.name:
                raise ConfigError(f"{topology.source}: testers {other} and {tester.name} have "
                                  f"the same {key} {value}: each BMv2 tester is a switch of "
                                  f"its own; give {tester.name} its own grpc and thrift_port")


@contextmanager
def open_bmv2_group_trials(topology: Topology, profile: Profile, *,
                           push_pipeline: bool) -> Iterator[TrialRunner]:
    """Every tester's switch connected and wired for the block."""
    check_bmv2_group(topology)
    check_group_profile(topology, profile)
    probe_pairs(topology, profile)  # refused before anything is written
    with ExitStack() as stack:
        sessions = [open_session(stack, topology, profile, tester, push_pipeline)
                    for tester in topology.testers]
        # Apart from every switch's previous run: its frames may still be in a DUT.
        run_value = draw_run_value(frozenset().union(
            *(s.dataplane.run_values_in_use() for s in sessions)))
        yield Bmv2GroupRunner(topology, profile, [
            group_member(session, topology, tester, run_value)
            for session, tester in zip(sessions, topology.testers, strict=True)])
