"""The reference stream of a latency trial on BMv2 (results.reference, issue 21.7).

It is a copy of the profile's first stream (so its frames take the same parser and
checker path) under a stream id the profile does not use, sent to REFERENCE_LOOP_PORT:
the switch stamps it, loops it back into its own ingress and checks it there. It runs
at a low, fixed rate beside the trial's streams, is stopped with them, and its figures
never join theirs.
"""

from __future__ import annotations

from dataclasses import replace

from p4tester.config.profile import Profile, StreamConfig
from p4tester.dataplane.constants import MAX_STREAMS, REFERENCE_LOOP_PORT
from p4tester.dataplane.headers import StreamRegisters
from p4tester.results.reference import ReferenceLatency, spiked


def reference_stream_id(profile: Profile) -> int | None:
    """The highest stream id the profile leaves free; None when it uses every one."""
    taken = {stream.id for stream in profile.streams}
    return next((sid for sid in range(MAX_STREAMS - 1, -1, -1) if sid not in taken), None)


def reference_stream(profile: Profile, stream_id: int) -> StreamConfig:
    """The profile's first stream, looped inside the switch under `stream_id`."""
    first = profile.streams[0]
    return replace(first, id=stream_id, tx_port=REFERENCE_LOOP_PORT,
                   rx_port=REFERENCE_LOOP_PORT, share=1.0, vary=())


def reference_latency(stream_id: int, tx_frames: int, rx_frames: int,
                      registers: StreamRegisters,
                      largest_stream_max_us: float | None) -> ReferenceLatency | None:
    """The trial's reference figures; None when none of its frames came back (no
    latency to give; `lost_reason` says why the trial cannot be vouched for)."""
    if not registers.rx_samples or not rx_frames:
        return None
    minimum = float(registers.latency_min)
    maximum = float(registers.latency_max)
    # The mean of integers in [min, max]; clamped only against float rounding.
    average = min(maximum, max(minimum, registers.latency_sum / registers.rx_samples))
    return ReferenceLatency(
        stream_id=stream_id, tx_frames=tx_frames, rx_frames=rx_frames, min_us=minimum,
        avg_us=average, max_us=maximum,
        spiked=spiked(minimum, maximum, largest_stream_max_us))


def lost_reason(tx_frames: int, rx_frames: int) -> str:
    """Why a trial whose reference stream did not come back whole is not vouched for
    (empty: it did). Its frames never leave the switch: a lost one is the tester's."""
    if rx_frames >= tx_frames:
        return ""
    return (f"the reference stream, looped inside the tester switch, lost "
            f"{tx_frames - rx_frames} of {tx_frames} frames: the switch dropped frames itself")
