"""IMIX profiles: a mix of frame sizes sent in fixed proportions (by frame count).

RFC 6985 asks that a mix be reported as its exact sizes and weights, so a profile is
just that: (frame size incl. FCS, weight) pairs. Rates of a mix use its average frame
size; `split` gives each size its share of a total rate.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final

from p4tester.streams.rates import (
    Rate,
    RateError,
    l1_frame_bits,
    l2_frame_bits,
    line_rate_pps,
    validate_frame_size,
)


class ImixError(ValueError):
    """A profile with no sizes, a bad size, or a weight that is not a positive integer."""


@dataclass(frozen=True, slots=True)
class ImixEntry:
    """One size of a mix and its weight (relative number of frames)."""

    frame_size: int  # bytes incl. FCS
    weight: int


@dataclass(frozen=True, slots=True)
class ImixShare:
    """One size's part of a total rate."""

    frame_size: int
    weight: int
    frame_fraction: float  # of all frames, 0..1
    pps: float
    l1_bps: float
    l2_bps: float


@dataclass(frozen=True, slots=True)
class ImixProfile:
    """A named mix; entries sorted by frame size, each size once."""

    name: str
    entries: tuple[ImixEntry, ...]

    def __post_init__(self) -> None:
        if not self.name:
            raise ImixError("an IMIX profile needs a name (it goes into the results)")
        if not self.entries:
            raise ImixError(f"IMIX profile {self.name!r} has no frame sizes; give at least one")
        for entry in self.entries:
            size, weight = entry.frame_size, entry.weight
            if isinstance(size, bool) or not isinstance(size, int):
                raise ImixError(
                    f"IMIX profile {self.name!r}: frame size {size!r} is not a whole number "
                    "of bytes"
                )
            try:
                validate_frame_size(size)
            except ValueError as error:
                raise ImixError(f"IMIX profile {self.name!r}: {error}") from None
            if isinstance(weight, bool) or not isinstance(weight, int) or weight <= 0:
                raise ImixError(
                    f"IMIX profile {self.name!r}: weight {weight!r} of {size} B frames must be "
                    "a positive integer (frames per cycle); remove sizes you do not want"
                )
        sizes = [entry.frame_size for entry in self.entries]
        if sizes != sorted(set(sizes)):
            # One order and no repeats, so equal mixes compare equal and print alike.
            raise ImixError(
                f"IMIX profile {self.name!r}: frame sizes {sizes} must be unique and sorted; "
                "build it with ImixProfile.from_weights"
            )

    @classmethod
    def from_weights(cls, name: str, weights: Mapping[int, int]) -> ImixProfile:
        """E.g. from_weights("mine", {64: 7, 594: 4, 1518: 1})."""
        return cls(name, tuple(ImixEntry(size, weights[size]) for size in sorted(weights)))

    @property
    def total_weight(self) -> int:
        return sum(entry.weight for entry in self.entries)

    @property
    def average_frame_size(self) -> float:
        """Mean frame size in bytes incl. FCS, weighted by frame count."""
        return sum(e.frame_size * e.weight for e in self.entries) / self.total_weight

    @property
    def l1_bits_per_frame(self) -> float:
        """Mean wire bits per frame incl. preamble and IFG."""
        return l1_frame_bits(self.average_frame_size)

    @property
    def l2_bits_per_frame(self) -> float:
        return l2_frame_bits(self.average_frame_size)

    def line_rate_pps(self, line_rate_bps: float) -> float:
        """Frames per second of this mix that fill the port's line rate."""
        return line_rate_pps(line_rate_bps, self.average_frame_size)

    def split(self, rate: Rate, line_rate_bps: float) -> tuple[ImixShare, ...]:
        """Each size's share of `rate` (all sizes together); RateError above line rate."""
        try:
            total_pps = rate.resolve(self.average_frame_size, line_rate_bps).pps
        except RateError as error:
            raise RateError(f"IMIX profile {self.name!r}: {error}") from None
        total_weight = self.total_weight
        shares = []
        for entry in self.entries:
            fraction = entry.weight / total_weight
            pps = total_pps * fraction
            shares.append(
                ImixShare(
                    frame_size=entry.frame_size,
                    weight=entry.weight,
                    frame_fraction=fraction,
                    pps=pps,
                    l1_bps=pps * l1_frame_bits(entry.frame_size),
                    l2_bps=pps * l2_frame_bits(entry.frame_size),
                )
            )
        return tuple(shares)

    def __str__(self) -> str:
        mix = ", ".join(f"{e.frame_size} B x{e.weight}" for e in self.entries)
        return f"{self.name} ({mix}; average {self.average_frame_size:.2f} B)"


# Simple IMIX, 7:4:1 by frame count. The classic mix is defined on IP packet sizes of 40,
# 576 and 1500 B (Agilent/Ixia/Spirent "simple IMIX"; Wikipedia "Internet Mix"). As
# Ethernet frames incl. FCS (+14 B header, +4 B FCS) that is 58 -> padded to the 64 B
# minimum, 594 and 1518 B; the common 64/594/1518 form, average 361.83 B.
SIMPLE_IMIX: Final = ImixProfile.from_weights("simple-imix", {64: 7, 594: 4, 1518: 1})
