"""RFC 2889 LAN switch benchmarks (issue 24, item 2) over RFC 2889's traffic patterns
(rfc2889_patterns): per frame size,

- fully and partially meshed (sections 5.1, 5.2): the throughput (NDR, and PDR, by
  the run's search) with every port of the pattern sending at the same load, then the
  forwarding rate at the maximum offered load (MOL): frames/s each RX port received,
  and the frames lost on the way;
- congestion control (5.5): one trial at the MOL, A and B into the congested port C
  and A also into the uncongested D. Head-of-line blocking is present when D's stream
  lost frames (a congested port held up frames bound elsewhere); back pressure when C
  lost none although it was offered 150 % of its line rate (the DUT held its senders
  back instead of dropping).

Each frame size starts with learning frames (RFC 2889 section 4): every port of the
pattern sends a few frames from its address to another port, so a learning DUT knows
where each port is before the measured trials and floods none of their frames. The
learning trial is logged like every trial and judged by none: its first frames may
flood. A frame a DUT floods reaches ports that are not its stream's: the trials count
them apart (`rx_mismatched`), never in any stream's figures.

Loss is judged per stream (TX - RX of each), so one stream's duplicates never hide
another's loss; a port's loss is the sum of its streams' losses.

Forward pressure and the maximum forwarding rate (5.6) take the same configuration
and are run by experiments.rfc2889_pressure.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Final

from p4tester.results.model import TrialResult, loss_ratio_of
from p4tester.search import NDR, PDR, SearchGoal
from p4tester.search.goals import DEFAULT_MIN_FRACTION
from p4tester.search.trials import DEFAULT_MAX_TRIALS
from p4tester.streams.rates import line_rate_pps

from .recording import Labels, Recorder
from .rfc2889_patterns import Flow, TrafficPattern, congestion_ports
from .throughput import SearchMethod, ThroughputAtSize, ThroughputConfig, run_throughput
from .validation import (
    check_fraction,
    check_frame_sizes,
    check_labels,
    check_name,
    check_positive,
)

_OWNER: Final = "Rfc2889Config"
LEARNING_EXPERIMENT: Final = "rfc2889-learning"
# A port that forwards more than this above its line rate has a faster link than the
# topology says (frames/s over a trial's length carry its drain's late frames).
LINE_RATE_TOLERANCE: Final = 0.01


class Rfc2889Test(Enum):
    FULLY_MESHED = "fully-meshed"
    PARTIALLY_MESHED = "partially-meshed"
    CONGESTION_CONTROL = "congestion-control"
    FORWARD_PRESSURE = "forward-pressure"


@dataclass(frozen=True, slots=True)
class Rfc2889Config:
    """`flow_streams`: each flow of the pattern and the stream id that carries it;
    `learning_streams`: (stream id, TX port) of the learning frames, one stream from
    each port of the pattern (rfc2889_patterns.learning_streams);
    `port_line_bps`: (port, L1 line rate) of every port of the pattern; `max_load`:
    the MOL, a share of each TX port's line rate."""

    test: Rfc2889Test
    pattern: TrafficPattern
    flow_streams: tuple[tuple[Flow, int], ...]
    learning_streams: tuple[tuple[int, int], ...]
    port_line_bps: tuple[tuple[int, float], ...]
    frame_sizes: tuple[int, ...]
    trial_duration_s: float
    max_load: float = 1.0
    method: SearchMethod = SearchMethod.MLRSEARCH
    ndr: SearchGoal = NDR
    pdr: SearchGoal = PDR
    min_fraction: float = DEFAULT_MIN_FRACTION
    max_trials: int = DEFAULT_MAX_TRIALS
    learning_pps: float = 100.0
    learning_s: float = 1.0
    labels: Labels = ()

    def __post_init__(self) -> None:
        check_frame_sizes(_OWNER, self.frame_sizes)
        check_positive(_OWNER, "trial_duration_s", self.trial_duration_s, "seconds")
        check_fraction(_OWNER, "max_load", self.max_load)
        check_positive(_OWNER, "learning_pps", self.learning_pps, "frames/s")
        check_positive(_OWNER, "learning_s", self.learning_s, "seconds")
        check_name(_OWNER, "experiment", self.experiment)
        check_labels(_OWNER, self.labels)
        if {flow for flow, _ in self.flow_streams} != set(self.pattern.flows):
            raise ValueError(f"{_OWNER}: flow_streams must give a stream for each flow of the "
                             f"{self.pattern.name} pattern, and only those")
        missing = sorted(set(self.pattern.ports) - {port for port, _ in self.port_line_bps})
        if missing:
            raise ValueError(f"{_OWNER}: no line rate for ports {missing}")
        learning_ports = sorted(port for _, port in self.learning_streams)
        if learning_ports != list(self.pattern.ports):
            raise ValueError(f"{_OWNER}: learning streams from ports {learning_ports}; give one "
                             f"from each port of the pattern, {list(self.pattern.ports)}")

    @property
    def experiment(self) -> str:
        return f"rfc2889-{self.test.value}"

    def line_pps(self, port: int, frame_size: int) -> float:
        return line_rate_pps(dict(self.port_line_bps)[port], frame_size)

    def stream_shares(self) -> tuple[tuple[int, float], ...]:
        return tuple((stream_id, flow.share) for flow, stream_id in self.flow_streams)


