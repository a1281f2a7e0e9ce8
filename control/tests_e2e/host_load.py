"""A busy host on purpose, bounded and undone: busy loops pinned to each core, and the
tester's switch squeezed onto one core at a lower priority, as a compile on a shared
lab server does to it. Everything started here is stopped when the block ends."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager

# The loop ends by itself after this long, even if nobody stops it.
BUSY_LIMIT_S = 90.0
_BUSY_LOOP = (f"import time\nend = time.monotonic() + {BUSY_LIMIT_S}\n"
              "while time.monotonic() < end: pass")


@contextmanager
def busy_host(switch_pid: int, *, switch_cpu: int = 0, switch_nice: int = 5) -> Iterator[None]:
    """One busy loop per CPU; the switch (every thread) on `switch_cpu` at
    `switch_nice`, so it gets about a quarter of one core."""
    cpus = sorted(os.sched_getaffinity(0))
    subprocess.run(["taskset", "-a", "-p", "-c", str(switch_cpu), str(switch_pid)],
                   check=True, capture_output=True, timeout=10)
    for thread in os.listdir(f"/proc/{switch_pid}/task"):
        os.setpriority(os.PRIO_PROCESS, int(thread), switch_nice)
    loops: list[subprocess.Popen[bytes]] = []
    try:
        for cpu in cpus:
            loops.append(subprocess.Popen(["taskset", "-c", str(cpu), sys.executable, "-c",
                                           _BUSY_LOOP]))
        yield
    finally:
        for loop in loops:
            loop.kill()
        for loop in loops:
            with contextlib.suppress(subprocess.TimeoutExpired):
                loop.wait(timeout=10)
