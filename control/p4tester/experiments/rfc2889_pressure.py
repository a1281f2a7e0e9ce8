"""RFC 2889 forward pressure and maximum forwarding rate (section 5.6): port A sends
to port B (rfc2889_patterns.forward_pressure), per frame size, after the learning
frames (rfc2889.learn):

- the maximum forwarding rate (MFR, RFC 2285 3.6.2): trials at rising loads,
  `mfr_steps` of them up to the MOL (MOL x k / steps), then the forward pressure trial;
  each one's forwarding rate (frames/s B received over the trial, as in the other
  RFC 2889 tests); the MFR is the highest, reported with the load at which it occurred;
- forward pressure: the last trial. A sends with an inter-frame gap of 88 bit times,
  one byte short of IEEE 802.3's 96 (streams.rates.FORWARD_PRESSURE_IFG_BITS), so it
  offers more than line rate: (frame + 20) / (frame + 19) of it, 101.2 % at 64 B. No
  port may carry more than its line rate with the standard gap (the legal maximum); a
  DUT that forwards more out of B shortened the gaps on B: it exerts forward pressure,
  a fault (a receiver that keeps to the standard may lose those frames).

The verdict needs two measurements above the legal maximum by more than `tolerance`
(PRESSURE_TOLERANCE): the offered rate the trial measured on the tester's clock
(TrialResult.offered_pps_measured: the proof that the tester did send above line rate,
not only planned to), and the forwarding rate. A DUT that keeps B at line rate still
forwards above it by what its buffer releases after the trial's end over the trial's
length (the forwarding rate counts the drain's frames); the tolerance covers that and
the offered rate's measurement. Where the shorter gap adds no more than the tolerance
(frames of 181 B and more at 0.5 %) the test cannot tell, and says so instead of a
verdict; likewise when the trial did not measure what it offered.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from p4tester.results.model import TrialResult
from p4tester.streams.rates import FORWARD_PRESSURE_IFG_BITS, IFG_BITS, check_ifg_bits, gap_load

from .recording import Recorder
from .rfc2889 import PortForwarding, Rfc2889Config, Rfc2889Test, learn, port_forwarding
from .validation import check_count

_OWNER: Final = "ForwardPressureConfig"
# Rates within this share of the legal maximum are not judged above it (module doc).
PRESSURE_TOLERANCE: Final = 0.005
# Tries of the forward pressure trial until the tester proved it offered the gap's
# rate above the legal maximum by more than the tolerance. A trial is vouched for
# within 2 % of its rate (trial_course.RATE_TOLERANCE), so one that went out a little
# slow on a busy host (seen: a CI run's eBPF sender) is valid and still says nothing
# about pressure; it is run again, and after the last try the size is not judged.
PRESSURE_ATTEMPTS: Final = 3
DEFAULT_MFR_STEPS: Final = 10
MAX_MFR_STEPS: Final = 100
PHASE_MFR: Final = "mfr"
PHASE_PRESSURE: Final = "forward-pressure"


@dataclass(frozen=True, slots=True)
class ForwardPressureConfig:
    """`rfc2889`: the test's ports, streams, line rates, frame sizes, trial length and
    MOL (its test FORWARD_PRESSURE, its pattern rfc2889_patterns.forward_pressure);
    `mfr_steps`: the MFR's loads below the forward pressure trial; `ifg_bits`: the
    forward pressure trial's gap; `tolerance`: see PRESSURE_TOLERANCE."""

    rfc2889: Rfc2889Config
    mfr_steps: int = DEFAULT_MFR_STEPS
    ifg_bits: int = FORWARD_PRESSURE_IFG_BITS
    tolerance: float = PRESSURE_TOLERANCE

    def __post_init__(self) -> None:
        config = self.rfc2889
        if config.test is not Rfc2889Test.FORWARD_PRESSURE or len(config.pattern.flows) != 1:
            raise ValueError(f"{_OWNER}: give the forward pressure test's config (one flow, "
                             f"A to B), got {config.test.value} with "
                             f"{len(config.pattern.flows)} flows")
        check_count(_OWNER, "mfr_steps", self.mfr_steps)
        if self.mfr_steps > MAX_MFR_STEPS:
            raise ValueError(f"{_OWNER}: mfr_steps {self.mfr_steps} is more than "
                             f"{MAX_MFR_STEPS} trials per frame size; give fewer")
        check_ifg_bits(self.ifg_bits)
        if self.ifg_bits >= IFG_BITS:
            raise ValueError(f"{_OWNER}: ifg_bits must be below {IFG_BITS} (RFC 2889: "
                             f"{FORWARD_PRESSURE_IFG_BITS}) to offer above line rate, got "
                             f"{self.ifg_bits}")
        if not 0.0 < self.tolerance < 0.1:
            raise ValueError(f"{_OWNER}: tolerance must be a share in (0, 0.1), got "
                             f"{self.tolerance!r}")
        bps = dict(config.port_line_bps)
        if bps[self.tx_port] != bps[self.rx_port]:
            raise ValueError(f"{_OWNER}: ports {self.tx_port} and {self.rx_port} have line "
                             f"rates {bps[self.tx_port]:g} and {bps[self.rx_port]:g} bit/s; "
                             "forward pressure overloads a port of the sender's own speed: "
                             "give two ports of one line rate")

    @property
    def flow_stream(self) -> int:
        return self.rfc2889.flow_streams[0][1]

    @property
    def tx_port(self) -> int:
        return self.rfc2889.flow_streams[0][0].tx_port

    @property
    def rx_port(self) -> int:
        return self.rfc2889.flow_streams[0][0].rx_port

    def mfr_loads(self) -> tuple[float, ...]:
        """The loads below the forward pressure trial, rising to the MOL."""
        mol = self.rfc2889.max_load
        return tuple(mol * step / self.mfr_steps for step in range(1, self.mfr_steps + 1))


