"""What the tester sustains on a Tofino switch, per frame size: the budget tables of the
docs (docs/tofino.md). Print them with `python -m p4tester.targets.tofino.limits`.

Workload: every front-panel port sends one stream at a fraction f of line rate and
receives one stream back (ports paired through the DUT). Streams of one frame size and
rate share one generator application (apps.py).

How the generator spends the pipes (p4src/tna/generator.p4):
- the application runs in the generators of all P pipes at once, each making 1/P of the
  rate; a generated packet enters the ingress of its own pipe, is counted against that
  pipe's budget and multicast by the traffic manager (TM) to every stream's TX port,
  in any pipe; egress stamps stream id, sequence number and TX timestamp into each copy.
  So per pipe:
- ingress = its RX ports' traffic (N x f x line) + its share of the generator packets
  (f x line / P: one generated packet makes one copy per stream);
- egress = its TX ports' copies (N x f x line), which the TM makes by replication;
- the pipe's generator makes f x line / P frames, each (frame + 20 B) on its wire.

What bounds f, each marked ASSUMED where no published figure was found:
- Chip.pipe_pps: packets per second one pipe's ingress (and, separately, its egress)
  handles;
- Chip.pktgen_bps: what one pipe's packet generator makes, counted on frame + 20 B;
- Chip.replication_pps: copies per second the TM delivers into one egress pipe.
max f = min(1, every budget / its load at f = 1); the margin is the binding budget's
headroom at the reported f: budget / load - 1.
"""

from __future__ import annotations

import argparse
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Final

from p4tester.streams.rates import l1_frame_bits, line_rate_pps
from p4tester.targets.tofino.hardware import PIPE_PACKETS_PER_SECOND, PKTGEN_PORT_BPS

FRAME_SIZES: Final = (64, 128, 256, 512, 1024, 1280, 1518, 9216)


@dataclass(frozen=True, slots=True)
class Chip:
    """A switch layout and the per-pipe rates the model assumes."""

    name: str
    pipes: int
    ports_per_pipe: int
    port_bps: float
    pipe_pps: float  # ASSUMED: one pipe's ingress, and separately its egress
    pktgen_bps: float  # ASSUMED: one pipe's packet generator, frame + 20 B on the wire
    replication_pps: float  # ASSUMED: TM copies into one egress pipe

    def __post_init__(self) -> None:
        if self.pipes < 1 or self.ports_per_pipe < 1:
            raise ValueError(f"{self.name}: pipes and ports per pipe must be at least 1")
        if min(self.port_bps, self.pipe_pps, self.pktgen_bps, self.replication_pps) <= 0:
            raise ValueError(f"{self.name}: rates must be positive")


# 32 x 100G on a 6.4T Tofino 1: 4 pipes of 8 ports. Per pipe 1.25 Gpps (one packet per
# cycle of the 1.25 GHz core clock: hardware.PIPE_PACKETS_PER_SECOND, ASSUMED); the
# generator makes 100 Gbit/s per pipe (hardware.PKTGEN_PORT_BPS, ASSUMED); the TM
# replicates as fast as egress takes packets (ASSUMED: no published figure).
TOFINO1_32X100G: Final = Chip("Tofino 1, 4 pipes x 8 x 100G", 4, 8, 100e9,
                              PIPE_PACKETS_PER_SECOND, PKTGEN_PORT_BPS, PIPE_PACKETS_PER_SECOND)
# 32 x 100G on a 3.2T Tofino 1 (e.g. Wedge100BF-32X): 2 pipes of 16 ports.
TOFINO1_2PIPE_32X100G: Final = Chip("Tofino 1, 2 pipes x 16 x 100G", 2, 16, 100e9,
                                    PIPE_PACKETS_PER_SECOND, PKTGEN_PORT_BPS,
                                    PIPE_PACKETS_PER_SECOND)
# 32 x 400G on a 12.8T Tofino 2: 4 pipes of 8 ports. ASSUMED, all three: 1.5 Gpps per
# pipe (one packet per cycle of a 1.5 GHz clock; Intel publishes no per-pipe packet
# rate), a 400 Gbit/s generator per pipe, TM replication at the pipe rate.
TOFINO2_PIPE_PPS: Final = 1.5e9
TOFINO2_32X400G: Final = Chip("Tofino 2, 4 pipes x 8 x 400G", 4, 8, 400e9, TOFINO2_PIPE_PPS,
                              400e9, TOFINO2_PIPE_PPS)
# The same box with every 400G cage broken out into 4 x 100G (topologies/
# tofino2-128x100g.yaml): 4 pipes of 32 x 100G, the same assumptions.
TOFINO2_128X100G: Final = Chip("Tofino 2, 4 pipes x 32 x 100G", 4, 32, 100e9,
                               TOFINO2_PIPE_PPS, 400e9, TOFINO2_PIPE_PPS)


