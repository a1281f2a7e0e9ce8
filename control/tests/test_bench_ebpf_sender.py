"""The eBPF sender bench's verdict (bench.ebpf_sender): a trial counts only when it was
vouched for and its measured offered rate is within 1 % of the rate."""

from __future__ import annotations

from p4tester.bench.ebpf_sender import PORT_RATE_BPS, RateLeg, bench_topology, render
from p4tester.results.checks import HostLoad
from p4tester.results.model import TrialResult


def _trial(index: int, offered: float | None, error: str | None = None) -> TrialResult:
    return TrialResult("sender-bench", index, 0.0175, 26_000.0, 2.0, 64,
                       offered_pps_measured=offered, valid=error is None, error=error,
                       host_load=HostLoad(0.5 + index / 10, 2, index / 100))


def test_a_trial_holds_its_rate_only_vouched_and_within_one_percent() -> None:
    trials = (*(_trial(i, 26_000 + 259) for i in range(8)),
              _trial(8, 26_000 - 261),  # 1.004 % short
              _trial(9, 26_000.0, "tester-limited: port 2: 3 of 52000 frames p4lt2 received "
                                  "never reached the program"))
    leg = RateLeg(26_000, trials)
    assert [leg.held(t) for t in trials] == [True] * 8 + [False, False]
    assert (leg.held_count, leg.met) == (8, False)
    assert render([leg]) == (
        "eBPF sender, loopback lab, 64 B, 10 trials of 2 s per rate (offered: measured on "
        "the switch's clock):\n"
        "     26000 frames/s: 8 of 10 vouched and within 1% (offered median 26259, "
        "25739-26259 frames/s; host load up to 1.40, CPU steal up to 9%); target 9 of 10: "
        "NOT met\n"
        "    trial 9: tester-limited: port 2: 3 of 52000 frames p4lt2 received never reached "
        "the program")
    assert RateLeg(26_000, (*trials[:8], _trial(8, 25_741.0), *trials[9:])).met


def test_the_bench_lab_runs_its_ports_at_one_gigabit() -> None:
    topology = bench_topology()
    assert [(p.number, p.line_rate_bps) for p in topology.ports] == [(1, PORT_RATE_BPS),
                                                                      (2, PORT_RATE_BPS)]
    assert PORT_RATE_BPS == 1e9
