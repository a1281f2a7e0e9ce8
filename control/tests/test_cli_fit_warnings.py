"""The queue sweep never reports a poor fit from a busy host as the DUT's shape."""

from __future__ import annotations

from p4tester.experiments.queue_sweep import (
    LatencyFits,
    QueueSweepConfig,
    QueueSweepResult,
    SizeFit,
)
from p4tester.results.checks import HostLoad
from p4tester.results.model import TrialResult
from p4tester.results.plots import LinearFit
from p4tester.runs.report_lines import fit_warnings

FITS = LatencyFits(min=LinearFit(1.0, 150.0, 0.2), avg=LinearFit(203.55, 64.6, 0.9996),
                   max=LinearFit(180.0, 9000.0, 0.748))
RESULT = QueueSweepResult(QueueSweepConfig(frame_sizes=(64,)), (), (), (SizeFit(64, FITS),),
                          (), ())


def trial(load: float) -> TrialResult:
    return TrialResult("queue-sweep", 0, 0.55, 3274.0, 2.0, 64,
                       host_load=HostLoad(load_1m=load, cpus=2))


def test_busy_host_poor_fit_is_not_a_result() -> None:
    trials = (trial(3.26), trial(1.5), trial(2.4))
    assert fit_warnings(RESULT, trials) == [
        "64 B: could not measure max latency vs buffer on this host: R^2 0.748 < 0.9 with "
        "the host busy in 2 of 3 trials (load up to 3.26); the host delayed frames, not only "
        "the DUT: not a result, rerun on a quieter host"]


def test_quiet_host_poor_fit_is_a_finding() -> None:
    assert fit_warnings(RESULT, (trial(0.5),)) == [
        "64 B: max latency is not linear in buffer % (R^2 0.748 < 0.9, host not busy)"]
