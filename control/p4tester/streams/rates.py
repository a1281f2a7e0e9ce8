"""Traffic rates: packets per second, L1 and L2 bit rates, and percent of line rate.

Definitions (RFC 2544, design section 4):

- frame size = the Ethernet frame including its 4-byte FCS, 64..9216 B;
- L2 bits of a frame = frame size x 8 (what a capture or a port's byte counter sees);
- L1 bits of a frame = (frame size + 20) x 8: every frame also costs the wire an 8-byte
  preamble/SFD and a 12-byte inter-frame gap;
- a port's line rate (10, 25, 100 Gbit/s...) is an L1 figure, so
  line-rate pps = line rate / ((frame size + 20) x 8); 100GbE at 64 B = 148.81 Mpps;
- RFC 2889's forward pressure test (section 5.6) sends with an inter-frame gap of 88
  bit times instead of IEEE 802.3's 96: one byte less per frame, so its frames/s are
  line rate x (frame + 20) / (frame + 19), 1.2 % above line rate at 64 B. The same
  formulas take the gap (`ifg_bits`); only that test asks for a shorter one.

Bit rates given without a layer ("9.5Gbps") are L1: then a bit rate and a percentage
of line rate mean the same load whatever the frame size. L2 rates must say so
("l2:9.5Gbps").
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from enum import Enum
from typing import Final

from p4tester.streams.frame_sizes import (
    ETHERNET_BYTES,
    FCS_BYTES,
    IPV4_BYTES,
    MAX_FRAME,
    MIN_ETHERNET_FRAME,
    UDP_BYTES,
    FrameSizeError,
)

PREAMBLE_BYTES: Final = 8  # 7 B preamble + 1 B start-of-frame delimiter
IFG_BYTES: Final = 12  # minimum inter-frame gap (IEEE 802.3)
L1_OVERHEAD_BYTES: Final = PREAMBLE_BYTES + IFG_BYTES
BITS_PER_BYTE: Final = 8
IFG_BITS: Final = IFG_BYTES * BITS_PER_BYTE  # 96 bit times: what line rate assumes
# RFC 2889 5.6: the forward pressure test's gap, 8 bit times (one byte) short of 96.
FORWARD_PRESSURE_IFG_BITS: Final = 88

# Float conversions (e.g. 100% -> pps -> L1 bit/s) can land a hair above the line rate;
# a rate is only "above line rate" beyond this relative margin.
_LINE_RATE_TOLERANCE: Final = 1e-9

_SI_PREFIXES: Final = {"": 1.0, "k": 1e3, "m": 1e6, "g": 1e9, "t": 1e12}
_SI_NAMES: Final = ((1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k"))

_RATE_PATTERN: Final = re.compile(
    r"""^\s*
    (?:(?P<layer>l[12])\s*:\s*)?                 # optional layer of a bit rate
    (?P<number>(?:\d+(?:\.\d*)?|\.\d+)(?:e[+-]?\d+)?)
    \s*
    (?P<unit>(?P<prefix>[kmgt]?)(?P<kind>pps|bps|bit/s)|%)
    \s*$""",
    re.IGNORECASE | re.VERBOSE,
)
_RATE_EXAMPLES: Final = "'1000pps', '10kpps', '9.5Gbps' (L1), 'l2:9.5Gbps' or '50%'"


class RateError(ValueError):
    """A rate that is not positive, cannot be parsed, or exceeds the port's line rate."""


def validate_frame_size(frame_size: float) -> None:
    """Raise FrameSizeError unless 64 <= frame_size <= 9216 (bytes incl. FCS).

    A float is accepted for the average frame size of a mix (IMIX).
    """
    if isinstance(frame_size, bool) or not isinstance(frame_size, int | float):
        raise FrameSizeError(f"frame size must be a number of bytes, got {frame_size!r}")
    if not MIN_ETHERNET_FRAME <= frame_size <= MAX_FRAME:
        raise FrameSizeError(
            f"frame size {frame_size:g} B is outside {MIN_ETHERNET_FRAME}..{MAX_FRAME} B "
            f"(Ethernet frame including the {FCS_BYTES}-byte FCS); choose a size in that range"
        )


def _validate_line_rate(line_rate_bps: float) -> None:
    if isinstance(line_rate_bps, bool) or not math.isfinite(line_rate_bps) or line_rate_bps <= 0:
        raise RateError(
            f"port line rate must be a positive bit rate, got {line_rate_bps!r} bit/s "
            "(e.g. 10e9 for 10GbE)"
        )


def check_ifg_bits(ifg_bits: int) -> None:
    """Raise RateError unless `ifg_bits` is a gap the tester sends with: 96 bit times
    (IEEE 802.3's minimum), or down to RFC 2889's 88 for its forward pressure test."""
    if (isinstance(ifg_bits, bool) or not isinstance(ifg_bits, int)
            or not FORWARD_PRESSURE_IFG_BITS <= ifg_bits <= IFG_BITS):
        raise RateError(
            f"inter-frame gap {ifg_bits!r} bit times: the tester sends with {IFG_BITS} "
            f"(line rate), or {FORWARD_PRESSURE_IFG_BITS} for RFC 2889's forward pressure "
            "test, and nothing outside that range")


