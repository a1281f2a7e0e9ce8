"""Self-check arithmetic (issue 10): interface counters against the program's, with
counter wrap, frames in flight at the trial's edges and foreign frames, exactly."""

from __future__ import annotations

from pathlib import Path

import pytest

from p4tester.results.checks import (
    DUT_LIMITED,
    TESTER_LIMITED,
    TRIAL_ERROR,
    HostLoad,
    PortCheck,
    SelfCheck,
)
from p4tester.results.model import TrialResult
from p4tester.tester.host_load import CpuTimes, host_load, parse_cpu_times, steal_fraction
from p4tester.tester.port_counters import (
    InterfaceCounters,
    KernelInterfaceCounters,
    counter_delta,
)
from p4tester.tester.selfcheck import (
    InterfaceBracket,
    ProgramPortCounts,
    build_self_check,
    describe_overcount,
    describe_still_sending,
    describe_still_taking_in,
)

TOP = 1 << 64


def test_counter_delta_plain_and_wrapped() -> None:
    assert counter_delta(100, 7284) == 7184
    assert counter_delta(5, 5) == 0
    # Wrapped once: 3 counts up to 2^64 - 1, then 0..4 (5 more).
    assert counter_delta(TOP - 3, 4) == 7
    assert counter_delta(2**32 - 2, 3, bits=32) == 5


def ifc(rx: int = 0, tx: int = 0, rx_dropped: int = 0, tx_dropped: int = 0) -> InterfaceCounters:
    return InterfaceCounters(rx, tx, rx_dropped, tx_dropped)


NAMES = {1: "p4lt1", 2: "p4lt2"}


def test_loopback_trial_with_receive_drops() -> None:
    """The issue's loopback trial: port 1 sent 7184, port 2's interface delivered all
    7184, the program saw 7010 of them (174 lost inside the tester)."""
    check = build_self_check(
        NAMES,
        {1: ifc(rx=3, tx=1000), 2: ifc(rx=1000, tx=3)},
        {1: ifc(rx=3, tx=8184), 2: ifc(rx=8184, tx=3)},
        ProgramPortCounts(rx={2: 997}, tx={1: 1000}),
        ProgramPortCounts(rx={2: 8007}, tx={1: 8184}),
    )
    assert check.ports == (
        PortCheck(1, "p4lt1", 0, 7184, 0, 0, 0, 7184),
        PortCheck(2, "p4lt2", 7184, 0, 0, 0, 7010, 0),
    )
    assert (check.ok, check.rx_dropped, check.tx_dropped) == (False, 174, 0)
    assert check.port(2).rx_dropped == 174
    assert check.describe() == (
        "port 2: 174 of 7184 frames p4lt2 received never reached the program")


def test_wrapped_counters_on_both_sides() -> None:
    check = build_self_check(
        {2: "p4lt2"}, {2: ifc(rx=TOP - 10)}, {2: ifc(rx=90)},
        ProgramPortCounts(rx={2: TOP - 4}, tx={}), ProgramPortCounts(rx={2: 94}, tx={}))
    assert check.port(2) == PortCheck(2, "p4lt2", 100, 0, 0, 0, 98, 0)
    assert check.rx_dropped == 2


def test_frames_in_flight_at_the_edges_never_look_dropped() -> None:
    """Program read before the interfaces at the start: a frame arriving in between
    is in the program's difference only (it saw 1 more than the interface's delta);
    likewise foreign frames after the closing interface read. Neither is a drop."""
    check = build_self_check(
        NAMES,
        {1: ifc(tx=50), 2: ifc(rx=51)},
        {1: ifc(tx=150), 2: ifc(rx=151)},
        ProgramPortCounts(rx={2: 50}, tx={1: 50}),
        ProgramPortCounts(rx={2: 152}, tx={1: 150}),
    )
    assert check.port(2).program_rx == 102
    assert check.port(2).interface_rx == 100
    assert (check.ok, check.rx_dropped) == (True, 0)
    assert check.describe() == "ok"


def overcount(start: InterfaceBracket, end: InterfaceBracket, program_before: ProgramPortCounts,
              program_after: ProgramPortCounts, outside_streams: int) -> str:
    return describe_overcount(NAMES, start, end, program_before, program_after,
                              outside_streams)


