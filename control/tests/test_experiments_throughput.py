"""RFC 2544 26.1 throughput per frame size on simulated DUTs with known capacity."""

from __future__ import annotations

import re

import pytest

from p4tester.experiments.recording import Recorder
from p4tester.experiments.simulated_runner import SimulatedDut, SimulatedRunner
from p4tester.experiments.throughput import (
    RateBounds,
    SearchMethod,
    ThroughputConfig,
    run_throughput,
)
from p4tester.search import SearchGoal
from p4tester.search.simulated import capacity_limit, example_capacity_by_size
from p4tester.streams.rates import line_rate_pps

TEN_G = 10e9
SHORT = {"final_trial_duration_s": 1.0, "initial_trial_duration_s": 0.1}
NDR_GOAL = SearchGoal.ndr(**SHORT)
PDR_GOAL = SearchGoal.pdr(0.005, **SHORT)


def config(method: SearchMethod, sizes: tuple[int, ...]) -> ThroughputConfig:
    return ThroughputConfig(TEN_G, sizes, method=method, ndr=NDR_GOAL, pdr=PDR_GOAL)


def brackets(bounds: RateBounds, limit: float) -> bool:
    lower = bounds.lower_fraction or 0.0
    upper = 1.0 if bounds.upper_fraction is None else bounds.upper_fraction
    return lower <= limit <= upper


@pytest.mark.parametrize("method", list(SearchMethod))
def test_bounds_bracket_the_capacity_at_every_size(method: SearchMethod) -> None:
    dut = SimulatedDut(capacity_by_size=example_capacity_by_size)
    sizes = (64, 128, 256, 512)
    result = run_throughput(config(method, sizes), Recorder(SimulatedRunner(dut)))
    assert [s.frame_size for s in result.sizes] == list(sizes)
    for found in result.sizes:
        capacity = example_capacity_by_size(found.frame_size)
        assert brackets(found.ndr, capacity_limit(capacity, 0.0)), found
        assert brackets(found.pdr, capacity_limit(capacity, 0.005)), found
        for bounds in (found.ndr, found.pdr):  # as narrow as the goals ask (0.5 %)
            if bounds.upper_fraction is not None:
                lower = bounds.lower_fraction or 0.0
                assert (bounds.upper_fraction - lower) / bounds.upper_fraction <= 0.005
    # 512 B runs at line rate: nothing fails, no upper bound, throughput = line rate.
    line = result.at(512)
    assert (line.ndr.lower_fraction, line.ndr.upper) == (1.0, None)
    assert result.points()[3].ndr_fraction == 1.0


def test_rates_are_given_in_every_unit() -> None:
    dut = SimulatedDut(capacity_by_size=lambda size: 0.75)
    result = run_throughput(config(SearchMethod.BINARY, (64,)), Recorder(SimulatedRunner(dut)))
    found = result.at(64)
    # The binary search halves from line rate: 1, 0.5, 0.75 (passes), ... upward.
    assert found.ndr.lower_fraction == 0.75
    assert found.ndr.upper_fraction == 0.751953125
    throughput = found.throughput
    assert throughput is not None
    assert throughput.pps == pytest.approx(0.75 * line_rate_pps(TEN_G, 64), rel=1e-12)
    assert throughput.pps == pytest.approx(11_160_714.2857, rel=1e-9)
    assert throughput.l1_bps == pytest.approx(7.5e9, rel=1e-12)
    assert throughput.l2_bps == pytest.approx(throughput.pps * 64 * 8, rel=1e-12)
    assert throughput.percent == pytest.approx(75.0)
    assert (found.ndr.goal, found.pdr.goal, found.pdr.loss_ratio) == ("NDR", "PDR", 0.005)
    point = found.point()
    assert (point.frame_size, point.ndr_fraction, point.line_rate_bps) == (64, 0.75, TEN_G)


def test_binary_runs_two_searches_mlrsearch_one() -> None:
    dut = SimulatedDut(capacity_by_size=lambda size: 0.75)
    binary_recorder = Recorder(SimulatedRunner(dut))
    binary = run_throughput(config(SearchMethod.BINARY, (64,)), binary_recorder).at(64)
    mlr_recorder = Recorder(SimulatedRunner(dut))
    mlr = run_throughput(config(SearchMethod.MLRSEARCH, (64,)), mlr_recorder).at(64)
    assert binary.trial_count == binary_recorder.ran_count
    assert mlr.trial_count == mlr_recorder.ran_count
    goals = {dict(t.labels).get("goal") for t in binary_recorder.trials}
    assert goals == {"NDR", "PDR"}
    assert {dict(t.labels)["search"] for t in mlr_recorder.trials} == {"mlrsearch"}
    # MLRsearch's short early trials make it cheaper in traffic time.
    assert mlr.trial_seconds < binary.trial_seconds


def test_dut_that_always_loses_has_no_throughput() -> None:
    dut = SimulatedDut(capacity_by_size=lambda size: 0.0005)
    result = run_throughput(config(SearchMethod.BINARY, (64,)), Recorder(SimulatedRunner(dut)))
    found = result.at(64)
    assert found.throughput is None
    assert found.point().ndr_fraction is None


@pytest.mark.parametrize(
    ("fields", "fragment"),
    [
        ({"line_rate_bps": 0.0}, "line_rate_bps must be a positive number of bit/s"),
        ({"frame_sizes": ()}, "frame_sizes is empty"),
        ({"frame_sizes": (63,)}, "frame size 63 B is outside 64..9216 B"),
        ({"frame_sizes": (64, 64)}, "lists a size twice"),
        ({"ndr": PDR_GOAL}, "the NDR goal must allow no loss"),
        ({"min_fraction": 1.0}, "min_fraction must be in (0, 1)"),
        ({"experiment": ""}, "experiment must not be empty"),
        ({"labels": (("a", "1"), ("a", "2"))}, "repeat a name"),
        ({"method": "fast"}, "method must be one of ['mlrsearch', 'binary']"),
    ],
)
def test_config_errors_name_the_fix(fields: dict[str, object], fragment: str) -> None:
    kwargs: dict[str, object] = {"line_rate_bps": TEN_G, **fields}
    with pytest.raises(ValueError, match=re.escape(fragment)):
        ThroughputConfig(**kwargs)  # type: ignore[arg-type]


def test_unknown_size_is_a_clear_key_error() -> None:
    dut = SimulatedDut()
    result = run_throughput(config(SearchMethod.BINARY, (512,)), Recorder(SimulatedRunner(dut)))
    with pytest.raises(KeyError, match="no throughput result for 64 B; measured: 512 B"):
        result.at(64)
