"""Shaped runs (experiments.traffic_shape) on the simulated DUT, whose capacity is
known: only the steps above it lose frames, and each step says what it was to send,
sent and received. Through the application layer: the report and the plot."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from p4tester.config.profile import load_profile
from p4tester.config.topology import load_topology
from p4tester.experiments.recording import Recorder
from p4tester.experiments.simulated_runner import SimulatedDut, SimulatedRunner
from p4tester.experiments.traffic_shape import ShapeConfig, run_shape
from p4tester.runs.catalog import RequestError, build_request, experiment_named
from p4tester.runs.execute import RunEnd, plan_run, run_experiment
from p4tester.server.simulated import SimulatedBackend
from p4tester.streams.rates import line_rate_pps
from p4tester.streams.shapes import ShapeKind, TrafficShape

SIXTY = SimulatedDut(capacity_by_size=lambda size: 0.6)
PORT_PPS = line_rate_pps(10e9, 64)
REPO = Path(__file__).resolve().parents[2]


def test_only_the_steps_above_the_duts_capacity_lose_frames() -> None:
    sawtooth = TrafficShape(ShapeKind.SAWTOOTH, period_s=4, amplitude=0.5)
    config = ShapeConfig(64, 0.5, 4.0, ((0, sawtooth),), step_s=1.0)
    result = run_shape(config, Recorder(SimulatedRunner(SIXTY)))
    (stream,) = result.shaped_streams()
    loads = [0.3125, 0.4375, 0.5625, 0.6875]
    assert [s.intended_pps for s in stream.rate_course] == pytest.approx(
        [load * PORT_PPS for load in loads])
    assert [s.sent_pps for s in stream.rate_course] == pytest.approx(
        [load * PORT_PPS for load in loads], abs=1)
    # The last step offers 68.75 % of line rate to a DUT that forwards 60 %.
    assert [s.received_pps for s in stream.rate_course] == pytest.approx(
        [loads[0] * PORT_PPS, loads[1] * PORT_PPS, loads[2] * PORT_PPS, 0.6 * PORT_PPS], abs=1)
    assert result.lossy_steps(stream) == (3,)
    assert stream.tx_frames == round(0.5 * PORT_PPS * 4)
    assert stream.lost == pytest.approx((0.6875 - 0.6) * PORT_PPS, abs=1)
    assert dict(result.trial.labels)["shape"] == "0:sawtooth,period=4,amplitude=0.5"


def test_a_shape_that_peaks_above_line_rate_is_refused_with_the_load_that_fits() -> None:
    square = TrafficShape(ShapeKind.SQUARE, period_s=2, amplitude=0.5)
    with pytest.raises(ValueError, match=r"stream 0's shape square,period=2,amplitude=0.5 "
                                         r"peaks at 1.5 x the load 80.00% = 120.00% of line "
                                         r"rate; lower the load to at most 66.67% or the shape"):
        ShapeConfig(64, 0.8, 4.0, ((0, square),))
    with pytest.raises(ValueError, match=r"step 0.1 s must be at least 0.25 s"):
        ShapeConfig(64, 0.5, 4.0, ((0, square),), step_s=0.1)


def test_the_shape_experiment_reports_each_step_and_plots_the_course(tmp_path: Path) -> None:
    topology = load_topology(REPO / "topologies" / "loopback.yaml")
    profile = load_profile(REPO / "topologies" / "profiles" / "one-stream.yaml", topology)
    request = build_request("shape", {"shape": "square,period=2,amplitude=0.4", "load": "50%",
                                      "duration": "4", "step": "1"})
    plan = plan_run(experiment_named("shape"), request, topology, profile, tmp_path / "shape")
    backend = SimulatedBackend(topology, profile, 0.0)
    outcome = run_experiment(plan, backend.trial_runner(threading.Event()))
    assert outcome.end is RunEnd.FINISHED, outcome.text
    lines = outcome.text.splitlines()
    start = lines.index("stream 0: square,period=2,amplitude=0.4")
    # 5 Mbit/s at 64 B is 7440 frames/s; the simulated DUT forwards 55 % of it (4092).
    # Frames per step are rounded cumulatively: 5208.33 x 2 + 2232.14 x 2 = 14881.
    assert lines[start + 2:start + 7] == [
        "    0.00       5208       5208       4092    21.43",
        "    1.00       2232       2232       2232     0.00",
        "    2.00       5208       5209       4092    21.44",
        "    3.00       2232       2232       2232     0.00",
        "stream 0: lost 2233 of 14881 frames; steps losing over 1 %: 0, 2",
    ]
    assert (tmp_path / "shape" / "shape.png").stat().st_size > 0


def test_shape_options_name_the_fix() -> None:
    with pytest.raises(RequestError, match=r"argument --shape: shape 'wave': unknown kind "
                                           r"'wave'"):
        build_request("shape", {"shape": "wave", "load": "50%"})
    with pytest.raises(RequestError, match=r"name each shape's stream"):
        build_request("shape", {"shape": "sine,period=2;0:constant", "load": "50%"})
    request = build_request("shape", {"shape": "0:sine,period=2,amplitude=0.5;1:constant",
                                      "load": "1000pps"})
    assert [sid for sid, _ in request.shape] == [0, 1]
