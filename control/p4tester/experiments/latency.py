"""RFC 2544 section 26.2 latency, summarised as RFC 8219 section 7.2 asks.

At one frame size and load (normally the throughput found: `config_at_throughput`),
`trials` trials of `trial_duration_s` each. The tester timestamps every frame, not one
tagged frame per trial, so each trial yields the full distribution: min/avg/max and
p50/p99/p99.9 from its histogram.

RFC 8219 section 7.2: per trial, Typical Latency TL = median of the frame latencies
and Worst-Case Latency WCL = their 99.9th percentile; the test is repeated at least
20 times and the reported values are the medians of the per-trial TL and WCL. The 1st
and 99th percentiles over the trials MAY be reported to show their spread: they are
here too (nearest rank: with 20 trials, the lowest and the highest).

Invalid trials (valid=False) and trials that received nothing are left out of the
summary and counted.

Each trial runs a reference stream looped inside the tester switch where the target
can (BMv2; results.reference): the tester's own latency floor and spikes in that trial.
A trial whose reference spiked enough to account for its figures is kept, marked
(`tester_spiked`), and counted in the summary: its max and high percentiles may be
the tester's, not the DUT's. A percentile beyond the histogram's last bin edge is known
only from below: the trial holds the edge and names it in `lower_bounds`
(results.latency). A summary figure is then the same statistic over those bounds, a
lower bound itself, and named in the summary's `lower_bounds` unless the bounds did not
decide it (figures.bounded_statistic). None only where trials had no histogram.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Final

from p4tester.results.model import TrialResult
from p4tester.results.reference import ReferenceLatency
from p4tester.results.tables import trial_latency

from .errors import InvalidTrialsError
from .figures import Bounded, bounded_statistic, median_with_overflow, nearest_rank_with_overflow
from .recording import Labels, Recorder
from .throughput import ThroughputAtSize
from .validation import (
    check_count,
    check_fraction,
    check_frame_size,
    check_labels,
    check_name,
    check_positive,
)

# RFC 2544 26.2 and RFC 8219 7.2: at least 20 repetitions of at least 120 s.
RFC_LATENCY_TRIALS: Final = 20
RFC_LATENCY_TRIAL_S: Final = 120.0
_P01: Final = 0.01
_P99: Final = 0.99
_OWNER: Final = "LatencyConfig"


@dataclass(frozen=True, slots=True)
class LatencyConfig:
    frame_size: int
    offered_fraction: float  # share of line rate; RFC 2544: the throughput found
    trials: int = RFC_LATENCY_TRIALS
    trial_duration_s: float = RFC_LATENCY_TRIAL_S
    experiment: str = "rfc2544-latency"
    labels: Labels = ()

    def __post_init__(self) -> None:
        check_frame_size(_OWNER, "frame_size", self.frame_size)
        check_fraction(_OWNER, "offered_fraction", self.offered_fraction)
        check_count(_OWNER, "trials", self.trials)
        check_positive(_OWNER, "trial_duration_s", self.trial_duration_s, "seconds")
        check_name(_OWNER, "experiment", self.experiment)
        check_labels(_OWNER, self.labels)


def config_at_throughput(
    found: ThroughputAtSize,
    *,
    trials: int = RFC_LATENCY_TRIALS,
    trial_duration_s: float = RFC_LATENCY_TRIAL_S,
    experiment: str = "rfc2544-latency",
    labels: Labels = (),
) -> LatencyConfig:
    """Latency at the RFC 2544 throughput (the NDR lower bound) of one frame size."""
    throughput = found.throughput
    if throughput is None:
        raise ValueError(
            f"no throughput at {found.frame_size} B (the DUT lost frames even at the "
            "search's minimum load): give the latency load explicitly in a LatencyConfig"
        )
    return LatencyConfig(
        frame_size=found.frame_size,
        offered_fraction=throughput.fraction,
        trials=trials,
        trial_duration_s=trial_duration_s,
        experiment=experiment,
        labels=labels,
    )


@dataclass(frozen=True, slots=True)
class LatencyTrial:
    """One valid trial's latency over all its streams (switch clock units, BMv2: us).
    A percentile is None without a histogram; beyond its last edge, the edge, a lower
    bound named in `lower_bounds`."""

    trial_index: int
    samples: int
    min_us: float
    avg_us: float
    max_us: float
    jitter_us: float
    p50_us: float | None  # RFC 8219 TL of this trial
    p99_us: float | None
    p999_us: float | None  # RFC 8219 WCL of this trial
    loss_ratio: float
    # The tester's own latency in this trial (None: the target ran no reference stream).
    reference: ReferenceLatency | None = None
    # The names of the percentile fields above that hold only a lower bound (e.g.
    # ("p999_us",)), and the samples at or above the histogram's last edge.
    lower_bounds: tuple[str, ...] = ()
    beyond_histogram: int = 0

    @property
    def tester_spiked(self) -> bool:
        return self.reference is not None and self.reference.spiked

    def is_lower_bound(self, name: str) -> bool:
        """Whether the percentile field `name` (e.g. "p999_us") is only a lower bound."""
        return name in self.lower_bounds


@dataclass(frozen=True, slots=True)
class LatencySummary:
    """RFC 8219 7.2 over the trials used; min/avg/max over all their frames."""

    trials: int
    typical_latency_us: float | None  # median of the per-trial p50 (TL)
    worst_case_latency_us: float | None  # median of the per-trial p99.9 (WCL)
    typical_p1_us: float | None  # spread of TL over the trials (RFC 8219: MAY report)
    typical_p99_us: float | None
    worst_case_p1_us: float | None
    worst_case_p99_us: float | None
    median_p99_us: float | None  # median of the per-trial p99
    min_us: float
    avg_us: float  # frame-weighted
    max_us: float
    # From the trials' reference streams: the lowest latency the tester itself showed,
    # its highest, and how many trials' figures its spikes may account for. None (and
    # 0): no trial ran a reference stream.
    tester_floor_us: float | None = None
    tester_max_us: float | None = None
    tester_spiked_trials: int = 0
    # The names of the figures above that are only lower bounds (per-trial percentiles
    # beyond the histogram's last edge decided them), and the samples beyond that edge
    # in all trials used.
    lower_bounds: tuple[str, ...] = ()
    beyond_histogram: int = 0

    def is_lower_bound(self, name: str) -> bool:
        """Whether the figure `name` (e.g. "typical_latency_us") is only a lower bound."""
        return name in self.lower_bounds


@dataclass(frozen=True, slots=True)
class LatencyResult:
    config: LatencyConfig
    trials: tuple[LatencyTrial, ...]  # the valid trials with latency samples
    summary: LatencySummary | None  # None when no trial could be used
    invalid_trials: int  # valid=False: excluded
    trials_without_latency: int  # valid but nothing received: excluded

    @property
    def complete(self) -> bool:
        """Every trial asked for was used."""
        return len(self.trials) == self.config.trials


def summarize(trials: Sequence[LatencyTrial]) -> LatencySummary | None:
    """The RFC 8219 7.2 summary of per-trial figures; None for no trials."""
    if not trials:
        return None
    # Each percentile's per-trial values, and which of them are lower bounds.
    typical = ([t.p50_us for t in trials], [t.is_lower_bound("p50_us") for t in trials])
    worst = ([t.p999_us for t in trials], [t.is_lower_bound("p999_us") for t in trials])
    p99 = ([t.p99_us for t in trials], [t.is_lower_bound("p99_us") for t in trials])
    typical_latency = bounded_statistic(median_with_overflow, *typical)
    worst_case_latency = bounded_statistic(median_with_overflow, *worst)
    typical_p1 = bounded_statistic(_nearest_rank(_P01), *typical)
    typical_p99 = bounded_statistic(_nearest_rank(_P99), *typical)
    worst_case_p1 = bounded_statistic(_nearest_rank(_P01), *worst)
    worst_case_p99 = bounded_statistic(_nearest_rank(_P99), *worst)
    median_p99 = bounded_statistic(median_with_overflow, *p99)
    samples = sum(t.samples for t in trials)
    references = [t.reference for t in trials if t.reference is not None]
    return LatencySummary(
        trials=len(trials),
        typical_latency_us=typical_latency.value,
        worst_case_latency_us=worst_case_latency.value,
        typical_p1_us=typical_p1.value,
        typical_p99_us=typical_p99.value,
        worst_case_p1_us=worst_case_p1.value,
        worst_case_p99_us=worst_case_p99.value,
        median_p99_us=median_p99.value,
        min_us=min(t.min_us for t in trials),
        avg_us=sum(t.avg_us * t.samples for t in trials) / samples,
        max_us=max(t.max_us for t in trials),
        tester_floor_us=min((r.min_us for r in references), default=None),
        tester_max_us=max((r.max_us for r in references), default=None),
        tester_spiked_trials=sum(1 for t in trials if t.tester_spiked),
        lower_bounds=_lower_bound_names(
            typical_latency_us=typical_latency, worst_case_latency_us=worst_case_latency,
            typical_p1_us=typical_p1, typical_p99_us=typical_p99,
            worst_case_p1_us=worst_case_p1, worst_case_p99_us=worst_case_p99,
            median_p99_us=median_p99),
        beyond_histogram=sum(t.beyond_histogram for t in trials),
    )


def _lower_bound_names(**figures: Bounded) -> tuple[str, ...]:
    """The names (LatencySummary's fields) of the figures that are only lower bounds."""
    return tuple(name for name, figure in figures.items() if figure.lower_bound)


def _nearest_rank(quantile: float) -> Callable[[Sequence[float | None]], float | None]:
    return lambda values: nearest_rank_with_overflow(values, quantile)


def run_latency(config: LatencyConfig, recorder: Recorder) -> LatencyResult:
    """Run the trials, one after the other, each labelled with its repetition. A
    repetition the tester or a lab DUT could not vouch for is run again, up to
    search.trials.TESTER_LIMITED_ATTEMPTS times in all (a busy host is often busy for a moment
    only); every attempt is a trial of its own in the log, and only a vouched one
    gives the repetition's figures."""
    used: list[LatencyTrial] = []
    invalid = 0
    without = 0
    for repetition in range(config.trials):
        trial = _vouched_repetition(config, recorder, repetition)
        if not trial.valid:
            invalid += 1
            continue
        latency = trial_latency(trial)
        if latency is None:
            without += 1
            continue
        used.append(
            LatencyTrial(
                trial_index=trial.trial_index,
                samples=latency.samples,
                min_us=latency.min_us,
                avg_us=latency.avg_us,
                max_us=latency.max_us,
                jitter_us=latency.jitter_us,
                p50_us=latency.p50_us,
                p99_us=latency.p99_us,
                p999_us=latency.p999_us,
                loss_ratio=trial.loss_ratio,
                reference=trial.reference,
                lower_bounds=latency.lower_bounds,
                beyond_histogram=latency.beyond_histogram,
            )
        )
    return LatencyResult(
        config=config,
        trials=tuple(used),
        summary=summarize(used),
        invalid_trials=invalid,
        trials_without_latency=without,
    )


def _vouched_repetition(config: LatencyConfig, recorder: Recorder,
                        repetition: int) -> TrialResult:
    """The repetition's first vouched trial, or its last attempt: a host-limited trial
    is repeated (Recorder.valid_trial), a failed one (the switch did not answer) is
    not; either way a repetition that found none counts as invalid, and the run goes
    on."""
    try:
        return recorder.valid_trial(
            config.experiment,
            config.frame_size,
            config.offered_fraction,
            config.trial_duration_s,
            labels=(*config.labels, ("repetition", str(repetition))),
            attempts=1,
            reference_loop=True,
        )
    except InvalidTrialsError as none_vouched:
        return none_vouched.last