def test_frames_from_before_the_trial_taken_as_a_streams_are_named() -> None:
    """The issue's run: the program counted 901 frames from p4lt2 in the trial while
    the interface delivered 819 from its first read at the start to its last at the
    end (82 came in before and were still queued in the switch), and p4lt1 sent 3
    frames the program never sent. Neither is a drop; but with only 81 frames kept
    out of every stream, a stream took some of them: the trial is not vouched for."""
    start = InterfaceBracket({1: ifc(tx=10), 2: ifc(rx=500)}, {1: ifc(tx=10), 2: ifc(rx=500)})
    end = InterfaceBracket({1: ifc(tx=313), 2: ifc(rx=1319)}, {1: ifc(tx=313), 2: ifc(rx=1319)})
    before = ProgramPortCounts(rx={2: 418}, tx={1: 10})
    after = ProgramPortCounts(rx={2: 1319}, tx={1: 310})
    assert overcount(start, end, before, after, outside_streams=81) == (
        "port 1: p4lt1 sent 3 frames more than the program sent out of it (303 against "
        "300); port 2: the program counted 82 frames more from p4lt2 than it delivered from "
        "before the trial to its end (901 against 819); more than the 81 frames the checker "
        "kept out of every stream: frames from before the trial were taken as a stream's")
    assert overcount(start, end, before, after, outside_streams=82) == (
        "port 1: p4lt1 sent 3 frames more than the program sent out of it (303 against 300)")


def test_frames_in_the_read_windows_are_no_excess() -> None:
    """A DUT still delivering at 100 frames/s at both edges: 22 frames arrive while the
    program is read at the start, 31 at the end (the trial's own late frames). The
    widest interface span holds them all: nothing is in excess, whatever the checker
    kept out of the streams."""
    start = InterfaceBracket({1: ifc(), 2: ifc(rx=0)}, {1: ifc(), 2: ifc(rx=22)})
    end = InterfaceBracket({1: ifc(tx=100), 2: ifc(rx=1023)}, {1: ifc(tx=100), 2: ifc(rx=1054)})
    before = ProgramPortCounts(rx={2: 11}, tx={})
    after = ProgramPortCounts(rx={2: 1050}, tx={1: 100})
    assert overcount(start, end, before, after, outside_streams=0) == ""
    check = build_self_check(NAMES, start, end, before, after)
    assert (check.port(2).interface_rx, check.port(2).program_rx) == (1001, 1039)
    assert check.ok


def test_a_dut_sending_at_the_edges_invents_no_drop() -> None:
    """A lab DUT whose deep queue still drains at 100 frames/s when the trial starts
    and ends: port 2 sends 20 frames while its program is read at each edge. Read
    once (before the program at the start, as receive figures need), the interface
    seems to have sent 20 frames fewer than the program; read around the program,
    the send figures take the farthest reads and nothing is lost."""
    start_first, start_second = {2: ifc(tx=1000)}, {2: ifc(tx=1020)}
    end_first, end_second = {2: ifc(tx=2152)}, {2: ifc(tx=2172)}
    program_before = ProgramPortCounts(rx={}, tx={2: 1010})
    program_after = ProgramPortCounts(rx={}, tx={2: 2162})
    once = build_self_check({2: "p4ld2"}, start_second, end_first, program_before,
                            program_after)
    assert once.port(2).tx_dropped == 20
    bracketed = build_self_check({2: "p4ld2"}, InterfaceBracket(start_first, start_second),
                                 InterfaceBracket(end_first, end_second), program_before,
                                 program_after)
    assert bracketed.port(2) == PortCheck(2, "p4ld2", 0, 1172, 0, 0, 0, 1152)
    assert (bracketed.ok, bracketed.tx_dropped) == (True, 0)