@dataclass(frozen=True, slots=True)
class PipeLimit:
    """One frame size on one fully used pipe, at line rate; rates in frames per second."""

    chip: Chip
    frame_size: int
    line_rate_pps: float  # one port
    rx_pps: float  # the pipe's RX ports
    generator_pps: float  # the pipe's share of the generated packets
    egress_pps: float  # the pipe's TX copies (made by TM replication)
    pktgen_bps: float  # what the pipe's generator puts out (frame + 20 B)

    @property
    def ingress_pps(self) -> float:
        return self.rx_pps + self.generator_pps

    @property
    def load_ratios(self) -> tuple[float, ...]:
        """Each load at line rate over its budget: ingress, egress, replication, pktgen."""
        chip = self.chip
        return (self.ingress_pps / chip.pipe_pps, self.egress_pps / chip.pipe_pps,
                self.egress_pps / chip.replication_pps, self.pktgen_bps / chip.pktgen_bps)

    @property
    def fits(self) -> bool:
        return max(self.load_ratios) <= 1.0

    @property
    def max_line_rate_fraction(self) -> float:
        """Highest share of line rate every port sustains (1.0 when line rate fits)."""
        return min(1.0, 1.0 / max(self.load_ratios))

    @property
    def margin(self) -> float:
        """Headroom of the binding budget at max_line_rate_fraction (0 when it binds)."""
        return 1.0 / (max(self.load_ratios) * self.max_line_rate_fraction) - 1.0


def pipe_limit(frame_size: int, chip: Chip = TOFINO1_32X100G) -> PipeLimit:
    line = line_rate_pps(chip.port_bps, frame_size)
    generator = line / chip.pipes
    return PipeLimit(
        chip=chip,
        frame_size=frame_size,
        line_rate_pps=line,
        rx_pps=chip.ports_per_pipe * line,
        generator_pps=generator,
        egress_pps=chip.ports_per_pipe * line,
        pktgen_bps=generator * l1_frame_bits(frame_size),
    )


def limits_table(chip: Chip = TOFINO1_32X100G,
                 frame_sizes: tuple[int, ...] = FRAME_SIZES) -> tuple[PipeLimit, ...]:
    return tuple(pipe_limit(size, chip) for size in frame_sizes)


def limits_markdown(rows: tuple[PipeLimit, ...]) -> str:
    """A Markdown table of the rows (the ones docs/tofino.md shows)."""
    lines = [
        "| frame B | line rate / port (Mpps) | ingress / pipe: RX + generator (Mpps) "
        "| egress / pipe (Mpps) | pipe budget (Mpps) | generator / pipe (Gbit/s) | fits "
        "| max % of line rate | margin |",
        "|---:|---:|---:|---:|---:|---:|:---:|---:|---:|",
    ]
    for row in rows:
        lines.append(
            f"| {row.frame_size} | {row.line_rate_pps / 1e6:.3f} "
            f"| {row.ingress_pps / 1e6:.1f} = {row.rx_pps / 1e6:.1f} + "
            f"{row.generator_pps / 1e6:.1f} | {row.egress_pps / 1e6:.1f} "
            f"| {row.chip.pipe_pps / 1e6:.0f} | {row.pktgen_bps / 1e9:.1f} "
            f"| {'yes' if row.fits else 'no'} | {100 * row.max_line_rate_fraction:.1f} "
            f"| {100 * row.margin:.1f} % |")
    return "\n".join(lines)


# The rates a first-contact report may have measured (findings.Finding.measured).
MEASURABLE: Final = ("pipe_pps", "replication_pps", "pktgen_bps")


def measured_chip(chip: Chip, measured: Mapping[str, float]) -> Chip:
    """The chip with the rates `p4tester tofino-check` measured where it refuted the
    assumed ones (its report's Report.measured()), the others as assumed."""
    unknown = sorted(set(measured) - set(MEASURABLE))
    if unknown:
        raise ValueError(f"measured rates {unknown} are not limits; known: {list(MEASURABLE)}")
    return replace(chip, pipe_pps=measured.get("pipe_pps", chip.pipe_pps),
                   replication_pps=measured.get("replication_pps", chip.replication_pps),
                   pktgen_bps=measured.get("pktgen_bps", chip.pktgen_bps))


CHIPS_BY_NAME: Final = {"tofino1": (TOFINO1_32X100G, TOFINO1_2PIPE_32X100G),
                        "tofino2": (TOFINO2_32X400G, TOFINO2_128X100G)}


def print_limits_tables(report: Path | None = None) -> None:
    """Every layout's table; with a tofino-check report, its chip's layouts with the
    rates it measured."""
    chips: tuple[Chip, ...] = (*CHIPS_BY_NAME["tofino1"], *CHIPS_BY_NAME["tofino2"])
    measured: dict[str, float] = {}
    if report is not None:
        from p4tester.targets.tofino.first_contact.findings import load_report

        loaded = load_report(report)
        chips, measured = CHIPS_BY_NAME[loaded.chip], loaded.measured()
    for assumed in chips:
        chip = measured_chip(assumed, measured)
        source = f"MEASURED by {report}: {sorted(measured)}" if measured else "all ASSUMED"
        print(f"{chip.name}: {chip.pipe_pps / 1e6:.0f} Mpps per pipe and direction, "
              f"{chip.pktgen_bps / 1e9:.0f} Gbit/s generator per pipe, TM replication "
              f"{chip.replication_pps / 1e6:.0f} Mpps per egress pipe ({source})")
        print(limits_markdown(limits_table(chip)))
        print()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="the Tofino budget tables of docs/tofino.md")
    parser.add_argument("--first-contact-report", type=Path,
                        help="a `p4tester tofino-check` report: its refuted rates replace "
                        "the assumed ones")
    print_limits_tables(parser.parse_args().first_contact_report)
