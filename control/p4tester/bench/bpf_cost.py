"""What each BPF program of a bench leg costs per run, from the kernel's own
accounting (the sysctl kernel.bpf_stats_enabled, read by `bpftool prog show`):
the figure that says where a path's time goes, beside the rates it limits."""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from p4tester.targets.ebpf.tc_objects import run_tool

_STATS_SYSCTL = Path("/proc/sys/kernel/bpf_stats_enabled")


@dataclass(frozen=True, slots=True)
class ProgramRuns:
    runs: int
    nanoseconds: int

    def since(self, before: ProgramRuns) -> ProgramRuns:
        return ProgramRuns(self.runs - before.runs, self.nanoseconds - before.nanoseconds)

    @property
    def ns_per_run(self) -> float:
        return self.nanoseconds / self.runs if self.runs else 0.0


@contextmanager
def bpf_stats() -> Iterator[None]:
    """The kernel counts run time while this lasts (it costs two clock reads a
    run, for every program on the host), then goes back to what it did before."""
    previous = _STATS_SYSCTL.read_text()
    _STATS_SYSCTL.write_text("1\n")
    try:
        yield
    finally:
        _STATS_SYSCTL.write_text(previous)


def program_runs(program_id: int) -> ProgramRuns:
    shown = json.loads(run_tool(["bpftool", "-j", "prog", "show", "id", str(program_id)],
                                f"read the run statistics of program {program_id}"))
    return ProgramRuns(int(shown.get("run_cnt", 0)), int(shown.get("run_time_ns", 0)))


def runs_of(programs: Mapping[str, int]) -> dict[str, ProgramRuns]:
    """Runs of each named program (name -> program id) so far."""
    return {name: program_runs(program_id) for name, program_id in programs.items()}
