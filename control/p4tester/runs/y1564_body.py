"""The Y.1564 run: the profile's services into the experiment, and its report: a
table per test with each step's figures and verdict, then each service's verdict."""

from __future__ import annotations

from p4tester.config.errors import ConfigError
from p4tester.config.profile import Profile
from p4tester.config.topology import Topology
from p4tester.experiments.y1564 import StepResult, Y1564Config, Y1564Result, run_y1564

from .bodies import Outcome, RunContext
from .requests import Y1564Request

_HEADER = (f"{'service':<12} {'step':<13} {'offered':>12} {'IR':>12} {'FLR':>9} "
           f"{'FTD ms':>8} {'FDV ms':>8} {'AVAIL %':>8}  verdict")


def require_services(request: Y1564Request, topology: Topology, profile: Profile) -> None:
    """ConfigError for a profile without services (the run's check before it starts)."""
    del request, topology
    if not profile.services:
        raise ConfigError(f"{profile.source or profile.name}: the profile has no `services`; "
                          "add them (name, stream, cir, eir, sla) to run Y.1564, see "
                          "docs/y1564.md")


def y1564_body(request: Y1564Request, run: RunContext) -> Outcome:
    profile = run.profile
    require_services(request, run.topology, profile)
    streams = {stream.id: stream for stream in profile.streams}
    chosen = [streams[service.stream_id] for service in profile.services]
    config = Y1564Config(
        services=profile.services,
        port_line_rates_bps=tuple(run.topology.port(s.tx_port).line_rate_bps for s in chosen),
        frame_sizes=tuple(s.size_in(request.frame_size) for s in chosen),
        frame_size=request.frame_size,
        cir_steps=tuple(pct / 100.0 for pct in request.cir_steps_pct),
        step_duration_s=request.trial_s(profile),
        performance_duration_s=request.performance_duration_s,
        configuration_test=request.tests != "performance",
        performance_test=request.tests != "configuration")
    result = run_y1564(config, run.recorder)
    return result, "\n".join(y1564_report(result))


def y1564_report(result: Y1564Result) -> list[str]:
    lines: list[str] = []
    configuration = [step for s in result.services for step in s.configuration]
    if configuration:
        lines += ["Y.1564 service configuration test", _HEADER,
                  *(_row(step) for step in configuration), ""]
    performance = [s.performance for s in result.services if s.performance is not None]
    if performance:
        duration = result.config.performance_duration_s
        lines += [f"Y.1564 service performance test ({duration:g} s, all services at CIR)",
                  _HEADER, *(_row(step) for step in performance), ""]
    for service in result.services:
        lines.append(f"service {service.service}: {'PASS' if service.passed else 'FAIL'}")
    lines.append(f"Y.1564: {'PASS' if result.passed else 'FAIL'} "
                 f"({result.trial_count} trials)")
    return lines


def _row(step: StepResult) -> str:
    name = step.step if step.cir_share is None else f"cir {step.cir_share:.0%}"
    verdict = "pass" if step.passed else f"FAIL ({', '.join(step.failed_on)})"
    return (f"{step.service:<12} {name:<13} {_mbps(step.offered_bps):>12} "
            f"{_mbps(step.ir_bps):>12} {step.flr:>9.2e} {_ms(step.ftd_ms):>8} "
            f"{_ms(step.fdv_ms):>8} {_pct(step.availability_pct):>8}  {verdict}")


def _mbps(bps: float) -> str:
    return f"{bps / 1e6:.4f} Mb/s"


def _ms(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"