@dataclass(frozen=True, slots=True)
class ForwardingIteration:
    """One trial of the series: its intended `load` (a share of A's line rate, above 1
    with the shorter gap) and `ifg_bits`; `offered_pps`: the rate the trial measured
    A sent at (None: not measured); `forwarding`: B's figures."""

    trial_index: int
    load: float
    ifg_bits: int
    offered_pps: float | None
    forwarding: PortForwarding

    @property
    def forwarding_rate_pps(self) -> float:
        return self.forwarding.forwarding_rate_pps


@dataclass(frozen=True, slots=True)
class ForwardPressureAtSize:
    """One frame size: `legal_max_pps`, B's line rate (96-bit gaps); `iterations`, the
    MFR's trials rising, the forward pressure trial last; the MFR and the load at which
    it occurred; the verdict (None: not judged, `not_judged` says why)."""

    frame_size: int
    legal_max_pps: float
    iterations: tuple[ForwardingIteration, ...]
    mfr_pps: float
    mfr_load: float
    forward_pressure: bool | None
    not_judged: str = ""

    @property
    def pressure(self) -> ForwardingIteration:
        """The forward pressure trial (the shorter gap)."""
        return self.iterations[-1]

    @property
    def forwarded_share(self) -> float:
        """The forward pressure trial's forwarding rate over the legal maximum."""
        return self.pressure.forwarding_rate_pps / self.legal_max_pps

    @classmethod
    def judged(cls, config: ForwardPressureConfig, frame_size: int,
               iterations: tuple[ForwardingIteration, ...]) -> ForwardPressureAtSize:
        legal = config.rfc2889.line_pps(config.rx_port, frame_size)
        best = max(iterations, key=lambda i: i.forwarding_rate_pps)  # the first of equals
        pressure = iterations[-1]
        above = _judged_above(config, frame_size)
        verdict: bool | None = None
        reason = ""
        if gap_load(frame_size, config.ifg_bits) <= 1.0 + config.tolerance:
            reason = (f"the {config.ifg_bits}-bit gap offers only "
                      f"{gap_load(frame_size, config.ifg_bits) - 1.0:.3%} above line rate at "
                      f"{frame_size} B, within the {config.tolerance:.1%} rates are judged to")
        elif pressure.offered_pps is None:
            reason = "the trial did not measure the rate it offered (too short for two samples)"
        elif pressure.offered_pps <= above:
            reason = (f"the tester offered {pressure.offered_pps:.1f} frames/s, not above the "
                      f"legal maximum {legal:.1f} by more than {config.tolerance:.1%}: it could "
                      "not send faster than line rate here")
        else:
            verdict = pressure.forwarding_rate_pps > above
        return cls(frame_size, legal, iterations, best.forwarding_rate_pps, best.load,
                   verdict, reason)


@dataclass(frozen=True, slots=True)
class ForwardPressureResult:
    config: ForwardPressureConfig
    sizes: tuple[ForwardPressureAtSize, ...] = ()


def _iteration(config: ForwardPressureConfig, recorder: Recorder, frame_size: int,
               load: float, ifg_bits: int, phase: str) -> ForwardingIteration:
    base = config.rfc2889
    trial: TrialResult = recorder.valid_trial(
        base.experiment, frame_size, load, base.trial_duration_s,
        labels=(*base.labels, ("phase", phase), ("ifg_bits", str(ifg_bits))),
        stream_loads=((config.flow_stream, load),), inter_frame_gap_bits=ifg_bits)
    return ForwardingIteration(trial.trial_index, load, ifg_bits, trial.offered_pps_measured,
                               port_forwarding(base, trial, config.rx_port))


def _judged_above(config: ForwardPressureConfig, frame_size: int) -> float:
    """The rate both measurements must exceed: the legal maximum plus the tolerance."""
    return config.rfc2889.line_pps(config.rx_port, frame_size) * (1.0 + config.tolerance)


def _pressure_iteration(config: ForwardPressureConfig, recorder: Recorder,
                        frame_size: int) -> ForwardingIteration:
    """The forward pressure trial, run again (PRESSURE_ATTEMPTS in all) while the rate
    it measured itself offering is not above the legal maximum by the tolerance, where
    the gap offers more than that."""
    load = gap_load(frame_size, config.ifg_bits)
    above = _judged_above(config, frame_size)
    iteration = _iteration(config, recorder, frame_size, load, config.ifg_bits, PHASE_PRESSURE)
    for _ in range(PRESSURE_ATTEMPTS - 1):
        slow = iteration.offered_pps is not None and iteration.offered_pps <= above
        if not slow or load <= 1.0 + config.tolerance:
            break
        iteration = _iteration(config, recorder, frame_size, load, config.ifg_bits,
                               PHASE_PRESSURE)
    return iteration


def run_forward_pressure(config: ForwardPressureConfig,
                         recorder: Recorder) -> ForwardPressureResult:
    """Every frame size in order: learning frames, the MFR's loads, the forward pressure
    trial. Errors of the trials propagate (rfc2889.run_rfc2889)."""
    sizes = []
    for frame_size in config.rfc2889.frame_sizes:
        learn(config.rfc2889, recorder, frame_size)
        iterations = [_iteration(config, recorder, frame_size, load, IFG_BITS, PHASE_MFR)
                      for load in config.mfr_loads()]
        iterations.append(_pressure_iteration(config, recorder, frame_size))
        sizes.append(ForwardPressureAtSize.judged(config, frame_size, tuple(iterations)))
    return ForwardPressureResult(config, tuple(sizes))
