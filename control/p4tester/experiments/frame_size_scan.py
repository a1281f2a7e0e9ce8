"""Loss vs frame size at one load: the scan seed 000 ran to find the "NDR frame size".

One trial per size from `start_size` to `end_size` (always included) in steps of
`step` bytes, down to 1. Loss need not fall monotonically as frames grow: seed 000's
line card was loss-free from 130 B but lost again from 230 to 278 B (a packet
spilling into a second internal cell). So the result keeps every point and names:

- first_loss_free_size: the smallest scanned size without loss (seed 000's 130 B);
- ndr_frame_size: the smallest size from which every larger scanned size is
  loss-free (None when the largest size loses);
- loss_bands: runs of consecutive lossy sizes; reappearing_bands: those that start
  after a loss-free size, i.e. where loss comes back (seed 000's 230..278 B).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from .recording import DEFAULT_ATTEMPTS, Labels, Recorder
from .validation import (
    check_count,
    check_fraction,
    check_frame_size,
    check_labels,
    check_name,
    check_positive,
)

_OWNER: Final = "FrameSizeScanConfig"


@dataclass(frozen=True, slots=True)
class FrameSizeScanConfig:
    """loss_ratio_threshold: a size counts as lossy above this loss ratio (0: any
    lost frame, the NDR criterion)."""

    start_size: int
    end_size: int
    step: int = 1
    offered_fraction: float = 1.0
    trial_duration_s: float = 60.0
    loss_ratio_threshold: float = 0.0
    attempts: int = DEFAULT_ATTEMPTS
    experiment: str = "frame-size-scan"
    labels: Labels = ()

    def __post_init__(self) -> None:
        check_frame_size(_OWNER, "start_size", self.start_size)
        check_frame_size(_OWNER, "end_size", self.end_size)
        if self.end_size < self.start_size:
            raise ValueError(
                f"{_OWNER}: end_size {self.end_size} B is below start_size "
                f"{self.start_size} B; scans go from small to large frames"
            )
        check_count(_OWNER, "step", self.step)
        check_fraction(_OWNER, "offered_fraction", self.offered_fraction)
        check_positive(_OWNER, "trial_duration_s", self.trial_duration_s, "seconds")
        if not 0.0 <= self.loss_ratio_threshold < 1.0:
            raise ValueError(
                f"{_OWNER}: loss_ratio_threshold must be in [0, 1) (0 = no loss at all), "
                f"got {self.loss_ratio_threshold}"
            )
        check_count(_OWNER, "attempts", self.attempts)
        check_name(_OWNER, "experiment", self.experiment)
        check_labels(_OWNER, self.labels)

    def sizes(self) -> tuple[int, ...]:
        """The sizes scanned, increasing (64..9216 B by 1 B is 9153 trials at most)."""
        sizes = tuple(range(self.start_size, self.end_size + 1, self.step))
        return sizes if sizes[-1] == self.end_size else (*sizes, self.end_size)


@dataclass(frozen=True, slots=True)
class ScanPoint:
    frame_size: int
    tx_frames: int
    rx_frames: int
    loss_ratio: float
    lossy: bool  # loss ratio above the config's threshold
    trial_index: int


@dataclass(frozen=True, slots=True)
class SizeBand:
    """Consecutive scanned sizes (first..last, both included) that all lost."""

    first_size: int
    last_size: int


@dataclass(frozen=True, slots=True)
class FrameSizeScanResult:
    config: FrameSizeScanConfig
    points: tuple[ScanPoint, ...]
    first_loss_free_size: int | None
    ndr_frame_size: int | None
    loss_bands: tuple[SizeBand, ...]
    reappearing_bands: tuple[SizeBand, ...]

    @property
    def lossy_sizes(self) -> tuple[int, ...]:
        return tuple(point.frame_size for point in self.points if point.lossy)

    @property
    def loss_reappears_at(self) -> tuple[int, ...]:
        """Sizes where loss starts again after a loss-free size."""
        return tuple(band.first_size for band in self.reappearing_bands)


def _bands(points: tuple[ScanPoint, ...]) -> tuple[SizeBand, ...]:
    bands: list[SizeBand] = []
    first: int | None = None
    previous = 0
    for point in points:
        if point.lossy and first is None:
            first = point.frame_size
        elif not point.lossy and first is not None:
            bands.append(SizeBand(first, previous))
            first = None
        previous = point.frame_size
    if first is not None:
        bands.append(SizeBand(first, previous))
    return tuple(bands)


def analyse(config: FrameSizeScanConfig, points: tuple[ScanPoint, ...]) -> FrameSizeScanResult:
    """The scan's figures from its points (in increasing size)."""
    clean = [p.frame_size for p in points if not p.lossy]
    bands = _bands(points)
    ndr_frame_size: int | None = None
    for point in reversed(points):
        if point.lossy:
            break
        ndr_frame_size = point.frame_size
    first_clean = clean[0] if clean else None
    return FrameSizeScanResult(
        config=config,
        points=points,
        first_loss_free_size=first_clean,
        ndr_frame_size=ndr_frame_size,
        loss_bands=bands,
        reappearing_bands=tuple(
            band for band in bands if first_clean is not None and band.first_size > first_clean
        ),
    )


def run_frame_size_scan(config: FrameSizeScanConfig, recorder: Recorder) -> FrameSizeScanResult:
    """One trial per size; InvalidTrialsError when a size stays invalid."""
    points = []
    for size in config.sizes():
        trial = recorder.valid_trial(
            config.experiment,
            size,
            config.offered_fraction,
            config.trial_duration_s,
            labels=config.labels,
            attempts=config.attempts,
            fails_above=config.loss_ratio_threshold,  # only "lossy or not" is asked
        )
        loss = trial.loss_ratio if trial.valid else trial.dut_loss_floor_ratio
        points.append(
            ScanPoint(
                frame_size=size,
                tx_frames=trial.tx_frames,
                rx_frames=trial.rx_frames,
                # A host-limited trial counts only the loss the DUT caused at least.
                loss_ratio=loss,
                lossy=loss > config.loss_ratio_threshold,
                trial_index=trial.trial_index,
            )
        )
    return analyse(config, tuple(points))