def l1_frame_bits(frame_size: float, ifg_bits: int = IFG_BITS) -> float:
    """Bits one frame occupies on the wire: frame incl. FCS + preamble + the gap
    after it (IEEE 802.3's 96 bit times unless given)."""
    check_ifg_bits(ifg_bits)
    return (frame_size + PREAMBLE_BYTES) * BITS_PER_BYTE + ifg_bits


def l2_frame_bits(frame_size: float) -> float:
    """Bits of the frame itself, incl. FCS."""
    return frame_size * BITS_PER_BYTE


def line_rate_pps(bitrate_bps: float, frame_size: float, ifg_bits: int = IFG_BITS) -> float:
    """Frames per second that fill an L1 bit rate: bitrate / ((frame + 20) x 8), or
    with a shorter gap between the frames (`ifg_bits`, RFC 2889 forward pressure)."""
    _validate_line_rate(bitrate_bps)
    validate_frame_size(frame_size)
    return bitrate_bps / l1_frame_bits(frame_size, ifg_bits)


def gap_load(frame_size: float, ifg_bits: int) -> float:
    """The load of frames sent back to back with `ifg_bits` gaps, a share of line
    rate: 1.0 at 96 bit times, 84/83 (1.012) for 64-B frames at 88."""
    validate_frame_size(frame_size)
    return l1_frame_bits(frame_size) / l1_frame_bits(frame_size, ifg_bits)


def format_bitrate(bps: float) -> str:
    """'10 Gbit/s', '9.5 Gbit/s', '800 bit/s': for messages and tables."""
    for scale, prefix in _SI_NAMES:
        if abs(bps) >= scale:
            return f"{bps / scale:g} {prefix}bit/s"
    return f"{bps:g} bit/s"


class RateUnit(Enum):
    """What a Rate's value counts."""

    PPS = "pps"
    L1_BPS = "L1 bit/s"
    L2_BPS = "L2 bit/s"
    PERCENT = "% of line rate"


@dataclass(frozen=True, slots=True)
class ResolvedRate:
    """One rate in all four units, for one frame size on one port line rate."""

    frame_size: float  # bytes incl. FCS; the average frame size for a mix
    line_rate_bps: float  # L1
    pps: float
    l1_bps: float
    l2_bps: float
    percent: float  # of line rate, 0..100

    @property
    def fraction(self) -> float:
        """Share of line rate, 0..1 (what TrialResult.offered_fraction holds)."""
        return self.percent / 100.0

    def __str__(self) -> str:
        return (
            f"{self.pps:.0f} pps = {format_bitrate(self.l1_bps)} L1 = "
            f"{format_bitrate(self.l2_bps)} L2 = {self.percent:.4g}% of "
            f"{format_bitrate(self.line_rate_bps)} at {self.frame_size:g} B"
        )


