"""The simulated DUT behind the experiment tests: its model, its trials, its checks."""

from __future__ import annotations

import pytest

from p4tester.experiments.runner import TrialSpec
from p4tester.experiments.simulated_runner import (
    CrashingRunner,
    Impairment,
    SimulatedDut,
    SimulatedRunner,
    uniform_histogram,
)
from p4tester.results.latency import linear_bin_edges


def spec(index: int = 0, **fields: object) -> TrialSpec:
    values: dict[str, object] = {
        "experiment": "sim",
        "trial_index": index,
        "frame_size": 64,
        "offered_fraction": 0.5,
        "duration_s": 0.001,
        **fields,
    }
    return TrialSpec(**values)  # type: ignore[arg-type]


def test_uniform_histogram_is_exact_and_sums_to_the_samples() -> None:
    edges = linear_bin_edges(62, 31)
    flat = uniform_histogram(edges, 10.0, 30.0, 10_000)
    assert flat.counts[5:15] == (1000,) * 10
    assert sum(flat.counts) == 10_000 and flat.outside == 0
    uneven = uniform_histogram(edges, 0.0, 7.0, 10)  # 7 us over 2-us bins: 2/7 per bin
    assert sum(uneven.counts) + uneven.outside == 10
    assert uneven.counts[:4] == (3, 3, 3, 1)
    above = uniform_histogram(edges, 52.0, 72.0, 100)
    assert above.outside == 50 and sum(above.counts) == 50
    point = uniform_histogram(edges, 4.0, 4.0, 7)
    assert point.counts[2] == 7
    assert uniform_histogram(edges, 99.0, 99.0, 7).outside == 7


def test_model_functions() -> None:
    dut = SimulatedDut(capacity_by_size=lambda size: 0.75)
    assert dut.buffer_frames(512, 100.0) == 6400
    assert dut.buffer_frames(1024, 50.0) == 1600
    assert dut.buffer_frames(64, 1.0) == 512
    assert dut.burst_queue_and_loss(512, 25600, 1.0, 100.0) == (6400, 0)
    assert dut.burst_queue_and_loss(512, 25601, 1.0, 100.0) == (6400, 1)
    assert dut.burst_queue_and_loss(512, 10**6, 0.7, 100.0) == (0, 0)  # below capacity
    assert dut.service_us(64) == pytest.approx(84 * 8 / 7.5e9 * 1e6)
    assert dut.base_latency_us(64) == pytest.approx(1.0512)
    # Below capacity the queue peaks at rho^2 / (1 - rho): rho = 0.5 / 0.75.
    assert dut.steady_queue_frames(64, 0.5, 100.0) == pytest.approx((4 / 9) / (1 / 3))
    assert dut.steady_queue_frames(64, 0.9, 1.0) == 512  # overloaded: at the threshold
    cut_through = SimulatedDut(store_and_forward=False, fixed_latency_us=2.5)
    assert cut_through.base_latency_us(1518) == 2.5


def test_a_trial_of_two_ports_splits_loss_and_keeps_a_virtual_clock() -> None:
    runner = SimulatedRunner(SimulatedDut(fan_in=2), start_time_s=100.0)
    first = runner.run_trial(spec(0, offered_fraction=0.6, labels=(("k", "v"),)))
    second = runner.run_trial(spec(1, duration_s=0.5))
    assert [s.stream_id for s in first.streams] == [0, 1]
    assert [s.tx_frames for s in first.streams] == [8929, 8929]  # 60 % of 14.88 Mpps, 1 ms
    # The egress sees 120 %: 1/6 of 17858 frames dropped, rounded up, shared out.
    assert first.lost == 2977 and [s.lost for s in first.streams] == [1489, 1488]
    assert first.offered_pps == pytest.approx(2 * 0.6 * 10e9 / 672)
    assert (first.started_at, second.started_at) == (100.0, 100.001)
    assert first.labels == (("k", "v"),)
    assert runner.calls == 2


def test_impairments_and_burst_trials() -> None:
    dut = SimulatedDut(impairments=((3, Impairment(lost=4, reordered=2, duplicates=1)),))
    runner = SimulatedRunner(dut)
    trial = runner.run_trial(spec(3))
    (stream,) = trial.streams
    assert (stream.lost, stream.reordered, stream.duplicates) == (3, 2, 1)
    burst = runner.run_trial(spec(4, offered_fraction=1.0, frame_count=1234))
    assert (burst.tx_frames, burst.rx_frames) == (1234, 1234)
    with pytest.raises(ValueError, match="negative"):
        Impairment(lost=-1)


def test_noise_is_seeded_and_drawn_once_per_trial() -> None:
    def maxima(seed: int) -> list[float]:
        runner = SimulatedRunner(SimulatedDut(latency_noise_us=5.0, seed=seed))
        out = []
        for index in range(3):
            latency = runner.run_trial(spec(index)).streams[0].latency
            assert latency is not None
            out.append(latency.max_us)
        return out

    assert maxima(1) == maxima(1)
    assert maxima(1) != maxima(2)


def test_buffer_threshold_control() -> None:
    runner = SimulatedRunner()
    runner.set_buffer_percent(25)
    assert runner.buffer_percent == 25.0
    for bad in (0.0, 100.5):
        with pytest.raises(ValueError, match=r"buffer threshold must be in \(0, 100\] %"):
            runner.set_buffer_percent(bad)


@pytest.mark.parametrize(
    ("fields", "fragment"),
    [
        ({"fan_in": 0}, "fan_in must be at least 1"),
        ({"buffer_bytes": -1}, "buffer_bytes must be >= 0"),
        ({"latency_edges_us": (1, 2)}, "latency_edges_us must rise strictly from 0"),
        ({"queue_edges": (0, 5, 5)}, "queue_edges must rise strictly from 0"),
    ],
)
def test_dut_errors(fields: dict[str, object], fragment: str) -> None:
    with pytest.raises(ValueError, match=fragment):
        SimulatedDut(**fields)  # type: ignore[arg-type]


def test_capacity_out_of_range_is_named() -> None:
    runner = SimulatedRunner(SimulatedDut(capacity_by_size=lambda size: 1.5))
    with pytest.raises(ValueError, match=r"capacity at 64 B must be in \(0, 1\]"):
        runner.run_trial(spec())


def test_crashing_runner_raises_on_the_chosen_calls() -> None:
    runner = CrashingRunner(SimulatedRunner(), frozenset({1}), "gone")
    assert runner.run_trial(spec(0)).valid
    with pytest.raises(ConnectionError, match="gone"):
        runner.run_trial(spec(1))
    assert runner.run_trial(spec(2)).valid