def test_frames_still_in_the_testers_send_path_are_named() -> None:
    """The landing CI's loopback trial on a starved host: the program counted 2232
    frames sent out of port 1, and p4lt1 had sent 1642 of them when the closing edge
    read it; the other 590 left while the program was read. Every port's count looks
    whole (p4lt2 delivered 1642, the program took 1642; p4lt1 sent all 2232 by the
    last read), yet 590 frames had not been received when the trial was read."""
    start = InterfaceBracket({1: ifc(), 2: ifc()}, {1: ifc(), 2: ifc()})
    end = InterfaceBracket({1: ifc(tx=1642), 2: ifc(rx=1642)},
                           {1: ifc(tx=2232), 2: ifc(rx=2232)})
    before = ProgramPortCounts(rx={}, tx={})
    after = ProgramPortCounts(rx={2: 1642}, tx={1: 2232})
    check = build_self_check(NAMES, start, end, before, after)
    assert check.ok  # the ports alone cannot tell
    assert describe_still_sending(NAMES, start, end, before, after) == (
        "port 1: 590 of the 2232 frames the program sent out of it had not left p4lt1 when "
        "the trial was read (still in the tester's switch: frames on their way were not "
        "counted)")
    settled = InterfaceBracket({1: ifc(tx=2232), 2: ifc(rx=2232)},
                               {1: ifc(tx=2232), 2: ifc(rx=2232)})
    assert describe_still_sending(NAMES, start, settled, before,
                                  ProgramPortCounts(rx={2: 2232}, tx={1: 2232})) == ""


def test_frames_a_kernel_duts_own_input_refused_are_the_duts() -> None:
    """The bridge-fast lab at 111 591 frames/s (issue 41): the bridge's CPU, busy with
    its throttling token bucket, let its receive queue overflow; p4lt1 could not hand
    9417 of the 223 214 frames the program sent to the DUT's p4ld1 (a veth counts them
    in tx_dropped, and p4ld1 in its rx_dropped). With the DUT's receive on CPUs of its
    own, those are the DUT's input refusing them (the DUT check counts them), not the
    tester's loss, nor frames still on their way; on a shared CPU they stay the
    tester's."""
    start = InterfaceBracket({1: ifc(), 2: ifc()}, {1: ifc(), 2: ifc()})
    end = InterfaceBracket({1: ifc(tx=213_797, tx_dropped=9417), 2: ifc(rx=213_797)},
                           {1: ifc(tx=213_797, tx_dropped=9417), 2: ifc(rx=213_797)})
    before = ProgramPortCounts(rx={}, tx={})
    after = ProgramPortCounts(rx={2: 213_797}, tx={1: 223_214})
    fed = build_self_check(NAMES, start, end, before, after, frozenset({1}))
    assert fed.port(1) == PortCheck(1, "p4lt1", 0, 213_797, 0, 9417, 0, 223_214,
                                    feeds_dut=True)
    assert (fed.ok, fed.tx_dropped, fed.rx_dropped) == (True, 0, 0)
    shared = build_self_check(NAMES, start, end, before, after)
    assert (shared.ok, shared.tx_dropped) == (False, 9417)
    assert shared.describe() == (
        "port 1: 9417 of 223214 frames the program sent were not sent by p4lt1")
    # Refused, not on their way: never "had not left".
    assert describe_still_sending(NAMES, start, end, before, after) == ""


def test_a_switch_still_taking_in_frames_while_read_is_named() -> None:
    """A CI run on a busy host: p4lt2 had delivered all 2232 frames of a loopback trial
    before the closing edge, and the starved switch took in 861 of them while the
    edge was read (port counts 1371 first, 2232 after the rest)."""
    end = InterfaceBracket({1: ifc(tx=2232), 2: ifc(rx=2232)},
                           {1: ifc(tx=2232), 2: ifc(rx=2232)})
    moving = ProgramPortCounts(rx={2: 1371}, tx={1: 2232}, rx_at_end={2: 2232})
    assert describe_still_taking_in(NAMES, end, moving) == (
        "port 2: the tester's switch took in 861 frames p4lt2 had delivered before the "
        "trial was read while it was read (still working through them: its figures moved "
        "as they were read)")
    # A DUT still draining into p4lt2 during the read: the switch keeps up, no sign.
    draining = InterfaceBracket({1: ifc(tx=2232), 2: ifc(rx=2232)},
                                {1: ifc(tx=2232), 2: ifc(rx=2250)})
    kept_up = ProgramPortCounts(rx={2: 2232}, tx={1: 2232}, rx_at_end={2: 2250})
    assert describe_still_taking_in(NAMES, draining, kept_up) == ""
    # A target that does not read its port counts again names nothing.
    assert describe_still_taking_in(NAMES, end, ProgramPortCounts(rx={2: 1371}, tx={})) == ""


