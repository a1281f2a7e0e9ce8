"""The experiment every rate check shares: streams sent by the packet generator out of
ports in MAC loopback and received back on the same ports, through the driver
(TofinoTarget) as a trial would, with counts read on both sides of a measured span.

Counts are taken between two samples after a warm-up, so the generators' start does
not count; the span is the switch's own (the generator's tick of its last packet,
driver.generated), not the host's clock.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Final

from p4tester.streams.template import FrameSpec, build_template
from p4tester.targets.tofino import names
from p4tester.targets.tofino.driver import StreamPorts, TofinoTarget
from p4tester.targets.tofino.first_contact.bench import Bench, Setup, set_mac_loopback
from p4tester.targets.tofino.hardware import pipe_of
from p4tester.targets.tofino.port_stats import program_port_counts
from p4tester.targets.tofino.rates import TimerSchedule
from p4tester.targets.tofino.state import read_generated
from p4tester.tester.trial_course import SWITCH_CLOCK_HZ

LATENCY_EDGES_US: Final = (0, 1, 2, 5)
QDEPTH_EDGES: Final = (0, 4, 8)
# Larger than any count a check waits for: the generator never stops on its budget.
ENDLESS: Final = 1 << 30
WARM_UP_NS: Final = 20_000
DRAIN_NS: Final = 100_000  # far longer than a loopback's frame in flight
NS_PER_S: Final = 1_000_000_000


def looped_target(bench: Bench, setup: Setup, ports: Sequence[int]) -> TofinoTarget:
    """Stream i sent out of ports[i] and received back on it, ports up and in MAC
    loopback, bins set: ready for templates and rates."""
    streams = [StreamPorts(i, port, port) for i, port in enumerate(ports)]
    settings = setup.port_settings
    target = TofinoTarget(
        bench.client, streams, {p: setup.front_panel[p] for p in ports},
        port_settings=None if settings is None else {p: settings[p] for p in ports},
        chip=setup.chip)
    target.prepare(range(len(ports)), ports)
    set_mac_loopback(bench.client, target.dev_ports.values(), True)
    target.set_latency_bins(LATENCY_EDGES_US)
    target.set_qdepth_bins(QDEPTH_EDGES)
    return target


def templates(count: int, frame_size: int) -> dict[int, bytes]:
    """One frame for every stream (egress stamps the stream id), so streams of one
    rate share one generator application."""
    frame = build_template(FrameSpec(stream_id=0, frame_size=frame_size))
    return {s: frame for s in range(count)}


@dataclass(frozen=True, slots=True)
class PipeCounts:
    """One pipe's packets over the measured span."""

    generated: int  # the generator's packets ingress counted
    rx_program: int  # frames the program counted in from the pipe's ports (rx_port)
    rx_mac: int  # frames the pipe's MACs received ($FramesReceivedOK)
    tx_mac: int  # frames the pipe's MACs sent ($FramesTransmittedOK)


@dataclass(frozen=True, slots=True)
class LoopRun:
    """What a span of a looped run counted, per pipe, and how long it was (ns)."""

    span_ns: int
    pipes: Mapping[int, PipeCounts]
    offered_pps: Mapping[int, float]  # per dev port: what the generators were set to make
    reordered: int  # frames the checker counted reordered, all streams
    register_pipes: int  # values one register read gave per cell
    # From before the trial to after it stopped and drained: totals that must agree
    # exactly (no frame in flight at either read).
    whole: Mapping[int, PipeCounts]

    def per_s(self, count: int) -> float:
        return count * NS_PER_S / self.span_ns


@dataclass(frozen=True, slots=True)
class _Sample:
    switch_ns: int
    generated: dict[int, int]  # pipe -> packets
    rx_program: dict[int, int]  # dev port -> frames
    rx_mac: dict[int, int]
    tx_mac: dict[int, int]
    reordered: int
    register_pipes: int


def _sample(target: TofinoTarget) -> _Sample:
    client = target.client
    made: dict[int, int] = {}
    widths = {0}
    for cells in read_generated(client, [a.app_id for a in target.apps]).values():
        widths.add(len(cells))
        for pipe, cell in enumerate(cells):
            made[pipe] = made.get(pipe, 0) + cell.made
    times = [c.switch_time for c in target.generated().values() if c.switch_time is not None]
    program = program_port_counts(client, target.dev_ports)
    rx_mac, tx_mac = {}, {}
    for dev in target.dev_ports.values():
        stat = client.read_entry(names.PORT_STAT, {names.DEV_PORT: dev}, from_hw=True).data
        rx_mac[dev] = int(str(stat[names.PORT_STAT_RX_OK]))
        tx_mac[dev] = int(str(stat[names.PORT_STAT_TX_OK]))
    dev_of = target.dev_ports
    reordered = client.read_counters(names.RX_REORDERED, range(len(dev_of)))
    return _Sample(max(times, default=0) * NS_PER_S // SWITCH_CLOCK_HZ, made,
                   {dev_of[p]: n for p, n in program.rx.items()}, rx_mac, tx_mac,
                   sum(v.packets for cell in reordered.values() for v in cell), max(widths))


def run_looped(bench: Bench, target: TofinoTarget, rates_pps: Mapping[int, float],
               frame_size: int, span_ns: int,
               steps: Mapping[int, Sequence[TimerSchedule]] | None = None) -> LoopRun:
    """Every stream at its rate for a warm-up and then span_ns, counted over the span."""
    target.set_templates(templates(len(target.dev_ports), frame_size))
    target.set_stream_rates(rates_pps, steps=steps)
    # Before the start, whose zeroing of the generators' counts is their zero: a read
    # after it would already count packets (reads take time while generators run).
    zero = replace(_sample(target), generated={})
    target.start_trial({s: ENDLESS for s in rates_pps})
    bench.wait_ns(WARM_UP_NS)
    first = _sample(target)
    bench.wait_ns(span_ns)
    last = _sample(target)
    target.stop_trial()
    bench.wait_ns(DRAIN_NS)
    drained = _sample(target)
    pipes = _between(first, last, target)
    offered = {target.dev_ports[port]: sum(a.achieved_pps for a in target.apps
                                           if stream in a.stream_ids)
               for stream, port in enumerate(sorted(target.dev_ports))}
    return LoopRun(max(last.switch_ns - first.switch_ns, 1), pipes, offered,
                   last.reordered - first.reordered, last.register_pipes,
                   _between(zero, drained, target))


def _between(first: _Sample, last: _Sample, target: TofinoTarget) -> dict[int, PipeCounts]:
    pipes: dict[int, PipeCounts] = {}
    for pipe in sorted({pipe_of(d) for d in target.dev_ports.values()} | set(last.generated)):
        def delta(counts: tuple[dict[int, int], dict[int, int]], pipe: int = pipe) -> int:
            before, after = counts
            return sum(after[d] - before.get(d, 0) for d in after if pipe_of(d) == pipe)
        pipes[pipe] = PipeCounts(
            last.generated.get(pipe, 0) - first.generated.get(pipe, 0),
            delta((first.rx_program, last.rx_program)), delta((first.rx_mac, last.rx_mac)),
            delta((first.tx_mac, last.tx_mac)))
    return pipes
