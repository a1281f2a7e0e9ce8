"""RFC 2544 section 26.1 throughput, per frame size: NDR and PDR bounds.

Per frame size one search runs through a SpecMeasurer, so every search trial is a
logged, numbered trial: MLRsearch (RFC 9971) finds NDR and PDR in one search with
short early trials; the binary search is the plain RFC 2544 baseline, one search per
goal, every trial at full length. The RFC 2544 "throughput" is the NDR lower bound.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Final

from p4tester.results.model import StreamLoss
from p4tester.results.tables import ThroughputPoint
from p4tester.search import NDR, PDR, SearchGoal, SearchResult, binary_search, mlr_search
from p4tester.search.goals import DEFAULT_MIN_FRACTION
from p4tester.search.trials import DEFAULT_MAX_TRIALS
from p4tester.streams.frame_sizes import RFC2544_FRAME_SIZES
from p4tester.streams.rates import Rate, ResolvedRate

from .recording import Labels, Recorder, SpecMeasurer
from .validation import (
    check_count,
    check_frame_sizes,
    check_labels,
    check_name,
    check_positive,
)

_OWNER: Final = "ThroughputConfig"


class SearchMethod(Enum):
    """Which search finds the bounds."""

    MLRSEARCH = "mlrsearch"  # RFC 9971: all goals in one search, short early trials
    BINARY = "binary"  # RFC 2544 baseline: one search per goal, full-length trials


@dataclass(frozen=True, slots=True)
class ThroughputConfig:
    """line_rate_bps: L1 line rate of the TX ports together, which the loads are
    fractions of (it turns the bounds into pps and bit/s)."""

    line_rate_bps: float
    frame_sizes: tuple[int, ...] = RFC2544_FRAME_SIZES
    method: SearchMethod = SearchMethod.MLRSEARCH
    ndr: SearchGoal = NDR
    pdr: SearchGoal = PDR
    min_fraction: float = DEFAULT_MIN_FRACTION
    max_trials: int = DEFAULT_MAX_TRIALS  # per search (per goal for the binary search)
    experiment: str = "rfc2544-throughput"
    labels: Labels = ()
    # Only these streams, each at the load x its share (SpecMeasurer); empty: all.
    stream_shares: tuple[tuple[int, float], ...] = ()
    # The highest load a search offers per frame size, where it is below line rate:
    # the tester's calibrated capacity on this host (runs.search_capacity). A size not
    # named is searched from line rate.
    max_fractions: tuple[tuple[int, float], ...] = ()

    def __post_init__(self) -> None:
        check_positive(_OWNER, "line_rate_bps", self.line_rate_bps, "bit/s (e.g. 10e9)")
        for frame_size, highest in self.max_fractions:
            if not self.min_fraction < highest <= 1.0:
                raise ValueError(f"{_OWNER}: the highest load at {frame_size} B, {highest}, "
                                 f"must be above min_fraction {self.min_fraction} and at "
                                 "most 1 (line rate)")
        for stream_id, share in self.stream_shares:
            if not 0.0 < share <= 1.0:
                raise ValueError(f"{_OWNER}: stream {stream_id}'s share {share} must be in (0, 1]")
        check_frame_sizes(_OWNER, self.frame_sizes)
        if not isinstance(self.method, SearchMethod):
            raise ValueError(
                f"{_OWNER}: method must be one of {[m.value for m in SearchMethod]}, "
                f"got {self.method!r}"
            )
        if self.ndr.loss_ratio != 0.0:
            raise ValueError(
                f"{_OWNER}: the NDR goal must allow no loss (loss_ratio 0), got "
                f"{self.ndr.loss_ratio}; put a loss ratio in the pdr goal"
            )
        if not 0.0 < self.min_fraction < 1.0:
            raise ValueError(
                f"{_OWNER}: min_fraction must be in (0, 1) of line rate, got {self.min_fraction}"
            )
        check_count(_OWNER, "max_trials", self.max_trials)
        check_name(_OWNER, "experiment", self.experiment)
        check_labels(_OWNER, self.labels)

    def max_fraction(self, frame_size: int) -> float:
        """The highest load the search offers at `frame_size` (1.0: line rate)."""
        return dict(self.max_fractions).get(frame_size, 1.0)


@dataclass(frozen=True, slots=True)
class RateBounds:
    """Where one goal's limit lies at one frame size, in every unit: `lower` is the
    highest load that met the goal, at the rate its trial proved it offered where that
    was below the rate it was set to (SearchResult.proven_lower_bound_fraction; None:
    not even the minimum load did), `lower_intended` the search's own lower bound, the
    load that trial was set to (None: not known apart from `lower`), `upper` the
    lowest that failed (None: the search's highest load met it). `tester_limited`: the
    search could go no higher on this host: `upper` is where the tester itself gave
    out (search.trials), not a load the DUT failed, or `lower` is the tester's
    calibrated capacity (`at_tester_capacity`, no `upper`); either way the DUT's limit
    is at least `lower` and may be higher. `losing_streams`: the
    streams that lost frames at `upper`, worst first (SearchResult.losing_streams)."""

    goal: str
    loss_ratio: float
    lower: ResolvedRate | None
    upper: ResolvedRate | None
    tester_limited: bool = False
    losing_streams: tuple[StreamLoss, ...] = ()
    # The trial at `lower` filled the DUT's buffer (latency rose this many us through
    # it): `lower` may hold only for trials that short (SearchResult).
    buffered_us: float | None = None
    trial_s: float = 0.0  # the duration of that trial
    at_tester_capacity: bool = False  # `lower` is the highest load the tester carries here
    lower_intended: ResolvedRate | None = None

    @property
    def lower_fraction(self) -> float | None:
        return None if self.lower is None else self.lower.fraction

    @property
    def lower_intended_fraction(self) -> float | None:
        return None if self.lower_intended is None else self.lower_intended.fraction

    @property
    def lower_below_intended(self) -> bool:
        """`lower` is below the search's bound: its trial offered less than it was set
        to (a report says both)."""
        intended = self.lower_intended_fraction
        return intended is not None and (self.lower is None or self.lower.fraction < intended)

    @property
    def upper_fraction(self) -> float | None:
        return None if self.upper is None else self.upper.fraction


@dataclass(frozen=True, slots=True)
class ThroughputAtSize:
    """NDR and PDR at one frame size, and what finding them cost."""

    frame_size: int
    line_rate_bps: float
    ndr: RateBounds
    pdr: RateBounds
    trial_count: int
    trial_seconds: float  # traffic time of the searches at this size

    @property
    def throughput(self) -> ResolvedRate | None:
        """The RFC 2544 throughput: the highest load found without loss, at the rate
        its trial proved it offered (RateBounds.lower)."""
        return self.ndr.lower

    def point(self) -> ThroughputPoint:
        """For results.tables and results.plots."""
        return ThroughputPoint(
            frame_size=self.frame_size,
            line_rate_bps=self.line_rate_bps,
            ndr_fraction=self.ndr.lower_fraction,
            pdr_fraction=self.pdr.lower_fraction,
            ndr_tester_limited=self.ndr.tester_limited,
            pdr_tester_limited=self.pdr.tester_limited,
            ndr_intended_fraction=self.ndr.lower_intended_fraction,
            pdr_intended_fraction=self.pdr.lower_intended_fraction,
        )


@dataclass(frozen=True, slots=True)
class ThroughputResult:
    config: ThroughputConfig
    sizes: tuple[ThroughputAtSize, ...]

    @property
    def trial_seconds(self) -> float:
        return sum(size.trial_seconds for size in self.sizes)

    def points(self) -> tuple[ThroughputPoint, ...]:
        return tuple(size.point() for size in self.sizes)

    def at(self, frame_size: int) -> ThroughputAtSize:
        for size in self.sizes:
            if size.frame_size == frame_size:
                return size
        raise KeyError(
            f"no throughput result for {frame_size} B; measured: "
            f"{', '.join(str(s.frame_size) for s in self.sizes)} B"
        )


def _resolve(fraction: float | None, frame_size: int, line_rate_bps: float) -> ResolvedRate | None:
    if fraction is None:
        return None
    return Rate.from_percent(fraction * 100.0).resolve(frame_size, line_rate_bps)


def _bounds(result: SearchResult, frame_size: int, line_rate_bps: float) -> RateBounds:
    return RateBounds(
        goal=result.goal.name,
        loss_ratio=result.goal.loss_ratio,
        # Reported at what the trial proved it offered; the search's own bound kept beside.
        lower=_resolve(result.proven_lower_bound_fraction, frame_size, line_rate_bps),
        upper=_resolve(result.upper_bound_fraction, frame_size, line_rate_bps),
        tester_limited=(result.upper_bound_is_tester_limit
                        or result.lower_bound_is_tester_capacity),
        losing_streams=result.losing_streams,
        buffered_us=result.buffered_at_lower_bound_us,
        trial_s=result.passing_trial.duration_s if result.passing_trial else 0.0,
        at_tester_capacity=result.lower_bound_is_tester_capacity,
        lower_intended=_resolve(result.lower_bound_fraction, frame_size, line_rate_bps),
    )


def _search_size(config: ThroughputConfig, recorder: Recorder, frame_size: int) -> ThroughputAtSize:
    labels = (*config.labels, ("search", config.method.value))
    if config.method is SearchMethod.MLRSEARCH:
        measurer = SpecMeasurer(recorder, frame_size, config.experiment, labels,
                                config.stream_shares)
        ndr, pdr = mlr_search(
            measurer,
            (config.ndr, config.pdr),
            min_fraction=config.min_fraction,
            max_fraction=config.max_fraction(frame_size),
            max_trials=config.max_trials,
        )
        # One search served both goals: its trials are counted once.
        trial_count, trial_seconds = len(ndr.trials), ndr.trial_seconds
    else:
        found = []
        for goal in (config.ndr, config.pdr):
            measurer = SpecMeasurer(
                recorder, frame_size, config.experiment, (*labels, ("goal", goal.name)),
                config.stream_shares,
            )
            (result,) = binary_search(
                measurer, (goal,), min_fraction=config.min_fraction,
                max_fraction=config.max_fraction(frame_size), max_trials=config.max_trials
            )
            found.append(result)
        ndr, pdr = found
        trial_count = len(ndr.trials) + len(pdr.trials)
        trial_seconds = ndr.trial_seconds + pdr.trial_seconds
    return ThroughputAtSize(
        frame_size=frame_size,
        line_rate_bps=config.line_rate_bps,
        ndr=_bounds(ndr, frame_size, config.line_rate_bps),
        pdr=_bounds(pdr, frame_size, config.line_rate_bps),
        trial_count=trial_count,
        trial_seconds=trial_seconds,
    )


def run_throughput(config: ThroughputConfig, recorder: Recorder) -> ThroughputResult:
    """Search NDR and PDR at every frame size, in the config's order.

    Errors from the search (InvalidTrialError after a repeated invalid trial,
    TrialBudgetError) propagate; the trials run so far are in the recorder's log.
    """
    return ThroughputResult(
        config=config,
        sizes=tuple(_search_size(config, recorder, size) for size in config.frame_sizes),
    )
