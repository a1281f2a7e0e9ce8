"""Traffic shapes (streams.shapes): each kind's rate, its steps' exact means, its text
form and its refusals."""

from __future__ import annotations

import math

import pytest

from p4tester.streams.shapes import ShapeError, ShapeKind, ShapeStep, TrafficShape, shape_steps


def _multipliers(shape: TrafficShape, duration_s: float, step_s: float) -> list[float]:
    return [round(step.multiplier, 12) for step in shape_steps(shape, duration_s, step_s)]


def test_square_steps_alternate_between_high_and_low() -> None:
    shape = TrafficShape(ShapeKind.SQUARE, period_s=2, amplitude=0.5)
    assert _multipliers(shape, 4, 1) == [1.5, 0.5, 1.5, 0.5]
    # A step across the edge averages both halves.
    assert _multipliers(shape, 2, 2) == [1.0]
    assert shape.highest == 1.5


def test_sawtooth_and_triangle_step_means() -> None:
    sawtooth = TrafficShape(ShapeKind.SAWTOOTH, period_s=4, amplitude=0.5)
    assert _multipliers(sawtooth, 8, 1) == [0.625, 0.875, 1.125, 1.375] * 2
    triangle = TrafficShape(ShapeKind.TRIANGLE, period_s=4, amplitude=0.5)
    assert _multipliers(triangle, 4, 1) == [0.75, 1.25, 1.25, 0.75]
    assert triangle.multiplier(2.0) == 1.5
    assert triangle.multiplier(0.0) == 0.5


def test_sine_half_periods_average_one_plus_two_a_over_pi() -> None:
    sine = TrafficShape(ShapeKind.SINE, period_s=10, amplitude=0.4)
    steps = shape_steps(sine, 10, 5)
    assert steps[0].multiplier == pytest.approx(1 + 0.4 * 2 / math.pi, abs=1e-12)
    assert steps[1].multiplier == pytest.approx(1 - 0.4 * 2 / math.pi, abs=1e-12)
    assert sine.multiplier(2.5) == pytest.approx(1.4, abs=1e-12)


def test_periodic_shapes_send_the_load_over_whole_periods() -> None:
    for kind in (ShapeKind.SINE, ShapeKind.TRIANGLE, ShapeKind.SAWTOOTH, ShapeKind.SQUARE):
        shape = TrafficShape(kind, period_s=3, amplitude=0.8)
        assert shape.cumulative(9.0) == pytest.approx(9.0, abs=1e-12), kind
        # Steps that do not divide the period still add up to the shape's frames.
        steps = shape_steps(shape, 9.0, 0.7)
        assert sum(s.multiplier * s.duration_s for s in steps) == pytest.approx(9.0, abs=1e-9)


def test_flash_crowd_rises_to_its_peak_then_decays() -> None:
    crowd = TrafficShape(ShapeKind.FLASH_CROWD, start_s=1, rise_s=2, peak=3, decay_s=1)
    assert crowd.multiplier(0.5) == 1.0
    assert crowd.multiplier(2.0) == 2.0
    assert crowd.multiplier(3.0) == 3.0
    assert crowd.multiplier(4.0) == pytest.approx(1 + 2 * math.exp(-1), abs=1e-12)
    assert crowd.mean_between(1, 3) == pytest.approx(2.0, abs=1e-12)
    # Beyond the rise, the surge adds (peak - 1) x decay x (1 - e^-t/decay) seconds.
    assert crowd.cumulative(5.0) - 5.0 == pytest.approx(2 * (1 + (1 - math.exp(-2))),
                                                        abs=1e-12)
    assert crowd.highest == 3


def test_a_short_last_step_joins_the_one_before() -> None:
    flat = TrafficShape()
    assert shape_steps(flat, 2.2, 1) == (ShapeStep(0, 1, 1.0),
                                         ShapeStep(1, pytest.approx(1.2), 1.0))
    assert shape_steps(flat, 2.6, 1) == (ShapeStep(0, 1, 1.0), ShapeStep(1, 1, 1.0),
                                         ShapeStep(2, pytest.approx(0.6), 1.0))


def test_text_form_round_trips() -> None:
    shape = TrafficShape.parse("flash-crowd,start=2,rise=0.5,peak=4,decay=3")
    assert shape == TrafficShape(ShapeKind.FLASH_CROWD, start_s=2, rise_s=0.5, peak=4,
                                 decay_s=3)
    assert TrafficShape.parse(shape.describe()) == shape
    assert TrafficShape.parse("sine,period=4").describe() == "sine,period=4,amplitude=0"
    assert TrafficShape.parse("constant") == TrafficShape()


@pytest.mark.parametrize(("text", "message"), [
    ("wave,period=2", "unknown kind 'wave'; give one of constant, sine"),
    ("sine,peak=2", "sine takes period, amplitude, not 'peak'"),
    ("square,period=x", "period='x' is not a number"),
    ("constant,period=1", "constant takes no parameters, not 'period'"),
    ("sine,amplitude=1.5", "amplitude 1.5 must be in 0..1"),
    ("triangle,period=0", "period 0 s must be above 0"),
    ("flash-crowd,peak=0.5", "peak 0.5 must be at least 1"),
    ("flash-crowd,rise=0", "rise 0 s and decay 1 s above 0"),
])
def test_bad_shapes_are_refused_with_the_fix(text: str, message: str) -> None:
    with pytest.raises(ShapeError, match=message.replace("(", r"\(").replace(".", r"\.")):
        TrafficShape.parse(text)


def test_steps_need_a_duration_and_a_step() -> None:
    with pytest.raises(ShapeError, match="both must be above 0"):
        shape_steps(TrafficShape(), 0, 1)
