"""BMv2 switch processes of a lab: started bounded in time, stopped for sure."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Final

from p4tester.lab.netdev import LabError

# The first start after an install reads BMv2's and gRPC's libraries from a cold disk cache,
# on a host that may be busy: seconds, not the fraction of one a warm start takes. A
# Mininet lab starts its switches one after another beside the rest of a CI run with a
# core held busy: one of three took over 30 s to listen in a fresh-clone run.
START_TIMEOUT_S = 60.0
STOP_TIMEOUT_S = 5.0
CPU_PORT = 510

# Two builds of the same BMv2 release (scripts/toolchain/versions.sh). The measurement build
# (-O3, logging macros and event logger compiled out) processes about 2.5x as many frames
# through the checker: the labs measure with it. The logging build is the only one that
# writes BMv2's per-primitive trace, so `--log` runs it; P4TESTER_BMV2_BUILD picks one for
# the bench's side-by-side runs.
BUILD_ENV: Final = "P4TESTER_BMV2_BUILD"
MEASUREMENT: Final = "measurement"
LOGGING: Final = "logging"
SWITCH_BINARIES: Final[Mapping[str, str]] = {
    MEASUREMENT: "/opt/bmv2-perf/bin/simple_switch_grpc",
    LOGGING: "simple_switch_grpc",
}


def switch_binary(*, log: bool) -> str:
    """The simple_switch_grpc a lab runs: the measurement build unless a trace is wanted or
    P4TESTER_BMV2_BUILD says otherwise. A missing measurement build is an error naming the
    install command, never a silent fall-back to the build that measures half as much."""
    build = LOGGING if log else os.environ.get(BUILD_ENV, MEASUREMENT)
    if build not in SWITCH_BINARIES:
        raise LabError(f"{BUILD_ENV}={build!r}: use {' or '.join(SWITCH_BINARIES)}")
    binary = SWITCH_BINARIES[build]
    if build == MEASUREMENT and not os.access(binary, os.X_OK):
        raise LabError(f"the measurement build of BMv2 ({binary}) is not installed: run "
                       "'make setup' (P4_TOOLCHAIN_DIR=... for prebuilt archives), or set "
                       f"{BUILD_ENV}={LOGGING} to run the logging build at lower capacity")
    return binary


def start_switch(name: str, ports: Sequence[tuple[int, str]], grpc_port: int, thrift_port: int,
                 rundir: Path, *, log: bool = False) -> int:
    """simple_switch_grpc without a program (P4Runtime pushes one); returns its pid."""
    rundir.mkdir(parents=True, exist_ok=True)
    interfaces = [arg for port, iface in ports for arg in ("-i", f"{port}@{iface}")]
    # BMv2 formats every log line at its default level even with no sink: off
    # unless asked for, or it spends most of its time on logs.
    logging = (["--log-level", "trace", "--log-file", str(rundir / name), "--log-flush"]
               if log else ["--log-level", "off"])
    command = [switch_binary(log=log), "--device-id", "0", *interfaces, "--thrift-port",
               str(thrift_port), *logging, "--no-p4", "--", "--grpc-server-addr",
               f"127.0.0.1:{grpc_port}", "--cpu-port", str(CPU_PORT)]
    output = open(rundir / f"{name}.out", "w")  # noqa: SIM115 - the switch owns it
    process = subprocess.Popen(command, stdout=output, stderr=subprocess.STDOUT,
                               start_new_session=True)
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise LabError(f"{name}: simple_switch_grpc exited at start: "
                           f"{(rundir / f'{name}.out').read_text()[-500:]}")
        if _listening(grpc_port):
            return process.pid
        time.sleep(0.1)
    stop_process(process.pid)
    raise LabError(f"{name}: simple_switch_grpc did not listen on 127.0.0.1:{grpc_port} "
                   f"within {START_TIMEOUT_S:.0f} s")


def _listening(port: int) -> bool:
    with socket.socket() as probe:
        probe.settimeout(0.2)
        return probe.connect_ex(("127.0.0.1", port)) == 0


def stop_process(pid: int) -> None:
    """SIGTERM, then SIGKILL after STOP_TIMEOUT_S; a pid already gone is fine."""
    try:
        os.kill(pid, signal.SIGTERM)
    except ProcessLookupError:
        return
    deadline = time.monotonic() + STOP_TIMEOUT_S
    while time.monotonic() < deadline:
        try:
            waited, _status = os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            waited = 0
            if not _alive(pid):
                return
        if waited == pid:
            return
        time.sleep(0.1)
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGKILL)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


# A lab's DUT switches run ahead of other work on the host (issue 41): a lab DUT is a
# reference whose limits the tests know, and a busy host starving it changed them (a
# Mininet network of BMv2 switches whose s2 serves 2500 frames/s forwarded 2408 in a
# CI run under busy-host.sh, with no counter of its own to say so). The tester is not
# favoured: what the host does to it, its self-check measures.
DUT_NICE: Final = -10


def run_ahead(pid: int, nice: int = DUT_NICE) -> bool:
    """Gives every thread of `pid` the nice value `nice` (a process's nice is per thread
    on Linux; threads it starts later inherit it); False when the host does not allow it
    (not root) or the process is gone."""
    try:
        tids = [int(tid) for tid in os.listdir(f"/proc/{pid}/task")]
        for tid in tids:
            os.setpriority(os.PRIO_PROCESS, tid, nice)
    except (FileNotFoundError, ProcessLookupError, PermissionError):
        return False
    return True
