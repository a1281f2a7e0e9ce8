"""The RFC 2889 run: the request's pattern carried by the profile's streams, and its
report as RFC 2889 asks: per frame size, the throughput and the forwarding rate at the
maximum offered load per port (meshed tests), or the congested and uncongested ports'
figures with the head-of-line blocking and back pressure verdicts; forward pressure and
the maximum forwarding rate in rfc2889_pressure_body."""

from __future__ import annotations

from p4tester.config.errors import ConfigError
from p4tester.config.profile import Profile
from p4tester.config.topology import Topology
from p4tester.experiments.rfc2889 import (
    CongestionAtSize,
    MeshAtSize,
    PortForwarding,
    Rfc2889Config,
    Rfc2889Result,
    Rfc2889Test,
    run_rfc2889,
)
from p4tester.experiments.rfc2889_patterns import (
    TrafficPattern,
    congestion_control,
    congestion_ports,
    forward_pressure,
    fully_meshed,
    learning_streams,
    partially_meshed,
    pattern_streams,
)
from p4tester.experiments.throughput import RateBounds, SearchMethod
from p4tester.results.plots import plot_port_forwarding
from p4tester.results.tables import trials_table
from p4tester.search.goals import SearchGoal

from .bodies import Outcome, RunContext, plot
from .requests import Rfc2889Request
from .rfc2889_pressure_body import forward_pressure_body


def rfc2889_pattern(request: Rfc2889Request) -> TrafficPattern:
    """The request's traffic pattern; ConfigError naming the missing option."""
    test = Rfc2889Test(request.test)
    if test is Rfc2889Test.PARTIALLY_MESHED:
        if not request.sources or not request.destinations:
            raise ConfigError("rfc2889 --test partially-meshed: give --sources and "
                              "--destinations, e.g. --sources 1 --destinations 2,3,4")
        return partially_meshed(request.sources, request.destinations,
                                both_ways=request.directions == "both-ways")
    if not request.ports:
        example = {Rfc2889Test.CONGESTION_CONTROL: "1,2,3,4",
                   Rfc2889Test.FORWARD_PRESSURE: "1,2"}.get(test, "1,2,3")
        raise ConfigError(f"rfc2889 --test {test.value}: give --ports, e.g. --ports {example}")
    if test is Rfc2889Test.CONGESTION_CONTROL:
        return congestion_control(request.ports)
    if test is Rfc2889Test.FORWARD_PRESSURE:
        return forward_pressure(request.ports)
    return fully_meshed(request.ports)


def rfc2889_body(request: Rfc2889Request, run: RunContext) -> Outcome:
    config = rfc2889_config(request, run)
    if config.test is Rfc2889Test.FORWARD_PRESSURE:
        return forward_pressure_body(config, request, run)
    result = run_rfc2889(config, run.recorder)
    sizes: list[MeshAtSize | CongestionAtSize] = [*result.meshed, *result.congestion]
    bars = [(f"{size.frame_size} B, {port.port}", port.intended_pps, port.forwarding_rate_pps)
            for size in sizes for port in _ports_of(size)]
    if bars:
        plot(lambda: plot_port_forwarding(
            bars,
            f"RFC 2889 {config.test.value} at the MOL ({config.max_load:.0%} per TX port)",
            run.output / "rfc2889.png"))
    report = rfc2889_report(result)
    if result.congestion:
        report = [trials_table(run.recorder.trials), "", *report]
    return result, "\n".join(report)


def rfc2889_config(request: Rfc2889Request, run: RunContext) -> Rfc2889Config:
    """The request's test on the run's profile and topology; ConfigError naming a
    missing option, stream or port."""
    return rfc2889_config_on(request, run.topology, run.profile)


def rfc2889_check(request: Rfc2889Request, topology: Topology, profile: Profile) -> None:
    """The run's check before it starts: everything rfc2889_config refuses, the
    experiment's own checks of its configuration (ValueError) among them."""
    try:
        rfc2889_config_on(request, topology, profile)
    except ValueError as exc:
        raise ConfigError(str(exc)) from exc


def rfc2889_config_on(request: Rfc2889Request, topology: Topology,
                      profile: Profile) -> Rfc2889Config:
    pattern = rfc2889_pattern(request)
    final = request.trial_s(profile)
    width = profile.search.relative_width
    initial = profile.trial.initial_duration_s
    return Rfc2889Config(
        test=Rfc2889Test(request.test),
        pattern=pattern,
        flow_streams=tuple((flow, stream.id)
                           for flow, stream in pattern_streams(pattern, profile.streams)),
        learning_streams=tuple((stream.id, stream.tx_port)
                               for stream in learning_streams(pattern, profile.streams)),
        port_line_bps=tuple((port, topology.port(port).line_rate_bps)
                            for port in pattern.ports),
        frame_sizes=request.frame_sizes or profile.frame_sizes,
        trial_duration_s=final,
        max_load=request.max_load,
        method=SearchMethod(request.method or profile.search.method),
        ndr=SearchGoal("NDR", 0.0, width, final, initial_trial_duration_s=initial),
        pdr=SearchGoal("PDR", profile.search.pdr_loss_ratio, width, final,
                       initial_trial_duration_s=initial),
    )


