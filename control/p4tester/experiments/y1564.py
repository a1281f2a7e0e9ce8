"""ITU-T Y.1564 Ethernet service activation: the service configuration test per service,
then the service performance test of all services together, each judged against the
service's acceptance criteria (config.services).

Service configuration test (Y.1564 8.1), one service at a time, the others silent:

- CIR steps: the service at each `cir_steps` share of its CIR (25, 50, 75, 100 % by
  default). Passes when FLR, FTD and FDV are within the SAC and the information rate
  (IR) is what the step offered less the SAC's loss and the tolerance M.
- EIR (when EIR > 0, colour-blind): CIR + EIR offered. The DUT may drop the excess, so
  loss, delay and variation are not judged; passes when CIR x (1 - FLR_SAC) x (1 - M)
  <= IR <= (CIR + EIR) x (1 + M).
- Traffic policing: CIR + 1.25 x EIR offered (1.25 x CIR + EIR when EIR is below 20 %
  of CIR, so the overshoot is large enough to see); passes on the EIR step's IR bounds:
  a DUT that lets the overshoot through fails.

Service performance test (Y.1564 8.2): every service at its CIR at once for
`performance_duration_s` (15 min, 2 h or 24 h in Y.1564). Passes per service when IR,
FLR, FTD, FDV and availability are within the SAC.

Figures (Y.1563 / MEF 10.3): IR = the bits (L2, FCS included) of the service's frames
received over the step's duration; FLR = frames lost / frames sent (TX - RX after the
drain); FTD = mean delay; FDV = the 99.9th percentile of the delay less its minimum
(max - min without histogram bins, or when the 99.9th lies beyond the last bin edge:
only its lower bound is known there, which would understate the FDV); availability
from the trial's 1-s intervals: an interval whose FLR exceeds `UNAVAILABLE_FLR` is
severely errored, and time is unavailable from the start of `UNAVAILABLE_RUN` such
intervals in a row to the start of as many good ones (MEF 10.3 with C = 0.5, n = 10). A
target without in-trial samples reports availability as not measured, and that
criterion is not judged.

Each step is one trial with the service's stream only (TrialSpec.stream_loads). A step
the tester cannot vouch for is repeated (Recorder.valid_trial) and, if it stays so,
stops the run: a service's verdict is never made from the tester's own losses.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Final

from p4tester.config.services import ServiceConfig
from p4tester.results.availability import availability_pct
from p4tester.results.model import P999, StreamStats, TrialResult
from p4tester.streams.rates import l2_frame_bits, line_rate_pps

from .recording import DEFAULT_ATTEMPTS, Labels, Recorder
from .validation import check_count, check_frame_size, check_labels, check_name, check_positive

Y1564_CIR_STEPS: Final = (0.25, 0.5, 0.75, 1.0)
# Y.1564's policing test overshoots EIR by a quarter; with a small EIR, CIR instead.
POLICING_OVERSHOOT: Final = 1.25
SMALL_EIR_SHARE: Final = 0.2
# M: how far a measured IR may stray from its bound (rate rounding, counting at edges).
DEFAULT_IR_TOLERANCE: Final = 0.05
DEFAULT_PERFORMANCE_S: Final = 900.0  # Y.1564's shortest performance test, 15 min
_OWNER: Final = "Y1564Config"
_US_PER_MS: Final = 1000.0

STEP_CIR: Final = "cir"
STEP_EIR: Final = "eir"
STEP_POLICING: Final = "policing"
STEP_PERFORMANCE: Final = "performance"


@dataclass(frozen=True, slots=True)
class Y1564Config:
    """services: the profile's (config.services). port_line_rates_bps: each service's
    stream's TX port line rate (L1); frame_sizes: each service's frame size (its
    stream's own, else `frame_size`), both in the order of `services`. frame_size: the
    trials' frame size."""

    services: tuple[ServiceConfig, ...]
    port_line_rates_bps: tuple[float, ...]
    frame_sizes: tuple[int, ...]
    frame_size: int
    cir_steps: tuple[float, ...] = Y1564_CIR_STEPS
    step_duration_s: float = 60.0
    performance_duration_s: float = DEFAULT_PERFORMANCE_S
    ir_tolerance: float = DEFAULT_IR_TOLERANCE
    configuration_test: bool = True
    performance_test: bool = True
    attempts: int = DEFAULT_ATTEMPTS
    experiment: str = "y1564"
    labels: Labels = ()

    def __post_init__(self) -> None:
        if not self.services:
            raise ValueError(f"{_OWNER}: no services; give the profile a `services` list "
                             "(config.services)")
        if not len(self.services) == len(self.port_line_rates_bps) == len(self.frame_sizes):
            raise ValueError(f"{_OWNER}: one line rate and frame size per service")
        for size in (*self.frame_sizes, self.frame_size):
            check_frame_size(_OWNER, "frame_sizes", size)
        for rate in self.port_line_rates_bps:
            check_positive(_OWNER, "port_line_rates_bps", rate, "bit/s (e.g. 10e9)")
        if not self.cir_steps or any(not 0 < s <= 1 for s in self.cir_steps):
            raise ValueError(f"{_OWNER}: cir_steps {self.cir_steps} must be shares of CIR in "
                             "(0, 1], e.g. 0.25,0.5,0.75,1")
        check_positive(_OWNER, "step_duration_s", self.step_duration_s, "seconds")
        check_positive(_OWNER, "performance_duration_s", self.performance_duration_s,
                       "seconds")
        if not 0 <= self.ir_tolerance < 1:
            raise ValueError(f"{_OWNER}: ir_tolerance {self.ir_tolerance} must be in [0, 1)")
        if not (self.configuration_test or self.performance_test):
            raise ValueError(f"{_OWNER}: run the configuration test, the performance test "
                             "or both")
        check_count(_OWNER, "attempts", self.attempts)
        check_name(_OWNER, "experiment", self.experiment)
        check_labels(_OWNER, self.labels)
        for service, rate, size in zip(self.services, self.port_line_rates_bps,
                                       self.frame_sizes, strict=True):
            most = policing_rate_bps(service)
            if _fraction(most, rate, size) > 1.0:
                raise ValueError(
                    f"{_OWNER}: service {service.name}'s policing step needs "
                    f"{most / 1e6:.6g} Mbit/s at L2, more than its port's line rate "
                    f"({rate / 1e6:.6g} Mbit/s L1) carries at {size} B; lower its CIR/EIR or "
                    "use a faster port")


def policing_rate_bps(service: ServiceConfig) -> float:
    """The traffic policing step's offered IR (Y.1564 8.1.2)."""
    if service.eir_bps < SMALL_EIR_SHARE * service.cir_bps:
        return POLICING_OVERSHOOT * service.cir_bps + service.eir_bps
    return service.cir_bps + POLICING_OVERSHOOT * service.eir_bps


def _fraction(ir_bps: float, line_rate_bps: float, frame_size: int) -> float:
    """An L2 information rate as a share of an L1 line rate at this frame size."""
    return ir_bps / l2_frame_bits(frame_size) / line_rate_pps(line_rate_bps, frame_size)


@dataclass(frozen=True, slots=True)
class Criterion:
    """One figure against its bound: `passed` None when not judged (not measured, or
    not asked at this step)."""

    name: str
    measured: float | None
    bound: str
    passed: bool | None


@dataclass(frozen=True, slots=True)
class StepResult:
    """One service at one step: what was offered and received, and the verdict."""

    service: str
    step: str  # cir | eir | policing | performance
    offered_bps: float  # L2 information rate offered
    ir_bps: float  # L2 information rate received
    flr: float
    ftd_ms: float | None
    fdv_ms: float | None
    availability_pct: float | None
    criteria: tuple[Criterion, ...]
    trial_index: int
    cir_share: float | None = None  # CIR steps: the share of CIR offered

    @property
    def passed(self) -> bool:
        return all(c.passed is not False for c in self.criteria)

    @property
    def failed_on(self) -> tuple[str, ...]:
        return tuple(c.name for c in self.criteria if c.passed is False)


@dataclass(frozen=True, slots=True)
class ServiceVerdict:
    service: str
    configuration: tuple[StepResult, ...]
    performance: StepResult | None

    @property
    def passed(self) -> bool:
        steps = (*self.configuration, *((self.performance,) if self.performance else ()))
        return all(step.passed for step in steps)


@dataclass(frozen=True, slots=True)
class Y1564Result:
    config: Y1564Config
    services: tuple[ServiceVerdict, ...]
    trial_count: int

    @property
    def passed(self) -> bool:
        return all(s.passed for s in self.services)


def run_y1564(config: Y1564Config, recorder: Recorder) -> Y1564Result:
    """The configuration test of each service in turn, then the performance test."""
    first = recorder.next_index(config.experiment)
    configuration: list[tuple[StepResult, ...]] = []
    for index in range(len(config.services)):
        configuration.append(_configuration_test(config, index, recorder)
                             if config.configuration_test else ())
    performance: tuple[StepResult | None, ...] = (None,) * len(config.services)
    if config.performance_test:
        performance = _performance_test(config, recorder)
    verdicts = tuple(ServiceVerdict(service.name, steps, perf) for service, steps, perf
                     in zip(config.services, configuration, performance, strict=True))
    return Y1564Result(config, verdicts, recorder.next_index(config.experiment) - first)


def _configuration_test(config: Y1564Config, index: int,
                        recorder: Recorder) -> tuple[StepResult, ...]:
    service = config.services[index]
    steps: list[StepResult] = []
    for share in config.cir_steps:
        offered = share * service.cir_bps
        trial = _step_trial(config, recorder, ((index, offered),), STEP_CIR,
                            config.step_duration_s, f"{share:g}")
        steps.append(_judged(config, index, STEP_CIR, offered, trial, _cir_criteria,
                             cir_share=share))
    bounded = [(STEP_POLICING, policing_rate_bps(service))]
    if service.eir_bps > 0:
        bounded.insert(0, (STEP_EIR, service.ceiling_bps))
    for step, offered in bounded:
        trial = _step_trial(config, recorder, ((index, offered),), step,
                            config.step_duration_s, "")
        steps.append(_judged(config, index, step, offered, trial, _bounded_criteria))
    return tuple(steps)


def _performance_test(config: Y1564Config, recorder: Recorder) -> tuple[StepResult, ...]:
    loads = tuple((index, service.cir_bps) for index, service in enumerate(config.services))
    trial = _step_trial(config, recorder, loads, STEP_PERFORMANCE,
                        config.performance_duration_s, "")
    return tuple(_judged(config, index, STEP_PERFORMANCE, service.cir_bps, trial,
                         _performance_criteria)
                 for index, service in enumerate(config.services))


def _step_trial(config: Y1564Config, recorder: Recorder,
                loads: Sequence[tuple[int, float]], step: str, duration_s: float,
                share: str) -> TrialResult:
    stream_loads = tuple(
        (config.services[i].stream_id,
         _fraction(bps, config.port_line_rates_bps[i], config.frame_sizes[i]))
        for i, bps in loads)
    names = ",".join(config.services[i].name for i, _ in loads)
    labels: Labels = (*config.labels, ("service", names), ("step", step))
    if share:
        labels = (*labels, ("cir_share", share))
    return recorder.valid_trial(
        config.experiment, config.frame_size,
        max(fraction for _, fraction in stream_loads), duration_s, labels=labels,
        attempts=config.attempts, stream_loads=stream_loads)


Judge = Callable[[ServiceConfig, float, "_Figures", float], tuple[Criterion, ...]]


@dataclass(frozen=True, slots=True)
class _Figures:
    ir_bps: float
    flr: float
    ftd_ms: float | None
    fdv_ms: float | None
    availability_pct: float | None


def _judged(config: Y1564Config, index: int, step: str, offered_bps: float,
            trial: TrialResult, judge: Judge, cir_share: float | None = None) -> StepResult:
    service = config.services[index]
    stream = next((s for s in trial.streams if s.stream_id == service.stream_id), None)
    if stream is None:
        raise ValueError(f"y1564: trial {trial.trial_index} has no figures for service "
                         f"{service.name}'s stream {service.stream_id}")
    figures = _figures_of(stream, trial.duration_s)
    return StepResult(
        service=service.name, step=step, offered_bps=offered_bps, ir_bps=figures.ir_bps,
        flr=figures.flr, ftd_ms=figures.ftd_ms, fdv_ms=figures.fdv_ms,
        availability_pct=figures.availability_pct,
        criteria=judge(service, offered_bps, figures, config.ir_tolerance),
        trial_index=trial.trial_index, cir_share=cir_share)


def _figures_of(stream: StreamStats, duration_s: float) -> _Figures:
    # Duplicates are not information the service delivered: IR counts at most the
    # frames sent (one stream's duplicates never hide its loss).
    delivered = min(stream.rx_frames, stream.tx_frames)
    ir = delivered * l2_frame_bits(stream.frame_size) / duration_s
    ftd = fdv = None
    latency = stream.latency
    if latency is not None:
        ftd = latency.avg_us / _US_PER_MS
        # A lower bound would pass an FDV the DUT may exceed: the max bounds it above.
        p999 = latency.p999_us
        high = latency.max_us if p999 is None or latency.is_lower_bound(P999) else p999
        fdv = max(0.0, high - latency.min_us) / _US_PER_MS
    availability = (availability_pct(stream.intervals) if stream.intervals is not None
                    else None)
    return _Figures(ir, stream.loss_ratio, ftd, fdv, availability)


def _sac(service: ServiceConfig, figures: _Figures) -> tuple[Criterion, ...]:
    sla = service.sla
    return (
        Criterion("FLR", figures.flr, f"<= {sla.flr:g}", figures.flr <= sla.flr),
        Criterion("FTD", figures.ftd_ms, f"<= {sla.ftd_ms:g} ms",
                  None if figures.ftd_ms is None else figures.ftd_ms <= sla.ftd_ms),
        Criterion("FDV", figures.fdv_ms, f"<= {sla.fdv_ms:g} ms",
                  None if figures.fdv_ms is None else figures.fdv_ms <= sla.fdv_ms),
    )


def _least_ir(offered_bps: float, service: ServiceConfig, tolerance: float) -> float:
    return offered_bps * (1.0 - service.sla.flr) * (1.0 - tolerance)


def _cir_criteria(service: ServiceConfig, offered_bps: float, figures: _Figures,
                  tolerance: float) -> tuple[Criterion, ...]:
    least = _least_ir(offered_bps, service, tolerance)
    no_delay = figures.ftd_ms is None  # nothing came back: no delay to judge, and a fail
    ir = Criterion("IR", figures.ir_bps, f">= {least / 1e6:.6g} Mbit/s",
                   figures.ir_bps >= least and not no_delay)
    return (ir, *_sac(service, figures))


def _bounded_criteria(service: ServiceConfig, offered_bps: float, figures: _Figures,
                      tolerance: float) -> tuple[Criterion, ...]:
    least = _least_ir(service.cir_bps, service, tolerance)
    most = service.ceiling_bps * (1.0 + tolerance)
    return (Criterion("IR", figures.ir_bps,
                      f"{least / 1e6:.6g}..{most / 1e6:.6g} Mbit/s",
                      least <= figures.ir_bps <= most),)


def _performance_criteria(service: ServiceConfig, offered_bps: float, figures: _Figures,
                          tolerance: float) -> tuple[Criterion, ...]:
    least_available = service.sla.availability_pct
    available = Criterion("AVAIL", figures.availability_pct, f">= {least_available:g} %",
                          None if figures.availability_pct is None
                          else figures.availability_pct >= least_available)
    return (*_cir_criteria(service, offered_bps, figures, tolerance), available)
