"""The generator's timers: the shortest period (12), retiming a running application
(17), and one read of the `generated` register across pipes on one clock (15).

Rates are measured on the switch's clock: each sample is the generator's count with
the tick of its last packet (driver.generated), so the host's sleep does not matter.
"""

from __future__ import annotations

from typing import Final

from p4tester.targets.tofino.driver import TofinoTarget
from p4tester.targets.tofino.first_contact.bench import Bench, Setup
from p4tester.targets.tofino.first_contact.findings import Finding, refuted, verified
from p4tester.targets.tofino.first_contact.loop import ENDLESS, looped_target, templates
from p4tester.targets.tofino.hardware import MIN_TIMER_PERIOD_NS, pipe_of
from p4tester.targets.tofino.ports import resolve_dev_ports
from p4tester.targets.tofino.rates import TimerSchedule
from p4tester.targets.tofino.state import read_generated
from p4tester.targets.tofino.switch_clock import TICK_NS
from p4tester.tester.trial_course import SWITCH_CLOCK_HZ

FRAME: Final = 64
NS_PER_S: Final = 1_000_000_000
SPAN_NS: Final = 1_000_000
SETTLE_NS: Final = 10_000
TOLERANCE: Final = 0.01
SLOW_NS: Final = 1000  # the retime check's first period, then FAST_NS
FAST_NS: Final = 500


def one_packet(period_ns: int) -> TimerSchedule:
    """A timer of one packet every period_ns (exact in cycles at every clock here)."""
    return TimerSchedule(period_ns, 1, 1, NS_PER_S / period_ns, 0.0)


def start_timed(bench: Bench, target: TofinoTarget, timers: list[TimerSchedule]) -> None:
    count = len(target.dev_ports)
    target.set_templates(templates(count, FRAME))
    target.set_stream_rates({s: timers[0].achieved_pps for s in range(count)},
                            steps={s: timers for s in range(count)})
    target.start_trial({s: ENDLESS for s in range(count)})
    bench.wait_ns(SETTLE_NS)


def _rate(bench: Bench, target: TofinoTarget, span_ns: int) -> float:
    """Packets per second all applications made over span_ns, on the switch's clock."""
    def sample() -> tuple[int, int]:
        counts = target.generated().values()
        times = [c.switch_time for c in counts if c.switch_time is not None]
        return sum(c.made for c in counts), max(times, default=0)
    made0, at0 = sample()
    bench.wait_ns(span_ns)
    made1, at1 = sample()
    span = max((at1 - at0) * NS_PER_S // SWITCH_CLOCK_HZ, 1)
    return (made1 - made0) * NS_PER_S / span


def check_timers(bench: Bench, setup: Setup) -> list[Finding]:
    port = setup.ports[0]
    target = looped_target(bench, setup, (port,))
    start_timed(bench, target, [one_packet(MIN_TIMER_PERIOD_NS)])
    rate = _rate(bench, target, SPAN_NS)
    target.stop_trial()
    name = "minimum timer period"
    wanted = NS_PER_S / MIN_TIMER_PERIOD_NS
    findings = []
    if abs(rate - wanted) <= wanted * TOLERANCE:
        findings.append(verified(12, name, f"a {MIN_TIMER_PERIOD_NS}-ns timer made "
                                 f"{rate / 1e6:.2f} Mpps; that bursts leave back to back "
                                 "needs a capture of a bursts trial"))
    else:
        findings.append(refuted(12, name, f"a {MIN_TIMER_PERIOD_NS}-ns timer made "
                                f"{rate / 1e6:.2f} Mpps, not {wanted / 1e6:.2f}",
                                "raise hardware.MIN_TIMER_PERIOD_NS until it keeps time"))
    findings.append(_retime(bench, target))
    findings.append(_one_moment(bench, setup))
    return findings


def _retime(bench: Bench, target: TofinoTarget) -> Finding:
    slow, fast = one_packet(SLOW_NS), one_packet(FAST_NS)
    start_timed(bench, target, [slow, fast])
    target.retime_streams({0: fast})
    bench.wait_ns(SETTLE_NS)
    rate = _rate(bench, target, SPAN_NS)
    target.stop_trial()
    name = "retiming a running application"
    if abs(rate - fast.achieved_pps) <= fast.achieved_pps * TOLERANCE:
        return verified(17, name, f"retimed from {SLOW_NS} to {FAST_NS} ns while running, "
                        f"it made {rate / 1e6:.2f} Mpps; a step's first period needs a "
                        "capture of a square wave")
    return refuted(17, name, f"retimed from {SLOW_NS} to {FAST_NS} ns while running, it made "
                   f"{rate / 1e6:.2f} Mpps, not {fast.achieved_pps / 1e6:.2f}",
                   "a running application keeps its period: shaped trials (ramps, square "
                   "waves) do not step on this switch")


def _one_moment(bench: Bench, setup: Setup) -> Finding:
    """One application in every pipe, each pipe's last packet within a period of the
    read: one read's ticks agree to a period when the pipes share a clock and are read
    at one moment."""
    dev = resolve_dev_ports(bench.client, setup.front_panel.values())
    firsts: dict[int, int] = {}
    for port in setup.ports:
        firsts.setdefault(pipe_of(dev[setup.front_panel[port]]), port)
    target = looped_target(bench, setup, tuple(sorted(firsts.values())))
    start_timed(bench, target, [one_packet(SLOW_NS)])
    bench.wait_ns(SPAN_NS)
    cells = next(iter(read_generated(bench.client, [a.app_id for a in target.apps]).values()))
    target.stop_trial()
    ticks = [c.last_tick for c in cells if c.made]
    spread_ns = (max(ticks) - min(ticks)) * TICK_NS
    name = "switch clock across pipes"
    shown = f"one read's last ticks of {len(ticks)} pipes spread {spread_ns / 1000:.1f} us"
    if spread_ns <= SLOW_NS + TICK_NS:
        return verified(15, name, f"{shown} (a period is {SLOW_NS / 1000:.1f} us): one clock, "
                        "read at one moment")
    per_port = max(setup.line_rate_bps.values()) / (FRAME + 20) / 8
    return refuted(15, name, f"{shown}, more than a period ({SLOW_NS / 1000:.1f} us)",
                   f"the pipes are not read at one moment: a generator sample may count up "
                   f"to {per_port * spread_ns / NS_PER_S:.0f} packets per line-rate port "
                   "after its tick, so offered-load samples are that far off")
