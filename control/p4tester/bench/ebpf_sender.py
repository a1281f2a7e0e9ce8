"""`make bench`, eBPF part: whether the eBPF tester's sender holds its rate (issue 41).

The eBPF loopback lab (topologies/ebpf-loopback.yaml, its ports at 1 Gbit/s here so
that neither rate is above line rate), and trials as every run makes them (the trial
loop: self-check, the offered load proven on the switch's clock): TRIALS trials of
TRIAL_S s at each of RATES_PPS, 64 B. Each trial's offered rate is what the trial
measured (offered_pps_measured), not what it asked for. The target: TARGET_TRIALS of
TRIALS vouched for and within WITHIN of the rate, on a quiet host and under
../shared/busy-host.sh. Run it as root, after `make build-ebpf`.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from statistics import median
from typing import Final

from p4tester.config.profile import profile_from_dict
from p4tester.config.topology import Topology, load_topology
from p4tester.experiments.runner import TrialSpec
from p4tester.lab import runner as lab
from p4tester.results.model import TrialResult
from p4tester.streams.rates import line_rate_pps
from p4tester.targets.ebpf.session import EbpfSession
from p4tester.targets.ebpf.trials import EbpfTrialRunner

REPO: Final = Path(__file__).resolve().parents[3]
TOPOLOGY: Final = REPO / "topologies" / "ebpf-loopback.yaml"
PORT_RATE_BPS: Final = 1e9
RATES_PPS: Final = (26_000, 200_000)
TRIALS: Final = 10
TRIAL_S: Final = 2.0
WITHIN: Final = 0.01
TARGET_TRIALS: Final = 9
FRAME_SIZE: Final = 64


@dataclass(frozen=True, slots=True)
class RateLeg:
    """TRIALS trials at one rate."""

    rate_pps: float
    trials: tuple[TrialResult, ...]

    def held(self, trial: TrialResult) -> bool:
        """Vouched for, and offered within WITHIN of the rate (on the switch's clock)."""
        offered = trial.offered_pps_measured
        return (trial.valid and offered is not None
                and abs(offered - self.rate_pps) <= WITHIN * self.rate_pps)

    @property
    def held_count(self) -> int:
        return sum(self.held(trial) for trial in self.trials)

    @property
    def met(self) -> bool:
        return self.held_count >= TARGET_TRIALS


def bench_topology(path: Path = TOPOLOGY) -> Topology:
    """The loopback lab with its ports at PORT_RATE_BPS."""
    topology = load_topology(path)
    return replace(topology, ports=tuple(replace(port, line_rate_bps=PORT_RATE_BPS)
                                         for port in topology.ports))


def run_leg(topology: Topology, rate_pps: float) -> RateLeg:
    profile = profile_from_dict({
        "name": "sender-bench", "trial": {"duration_s": TRIAL_S, "drain_s": 0.5, "settle_s": 0.5},
        "frame_sizes": [FRAME_SIZE], "streams": [{"id": 0, "tx_port": 1, "rx_port": 2}],
    }, "sender-bench")
    fraction = rate_pps / line_rate_pps(PORT_RATE_BPS, FRAME_SIZE)
    with EbpfSession(topology, profile) as session:
        runner = EbpfTrialRunner(session)
        try:
            trials = tuple(runner.run_trial(TrialSpec("sender-bench", index, FRAME_SIZE,
                                                      fraction, TRIAL_S))
                           for index in range(TRIALS))
        finally:
            runner.close()
    return RateLeg(rate_pps, trials)


def render(legs: Sequence[RateLeg]) -> str:
    lines = [f"eBPF sender, loopback lab, {FRAME_SIZE} B, {TRIALS} trials of {TRIAL_S:g} s "
             f"per rate (offered: measured on the switch's clock):"]
    for leg in legs:
        offered = [t.offered_pps_measured for t in leg.trials
                   if t.offered_pps_measured is not None]
        spread = (f"offered median {median(offered):.0f}, {min(offered):.0f}-"
                  f"{max(offered):.0f} frames/s" if offered else "no offered rate measured")
        lines.append(f"  {leg.rate_pps:>8.0f} frames/s: {leg.held_count} of {len(leg.trials)} "
                     f"vouched and within {WITHIN:.0%} ({spread}{_host(leg.trials)}); "
                     f"target {TARGET_TRIALS} of {TRIALS}: {'met' if leg.met else 'NOT met'}")
        lines += [f"    trial {t.trial_index}: {t.error}" for t in leg.trials if t.error]
    return "\n".join(lines)


def _host(trials: Sequence[TrialResult]) -> str:
    """The host's worst load and CPU steal over the trials: a hypervisor that takes the
    sender's CPU for longer than a trial's allowed burst slips its schedule."""
    loads = [t.host_load for t in trials if t.host_load is not None]
    if not loads:
        return ""
    steals = [load.steal_fraction for load in loads if load.steal_fraction is not None]
    steal = f", CPU steal up to {max(steals):.0%}" if steals else ""
    return f"; host load up to {max(load.load_1m for load in loads):.2f}{steal}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="p4tester.bench.ebpf_sender")
    parser.add_argument("--rundir", type=Path, default=None,
                        help="where the lab keeps its state (a temporary directory)")
    args = parser.parse_args(argv)
    if os.geteuid() != 0:
        print("bench (eBPF sender): needs root (veth pairs, tc, a BPF file system)",
              file=sys.stderr)
        return 1
    topology = bench_topology()
    rundir = args.rundir or Path(tempfile.mkdtemp(prefix="p4tester-sender-bench-"))
    lab.up(topology, rundir)
    try:
        legs = [run_leg(topology, rate) for rate in RATES_PPS]
    finally:
        lab.down(rundir)
    print(render(legs))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
