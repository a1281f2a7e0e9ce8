"""What PTP says on a tester's host (tester.ptp_state), from pmc's answers as linuxptp
3.1.1 prints them (the lab reads a real ptp4l: tests_ebpf/test_several_testers.py)."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest
from test_several_testers import TESTERS, topology

from p4tester.config.errors import ConfigError
from p4tester.results.clocks import PtpState
from p4tester.tester.ptp_state import parse_pmc, phc2sys_runs, read_ptp_state

# A free-running slave's answers (ptp4l -S with free_running 1), as pmc printed them
# (its RESPONSE lines end in a space).
SLAVE_OUTPUT = """sending: GET TIME_STATUS_NP
sending: GET PORT_DATA_SET
\tc6e5bb.fffe.c90c5c-0 seq 0 RESPONSE MANAGEMENT TIME_STATUS_NP\x20
\t\tmaster_offset              -903
\t\tingress_time               1764410000123456789
\t\tcumulativeScaledRateOffset +0.000000000
\t\tscaledLastGmPhaseChange    0
\t\tgmTimeBaseIndicator        0
\t\tlastGmPhaseChange          0x0000'0000000000000000.0000
\t\tgmPresent                  true
\t\tgmIdentity                 b2e1af.fffe.da0c1b
\tc6e5bb.fffe.c90c5c-1 seq 1 RESPONSE MANAGEMENT PORT_DATA_SET\x20
\t\tportIdentity            c6e5bb.fffe.c90c5c-1
\t\tportState               UNCALIBRATED
\t\tlogMinDelayReqInterval  0
\t\tpeerMeanPathDelay       0
\tc6e5bb.fffe.c90c5c-1 seq 2 RESPONSE MANAGEMENT PORT_PROPERTIES_NP\x20
\t\tportIdentity            c6e5bb.fffe.c90c5c-1
\t\tportState               UNCALIBRATED
\t\ttimestamping            SOFTWARE
\t\tinterface               p4lptpe
"""
NO_ANSWER = ("sending: GET TIME_STATUS_NP\nsending: GET PORT_DATA_SET\n"
             "sending: GET PORT_PROPERTIES_NP\n")


def test_a_slaves_state_its_grandmaster_and_offset() -> None:
    state = parse_pmc(SLAVE_OUTPUT, "/var/run/ptp4l", phc2sys=False)
    assert state == PtpState(True, "UNCALIBRATED", -903, True, "b2e1af.fffe.da0c1b",
                             timestamping="SOFTWARE", phc2sys=False)
    assert state.describe() == ("PTP UNCALIBRATED of grandmaster b2e1af.fffe.da0c1b, -903 ns "
                                "from it; software timestamps (ptp4l's clock is the system "
                                "clock)")


@pytest.mark.parametrize(("phc2sys", "said"), [
    (True, "; hardware timestamps, phc2sys runs"),
    (False, "; hardware timestamps and no phc2sys: PTP disciplines the NIC's clock, not the "
            "system clock the tester stamps with"),
])
def test_hardware_timestamps_reach_the_testers_clock_only_through_phc2sys(
        phc2sys: bool, said: str) -> None:
    state = parse_pmc(SLAVE_OUTPUT.replace("SOFTWARE", "HARDWARE"), "/var/run/ptp4l", phc2sys)
    assert state.describe() == ("PTP UNCALIBRATED of grandmaster b2e1af.fffe.da0c1b, -903 ns "
                                f"from it{said}")


def test_phc2sys_is_looked_for_among_the_hosts_processes(tmp_path: Path) -> None:
    for pid, name in ((1, "systemd"), (812, "ptp4l")):
        (tmp_path / str(pid)).mkdir()
        (tmp_path / str(pid) / "comm").write_text(f"{name}\n")
    (tmp_path / "self").mkdir()
    assert phc2sys_runs(tmp_path) is False
    (tmp_path / "813").mkdir()
    (tmp_path / "813" / "comm").write_text("phc2sys\n")
    assert phc2sys_runs(tmp_path) is True
    state = read_ptp_state("/run/ptp-east", fake_run(SLAVE_OUTPUT), proc=tmp_path)
    assert (state.timestamping, state.phc2sys) == ("SOFTWARE", True)


def test_a_grandmaster_says_so() -> None:
    master = SLAVE_OUTPUT.replace("gmPresent                  true",
                                  "gmPresent                  false").replace(
        "UNCALIBRATED", "MASTER").replace("b2e1af.fffe.da0c1b", "c6e5bb.fffe.c90c5c")
    assert parse_pmc(master, "/run/a").describe() == (
        "PTP MASTER, its own grandmaster (c6e5bb.fffe.c90c5c); software timestamps "
        "(ptp4l's clock is the system clock)")


def fake_run(stdout: str = "", raises: Exception | None = None) -> Any:
    def run(command: list[str], **_: object) -> subprocess.CompletedProcess[str]:
        assert command == ["pmc", "-u", "-b", "0", "-s", "/run/ptp-east", "GET TIME_STATUS_NP",
                           "GET PORT_DATA_SET", "GET PORT_PROPERTIES_NP"]
        if raises is not None:
            raise raises
        return subprocess.CompletedProcess(command, 0, stdout, "")

    return run


@pytest.mark.parametrize(("run", "said"), [
    (fake_run(NO_ANSWER), "no PTP (ptp4l does not answer at /run/ptp-east)"),
    (fake_run(raises=FileNotFoundError("pmc")),
     "no PTP (pmc is not installed: Debian's linuxptp has it)"),
    (fake_run(raises=subprocess.TimeoutExpired("pmc", 5.0)),
     "no PTP (pmc did not answer within 5 s)"),
])
def test_a_host_without_ptp_says_why(run: Any, said: str) -> None:
    state = read_ptp_state("/run/ptp-east", run)
    assert not state.answered and state.describe() == said


def test_where_ptp4l_answers_is_a_testers_setting() -> None:
    assert [t.ptp_uds for t in topology().testers] == ["/var/run/ptp4l", "/var/run/ptp4l"]
    east = topology(testers={**TESTERS, "east": {"target": "ebpf", "ptp_uds": "/run/ptp-east"}})
    assert east.testers[1].ptp_uds == "/run/ptp-east"
    with pytest.raises(ConfigError) as refused:
        topology(testers={**TESTERS, "east": {"target": "ebpf", "ptp_uds": "ptp4l"}})
    assert str(refused.value) == (
        "two.yaml: testers: east: ptp_uds 'ptp4l' must be an absolute path: ptp4l's "
        "uds_address on the tester's host, e.g. /var/run/ptp4l")
