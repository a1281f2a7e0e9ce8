"""What PTP says on a tester's host (docs/several-testers.md): linuxptp's ptp4l, asked
through its management socket by `pmc`, as the Debian package ships them.

The probes measure the testers' offset whatever disciplines their clocks; PTP's state
beside it says why the two agree or not: a port SLAVE to a grandmaster with a small
offset from it keeps the host's clock close to the other end's, a port still
UNCALIBRATED or LISTENING does not yet, and a host without ptp4l has nothing but its
own clock (NTP or none)."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Final

from p4tester.results.clocks import PtpState

# pmc's own wait for an answer is 0.1 s; the command as a whole may take this long.
PMC_TIMEOUT_S: Final = 5.0
PMC_COMMANDS: Final = ("GET TIME_STATUS_NP", "GET PORT_DATA_SET", "GET PORT_PROPERTIES_NP")

Runner = Callable[..., "subprocess.CompletedProcess[str]"]


def parse_pmc(output: str, uds: str, phc2sys: bool | None = None) -> PtpState:
    """pmc's answers to PMC_COMMANDS (its "key value" lines under each RESPONSE);
    `phc2sys`: whether it runs on the host (PtpState.phc2sys)."""
    values: dict[str, str] = {}
    answered = False
    for line in output.splitlines():
        if "RESPONSE MANAGEMENT" in line:
            answered = True
            continue
        key, _, value = line.strip().partition(" ")
        if answered and key and value:
            values.setdefault(key, value.strip())
    if not answered:
        return PtpState(False, why=f"ptp4l does not answer at {uds}")
    offset = values.get("master_offset")
    return PtpState(True, port_state=values.get("portState", ""),
                    master_offset_ns=int(offset) if offset and _integer(offset) else None,
                    gm_present=values.get("gmPresent") == "true",
                    gm_identity=values.get("gmIdentity", ""),
                    timestamping=values.get("timestamping", ""), phc2sys=phc2sys)


def _integer(text: str) -> bool:
    return text.lstrip("+-").isdigit()


def phc2sys_runs(proc: Path = Path("/proc")) -> bool:
    """Whether a process named phc2sys runs on this host (its /proc entries' comm)."""
    for comm in proc.glob("[0-9]*/comm"):
        try:
            if comm.read_text().strip() == "phc2sys":
                return True
        except OSError:  # a process that ended while the entries were read
            continue
    return False


def read_ptp_state(uds: str, run: Runner = subprocess.run,
                   proc: Path = Path("/proc")) -> PtpState:
    """This host's ptp4l at `uds` (ptp4l's uds_address), and whether phc2sys runs
    here, never raising: what could not be read says why."""
    try:
        done = run(["pmc", "-u", "-b", "0", "-s", uds, *PMC_COMMANDS], capture_output=True,
                   text=True, timeout=PMC_TIMEOUT_S, check=False)
    except FileNotFoundError:
        return PtpState(False, why="pmc is not installed: Debian's linuxptp has it")
    except subprocess.TimeoutExpired:
        return PtpState(False, why=f"pmc did not answer within {PMC_TIMEOUT_S:g} s")
    except OSError as failed:
        return PtpState(False, why=f"pmc failed: {failed}")
    return parse_pmc(done.stdout, uds, phc2sys_runs(proc))
