"""A lab's DUT switches run ahead of other work (lab.processes.run_ahead): every thread of
the process gets the nice value, and threads it starts later inherit it."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from p4tester.lab.processes import DUT_NICE, run_ahead

# Two threads at once, then a third one started after the renice.
CHILD = """
import threading, time, sys
threading.Thread(target=time.sleep, args=(30,), daemon=True).start()
sys.stdout.write("ready\\n"); sys.stdout.flush()
sys.stdin.readline()
threading.Thread(target=time.sleep, args=(30,), daemon=True).start()
sys.stdout.write("again\\n"); sys.stdout.flush()
time.sleep(30)
"""


def nice_of_threads(pid: int) -> list[int]:
    values = []
    for task in sorted(Path(f"/proc/{pid}/task").iterdir()):
        fields = (task / "stat").read_text().rsplit(")", 1)[1].split()
        values.append(int(fields[16]))  # field 19 of stat: nice (after pid and comm)
    return values


@pytest.mark.skipif(os.geteuid() != 0, reason="a negative nice needs root")
def test_every_thread_and_every_later_one_runs_at_the_dut_nice() -> None:
    child = subprocess.Popen([sys.executable, "-c", CHILD], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout is not None and child.stdin is not None
        assert child.stdout.readline() == "ready\n"
        assert nice_of_threads(child.pid) == [0, 0]
        assert run_ahead(child.pid)
        assert nice_of_threads(child.pid) == [DUT_NICE, DUT_NICE] == [-10, -10]
        child.stdin.write("go\n")
        child.stdin.flush()
        assert child.stdout.readline() == "again\n"
        deadline = time.monotonic() + 5
        while len(nice_of_threads(child.pid)) < 3 and time.monotonic() < deadline:
            time.sleep(0.01)
        assert nice_of_threads(child.pid) == [DUT_NICE] * 3
    finally:
        child.kill()
        child.wait(timeout=5)
    assert not run_ahead(child.pid)  # gone


def test_the_mininet_guide_states_the_dut_nice() -> None:
    guide = " ".join((Path(__file__).resolve().parents[2] / "docs/mininet.md").read_text().split())
    assert f"run at nice {DUT_NICE}, every thread" in guide
