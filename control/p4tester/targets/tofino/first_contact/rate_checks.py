"""Rates: a pipe's packet rate (2), TM replication (3), generators in several pipes
(4), and, from one generator alone, its capacity (11), register reads per pipe (8),
Tofino 2's generator port (19) and the MAC counters (20).

The pipe experiment is the docs' budget table made real: every topology port sends a
64-B stream at line rate and gets it back (MAC loopback), the generator spread over
all the ports' pipes. Where the offered load is below the assumed budget (Tofino 1,
32 x 100G: 1227.7 of 1250 Mpps) the run shows that it fits; where it is above
(Tofino 2, 4910.7 of 1500) the carried rate is the pipe's rate.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Final

from p4tester.streams.rates import l1_frame_bits, line_rate_pps
from p4tester.targets.tofino import limits
from p4tester.targets.tofino.first_contact.bench import Bench, Setup
from p4tester.targets.tofino.first_contact.findings import (
    Finding,
    not_checked,
    refuted,
    verified,
)
from p4tester.targets.tofino.first_contact.loop import LoopRun, looped_target, run_looped
from p4tester.targets.tofino.hardware import pipe_of
from p4tester.targets.tofino.ports import resolve_dev_ports
from p4tester.targets.tofino.rates import pktgen_capacity_pps

FRAME: Final = 64
SPAN_NS: Final = 1_000_000
# A carried rate this far below the expected one is a refutation (counts over a
# 1-ms span are exact to far better; this leaves room for the generator's timer).
TOLERANCE: Final = 0.01
ASSUMED: Final = {"tofino1": limits.TOFINO1_32X100G, "tofino2": limits.TOFINO2_32X400G}


def topology_limits(setup: Setup, pipes: int, ports_per_pipe: int) -> limits.Chip:
    """The limits model of this topology's layout with the chip's assumed rates."""
    return replace(ASSUMED[setup.chip.name], name=setup.topology, pipes=pipes,
                   ports_per_pipe=ports_per_pipe, port_bps=max(setup.line_rate_bps.values()))


def line_rate_from(chip: limits.Chip) -> str:
    """The smallest frame size every port sends at line rate with, as a phrase."""
    fitting = [row.frame_size for row in limits.limits_table(chip) if row.fits]
    return f"from {fitting[0]} B" if fitting else "at no frame size"


def _mpps(pps: float) -> str:
    return f"{pps / 1e6:.1f} Mpps"


def check_pipes(bench: Bench, setup: Setup) -> list[Finding]:
    """2, 3 and 4 from one run of every port at 64 B line rate."""
    ports = setup.ports
    target = looped_target(bench, setup, ports)
    rates = {s: line_rate_pps(setup.line_rate_bps[p], FRAME) for s, p in enumerate(ports)}
    run = run_looped(bench, target, rates, FRAME, SPAN_NS)
    per_pipe: dict[int, int] = {}
    for dev in target.dev_ports.values():
        per_pipe[pipe_of(dev)] = per_pipe.get(pipe_of(dev), 0) + 1
    model = topology_limits(setup, len(per_pipe), max(per_pipe.values()))
    return [*_pipe_rate(run, model, per_pipe), _replication(run, model, per_pipe),
            _several_generators(run, len(per_pipe))]


def _offered(run: LoopRun, pipe: int) -> float:
    return sum(pps for dev, pps in run.offered_pps.items() if pipe_of(dev) == pipe)


def _pipe_rate(run: LoopRun, model: limits.Chip, pipes: dict[int, int]) -> list[Finding]:
    name = "per-pipe packet rate"
    worst: tuple[float, float, int] | None = None  # (carried, expected, pipe)
    for pipe in pipes:
        counts = run.pipes[pipe]
        offered = _offered(run, pipe) + run.per_s(counts.generated)
        carried = run.per_s(counts.rx_program + counts.generated)
        expected = min(offered, model.pipe_pps)
        if worst is None or carried / expected < worst[0] / worst[1]:
            worst = (carried, expected, pipe)
    assert worst is not None
    carried, expected, pipe = worst
    if carried >= expected * (1 - TOLERANCE):
        how = "all of it, loss-free" if expected < model.pipe_pps else "the assumed budget"
        return [verified(2, name, f"pipe {pipe} took {_mpps(carried)} in ingress at 64 B "
                         f"({how}; assumed {_mpps(model.pipe_pps)})")]
    measured = replace(model, pipe_pps=carried)
    return [refuted(2, name, f"pipe {pipe} took {_mpps(carried)} in ingress at 64 B, "
                    f"assumed {_mpps(model.pipe_pps)}",
                    f"line rate on every port {line_rate_from(measured)}, assumed "
                    f"{line_rate_from(model)}", {"pipe_pps": carried})]


def _replication(run: LoopRun, model: limits.Chip, pipes: dict[int, int]) -> Finding:
    """The TM fills each egress pipe as fast as the pipe takes packets: its egress
    carries what was offered, up to what the pipe carried in ingress (2 measures the
    pipe; a slow pipe is not a slow TM)."""
    name = "TM replication rate"
    for pipe in pipes:
        counts = run.pipes[pipe]
        pipe_rate = max(run.per_s(counts.rx_program + counts.generated), 1.0)
        expected = min(_offered(run, pipe), model.replication_pps, pipe_rate)
        carried = run.per_s(counts.tx_mac)
        if carried < expected * (1 - TOLERANCE):
            measured = replace(model, replication_pps=carried)
            return refuted(3, name, f"pipe {pipe}'s ports sent {_mpps(carried)} of "
                           f"{_mpps(expected)} copies", f"line rate on every port "
                           f"{line_rate_from(measured)}", {"replication_pps": carried})
    total = sum(run.per_s(run.pipes[p].tx_mac) for p in pipes)
    return verified(3, name, f"{len(run.offered_pps)} ports in one group sent "
                    f"{_mpps(total)} of copies at 64 B, every egress pipe as fast as it "
                    "took packets")


def _several_generators(run: LoopRun, pipes: int) -> Finding:
    name = "generators in several pipes"
    frames = sum(c.rx_program for c in run.pipes.values())
    if run.reordered:
        return refuted(4, name, f"{run.reordered} of {frames} frames made by {pipes} "
                       "generator pipes arrived reordered", "a stream sent from several "
                       "pipes is not in order: give each stream TX ports of one pipe")
    return verified(4, name, f"none of {frames} frames made by {pipes} generator pipes "
                    "reordered; the spacing between a stream's frames needs a capture "
                    "(p4tester capture of a stream, inter-frame gaps)")


def check_generator(bench: Bench, setup: Setup) -> list[Finding]:
    """11, 8, 19 and 20 from one stream out of the last pipe's first port at what one
    generator makes at most (its port's line rate if lower)."""
    # The first port of the highest pipe: a register read has to place it last.
    dev_ports = resolve_dev_ports(bench.client, setup.front_panel.values())
    last = min(setup.ports, key=lambda p: (-pipe_of(dev_ports[setup.front_panel[p]]), p))
    target = looped_target(bench, setup, (last,))
    dev = target.dev_ports[last]
    pipe = pipe_of(dev)
    rate = min(line_rate_pps(setup.line_rate_bps[last], FRAME),
               pktgen_capacity_pps(FRAME, setup.chip.pktgen_bps))
    run = run_looped(bench, target, {0: rate}, FRAME, SPAN_NS)
    counts = run.pipes[pipe]
    made = run.per_s(counts.generated)
    by_pipe = {p: c.generated for p, c in run.pipes.items() if c.generated}
    findings = []
    name = "generator capacity"
    if made >= rate * (1 - TOLERANCE):
        findings.append(verified(11, name, f"pipe {pipe}'s generator made {_mpps(made)} of "
                                 f"64 B ({made * l1_frame_bits(FRAME) / 1e9:.1f} Gbit/s "
                                 "counted on frame + 20 B)"))
    else:
        bps = made * l1_frame_bits(FRAME)
        findings.append(refuted(11, name, f"pipe {pipe}'s generator made {_mpps(made)} of "
                                f"{_mpps(rate)} asked", f"each pipe's generator makes "
                                f"{bps / 1e9:.1f} Gbit/s: spread streams over more TX pipes",
                                {"pktgen_bps": bps}))
    name = "register reads per pipe"
    if set(by_pipe) == {pipe} and run.register_pipes > pipe:
        findings.append(verified(8, name, f"a read gave {run.register_pipes} values per cell; "
                                 f"only value {pipe} (the generator's pipe) counted"))
    else:
        findings.append(refuted(8, name, f"a read gave {run.register_pipes} values per cell, "
                                f"counts at positions {sorted(by_pipe)}; the generator ran in "
                                f"pipe {pipe}", "the driver reads the wrong pipe's "
                                "registers: fix state.read_streams before trusting figures"))
    if setup.chip.name == "tofino2":
        if counts.generated:
            findings.append(verified(19, "Tofino 2 generator port", f"ingress counted "
                                     f"{counts.generated} packets of the generator on port "
                                     f"{setup.chip.pktgen_dev_port(pipe)}; the CPU port (0) "
                                     "needs a packet from the CPU"))
        else:
            findings.append(refuted(19, "Tofino 2 generator port", "ingress counted no "
                                    f"generated packet from port "
                                    f"{setup.chip.pktgen_dev_port(pipe)}", "the program's "
                                    "GENERATOR_PORT in p4src/tna/platform.p4 is wrong"))
    else:
        findings.append(not_checked(19, "Tofino 2 generator port", "this is a Tofino 1",
                                    "run tofino-check on a Tofino 2"))
    findings.append(_mac_counters(run, pipe))
    return findings


def _mac_counters(run: LoopRun, pipe: int) -> Finding:
    """Over the whole drained run, the port sent one frame per generated packet and,
    looped, received each back (the program may count fewer: a full pipe drops)."""
    name = "self-check counters"
    counts = run.whole[pipe]
    if counts.tx_mac == counts.generated and counts.rx_mac == counts.tx_mac:
        return verified(20, name, f"$FramesTransmittedOK and $FramesReceivedOK read, each "
                        f"{counts.tx_mac}, one per generated packet; that PAUSE frames are "
                        "not counted needs a peer sending them: keep flow control off")
    return refuted(20, name, f"MAC TX {counts.tx_mac} / RX {counts.rx_mac} for "
                   f"{counts.generated} generated packets looped back",
                   "the self-check would call a sound trial tester-limited: check the "
                   "$PORT_STAT names (names.py)")
