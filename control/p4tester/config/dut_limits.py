"""A lab DUT's own forwarding limit, read from its topology (issue 20): what the tester must
carry with room to spare, so that the DUT, not the host the tester shares, decides a lab's
results.

- bmv2: `queue_rate_pps`, the egress queue rate its bottleneck port is paced at (with
  `queue_rates_pps`, per port, their sum);
- linux, bridge: the `rate` of a tbf or htb qdisc, in bit/s at L2 (the kernel counts a frame
  without its FCS), turned into 64-B frames/s.
Other DUTs (loopback, external, a Mininet network's links) state no limit here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

from p4tester.config.errors import ConfigError
from p4tester.config.topology import Topology

# A lab's DUT limit may be at most this share of the tester's calibrated capacity: a
# search offers up to 90 % of the capacity (runs.search_capacity), which leaves room
# above the DUT's limit for the trials that fail it. A lab whose DUT states no limit
# needs nothing: its searches stop at what the tester carries and say so.
CAPACITY_MARGIN: Final = 1.25
# 64-B frames as a qdisc counts them: without the 4-byte FCS.
_QDISC_FRAME_BITS: Final = (64 - 4) * 8
_QDISC_RATE: Final = re.compile(r"\brate\s+(\S+)")
# tc's rate units (tc(8)): SI prefixes; "bit" counts bits, "bps" counts bytes.
_TC_RATE: Final = re.compile(r"^(\d+(?:\.\d+)?)([kmgt]?)(bit|bps)$", re.IGNORECASE)
_TC_PREFIX: Final = {"": 1.0, "k": 1e3, "m": 1e6, "g": 1e9, "t": 1e12}


@dataclass(frozen=True, slots=True)
class DutLimit:
    """frames_per_s: the DUT's limit for 64-B frames; source: where it is set."""

    frames_per_s: float
    source: str

    @property
    def required_capacity_pps(self) -> float:
        """The tester capacity (64 B) a lab with this DUT needs on the host."""
        return CAPACITY_MARGIN * self.frames_per_s


@dataclass(frozen=True, slots=True)
class LabNeed:
    """The tester capacity (64-B frames/s) a lab needs on this host, and why."""

    frames_per_s: float
    reason: str


def lab_need(topology: Topology) -> LabNeed | None:
    """CAPACITY_MARGIN x the DUT's limit; None when the DUT states none."""
    limit = dut_limit(topology)
    if limit is None:
        return None
    return LabNeed(limit.required_capacity_pps,
                   f"{CAPACITY_MARGIN:g} x the DUT's limit of {limit.frames_per_s:.0f} "
                   f"frames/s ({limit.source})")


def dut_limit(topology: Topology) -> DutLimit | None:
    settings = dict(topology.dut.settings)
    where = topology.source or topology.name
    if topology.dut.kind == "bmv2" and "queue_rates_pps" in settings:
        # Per-port rates (lab.bmv2_dut): the ports together.
        rates = port_queue_rates(settings, where)
        return DutLimit(float(sum(rates.values())), f"{where}: dut: queue_rates_pps")
    if topology.dut.kind == "bmv2" and "queue_rate_pps" in settings:
        return DutLimit(float(settings["queue_rate_pps"]), f"{where}: dut: queue_rate_pps")
    if topology.dut.kind in ("linux", "bridge") and "qdisc" in settings:
        match = _QDISC_RATE.search(settings["qdisc"])
        if match is None:
            return None
        bits = tc_rate_bps(match.group(1), f"{where}: dut: qdisc")
        return DutLimit(bits / _QDISC_FRAME_BITS, f"{where}: dut: qdisc {settings['qdisc']!r}")
    return None


def port_queue_rates(settings: dict[str, str], where: str) -> dict[int, int]:
    """A bmv2 DUT's `queue_rates_pps` ("2:222,4:88"): egress port -> frames/s."""
    text = settings.get("queue_rates_pps", "")
    try:
        pairs = [item.split(":") for item in text.split(",") if item.strip()]
        return {int(port): int(rate) for port, rate in pairs}
    except ValueError as exc:
        raise ConfigError(f"{where}: dut.queue_rates_pps {text!r}: give 'port:frames/s,...', "
                          "e.g. '2:222,4:88'") from exc


def tc_rate_bps(text: str, where: str) -> float:
    """A tc rate ('1mbit', '500kbit', '2mbps') in bit/s."""
    match = _TC_RATE.match(text)
    if match is None:
        raise ConfigError(f"{where}: rate {text!r} is not a tc rate such as 1mbit or 500kbit")
    value = float(match.group(1)) * _TC_PREFIX[match.group(2).lower()]
    return value * 8 if match.group(3).lower() == "bps" else value
