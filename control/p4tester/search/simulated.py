"""Simulated DUTs with known limits, so searches can be checked against the truth.

Each DUT answers Measurer.measure with a TrialResult of one stream, as the tester
would: TX frames from the offered load, RX frames from the DUT's loss. They are
deterministic (noise comes from a seeded random.Random) and cost no wall time, so a
60-s trial is free. Loads are fractions of line rate; frame sizes include the FCS.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from p4tester.results.checks import PortCheck, SelfCheck
from p4tester.results.model import StreamStats, TrialResult
from p4tester.streams.frame_sizes import MIN_ETHERNET_FRAME
from p4tester.streams.rates import line_rate_pps, validate_frame_size

from .measurer import Measurer

TEN_GBE_BPS = 10e9
_EXPERIMENT = "simulated"


def capacity_loss_ratio(capacity_fraction: float, offered_fraction: float) -> float:
    """Loss of a DUT that forwards at most `capacity_fraction` of line rate: all the
    excess is dropped, so loss = 1 - capacity / load above capacity, none below."""
    if offered_fraction <= capacity_fraction:
        return 0.0
    return 1.0 - capacity_fraction / offered_fraction


def capacity_limit(capacity_fraction: float, loss_ratio: float) -> float:
    """Highest load whose capacity loss stays at or below `loss_ratio`:
    1 - c / L <= r  <=>  L <= c / (1 - r); line rate caps it."""
    return min(1.0, capacity_fraction / (1.0 - loss_ratio))


def _check_fraction(what: str, value: float, *, allow_zero: bool = False) -> None:
    low_ok = value >= 0.0 if allow_zero else value > 0.0
    if not (low_ok and value <= 1.0):
        interval = "[0, 1]" if allow_zero else "(0, 1]"
        raise ValueError(f"{what} must be in {interval}, got {value}")


@dataclass(slots=True)
class _TrialCounter:
    """The one mutable part of a DUT: trial indices go up across its trials."""

    next_index: int = 0

    def take(self) -> int:
        index = self.next_index
        self.next_index += 1
        return index


def _trial(
    *,
    index: int,
    frame_size: int,
    line_rate_bps: float,
    duration_s: float,
    offered_fraction: float,
    loss_ratio: float,
    labels: tuple[tuple[str, str], ...],
) -> TrialResult:
    if not duration_s > 0.0:
        raise ValueError(f"simulated trial: duration_s must be positive, got {duration_s}")
    _check_fraction("simulated trial: offered_fraction", offered_fraction)
    offered_pps = offered_fraction * line_rate_pps(line_rate_bps, frame_size)
    tx_frames = round(offered_pps * duration_s)
    # Rounded up: any excess over capacity drops at least one frame, so a load just
    # above a limit never passes by rounding.
    lost = min(tx_frames, math.ceil(tx_frames * loss_ratio))
    rx_frames = tx_frames - lost
    stream = StreamStats(
        stream_id=0,
        frame_size=frame_size,
        tx_frames=tx_frames,
        rx_frames=rx_frames,
        rx_bytes=rx_frames * frame_size,
        # Only the authoritative TX - RX loss is modelled, not where the gaps fall.
        gap_events=0,
        lost_in_gaps=0,
        reordered=0,
        duplicates=0,
    )
    return TrialResult(
        experiment=_EXPERIMENT,
        trial_index=index,
        offered_fraction=offered_fraction,
        offered_pps=offered_pps,
        duration_s=duration_s,
        frame_size=frame_size,
        streams=(stream,),
        labels=labels,
    )


@dataclass(frozen=True, slots=True)
class CleanDut:
    """Forwards everything up to `capacity_fraction` of line rate, drops the excess."""

    capacity_fraction: float
    frame_size: int = MIN_ETHERNET_FRAME
    line_rate_bps: float = TEN_GBE_BPS
    _counter: _TrialCounter = field(
        default_factory=_TrialCounter, init=False, repr=False, compare=False
    )

    def __post_init__(self) -> None:
        _check_fraction("CleanDut: capacity_fraction", self.capacity_fraction)
        validate_frame_size(self.frame_size)

    def loss_ratio_at(self, offered_fraction: float) -> float:
        return capacity_loss_ratio(self.capacity_fraction, offered_fraction)

    def limit_fraction(self, loss_ratio: float) -> float:
        """The true limit a search for this loss ratio should bracket."""
        return capacity_limit(self.capacity_fraction, loss_ratio)

    def measure(self, duration_s: float, offered_fraction: float) -> TrialResult:
        return _trial(
            index=self._counter.take(),
            frame_size=self.frame_size,
            line_rate_bps=self.line_rate_bps,
            duration_s=duration_s,
            offered_fraction=offered_fraction,
            loss_ratio=self.loss_ratio_at(offered_fraction),
            labels=(("dut", "clean"), ("capacity_fraction", f"{self.capacity_fraction:g}")),
        )


@dataclass(frozen=True, slots=True)
class NoisyDut:
    """A CleanDut that now and then loses a little at any load.

    With `probability` per trial (one draw per trial from a Random seeded with `seed`),
    the trial loses `noise_loss_ratio` of its frames, or the capacity loss if that is
    larger. Goals tolerating the noise ratio see a clean DUT; stricter goals (NDR) can
    fail a trial anywhere below capacity.
    """

    capacity_fraction: float
    noise_loss_ratio: float
    probability: float
    seed: int = 0
    frame_size: int = MIN_ETHERNET_FRAME
    line_rate_bps: float = TEN_GBE_BPS
    _counter: _TrialCounter = field(
        default_factory=_TrialCounter, init=False, repr=False, compare=False
    )
    _rng: random.Random = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        _check_fraction("NoisyDut: capacity_fraction", self.capacity_fraction)
        if not 0.0 <= self.noise_loss_ratio < 1.0:
            raise ValueError(
                f"NoisyDut: noise_loss_ratio must be in [0, 1), got {self.noise_loss_ratio}"
            )
        _check_fraction("NoisyDut: probability", self.probability, allow_zero=True)
        validate_frame_size(self.frame_size)
        # Frozen for its configuration; the generator's state is the noise itself.
        object.__setattr__(self, "_rng", random.Random(self.seed))

    def limit_fraction(self, loss_ratio: float) -> float:
        """The limit without noise; goals below `noise_loss_ratio` may fail under it."""
        return capacity_limit(self.capacity_fraction, loss_ratio)

    def measure(self, duration_s: float, offered_fraction: float) -> TrialResult:
        # Drawn before anything can fail, so the noise sequence depends only on how many
        # trials ran, not on their loads.
        noisy = self._rng.random() < self.probability
        loss = capacity_loss_ratio(self.capacity_fraction, offered_fraction)
        if noisy:
            loss = max(loss, self.noise_loss_ratio)
        return _trial(
            index=self._counter.take(),
            frame_size=self.frame_size,
            line_rate_bps=self.line_rate_bps,
            duration_s=duration_s,
            offered_fraction=offered_fraction,
            loss_ratio=loss,
            labels=(
                ("dut", "noisy"),
                ("capacity_fraction", f"{self.capacity_fraction:g}"),
                ("noise", "yes" if noisy else "no"),
            ),
        )


# The example below: a DUT forwarding at most 8 Mpps reaches 10GbE line rate from
# 137 B up (line rate at 137 B is 7.96 Mpps)...
EXAMPLE_MAX_PPS = 8.0e6
# ...but, as in seed 000 (design.md section 4), loses again in a band of mid sizes
# (there 230..278 B; a buffer-cell boundary is one cause), where it manages 90 %.
EXAMPLE_LOSS_BAND_B = range(230, 279)
EXAMPLE_BAND_CAPACITY = 0.9


def example_capacity_by_size(frame_size: int) -> float:
    """Capacity (fraction of 10GbE line rate) with a non-monotonic loss band."""
    pps_limited = min(1.0, EXAMPLE_MAX_PPS / line_rate_pps(TEN_GBE_BPS, frame_size))
    if frame_size in EXAMPLE_LOSS_BAND_B:
        return min(pps_limited, EXAMPLE_BAND_CAPACITY)
    return pps_limited


@dataclass(frozen=True, slots=True)
class FrameSizeDut:
    """A clean DUT whose capacity depends on the frame size.

    A search runs at one frame size, so the Measurer is `at_frame_size(size)`.
    """

    capacity_by_size: Callable[[int], float]
    line_rate_bps: float = TEN_GBE_BPS

    @classmethod
    def example(cls) -> FrameSizeDut:
        """Pps-limited below 137 B, line rate above, except the 230..278 B band."""
        return cls(example_capacity_by_size)

    def at_frame_size(self, frame_size: int) -> CleanDut:
        validate_frame_size(frame_size)
        return CleanDut(
            capacity_fraction=self.capacity_by_size(frame_size),
            frame_size=frame_size,
            line_rate_bps=self.line_rate_bps,
        )


@dataclass(frozen=True, slots=True)
class FlakyMeasurer:
    """Wraps a measurer and marks chosen trials invalid, as a failed counter read would.

    `invalid_calls` are 0-based call numbers. The trial still ran (it cost its
    duration), only its figures are unusable.
    """

    inner: Measurer
    invalid_calls: frozenset[int]
    error: str = "simulated: counter read failed"
    _counter: _TrialCounter = field(
        default_factory=_TrialCounter, init=False, repr=False, compare=False
    )

    def measure(self, duration_s: float, offered_fraction: float) -> TrialResult:
        trial = self.inner.measure(duration_s, offered_fraction)
        if self._counter.take() in self.invalid_calls:
            return replace(trial, valid=False, error=self.error)
        return trial


@dataclass(frozen=True, slots=True)
class LimitedTester:
    """Wraps a measurer with a tester that cannot keep up, as BMv2 on a busy host:
    above `capacity_fraction` (and at the 0-based calls in `limited_calls`, a moment
    of host load) the tester loses frames on its receive port itself. Such a trial
    comes back tester-limited: invalid, its self-check showing the frames the port
    delivered that the program never saw, and its loss is never the DUT's."""

    inner: Measurer
    capacity_fraction: float = 1.0
    limited_calls: frozenset[int] = frozenset()
    _counter: _TrialCounter = field(
        default_factory=_TrialCounter, init=False, repr=False, compare=False
    )

    def measure(self, duration_s: float, offered_fraction: float) -> TrialResult:
        trial = self.inner.measure(duration_s, offered_fraction)
        call = self._counter.take()
        if offered_fraction <= self.capacity_fraction and call not in self.limited_calls:
            return replace(trial, self_check=SelfCheck((
                PortCheck(2, "sim2", trial.rx_frames, 0, 0, 0, trial.rx_frames, 0),)))
        share = capacity_loss_ratio(self.capacity_fraction, offered_fraction)
        arrived = trial.rx_frames
        dropped = max(1, round(arrived * share))
        check = SelfCheck((PortCheck(2, "sim2", arrived, 0, 0, 0, arrived - dropped, 0),))
        streams = tuple(replace(s, rx_frames=s.rx_frames - dropped) if i == 0 else s
                        for i, s in enumerate(trial.streams))
        return replace(trial, streams=streams, valid=False,
                       error=f"tester-limited: {check.describe()}", self_check=check)
