"""What the tester sustains on Tofino 1, per frame size: a budget table for the docs.

Model (one pipe, all its front-panel ports used, every port sending one stream at the
same rate and receiving one back):
- egress handles the TX copies: ports x rate;
- ingress checks what comes back, ports x rate, and also takes the generator's packets.
  Streams of one rate share one generator application whose packets the multicast
  engine copies to every port, so the pipe that hosts it sees one more rate's worth;
- each direction has PIPE_PACKETS_PER_SECOND (hardware.py: ASSUMED one packet per
  clock cycle).
The highest fraction of line rate that fits is budget / (ports + 1) / line rate.

Print it with `python -m p4tester.targets.tofino.limits`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from p4tester.streams.rates import line_rate_pps
from p4tester.targets.tofino.hardware import PIPE_PACKETS_PER_SECOND

PORT_BPS: Final = 100e9
# 32 front-panel ports on a 4-pipe (6.4T) Tofino 1: 8 per pipe. A 3.2T part (2 pipes,
# e.g. the Wedge100BF-32X) has 16 per pipe: pass ports_per_pipe=16.
PORTS_PER_PIPE_32X100G: Final = 8
FRAME_SIZES: Final = (64, 128, 256, 512, 1024, 1280, 1518, 9216)
GENERATOR_APPS_PER_PIPE: Final = 1


@dataclass(frozen=True, slots=True)
class PipeLimit:
    """One frame size on one fully used pipe; rates in frames per second."""

    frame_size: int
    ports_per_pipe: int
    line_rate_pps: float  # one 100G port
    egress_pps: float  # TX copies at line rate
    ingress_pps: float  # RX checking + the generator's own packets, at line rate
    budget_pps: float

    @property
    def fits(self) -> bool:
        return max(self.egress_pps, self.ingress_pps) <= self.budget_pps

    @property
    def max_line_rate_fraction(self) -> float:
        """Highest share of line rate every port of the pipe sustains (1.0 if it fits)."""
        return min(1.0, self.budget_pps / max(self.egress_pps, self.ingress_pps))


def pipe_limit(
    frame_size: int,
    ports_per_pipe: int = PORTS_PER_PIPE_32X100G,
    budget_pps: float = PIPE_PACKETS_PER_SECOND,
) -> PipeLimit:
    if ports_per_pipe < 1:
        raise ValueError(f"ports per pipe must be at least 1, got {ports_per_pipe}")
    if budget_pps <= 0:
        raise ValueError(f"pipe budget {budget_pps} pps must be positive")
    line = line_rate_pps(PORT_BPS, frame_size)
    return PipeLimit(
        frame_size=frame_size,
        ports_per_pipe=ports_per_pipe,
        line_rate_pps=line,
        egress_pps=ports_per_pipe * line,
        ingress_pps=(ports_per_pipe + GENERATOR_APPS_PER_PIPE) * line,
        budget_pps=budget_pps,
    )


def limits_table(
    ports_per_pipe: int = PORTS_PER_PIPE_32X100G,
    budget_pps: float = PIPE_PACKETS_PER_SECOND,
    frame_sizes: tuple[int, ...] = FRAME_SIZES,
) -> tuple[PipeLimit, ...]:
    return tuple(pipe_limit(size, ports_per_pipe, budget_pps) for size in frame_sizes)


def limits_markdown(rows: tuple[PipeLimit, ...]) -> str:
    """A Markdown table of the rows (the one docs/tofino.md shows)."""
    lines = [
        "| frame B | line rate / port (Mpps) | ingress / pipe (Mpps) | egress / pipe (Mpps) "
        "| pipe budget (Mpps) | fits | max % of line rate |",
        "|---:|---:|---:|---:|---:|:---:|---:|",
    ]
    for row in rows:
        lines.append(
            f"| {row.frame_size} | {row.line_rate_pps / 1e6:.3f} | {row.ingress_pps / 1e6:.1f} "
            f"| {row.egress_pps / 1e6:.1f} | {row.budget_pps / 1e6:.0f} "
            f"| {'yes' if row.fits else 'no'} | {100 * row.max_line_rate_fraction:.1f} |"
        )
    return "\n".join(lines)


def print_limits_table(ports_per_pipe: int = PORTS_PER_PIPE_32X100G) -> None:
    rows = limits_table(ports_per_pipe)
    print(f"Tofino 1, {ports_per_pipe} x 100G ports per pipe, "
          f"{PIPE_PACKETS_PER_SECOND / 1e6:.0f} Mpps per pipe and direction (assumed)")
    print(limits_markdown(rows))


if __name__ == "__main__":
    print_limits_table()
