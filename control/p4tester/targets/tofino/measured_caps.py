"""The highest share of line rate a search offers on a Tofino whose first contact
(`p4tester tofino-check`) refuted a rate the limits assume: the per-pipe packet rate,
the TM's replication rate or the generator's. A search above what the switch's pipes
carry would measure the tester, not the DUT; capped, it reports "NDR >= the tester's
capacity here" where the DUT carries that much, as a BMv2 search capped by its
calibration does (runs.search_capacity)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Final

from p4tester.config.topology import Topology
from p4tester.targets.tofino.first_contact.findings import load_report
from p4tester.targets.tofino.limits import CHIPS_BY_NAME, Chip, measured_chip, pipe_limit

# Where `p4tester tofino-check` writes its report by default, and searches read it.
TOFINO_CHECK_FILE: Final = Path("results/tofino-check.json")


def layout_for(topology: Topology) -> Chip:
    """The limits' layout of the topology's chip and port speed, its pipes holding as
    many of the topology's ports as one pipe can: the worst placement, since a port's
    pipe is the switch's to say (its dev port), not the topology's."""
    speed = max(port.line_rate_bps for port in topology.ports)
    layouts = CHIPS_BY_NAME[topology.switch.chip]
    chip = next((c for c in layouts if c.port_bps == speed), layouts[0])
    return replace(chip, ports_per_pipe=min(len(topology.ports), chip.ports_per_pipe))


def measured_caps(topology: Topology, frame_sizes: tuple[int, ...],
                  path: Path = TOFINO_CHECK_FILE) -> tuple[tuple[tuple[int, float], ...],
                                                           tuple[str, ...]]:
    """Per frame size, the share of line rate the pipes carry at the rates the report
    measured, where it is below 1.0; and the notes a run prints. Nothing without a
    report, with one of another chip, or with none refuted."""
    if not path.exists():
        return (), ()
    try:
        report = load_report(path)
    except (OSError, ValueError, KeyError) as error:
        return (), (f"searches start at line rate: ignoring {path}: {error}",)
    measured = report.measured()
    if report.chip != topology.switch.chip or not measured:
        return (), ()
    assumed = layout_for(topology)
    chip = measured_chip(assumed, measured)
    rates = ", ".join(f"{name} {value / 1e6:.1f} M" for name, value in sorted(measured.items()))
    caps: list[tuple[int, float]] = []
    notes: list[str] = []
    for size in frame_sizes:
        fraction = pipe_limit(size, chip).max_line_rate_fraction
        if fraction < 1.0:
            caps.append((size, fraction))
            notes.append(f"{size} B: the search offers at most {fraction:.2%} of line rate: "
                         f"what {chip.ports_per_pipe} ports of one pipe carry at the rates "
                         f"{path} measured ({rates}; `p4tester tofino-check` refuted the "
                         "assumed ones)")
    return tuple(caps), tuple(notes)
