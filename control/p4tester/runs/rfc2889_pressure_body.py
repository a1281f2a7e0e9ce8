"""The RFC 2889 forward pressure run (section 5.6; experiments.rfc2889_pressure): its
report as the RFC asks, per frame size the intended, offered and legal maximum rates,
the forwarding rate and the verdict, then every load of the maximum forwarding rate's
series with the MFR and the load at which it occurred; and rfc2889.png, the forwarding
rate against the load beside the legal maximum."""

from __future__ import annotations

from p4tester.experiments.rfc2889 import Rfc2889Config
from p4tester.experiments.rfc2889_pressure import (
    ForwardPressureAtSize,
    ForwardPressureConfig,
    ForwardPressureResult,
    run_forward_pressure,
)
from p4tester.results.plots import ForwardingCurve, plot_forwarding_curves

from .bodies import Outcome, RunContext, plot
from .requests import Rfc2889Request


def forward_pressure_body(config: Rfc2889Config, request: Rfc2889Request,
                          run: RunContext) -> Outcome:
    pressure = ForwardPressureConfig(config, mfr_steps=request.mfr_steps)
    result = run_forward_pressure(pressure, run.recorder)
    curves = [_curve(size) for size in result.sizes]
    plot(lambda: plot_forwarding_curves(
        curves, pressure.tolerance, f"RFC 2889 forward pressure, port {pressure.tx_port} into port "
        f"{pressure.rx_port}", run.output / "rfc2889.png"))
    return result, "\n".join(forward_pressure_report(result))


def _curve(size: ForwardPressureAtSize) -> ForwardingCurve:
    points = tuple((i.load * 100.0, i.forwarding_rate_pps / size.legal_max_pps * 100.0)
                   for i in size.iterations)
    best = next(n for n, i in enumerate(size.iterations)
                if i.forwarding_rate_pps == size.mfr_pps)
    return ForwardingCurve(f"{size.frame_size} B", points, best)


def forward_pressure_report(result: ForwardPressureResult) -> list[str]:
    config = result.config
    a, b = config.tx_port, config.rx_port
    gap = config.ifg_bits
    lines = [f"RFC 2889 forward pressure: port {a} into port {b} with {gap}-bit inter-frame "
             f"gaps (the standard's least is 96), rates judged to {config.tolerance:.1%}",
             f"{'size':>5} {'intended fps':>13} {'offered fps':>12} {'legal max fps':>14} "
             f"{'FR fps':>10} {'FR/legal':>9} {'lost':>7}  forward pressure"]
    for size in result.sizes:
        last = size.pressure
        offered = "-" if last.offered_pps is None else f"{last.offered_pps:.1f}"
        lines.append(f"{size.frame_size:>5} {last.forwarding.intended_pps:>13.1f} "
                     f"{offered:>12} {size.legal_max_pps:>14.1f} "
                     f"{last.forwarding_rate_pps:>10.1f} {size.forwarded_share:>9.2%} "
                     f"{last.forwarding.lost:>7}  {_verdict(size)}")
    lines += [f"n/a at {s.frame_size} B: {s.not_judged}" for s in result.sizes
              if s.forward_pressure is None]
    lines += ["", f"maximum forwarding rate, port {b} (loads up to the MOL "
              f"{config.rfc2889.max_load:.0%}, then the {gap}-bit gaps):",
              f"{'size':>5} {'load':>8} {'gap':>4} {'intended fps':>13} {'offered fps':>12} "
              f"{'FR fps':>10} {'lost':>7}"]
    for size in result.sizes:
        for i in size.iterations:
            offered = "-" if i.offered_pps is None else f"{i.offered_pps:.1f}"
            lines.append(f"{size.frame_size:>5} {i.load:>8.2%} {i.ifg_bits:>4} "
                         f"{i.forwarding.intended_pps:>13.1f} {offered:>12} "
                         f"{i.forwarding_rate_pps:>10.1f} {i.forwarding.lost:>7}")
    lines += [f"MFR at {s.frame_size} B: {s.mfr_pps:.1f} frames/s "
              f"({s.mfr_pps / s.legal_max_pps:.2%} of line rate) at a load of {s.mfr_load:.2%}"
              for s in result.sizes]
    return lines


def _verdict(size: ForwardPressureAtSize) -> str:
    if size.forward_pressure is None:
        return "n/a"
    return "yes" if size.forward_pressure else "no"