@dataclass(frozen=True, slots=True)
class PortForwarding:
    """What one RX port got in one trial: `intended_pps`, what its flows were to send
    it at the trial's load; `sent`/`received`/`lost`: its streams' frames (lost per
    stream, TX - RX, summed); `load_share`: intended load as a share of its line rate."""

    port: int
    intended_pps: float
    load_share: float
    sent: int
    received: int
    lost: int
    # The window the forwarding rate counts over: the trial's duration, or longer where
    # the generator took longer to offer its frames (offered_window_s).
    duration_s: float
    # RFC 2285 forwarding rate: frames/s the port received over that window.
    forwarding_rate_pps: float
    forwarded_share: float  # the forwarding rate as a share of the port's line rate

    @property
    def loss_ratio(self) -> float:
        return loss_ratio_of(self.lost, self.sent)


def offered_window_s(trial: TrialResult) -> float:
    """How long the trial's frames took to be offered: its frames sent over the rate the
    generator proved it offered them at, where that took longer than the trial's
    duration (a sender slowed by a busy host stretches the window, and the DUT forwards
    through all of it: over the nominal duration its rate would read too high). Never
    shorter than the duration: a rate sampled high would overstate the forwarding."""
    sent = sum(s.tx_frames for s in trial.streams)
    if not trial.offered_pps_measured or sent == 0:
        return trial.duration_s
    return max(trial.duration_s, sent / trial.offered_pps_measured)


def port_forwarding(config: Rfc2889Config, trial: TrialResult,
                    rx_port: int) -> PortForwarding:
    """One RX port's figures in `trial`, from its streams' (per-stream loss)."""
    flows = [(flow, sid) for flow, sid in config.flow_streams if flow.rx_port == rx_port]
    ids = {sid for _, sid in flows}
    stats = [s for s in trial.streams if s.stream_id in ids]
    size = trial.frame_size
    intended = sum(flow.share * trial.offered_fraction * config.line_pps(flow.tx_port, size)
                   for flow, _ in flows)
    received = sum(s.rx_frames for s in stats)
    window_s = offered_window_s(trial)
    forwarding_rate = received / window_s
    return PortForwarding(
        port=rx_port,
        intended_pps=intended,
        load_share=intended / config.line_pps(rx_port, size),
        sent=sum(s.tx_frames for s in stats),
        received=received,
        lost=sum(s.lost for s in stats),
        duration_s=window_s,
        forwarding_rate_pps=forwarding_rate,
        forwarded_share=forwarding_rate / config.line_pps(rx_port, size),
    )


@dataclass(frozen=True, slots=True)
class MeshAtSize:
    """A meshed test at one frame size: the throughput search, and the trial at the
    MOL with each RX port's forwarding."""

    frame_size: int
    throughput: ThroughputAtSize
    at_max_load: TrialResult
    ports: tuple[PortForwarding, ...]
    forwarding_rate_pps: float  # all RX ports together at the MOL

    @property
    def lost(self) -> int:
        return sum(p.lost for p in self.ports)

    @property
    def sent(self) -> int:
        return sum(p.sent for p in self.ports)


