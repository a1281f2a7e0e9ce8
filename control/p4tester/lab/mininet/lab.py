"""The `mininet` lab kind: `up` starts the keeper process that owns the network and
returns when it is ready; `down` stops the keeper (net.stop()), then whatever a crashed
keeper left: its processes by pid, its root-namespace interfaces by name. Never `mn -c`
(it kills every Mininet process on the machine)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Final

from p4tester.config.topology import Topology
from p4tester.lab import netdev
from p4tester.lab.mininet.ready import READY_FILE
from p4tester.lab.processes import stop_process
from p4tester.lab.state import LabState

# A lab of a few BMv2 switches on a busy 2-core host: each switch's cold start and
# pipeline push take seconds.
UP_TIMEOUT_S: Final = 180.0
STOP_TIMEOUT_S: Final = 30.0
LOG_FILE: Final = "mininet.log"


def up(topology: Topology, rundir: Path, *, log: bool = False) -> LabState:
    rundir.mkdir(parents=True, exist_ok=True)
    ready = rundir / READY_FILE
    ready.unlink(missing_ok=True)
    command = [sys.executable, "-m", "p4tester.lab.mininet.keeper", topology.source,
               str(rundir), *(["--log"] if log else [])]
    with (rundir / LOG_FILE).open("w") as output:
        keeper = subprocess.Popen(command, stdout=output, stderr=subprocess.STDOUT,
                                  stdin=subprocess.DEVNULL, start_new_session=True)
    deadline = time.monotonic() + UP_TIMEOUT_S
    while not ready.exists():
        failed = keeper.poll() is not None
        if failed or time.monotonic() > deadline:
            reason = "exited" if failed else f"not ready after {UP_TIMEOUT_S:.0f} s"
            state = LabState.load(rundir)
            if state is not None:
                down(state, rundir)
                LabState.remove(rundir)
            else:
                stop_process(keeper.pid)
            tail = (rundir / LOG_FILE).read_text()[-1500:]
            raise netdev.LabError(f"{topology.source}: Mininet lab {reason}:\n{tail}")
        time.sleep(0.1)
    state = LabState.load(rundir)
    assert state is not None, "the keeper writes its state before it is ready"
    return state


def down(state: LabState, rundir: Path) -> None:
    """The keeper first (its net.stop() is the clean way), then every pid and root
    interface the state names that is still there."""
    for pid in state.pids[:1]:
        stop_process_within(pid, STOP_TIMEOUT_S)
    for pid in reversed(state.pids[1:]):
        stop_process(pid)
    present = links_present()
    for name in state.links:
        if name in present:
            netdev.delete_link(name)
    (rundir / READY_FILE).unlink(missing_ok=True)


def stop_process_within(pid: int, timeout_s: float) -> None:
    """SIGTERM and wait up to timeout_s (the keeper stops a whole network), then KILL."""
    try:
        os.kill(pid, signal.SIGTERM)
    except ProcessLookupError:
        return
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        try:
            waited, _status = os.waitpid(pid, os.WNOHANG)
            if waited == pid:
                return
        except ChildProcessError:
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                return
        time.sleep(0.1)
    stop_process(pid)


def links_present() -> set[str]:
    """Names of the root namespace's interfaces (veth peers without their @peer)."""
    return {line.split(":")[1].strip().split("@")[0]
            for line in netdev.run(["ip", "-o", "link", "show"]).splitlines()}
