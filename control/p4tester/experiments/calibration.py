"""Tester capacity calibration (issue 10): the highest rate the tester itself carries on
this host, per frame size, with the DUT replaced by a cable (the loopback lab).

Per frame size, `repetitions` bisections of the offered load: a load passes when one
of its trials is valid (the self-check saw no frame lost inside the tester) and lost
nothing, and it gets as many trials as a search gives a load whose trials the tester
could not vouch for (search.trials.TESTER_LIMITED_ATTEMPTS). The capacity bounds the
searches, so it is the load they can measure by their own rule. One try per load
let a host's stall below the capacity cap a whole bisection: the 64-B capacity of one
BMv2 build came out 15 696, 14 240 and 13 224 frames/s in three repetitions, the lower
two stopped at loads the first carried by trials a stall failed (a catch-up burst the
self-check refuses, frames the switch did not read in time). As many failures in a
row at a load are the tester's limit, and so is one trial in which the tester carried
less than half the load (a host's stall costs a trial far less; trying such a load
again would only spend time). The capacity is the median of the repetitions' highest
passing loads; the spread is kept, because on a shared host it is large.

The result is stored (calibration_to_dict / CalibrationFile) and read back to warn
about a requested load above it: such a load measures the tester, not the DUT.
"""

from __future__ import annotations

import json
import socket
import time
from dataclasses import dataclass
from pathlib import Path
from statistics import median
from typing import Final

from p4tester.results.model import TrialResult
from p4tester.search.trials import TESTER_LIMITED_ATTEMPTS
from p4tester.streams.rates import line_rate_pps

from .recording import Labels, Recorder
from .validation import check_count, check_frame_sizes, check_name, check_positive

_OWNER: Final = "CalibrationConfig"
# Bisection stops when the interval is this narrow (relative to its upper end).
DEFAULT_RELATIVE_WIDTH: Final = 0.02
# Below this share of line rate a tester is broken, not slow.
MIN_FRACTION: Final = 0.01
# A trial whose tester fell this share or more short of the load is its limit, not a
# hiccup: the load is not tried again.
GROSS_SHORTFALL: Final = 0.5
CALIBRATION_VERSION: Final = 1


@dataclass(frozen=True, slots=True)
class CalibrationConfig:
    """line_rate_bps: the L1 line rate of the calibrated TX port (its 100 %)."""

    line_rate_bps: float
    frame_sizes: tuple[int, ...] = (64, 512, 1518)
    repetitions: int = 3
    trial_duration_s: float = 1.0
    relative_width: float = DEFAULT_RELATIVE_WIDTH
    attempts: int = TESTER_LIMITED_ATTEMPTS  # trials a load gets while they fail
    experiment: str = "calibrate"
    labels: Labels = ()

    def __post_init__(self) -> None:
        check_positive(_OWNER, "line_rate_bps", self.line_rate_bps, "bit/s")
        check_frame_sizes(_OWNER, self.frame_sizes)
        check_count(_OWNER, "repetitions", self.repetitions)
        check_count(_OWNER, "attempts", self.attempts)
        check_positive(_OWNER, "trial_duration_s", self.trial_duration_s, "seconds")
        if not 0.0 < self.relative_width < 1.0:
            raise ValueError(f"{_OWNER}: relative_width must be in (0, 1), "
                             f"got {self.relative_width}")
        check_name(_OWNER, "experiment", self.experiment)


@dataclass(frozen=True, slots=True)
class SizeCapacity:
    """The tester's loss-free rate at one frame size: one figure per repetition
    (share of line rate; 0.0 when not even MIN_FRACTION passed) and their median."""

    frame_size: int
    line_rate_bps: float
    fractions: tuple[float, ...]

    @property
    def fraction(self) -> float:
        return median(self.fractions)

    @property
    def pps(self) -> float:
        return self.fraction * line_rate_pps(self.line_rate_bps, self.frame_size)

    @property
    def spread_pps(self) -> tuple[float, float]:
        full = line_rate_pps(self.line_rate_bps, self.frame_size)
        return min(self.fractions) * full, max(self.fractions) * full

    @property
    def at_line_rate(self) -> bool:
        """Line rate passed: the tester's capacity is at least the port's."""
        return self.fraction >= 1.0


@dataclass(frozen=True, slots=True)
class Calibration:
    host: str
    topology: str
    measured_at: float  # Unix time
    sizes: tuple[SizeCapacity, ...]
    # The tester's target (bmv2, ebpf, tofino): a capacity holds for its own target only.
    target: str = "bmv2"

    def capacity_pps(self, frame_size: int) -> SizeCapacity:
        """The capacity measured at the nearest calibrated frame size (BMv2's cost is
        per frame, nearly flat in size, so the nearest is a fair stand-in)."""
        return min(self.sizes, key=lambda s: (abs(s.frame_size - frame_size), s.frame_size))


def _bisect(config: CalibrationConfig, recorder: Recorder, frame_size: int,
            repetition: int) -> float:
    """Highest loss-free, self-check-clean share of line rate (0.0: none passed)."""
    labels = (*config.labels, ("repetition", str(repetition)))
    lower, upper = 0.0, 1.0
    load = 1.0
    while True:
        if _carried(config, recorder, frame_size, load, labels):
            lower = load
        else:
            upper = load
        if lower >= 1.0 or (upper - lower) <= config.relative_width * upper:
            return lower
        if lower == 0.0 and upper <= MIN_FRACTION:
            return 0.0
        load = max((lower + upper) / 2.0, MIN_FRACTION)