@dataclass(frozen=True, slots=True)
class CongestionAtSize:
    """RFC 2889 5.5's verdicts: head-of-line blocking, frames lost on the uncongested
    port; back pressure, none lost on the oversubscribed one. back_pressure is None
    when that port forwarded more than its line rate (beyond 1 %): its link is faster
    than the topology says (an unshaped lab link), so no loss there proves nothing."""

    frame_size: int
    trial: TrialResult
    congested: PortForwarding
    uncongested: PortForwarding
    head_of_line_blocking: bool
    back_pressure: bool | None

    @classmethod
    def judged(cls, frame_size: int, trial: TrialResult, congested: PortForwarding,
               uncongested: PortForwarding) -> CongestionAtSize:
        faster_than_its_line = congested.forwarded_share > 1.0 + LINE_RATE_TOLERANCE
        return cls(frame_size, trial, congested, uncongested,
                   head_of_line_blocking=uncongested.lost > 0,
                   back_pressure=None if faster_than_its_line else congested.lost == 0)


@dataclass(frozen=True, slots=True)
class Rfc2889Result:
    config: Rfc2889Config
    meshed: tuple[MeshAtSize, ...] = ()
    congestion: tuple[CongestionAtSize, ...] = ()


def learn(config: Rfc2889Config, recorder: Recorder, frame_size: int) -> TrialResult:
    """The learning frames before a frame size's trials (not judged: see the module)."""
    loads = tuple(
        (sid, min(1.0, config.learning_pps / config.line_pps(port, frame_size)))
        for sid, port in config.learning_streams)
    return recorder.trial(LEARNING_EXPERIMENT, frame_size, max(load for _, load in loads),
                          config.learning_s, stream_loads=loads,
                          labels=(*config.labels, ("test", config.test.value)))


def _at_max_load(config: Rfc2889Config, recorder: Recorder, frame_size: int) -> TrialResult:
    """The pattern at the MOL: every flow at its share of it (repeated while invalid)."""
    return recorder.valid_trial(
        config.experiment, frame_size, config.max_load, config.trial_duration_s,
        labels=(*config.labels, ("phase", "max-offered-load")),
        stream_loads=tuple((sid, config.max_load * share)
                           for sid, share in config.stream_shares()))


def _mesh_at_size(config: Rfc2889Config, recorder: Recorder, frame_size: int) -> MeshAtSize:
    tx_bps = dict(config.port_line_bps)
    search = ThroughputConfig(
        line_rate_bps=sum(tx_bps[port] for port in config.pattern.tx_ports),
        frame_sizes=(frame_size,), method=config.method, ndr=config.ndr, pdr=config.pdr,
        min_fraction=config.min_fraction, max_trials=config.max_trials,
        experiment=config.experiment, labels=config.labels,
        stream_shares=config.stream_shares())
    (throughput,) = run_throughput(search, recorder).sizes
    at_max = _at_max_load(config, recorder, frame_size)
    ports = tuple(port_forwarding(config, at_max, port) for port in config.pattern.rx_ports)
    return MeshAtSize(frame_size, throughput, at_max, ports,
                      sum(p.forwarding_rate_pps for p in ports))


def _congestion_at_size(config: Rfc2889Config, recorder: Recorder,
                        frame_size: int) -> CongestionAtSize:
    trial = _at_max_load(config, recorder, frame_size)
    ports = congestion_ports(config.pattern)
    return CongestionAtSize.judged(frame_size, trial,
                                   port_forwarding(config, trial, ports.congested),
                                   port_forwarding(config, trial, ports.uncongested))


def run_rfc2889(config: Rfc2889Config, recorder: Recorder) -> Rfc2889Result:
    """Every frame size in order: learning frames, then the test's trials. Errors of the
    trials (InvalidTrialsError, UnvouchedTrialError) propagate; the finished trials are
    in the recorder's log."""
    if config.test is Rfc2889Test.FORWARD_PRESSURE:
        raise ValueError("run_rfc2889: forward pressure is run by "
                         "rfc2889_pressure.run_forward_pressure")
    meshed: list[MeshAtSize] = []
    congestion: list[CongestionAtSize] = []
    for frame_size in config.frame_sizes:
        learn(config, recorder, frame_size)
        if config.test is Rfc2889Test.CONGESTION_CONTROL:
            congestion.append(_congestion_at_size(config, recorder, frame_size))
        else:
            meshed.append(_mesh_at_size(config, recorder, frame_size))
    return Rfc2889Result(config, tuple(meshed), tuple(congestion))
