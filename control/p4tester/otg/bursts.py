"""An OTG flow's `duration.burst` as the tester's bursts (streams.shapes, bursts): the
burst's `packets` leave `gap` bytes apart at the port's line rate (OTG's default 12,
the standard inter-frame gap: back to back; a longer gap on BMv2, whose TX port
lets the burst out at that spacing, while the eBPF tester sends a burst's copies back
to back only), and `inter_burst_gap` (bytes at line rate, nanoseconds or
microseconds; at least the standard gap) separates the last frame of a burst from the
next burst's first. A burst and its gap are one period, so the flow's mean rate
follows from them: the tester paces whole bursts per second (BMv2's loop runs at
whole passes per second), and says so when it rounds. `bursts` of 0 runs until
stopped; otherwise the flow sends that many. The flow's own `rate` does not apply.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final

from p4tester.streams.rates import l1_frame_bits
from p4tester.streams.shapes import MAX_BURST_FRAMES

from .errors import validation
from .patterns import field_choice

STANDARD_GAP_BYTES: Final = 12
MAX_GAP_BYTES: Final = 1_000_000  # 8 ms at 1 Gbit/s: beyond it, send single frames
_GAP_SECONDS: Final = {"nanoseconds": 1e-9, "microseconds": 1e-6}


@dataclass(frozen=True, slots=True)
class BurstDuration:
    """`frames` per burst, `bursts_per_s` of them (whole), and the flow's budget (None:
    continuous)."""

    frames: int
    bursts_per_s: int
    budget: int | None
    gap_bytes: int = STANDARD_GAP_BYTES  # between a burst's frames

    @property
    def pps(self) -> int:
        return self.frames * self.bursts_per_s


def burst_duration(body: object, where: str, frame_size: int, line_bps: float,
                   max_budget: int, warnings: list[str]) -> BurstDuration:
    """The burst duration at `where` (its body), for frames of `frame_size` on a port
    of `line_bps`; raises an OtgError naming the field and the fix."""
    data = body if isinstance(body, Mapping) else {}
    frames = _whole(data.get("packets"), f"{where}.packets", 1, MAX_BURST_FRAMES,
                    "the most copies one generator pass or template makes")
    gap = _whole(data.get("gap", STANDARD_GAP_BYTES), f"{where}.gap", STANDARD_GAP_BYTES,
                 MAX_GAP_BYTES, "bytes between a burst's frames: 12 sends them back to back, "
                 "and no frame leaves sooner")
    # A frame's time on the wire holds its gap; the inter-burst gap takes the place of
    # the burst's last one (OTG's defaults, 12 bytes each, send back to back).
    frame_s = (l1_frame_bits(frame_size) + (gap - STANDARD_GAP_BYTES) * 8) / line_bps
    last_gap_s = gap * 8 / line_bps
    gap_s = _inter_burst_gap_s(data.get("inter_burst_gap"), f"{where}.inter_burst_gap",
                               line_bps)
    shortest_s = STANDARD_GAP_BYTES * 8 / line_bps
    if gap_s < shortest_s * (1 - 1e-9):
        raise validation(f"{where}.inter_burst_gap: {gap_s * 1e9:.3f} ns is shorter than the "
                         f"standard inter-frame gap ({STANDARD_GAP_BYTES} bytes, "
                         f"{shortest_s * 1e9:.3f} ns at this port's line rate); give at "
                         "least that")
    period_s = frames * frame_s + gap_s - last_gap_s
    exact = 1 / period_s
    bursts_per_s = max(1, round(exact))
    if abs(bursts_per_s - exact) > 1e-9 * exact:
        warnings.append(f"{where}: a burst every {period_s * 1e6:.3f} us is {exact:.3f} bursts/s, "
                        f"sent as {bursts_per_s} bursts/s ({frames * bursts_per_s} frames/s: the "
                        "tester paces whole bursts per second)")
    count = data.get("bursts", 0)
    if count == 0:
        return BurstDuration(frames, bursts_per_s, None, gap)
    bursts = _whole(count, f"{where}.bursts", 1, max_budget // frames,
                    "0 runs until stopped")
    return BurstDuration(frames, bursts_per_s, bursts * frames, gap)


def _inter_burst_gap_s(data: object, where: str, line_bps: float) -> float:
    """Seconds of idle port between bursts (OTG's default: 12 bytes at line rate)."""
    choice = field_choice(data, where) or "bytes"
    value = data.get(choice, STANDARD_GAP_BYTES if choice == "bytes" else None) \
        if isinstance(data, Mapping) else STANDARD_GAP_BYTES
    if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
        raise validation(f"{where}.{choice}: {value!r} must be a number of 0 or more")
    if choice == "bytes":
        return float(value) * 8 / line_bps
    if choice in _GAP_SECONDS:
        return float(value) * _GAP_SECONDS[choice]
    raise validation(f"{where}: choice {choice!r} is not bytes, nanoseconds or microseconds")


def _whole(value: object, where: str, low: int, high: int, why: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise validation(f"{where}: {value!r} must be a whole number from {low} to {high} "
                         f"({why})")
    return value
