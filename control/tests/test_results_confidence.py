"""A run's confidence summary: trials repeated or left out and why, frames each side
lost itself, host load; and the plots' marks for tester-limited points."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from p4tester.results.checks import HostLoad, PortCheck, SelfCheck
from p4tester.results.confidence import RunConfidence
from p4tester.results.model import StreamStats, TrialResult
from p4tester.results.plots import plot_frame_loss_rate, plot_throughput
from p4tester.results.tables import ThroughputPoint

CLEAN = SelfCheck((PortCheck(1, "p4lt1", 0, 100, 0, 0, 0, 100),
                   PortCheck(2, "p4lt2", 100, 0, 0, 0, 100, 0)))
LOST_RX = SelfCheck((PortCheck(2, "p4lt2", 100, 0, 0, 0, 80, 0),))
LOST_TX = SelfCheck((PortCheck(1, "p4lt1", 0, 95, 0, 0, 0, 100),))
BASE = TrialResult("t", 0, 0.5, 100.0, 1.0, 64, (StreamStats(0, 64, 100, 100, 6400, 0, 0, 0, 0),),
                   self_check=CLEAN, host_load=HostLoad(1.0, 2, 0.0))


def trials() -> list[TrialResult]:
    return [
        BASE,
        replace(BASE, trial_index=1, valid=False, error="tester-limited", self_check=LOST_RX,
                host_load=HostLoad(3.75, 2, 0.02)),
        replace(BASE, trial_index=2, valid=False, error="tester-limited", self_check=LOST_TX),
        replace(BASE, trial_index=3, valid=False, error="dut-limited", dut_check=LOST_RX),
        replace(BASE, trial_index=4, valid=False, error="read timed out"),
        replace(BASE, trial_index=5, self_check=None, host_load=None),
    ]


def test_counts_and_figures_exact() -> None:
    confidence = RunConfidence.of(trials())
    assert confidence == RunConfidence(
        trials=6, tester_limited=2, dut_limited=1, failed=1, unchecked=1, unvouched=0,
        tester_rx_dropped=20, tester_tx_dropped=5, dut_rx_dropped=20, max_load_1m=3.75,
        cpus=2, max_steal_fraction=0.02)
    assert confidence.verdict == "tester-limited"
    assert confidence.describe() == (
        "4 of 6 trials repeated or left out, never counted as DUT loss: 2 tester-limited "
        "(the tester lost 25 frames itself), 1 dut-limited (the lab DUT missed 20 frames "
        "its interfaces delivered), 1 failed; host load up to 3.75 on 2 CPUs, CPU steal up "
        "to 2.0%")


def test_checks_that_were_not_answered_are_counted_and_said() -> None:
    """A tester switch or lab DUT that did not answer makes its trial unchecked: left out
    like a limited one, and the end of the run says how many (issue 21)."""
    unanswered = SelfCheck((), unvouched="the switch did not answer")
    confidence = RunConfidence.of([
        BASE,
        replace(BASE, trial_index=1, valid=False, error="tester-limited: ...",
                self_check=unanswered),
        replace(BASE, trial_index=2, valid=False, error="dut-limited: unchecked: ...",
                dut_check=unanswered),
    ])
    assert (confidence.tester_limited, confidence.dut_limited, confidence.unvouched) == (1, 1, 2)
    assert confidence.describe() == (
        "2 of 3 trials repeated or left out, never counted as DUT loss: 1 tester-limited, "
        "1 dut-limited, 2 of them not vouched for (the switch or the lab DUT did not answer "
        "in time, the generator fell behind, or the tester's counts held frames from before "
        "the trial); host load up to 1.00 on 2 CPUs")


def test_a_clean_run_says_so() -> None:
    confidence = RunConfidence.of([BASE, replace(BASE, trial_index=1)])
    assert confidence.verdict == "ok"
    assert confidence.describe() == (
        "all 2 trials vouched for by the tester's self-check; host load up to 1.00 on 2 CPUs")
    assert RunConfidence.of([replace(BASE, self_check=None, host_load=None)]).describe() == (
        "1 of 1 trials without a self-check (no port counters on this target)")


def test_a_run_without_trials_is_not_ok() -> None:
    """A run that measured nothing (it stopped before its first trial) says so: its
    summary never reads 'ok', 'all 0 trials vouched for'."""
    confidence = RunConfidence.of([])
    assert confidence.verdict == "no-trials"
    assert confidence.describe() == "no trial ran: nothing was measured"


def test_stale_frames_are_summed_and_said() -> None:
    """Frames a DUT still held from an earlier trial or run: counted apart, said at the
    end of the run (issue 21)."""
    confidence = RunConfidence.of([replace(BASE, rx_stale=906), replace(BASE, trial_index=1),
                                   replace(BASE, trial_index=2, rx_stale=4)])
    assert confidence.stale_frames == 910
    assert confidence.describe() == (
        "all 3 trials vouched for by the tester's self-check; 910 stale frames (of earlier "
        "trials or runs, still held by the DUT) counted in no stream; host load up to 1.00 "
        "on 2 CPUs")


def test_plots_mark_tester_limited_points(tmp_path: Path) -> None:
    """Tester-limited trials and bounds are drawn as marks (an invalid trial without
    loss figures, a bound without a failing load): the plots take them."""
    path = plot_frame_loss_rate(trials(), tmp_path / "loss.png")
    assert path.stat().st_size > 0
    points = [ThroughputPoint(64, 5e6, 0.4, 0.4, ndr_tester_limited=True),
              ThroughputPoint(512, 5e6, 0.9, 0.95)]
    assert plot_throughput(points, tmp_path / "tput.png").stat().st_size > 0