@dataclass(frozen=True, slots=True)
class Rate:
    """A positive traffic rate in the unit it was given in.

    Converting it needs the frame size and the port's line rate; `resolve` also checks
    that it fits the line rate. Construct with the from_* class methods or `parse`.
    """

    value: float
    unit: RateUnit

    def __post_init__(self) -> None:
        value = self.value
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise RateError(f"rate must be a number, got {value!r}")
        if not math.isfinite(value) or value <= 0:
            raise RateError(
                f"rate must be positive and finite, got {value:g} {self.unit.value}; "
                "to send nothing, leave the stream out instead"
            )

    @classmethod
    def from_pps(cls, pps: float) -> Rate:
        return cls(pps, RateUnit.PPS)

    @classmethod
    def from_l1_bps(cls, bps: float) -> Rate:
        """Bit rate counting preamble and IFG: the unit of a port's line rate."""
        return cls(bps, RateUnit.L1_BPS)

    @classmethod
    def from_l2_bps(cls, bps: float) -> Rate:
        """Bit rate of the frames themselves (incl. FCS, without preamble and IFG)."""
        return cls(bps, RateUnit.L2_BPS)

    @classmethod
    def from_percent(cls, percent: float) -> Rate:
        """Percent of the port's line rate (100 = line rate)."""
        return cls(percent, RateUnit.PERCENT)

    @classmethod
    def parse(cls, text: str) -> Rate:
        """'1000pps', '10kpps', '1.2Mpps', '9.5Gbps' or '9.5Gbit/s' (L1), 'l1:9.5Gbps',
        'l2:9.5Gbps', '50%'. Prefixes are decimal (k = 1000) and case-insensitive."""
        match = _RATE_PATTERN.match(text)
        if match is None:
            raise RateError(f"cannot parse rate {text!r}: write it like {_RATE_EXAMPLES}")
        number = float(match["number"])
        layer = (match["layer"] or "").lower()
        if match["unit"] == "%":
            unit = RateUnit.PERCENT
        else:
            number *= _SI_PREFIXES[match["prefix"].lower()]
            if match["kind"].lower() == "pps":
                unit = RateUnit.PPS
            else:
                unit = RateUnit.L2_BPS if layer == "l2" else RateUnit.L1_BPS
        if layer and unit not in (RateUnit.L1_BPS, RateUnit.L2_BPS):
            raise RateError(
                f"rate {text!r}: the layer prefix '{layer}:' applies to bit rates only; "
                f"drop it or give a bit rate such as '{layer}:9.5Gbps'"
            )
        return cls(number, unit)

    def pps(self, frame_size: float, line_rate_bps: float) -> float:
        """Frames per second (no line-rate check; see `resolve`)."""
        validate_frame_size(frame_size)
        _validate_line_rate(line_rate_bps)
        if self.unit is RateUnit.PPS:
            return float(self.value)
        if self.unit is RateUnit.L2_BPS:
            return self.value / l2_frame_bits(frame_size)
        return self.l1_bps(frame_size, line_rate_bps) / l1_frame_bits(frame_size)

    def l1_bps(self, frame_size: float, line_rate_bps: float) -> float:
        """L1 bit rate (frame + preamble + IFG)."""
        validate_frame_size(frame_size)
        _validate_line_rate(line_rate_bps)
        # Percent and L1 convert into each other without the frame size: computing them
        # directly keeps round values round (50% of 10G is exactly 5e9).
        if self.unit is RateUnit.L1_BPS:
            return float(self.value)
        if self.unit is RateUnit.PERCENT:
            return self.value / 100.0 * line_rate_bps
        return self.pps(frame_size, line_rate_bps) * l1_frame_bits(frame_size)

    def l2_bps(self, frame_size: float, line_rate_bps: float) -> float:
        """L2 bit rate (frame incl. FCS only)."""
        if self.unit is RateUnit.L2_BPS:
            validate_frame_size(frame_size)
            _validate_line_rate(line_rate_bps)
            return float(self.value)
        return self.pps(frame_size, line_rate_bps) * l2_frame_bits(frame_size)

    def percent(self, frame_size: float, line_rate_bps: float) -> float:
        """Percent of the port's line rate."""
        if self.unit is RateUnit.PERCENT:
            validate_frame_size(frame_size)
            _validate_line_rate(line_rate_bps)
            return float(self.value)
        return self.l1_bps(frame_size, line_rate_bps) / line_rate_bps * 100.0

    def resolve(self, frame_size: float, line_rate_bps: float) -> ResolvedRate:
        """All four units; RateError if the rate is above the port's line rate."""
        percent = self.percent(frame_size, line_rate_bps)
        if percent > 100.0 * (1.0 + _LINE_RATE_TOLERANCE):
            max_pps = line_rate_pps(line_rate_bps, frame_size)
            raise RateError(
                f"rate {self} is above the port's {format_bitrate(line_rate_bps)} line rate: "
                f"at most {math.floor(max_pps)} pps for {frame_size:g} B frames"
            )
        return ResolvedRate(
            frame_size=frame_size,
            line_rate_bps=float(line_rate_bps),
            pps=self.pps(frame_size, line_rate_bps),
            l1_bps=self.l1_bps(frame_size, line_rate_bps),
            l2_bps=self.l2_bps(frame_size, line_rate_bps),
            percent=percent,
        )

    def __str__(self) -> str:
        if self.unit is RateUnit.PERCENT:
            return f"{self.value:.10g}% of line rate"
        if self.unit is RateUnit.PPS:
            return f"{self.value:.10g} pps"
        layer = "L1" if self.unit is RateUnit.L1_BPS else "L2"
        return f"{format_bitrate(self.value)} ({layer})"


@dataclass(frozen=True, slots=True)
class FrameSizeBreakdown:
    """The three sizes people mean by "a 64-byte packet" (seed 001), for IPv4/UDP."""

    ethernet_frame: int  # incl. FCS: the RFC 2544 frame size
    ipv4_total_length: int  # IPv4 header + UDP header + UDP payload
    udp_payload: int  # what e.g. `iperf -l` sets; holds the tester header

    def __str__(self) -> str:
        return (
            f"{self.ethernet_frame} B Ethernet frame incl. FCS = IPv4 total length "
            f"{self.ipv4_total_length} B = UDP payload {self.udp_payload} B"
        )


def describe_frame_size(frame_size: int) -> FrameSizeBreakdown:
    """For an untagged IPv4/UDP frame: 64 B -> IPv4 total length 46 B, UDP payload 18 B."""
    if isinstance(frame_size, bool) or not isinstance(frame_size, int):
        raise FrameSizeError(f"frame size must be a whole number of bytes, got {frame_size!r}")
    validate_frame_size(frame_size)
    ipv4_total_length = frame_size - FCS_BYTES - ETHERNET_BYTES
    return FrameSizeBreakdown(
        ethernet_frame=frame_size,
        ipv4_total_length=ipv4_total_length,
        udp_payload=ipv4_total_length - IPV4_BYTES - UDP_BYTES,
    )