def test_exact_counts_name_nothing() -> None:
    plain = InterfaceBracket({1: ifc(), 2: ifc()}, {1: ifc(), 2: ifc()})
    end = InterfaceBracket({1: ifc(tx=40), 2: ifc(rx=40)}, {1: ifc(tx=40), 2: ifc(rx=40)})
    assert overcount(plain, end, ProgramPortCounts({}, {}),
                     ProgramPortCounts({2: 40}, {1: 40}), outside_streams=0) == ""


def test_send_side_drop_and_interface_drops() -> None:
    """The program sent 500 out of port 1, the veth passed on 480 (20 in tx_dropped);
    port 2's interface dropped 3 itself and delivered the rest to the program."""
    check = build_self_check(
        NAMES, {1: ifc(), 2: ifc()},
        {1: ifc(tx=480, tx_dropped=20), 2: ifc(rx=477, rx_dropped=3)},
        ProgramPortCounts(rx={}, tx={}), ProgramPortCounts(rx={2: 477}, tx={1: 500}))
    assert (check.port(1).tx_dropped, check.port(1).rx_dropped) == (20, 0)
    assert (check.port(2).tx_dropped, check.port(2).rx_dropped) == (0, 3)
    assert check.describe() == (
        "port 1: 20 of 500 frames the program sent were not sent by p4lt1; "
        "port 2: 3 of 480 frames p4lt2 received never reached the program")


def test_ports_not_in_the_program_counters_count_from_zero() -> None:
    check = build_self_check({3: "p4lt3"}, {3: ifc()}, {3: ifc(rx=2)},
                             ProgramPortCounts({}, {}), ProgramPortCounts({}, {}))
    assert check.port(3).rx_dropped == 2
    with pytest.raises(KeyError, match="no self-check of port 4; checked: 3"):
        check.port(4)


def test_kernel_counters_from_sysfs(tmp_path: Path) -> None:
    stats = tmp_path / "p4lt2" / "statistics"
    stats.mkdir(parents=True)
    for name, value in (("rx_packets", 7184), ("tx_packets", 2), ("rx_dropped", 1),
                        ("tx_dropped", 0)):
        (stats / name).write_text(f"{value}\n")
    source = KernelInterfaceCounters(lambda port: f"p4lt{port}", root=tmp_path)
    assert source.interface(2) == "p4lt2"
    assert source.read((2,)) == {2: InterfaceCounters(7184, 2, 1, 0)}
    # A port without an interface on this host: no self-check at all.
    assert source.read((2, 9)) is None


def test_trial_invalid_reason() -> None:
    bad = SelfCheck((PortCheck(2, "p4lt2", 10, 0, 0, 0, 9, 0),))
    good = SelfCheck((PortCheck(2, "p4lt2", 10, 0, 0, 0, 10, 0),))
    base = TrialResult("x", 0, 0.5, 100.0, 1.0, 64)
    assert base.invalid_reason is None
    assert TrialResult("x", 0, 0.5, 100.0, 1.0, 64, valid=False, self_check=bad,
                       dut_check=bad).invalid_reason == TESTER_LIMITED
    assert TrialResult("x", 0, 0.5, 100.0, 1.0, 64, valid=False, self_check=good,
                       dut_check=bad).invalid_reason == DUT_LIMITED
    assert TrialResult("x", 0, 0.5, 100.0, 1.0, 64, valid=False, self_check=good,
                       error="boom").invalid_reason == TRIAL_ERROR


STAT = """cpu  1000 20 300 5000 10 0 5 40 0 0
cpu0 500 10 150 2500 5 0 2 20 0 0
intr 1234
"""


def test_cpu_times_and_steal() -> None:
    assert parse_cpu_times(STAT) == CpuTimes(total=6375, steal=40)
    assert parse_cpu_times("cpu 10 0 5 100\n") == CpuTimes(total=115, steal=None)
    assert parse_cpu_times("intr 1\n") is None
    before, after = CpuTimes(6375, 40), CpuTimes(6575, 90)
    assert steal_fraction(before, after) == 0.25
    assert steal_fraction(before, before) is None
    assert steal_fraction(CpuTimes(115, None), CpuTimes(215, None)) is None
    load = host_load(before, after, loadavg=lambda: (3.5, 2.0, 1.0), cpus=2)
    assert load == HostLoad(load_1m=3.5, cpus=2, steal_fraction=0.25)
    assert load.busy
    assert not HostLoad(1.5, 2).busy