def _ports_of(size: MeshAtSize | CongestionAtSize) -> tuple[PortForwarding, ...]:
    if isinstance(size, MeshAtSize):
        return size.ports
    return (size.congested, size.uncongested)


def rfc2889_report(result: Rfc2889Result) -> list[str]:
    config = result.config
    pattern = config.pattern
    mol = f"{config.max_load:.0%}"
    if config.test is Rfc2889Test.CONGESTION_CONTROL:
        roles = congestion_ports(pattern)
        a, b, c, d = roles.a, roles.b, roles.congested, roles.uncongested
        lines = [f"RFC 2889 congestion control: ports {a} and {b} into the congested port {c} "
                 f"({pattern.offered_to(c) * config.max_load:.0%} of its line rate), {a} also "
                 f"into the uncongested port {d} ({pattern.offered_to(d) * config.max_load:.0%})"
                 f", MOL {mol} per TX port",
                 f"{'size':>5} {'C FR fps':>10} {'C lost %':>9} {'D FR fps':>10} "
                 f"{'D lost %':>9}  head-of-line blocking  back pressure  flooded"]
        lines += [f"{s.frame_size:>5} {s.congested.forwarding_rate_pps:>10.1f} "
                  f"{s.congested.loss_ratio:>9.2%} {s.uncongested.forwarding_rate_pps:>10.1f} "
                  f"{s.uncongested.loss_ratio:>9.2%}  "
                  f"{'yes' if s.head_of_line_blocking else 'no':<21}  "
                  f"{_back_pressure(s):<13}  {s.trial.rx_mismatched}"
                  for s in result.congestion]
        if any(s.back_pressure is None for s in result.congestion):
            lines.append(f"n/a: port {c} forwarded more than its line rate; its link is "
                         "faster than the topology's line_rate, so losing nothing there "
                         "shows no back pressure")
        return lines
    ports = ", ".join(str(p) for p in pattern.ports)
    lines = [f"RFC 2889 {config.test.value}: ports {ports} ({len(pattern.flows)} streams), "
             f"MOL {mol} per TX port",
             f"{'size':>5} {'throughput/port':>22} {'PDR/port':>9} {'FR at MOL fps':>14} "
             f"{'lost at MOL':>18} {'flooded':>8}"]
    for size in result.meshed:
        lost = f"{size.lost} ({size.lost / size.sent:.2%})" if size.sent else "-"
        lines.append(f"{size.frame_size:>5} {_bound(size.throughput.ndr, config, size):>22} "
                     f"{_share(size.throughput.pdr):>9} {size.forwarding_rate_pps:>14.1f} "
                     f"{lost:>18} {size.at_max_load.rx_mismatched:>8}")
    lines += ["", f"per RX port at the MOL ({mol}):",
              f"{'size':>5} {'port':>5} {'intended fps':>13} {'load':>7} {'received':>9} "
              f"{'FR fps':>10} {'lost':>8} {'lost %':>7}"]
    for size in result.meshed:
        lines += [f"{size.frame_size:>5} {p.port:>5} {p.intended_pps:>13.1f} "
                  f"{p.load_share:>7.1%} {p.received:>9} {p.forwarding_rate_pps:>10.1f} "
                  f"{p.lost:>8} {p.loss_ratio:>7.2%}" for p in size.ports]
    if any(s.throughput.ndr.tester_limited for s in result.meshed):
        lines.append("≥: the search stopped where the tester itself gave out on this host; "
                     "the DUT forwards at least this")
    lines += [_proven_line(size.frame_size, bounds) for size in result.meshed
              for bounds in (size.throughput.ndr, size.throughput.pdr)
              if bounds.lower_below_intended and _shown_apart(bounds)]
    return lines


def _shown_apart(bounds: RateBounds) -> bool:
    """The proven and intended shares differ as the report prints them (0.01 %)."""
    proven, intended = bounds.lower_fraction or 0.0, bounds.lower_intended_fraction or 0.0
    return f"{proven:.2%}" != f"{intended:.2%}"


def _proven_line(frame_size: int, bounds: RateBounds) -> str:
    """Why a share above is below the load its search set (RateBounds.lower)."""
    proven, intended = bounds.lower_fraction or 0.0, bounds.lower_intended_fraction or 0.0
    return (f"{frame_size} B: {bounds.goal} ≥ {proven:.2%} (proven offered; {intended:.2%} "
            "intended): the trial at the bound offered less than it was set to")


def _back_pressure(size: CongestionAtSize) -> str:
    return "n/a" if size.back_pressure is None else "yes" if size.back_pressure else "no"


def _share(bounds: RateBounds) -> str:
    fraction = bounds.lower_fraction
    return "-" if fraction is None else f"{fraction:.2%}"


def _bound(bounds: RateBounds, config: Rfc2889Config, size: MeshAtSize) -> str:
    """The throughput per TX port as a share and in frames/s of one port."""
    fraction = bounds.lower_fraction
    if fraction is None:
        return "none (lost at the minimum)"
    first_port = config.pattern.tx_ports[0]
    pps = fraction * config.line_pps(first_port, size.frame_size)
    mark = "≥" if bounds.tester_limited else ""
    return f"{mark}{fraction:.2%} ({pps:.0f} fps)"
