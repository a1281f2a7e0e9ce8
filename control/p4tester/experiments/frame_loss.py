"""RFC 2544 section 26.3 frame loss rate: the loss curve from line rate down.

Per frame size: a trial at 100 % of line rate (or `start_fraction`), then one per
step of at most 10 % of line rate ("the maximum granularity of the trials MUST be
10 % of the maximum rate, a finer granularity is encouraged") until two successive
trials lose no frame, or the load would reach zero. Loss percent = (TX - RX) x 100 /
TX, as the RFC defines it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Final

from p4tester.streams.frame_sizes import RFC2544_FRAME_SIZES

from .errors import UnvouchedTrialError
from .recording import DEFAULT_ATTEMPTS, Labels, Recorder
from .validation import (
    check_count,
    check_fraction,
    check_frame_sizes,
    check_labels,
    check_name,
    check_positive,
)

RFC2544_MAX_STEP: Final = 0.1  # 10 % of line rate
RFC2544_CLEAN_TRIALS: Final = 2
RFC2544_TRIAL_S: Final = 60.0
# Loads are start - k x step; rounding to 12 digits keeps 1.0 - 3 x 0.1 at 0.7 (it is
# 0.7000000000000001 in floats), so labels and logged loads stay the round numbers.
_LOAD_DIGITS: Final = 12
_OWNER: Final = "FrameLossConfig"


@dataclass(frozen=True, slots=True)
class FrameLossConfig:
    frame_sizes: tuple[int, ...] = RFC2544_FRAME_SIZES
    step_fraction: float = RFC2544_MAX_STEP
    start_fraction: float = 1.0
    trial_duration_s: float = RFC2544_TRIAL_S
    clean_trials_to_stop: int = RFC2544_CLEAN_TRIALS
    attempts: int = DEFAULT_ATTEMPTS  # trials per load while they come back invalid
    experiment: str = "rfc2544-frame-loss"
    labels: Labels = ()

    def __post_init__(self) -> None:
        check_frame_sizes(_OWNER, self.frame_sizes)
        if not 0.0 < self.step_fraction <= RFC2544_MAX_STEP:
            raise ValueError(
                f"{_OWNER}: step_fraction must be in (0, 0.1]: RFC 2544 26.3 steps by at "
                f"most 10 % of line rate, got {self.step_fraction}"
            )
        check_fraction(_OWNER, "start_fraction", self.start_fraction)
        check_positive(_OWNER, "trial_duration_s", self.trial_duration_s, "seconds")
        check_count(_OWNER, "clean_trials_to_stop", self.clean_trials_to_stop)
        check_count(_OWNER, "attempts", self.attempts)
        check_name(_OWNER, "experiment", self.experiment)
        check_labels(_OWNER, self.labels)

    def loads(self) -> tuple[float, ...]:
        """Every load the procedure may visit, highest first (it usually stops early)."""
        steps = math.floor(self.start_fraction / self.step_fraction + 1e-9)
        loads = (
            round(self.start_fraction - k * self.step_fraction, _LOAD_DIGITS)
            for k in range(steps + 1)
        )
        return tuple(load for load in loads if load > 0.0)


@dataclass(frozen=True, slots=True)
class FrameLossPoint:
    offered_fraction: float
    tx_frames: int
    rx_frames: int
    loss_ratio: float
    trial_index: int

    @property
    def offered_percent(self) -> float:
        return self.offered_fraction * 100.0

    @property
    def loss_percent(self) -> float:
        return self.loss_ratio * 100.0


@dataclass(frozen=True, slots=True)
class FrameLossCurve:
    """One frame size's curve, highest load first. `converged`: it ended on the two
    clean trials the RFC asks for, not on reaching the lowest load."""

    frame_size: int
    points: tuple[FrameLossPoint, ...]
    converged: bool
    # Loads left out: every try was tester- or dut-limited (results.checks).
    not_measured: tuple[float, ...] = ()


@dataclass(frozen=True, slots=True)
class FrameLossResult:
    config: FrameLossConfig
    curves: tuple[FrameLossCurve, ...]


def _curve(config: FrameLossConfig, recorder: Recorder, frame_size: int) -> FrameLossCurve:
    points: list[FrameLossPoint] = []
    clean_in_a_row = 0
    not_measured: list[float] = []
    for load in config.loads():
        try:
            trial = recorder.valid_trial(
                config.experiment,
                frame_size,
                load,
                config.trial_duration_s,
                labels=(*config.labels, ("offered_pct", f"{load * 100.0:.10g}")),
                attempts=config.attempts,
            )
        except UnvouchedTrialError:
            # The tester (or a lab DUT on the same host) could not carry this load: no
            # point of the DUT's curve, and no reason to stop the lower ones.
            not_measured.append(load)
            continue
        points.append(
            FrameLossPoint(
                offered_fraction=load,
                tx_frames=trial.tx_frames,
                rx_frames=trial.rx_frames,
                loss_ratio=trial.loss_ratio,
                trial_index=trial.trial_index,
            )
        )
        clean_in_a_row = clean_in_a_row + 1 if trial.lost == 0 else 0
        if clean_in_a_row >= config.clean_trials_to_stop:
            return FrameLossCurve(frame_size, tuple(points), True, tuple(not_measured))
    return FrameLossCurve(frame_size, tuple(points), False, tuple(not_measured))


def run_frame_loss(config: FrameLossConfig, recorder: Recorder) -> FrameLossResult:
    """The curve of every frame size, in the config's order. InvalidTrialsError when a
    load stays invalid through `attempts` trials (all of them are in the log)."""
    return FrameLossResult(
        config=config,
        curves=tuple(_curve(config, recorder, size) for size in config.frame_sizes),
    )
