"""The host's load around a trial: a tester sharing its cores with other work (a
compile, another lab) can fall behind, and the results must say how busy the host
was. Load average from os.getloadavg; CPU steal (time a hypervisor gave to another
guest) from the first line of /proc/stat, as a share of the trial's CPU time."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from p4tester.results.checks import HostLoad

PROC_STAT: Final = Path("/proc/stat")
# /proc/stat "cpu" line: user nice system idle iowait irq softirq steal [guest guest_nice];
# guest time is already inside user and nice, so the total stops at steal.
_STEAL_FIELD: Final = 7


@dataclass(frozen=True, slots=True)
class CpuTimes:
    """All CPUs' time in clock ticks: in total, and stolen (None: not reported)."""

    total: int
    steal: int | None


def parse_cpu_times(text: str) -> CpuTimes | None:
    """The aggregate 'cpu' line of /proc/stat text; None when there is none."""
    for line in text.splitlines():
        fields = line.split()
        if fields and fields[0] == "cpu":
            ticks = [int(value) for value in fields[1:]]
            if len(ticks) > _STEAL_FIELD:
                return CpuTimes(sum(ticks[: _STEAL_FIELD + 1]), ticks[_STEAL_FIELD])
            return CpuTimes(sum(ticks), None)
    return None


def read_cpu_times(path: Path = PROC_STAT) -> CpuTimes | None:
    try:
        return parse_cpu_times(path.read_text())
    except OSError:
        return None  # not Linux: the load average still says something


def steal_fraction(before: CpuTimes | None, after: CpuTimes | None) -> float | None:
    if before is None or after is None or before.steal is None or after.steal is None:
        return None
    total = after.total - before.total
    if total <= 0:
        return None  # no tick went by: nothing to divide
    return (after.steal - before.steal) / total


def host_load(before: CpuTimes | None, after: CpuTimes | None, *,
              loadavg: Callable[[], tuple[float, float, float]] = os.getloadavg,
              cpus: int | None = None) -> HostLoad:
    """The load seen over a trial whose CPU times were `before` and `after`."""
    return HostLoad(load_1m=loadavg()[0], cpus=cpus or os.cpu_count() or 1,
                    steal_fraction=steal_fraction(before, after))
