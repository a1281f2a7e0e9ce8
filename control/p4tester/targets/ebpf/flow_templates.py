"""The eBPF tester's frames of a varying stream: its program cannot rewrite fields
frame by frame (the kernel's data path has no per-field pattern state to spare), so
the sender writes each flow's frame whole, one template per frame, from a cycle built
once per trial (streams.frame_patcher). Frame i of the trial (its seq i: each trial
numbers from 0) carries what BMv2's data plane would write into it."""

from __future__ import annotations

from typing import Final

from p4tester.config.profile import StreamConfig
from p4tester.streams.field_patterns import (
    Draws,
    data_plane_value,
    drawn_on_seq,
)
from p4tester.streams.frame_patcher import FrameLayout, patched
from p4tester.streams.variation import FieldVariation

# Templates of one stream's cycle at most, and their bytes: the sender keeps them all.
MAX_CYCLE: Final = 65536
MAX_CYCLE_BYTES: Final = 128 << 20


def ebpf_vary_problem(stream: StreamConfig, frame_size: int) -> str | None:
    """Why the eBPF sender cannot send this stream's variation (None: it can)."""
    if not stream.vary:
        return None
    if any(isinstance(v, FieldVariation) and v.field == "vni" for v in stream.vary):
        return "vary: vni (the eBPF tester sends no tunnels)"
    if drawn_on_seq(stream.field_patterns):
        drawn = next(p.field for p in stream.field_patterns
                     if isinstance(p, Draws) and not p.repeat)
        return (f"vary: {drawn}: random draws that never repeat (the eBPF sender writes a "
                f"cycle of at most {MAX_CYCLE} frames: give repeat: N, N <= {MAX_CYCLE})")
    length = stream.flows_cycle or 1  # not None: no draw on the seq, above
    if length > MAX_CYCLE or length * frame_size > MAX_CYCLE_BYTES:
        return (f"vary: the fields repeat every {length} frames of {frame_size} B; the eBPF "
                f"sender keeps at most {MAX_CYCLE} frames and {MAX_CYCLE_BYTES >> 20} MiB "
                "per stream: choose counts whose least common multiple is smaller")
    return None


def flow_frames(stream: StreamConfig, template: bytes) -> tuple[bytes, ...]:
    """One cycle of the stream's frames (untagged), frame i with frame i's fields; ()
    when nothing varies (the template is every frame)."""
    if not stream.vary:
        return ()
    length = stream.flows_cycle
    if length is None or length > MAX_CYCLE:  # ebpf_vary_problem refuses such streams
        raise ValueError(f"stream {stream.id}: a cycle of {length or 'endless'} frames, "
                         f"more than the eBPF sender's {MAX_CYCLE}")
    layout = FrameLayout.of(stream.encapsulation)
    return tuple(patched(template, layout,
                         {field: data_plane_value(field, value)
                          for field, value in stream.frame_fields(index).items()})
                 for index in range(length))
