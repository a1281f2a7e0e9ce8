"""Issue 21, point 5: a throughput bound measured in a trial through which the DUT was
filling its buffer says so (SearchResult.buffered_at_lower_bound_us, RateBounds,
the summary line)."""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

from p4tester.experiments.recording import Recorder
from p4tester.experiments.runner import TrialSpec
from p4tester.experiments.throughput import SearchMethod, ThroughputConfig, run_throughput
from p4tester.results.buffer_fill import buffer_fill
from p4tester.results.model import StreamStats, TrialResult
from p4tester.runs.report_lines import buffering_lines
from p4tester.search import SearchGoal

GOAL = SearchGoal.ndr(final_trial_duration_s=2.0, initial_trial_duration_s=2.0)
LIMIT = 0.5  # the DUT forwards half of line rate
BUFFER_HOLDS = 0.1  # of line rate x the trial: a 2-s trial up to 60 % passes


@dataclass(frozen=True, slots=True)
class DeepBufferDut:
    """Forwards LIMIT of line rate; what exceeds it waits in a buffer that holds
    BUFFER_HOLDS of a trial's frames, so loads up to LIMIT + BUFFER_HOLDS pass a 2-s
    trial, their latency rising 100 ms for each 1 % above LIMIT."""

    _indexes: itertools.count[int] = field(default_factory=itertools.count, init=False,
                                           repr=False, compare=False)

    def run_trial(self, spec: TrialSpec) -> TrialResult:
        sent = round(spec.offered_fraction * 1000 * spec.duration_s)
        excess = max(spec.offered_fraction - LIMIT, 0.0)
        lost = round(max(excess - BUFFER_HOLDS, 0.0) * 1000 * spec.duration_s)
        stream = StreamStats(0, 64, sent, sent - lost, (sent - lost) * 64, int(bool(lost)),
                             lost, 0, 0)
        rise = excess * 10_000_000.0 if excess else None  # us
        return TrialResult("tp", next(self._indexes), spec.offered_fraction,
                           spec.offered_fraction * 1000, spec.duration_s, 64, (stream,),
                           dut_buffering_us=rise)


def test_the_ndr_found_in_a_buffered_trial_says_so() -> None:
    config = ThroughputConfig(10e9, (64,), method=SearchMethod.BINARY, ndr=GOAL, pdr=GOAL)
    result = run_throughput(config, Recorder(DeepBufferDut()))
    ndr = result.at(64).ndr
    assert ndr.lower is not None and 0.59 <= ndr.lower.fraction <= 0.6
    assert ndr.buffered_us is not None and ndr.trial_s == 2.0
    assert ndr.buffered_us == (ndr.lower.fraction - LIMIT) * 10_000_000.0
    (line, _pdr) = buffering_lines(result)
    assert line.startswith(f"64 B NDR: the DUT was filling its buffer in the 2-s trial at "
                           f"{ndr.lower.percent:.2f} % (latency rose ")
    fill = buffer_fill(ndr.buffered_us, 2.0, ndr.lower.pps)
    assert line.endswith(f"ms): {fill.describe()}; the bound may hold only for trials that "
                         f"short: measure with longer ones (--duration "
                         f"{fill.suggested_trial_s:g}; RFC 2544: 60)")


def test_an_ndr_below_the_buffering_says_nothing() -> None:
    @dataclass(frozen=True, slots=True)
    class Flat(DeepBufferDut):
        def run_trial(self, spec: TrialSpec) -> TrialResult:
            trial = DeepBufferDut.run_trial(self, spec)
            lost = round(max(spec.offered_fraction - LIMIT, 0.0) * 1000 * spec.duration_s)
            stream = StreamStats(0, 64, trial.tx_frames, trial.tx_frames - lost, 0,
                                 int(bool(lost)), lost, 0, 0)
            return TrialResult("tp", trial.trial_index, spec.offered_fraction,
                               trial.offered_pps, spec.duration_s, 64, (stream,))

    config = ThroughputConfig(10e9, (64,), method=SearchMethod.BINARY, ndr=GOAL, pdr=GOAL)
    result = run_throughput(config, Recorder(Flat()))
    assert result.at(64).ndr.buffered_us is None
    assert buffering_lines(result) == []
