"""The queue sweep never reports a poor fit from a busy host, or from repetitions that
disagree, as the DUT's shape."""

from __future__ import annotations

from p4tester.experiments.queue_sweep import (
    LatencyFits,
    QueueSweepConfig,
    QueueSweepPoint,
    QueueSweepResult,
    SizeFit,
    UnrepeatedCell,
    unrepeated_cells,
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


def sweep_point(percent: float, repetition: int, max_us: float) -> QueueSweepPoint:
    return QueueSweepPoint(64, percent, repetition, 0, 0.08, 100.0, max_us * 0.8, max_us,
                           None, None)


def repeated_result(maxima: dict[float, tuple[float, ...]]) -> QueueSweepResult:
    config = QueueSweepConfig(frame_sizes=(64,), buffer_percents=tuple(maxima),
                              repetitions=3)
    points = tuple(sweep_point(percent, repetition, value)
                   for percent, values in maxima.items()
                   for repetition, value in enumerate(values))
    return QueueSweepResult(config, points, (), (SizeFit(64, FITS),), (), ())


def test_repetitions_that_disagree_make_a_poor_fit_the_hosts() -> None:
    """A quiet load average, but at 40 % the three maxima were 18033, 22468 and 36336 us
    (a sweep on a 2-core host with one core kept busy, load 1.88): a queue does not do
    that, a stall does."""
    result = repeated_result({20.0: (7852.0, 4835.0, 4703.0), 40.0: (18033.0, 22468.0, 36336.0),
                              80.0: (19235.0, 18798.0, 18070.0)})
    assert unrepeated_cells(result, 64, "max_us") == [
        UnrepeatedCell(20.0, 7852.0 / 4703.0), UnrepeatedCell(40.0, 36336.0 / 18033.0)]
    # The points' averages are 0.8 x their maxima: the same thresholds disagree.
    assert [cell.buffer_pct for cell in unrepeated_cells(result, 64, "avg_us")] == [20.0, 40.0]
    assert fit_warnings(result, (trial(1.25), trial(1.9))) == [
        "64 B: could not measure max latency vs buffer on this host: R^2 0.748 < 0.9 with the "
        "max differing between repetitions by up to 2.0x at 20 %, 40 % (a DUT's queue "
        "repeats); the host delayed frames, not only the DUT: not a result, rerun on a "
        "quieter host"]


def test_busy_host_and_disagreeing_repetitions_are_both_named() -> None:
    result = repeated_result({20.0: (4000.0, 9000.0, 4100.0), 40.0: (8000.0, 8100.0, 8200.0)})
    assert fit_warnings(result, (trial(2.5), trial(1.0))) == [
        "64 B: could not measure max latency vs buffer on this host: R^2 0.748 < 0.9 with the "
        "host busy in 1 of 2 trials (load up to 2.50); the max differing between repetitions "
        "by up to 2.2x at 20 % (a DUT's queue repeats); the host delayed frames, not only "
        "the DUT: not a result, rerun on a quieter host"]


def test_repetitions_that_agree_leave_a_poor_fit_the_duts() -> None:
    """Within 1.5x of each other at every threshold (5999 / 4000 = 1.4998)."""
    result = repeated_result({20.0: (4000.0, 5999.0, 4100.0), 40.0: (8000.0, 8100.0, 8200.0)})
    assert unrepeated_cells(result, 64, "max_us") == []
    assert fit_warnings(result, (trial(1.0),)) == [
        "64 B: max latency is not linear in buffer % (R^2 0.748 < 0.9, host not busy, "
        "repetitions agree)"]