def _carried(config: CalibrationConfig, recorder: Recorder, frame_size: int, load: float,
             labels: Labels) -> bool:
    """Whether one of the load's trials (up to config.attempts, each logged) was
    valid and lost nothing."""
    for _ in range(config.attempts):
        trial = recorder.trial(config.experiment, frame_size, load, config.trial_duration_s,
                               labels=labels)
        if trial.valid and trial.lost == 0 and trial.tx_frames > 0:
            return True
        if tester_shortfall(trial) >= GROSS_SHORTFALL:
            return False
    return False


def tester_shortfall(trial: TrialResult) -> float:
    """The share of the trial's load the tester itself did not carry: frames its ports
    took in or sent that its program never saw, or the rate it offered below the one
    asked, whichever is larger; 1.0 when the trial has no figures (the switch did not
    answer)."""
    due = trial.offered_pps * trial.duration_s
    if not trial.streams or due <= 0:
        return 1.0
    ports = trial.self_check.ports if trial.self_check is not None else ()
    dropped = sum(port.rx_dropped + port.tx_dropped for port in ports) / due
    measured = trial.offered_pps_measured
    deficit = 1.0 - measured / trial.offered_pps if measured is not None else 0.0
    return max(dropped, deficit, 0.0)


def run_calibration(config: CalibrationConfig, recorder: Recorder, topology: str,
                    target: str = "bmv2") -> Calibration:
    sizes = []
    for size in config.frame_sizes:
        fractions = tuple(_bisect(config, recorder, size, repetition)
                          for repetition in range(config.repetitions))
        sizes.append(SizeCapacity(size, config.line_rate_bps, fractions))
    return Calibration(host=socket.gethostname(), topology=topology, measured_at=time.time(),
                       sizes=tuple(sizes), target=target)


def capacity_shortfall(calibration: Calibration, need_pps: float, reason: str,
                       frame_size: int = 64) -> str | None:
    """Why this host cannot carry a lab that needs `need_pps` at `frame_size`, or None
    when it can. A capacity measured at the port's line rate is a lower bound: it
    carries the need when the need is at most that."""
    capacity = calibration.capacity_pps(frame_size)
    if capacity.pps >= need_pps:
        return None
    bound = " (the calibration port's line rate)" if capacity.at_line_rate else ""
    return (f"this host is too slow for the lab: the tester carries {capacity.pps:.0f} "
            f"frames/s loss-free at {capacity.frame_size} B here{bound}, and the lab needs "
            f"{need_pps:.0f} ({reason}); run it on a less loaded host or with lower DUT limits")


# ---- stored calibration ------------------------------------------------------------


def calibration_to_dict(calibration: Calibration) -> dict[str, object]:
    return {
        "version": CALIBRATION_VERSION,
        "host": calibration.host,
        "topology": calibration.topology,
        "measured_at": calibration.measured_at,
        "target": calibration.target,
        "sizes": [{"frame_size": s.frame_size, "line_rate_bps": s.line_rate_bps,
                   "fractions": list(s.fractions), "capacity_pps": s.pps}
                  for s in calibration.sizes],
    }


def calibration_from_dict(data: object, where: str) -> Calibration:
    """The Calibration calibration_to_dict wrote; ValueError naming what is wrong."""
    try:
        assert isinstance(data, dict)
        if data["version"] != CALIBRATION_VERSION:
            raise ValueError(f"{where}: calibration version {data['version']!r}; this "
                             f"p4tester reads {CALIBRATION_VERSION}: run p4tester calibrate again")
        sizes = tuple(SizeCapacity(int(s["frame_size"]), float(s["line_rate_bps"]),
                                   tuple(float(f) for f in s["fractions"]))
                      for s in data["sizes"])
        if not sizes:
            raise ValueError(f"{where}: calibration without frame sizes")
        # Files written before the target was stored are BMv2's (the only one then).
        return Calibration(str(data["host"]), str(data["topology"]),
                           float(data["measured_at"]), sizes, str(data.get("target", "bmv2")))
    except (AssertionError, KeyError, TypeError) as error:
        raise ValueError(f"{where}: not a p4tester calibration ({error!r}); run p4tester "
                         "calibrate again") from None


def save_calibration(calibration: Calibration, path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(calibration_to_dict(calibration), indent=2, sort_keys=True))
    return path


def load_calibration(path: Path) -> Calibration | None:
    """The stored calibration, or None when there is none."""
    if not path.exists():
        return None
    return calibration_from_dict(json.loads(path.read_text()), str(path))


def load_warning(calibration: Calibration, frame_size: int, offered_pps: float) -> str | None:
    """A warning when `offered_pps` at `frame_size` is above what the tester carried
    in its calibration on this host; None when it is within it."""
    capacity = calibration.capacity_pps(frame_size)
    if capacity.at_line_rate or offered_pps <= capacity.pps:
        return None
    age_min = (time.time() - calibration.measured_at) / 60.0
    return (f"{offered_pps:.0f} frames/s at {frame_size} B is above the tester's own "
            f"loss-free rate on this host ({capacity.pps:.0f} frames/s at "
            f"{capacity.frame_size} B, calibrated {age_min:.0f} min ago on "
            f"{calibration.topology}): such trials may measure the tester, not the DUT, "
            "and will be marked tester-limited when they do")
