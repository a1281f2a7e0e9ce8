"""The eBPF sender's frames of a varying stream: one cycle, frame i with frame i's
fields, and the streams it cannot send refused with the way out."""

from __future__ import annotations

import ipaddress

from scapy.layers.inet import IP, UDP
from scapy.layers.l2 import Ether

from p4tester.config.profile import StreamConfig
from p4tester.streams.field_patterns import Draws, Listed, Steps, field_seed
from p4tester.streams.template import FrameSpec, build_template
from p4tester.streams.variation import FieldVariation
from p4tester.targets.ebpf.flow_templates import (
    MAX_CYCLE,
    ebpf_vary_problem,
    flow_frames,
)


def test_one_cycle_frame_by_frame() -> None:
    stream = StreamConfig(id=0, tx_port=1, rx_port=2, vary=(
        Steps("src_ip", int(ipaddress.IPv4Address("10.0.0.1")), 1, 3),
        FieldVariation("dst_port", (80, 443)),
        Listed("dscp", (0, 46))))
    template = build_template(FrameSpec(stream_id=0, frame_size=64))
    frames = flow_frames(stream, template)
    assert stream.flows_cycle == len(frames) == 6
    assert [(Ether(f)[IP].src, Ether(f)[UDP].dport, Ether(f)[IP].tos >> 2) for f in frames] == [
        ("10.0.0.1", 80, 0), ("10.0.0.2", 443, 46), ("10.0.0.3", 80, 0),
        ("10.0.0.1", 443, 46), ("10.0.0.2", 80, 0), ("10.0.0.3", 443, 46)]
    assert flow_frames(StreamConfig(id=0, tx_port=1, rx_port=2), template) == ()


def test_what_the_ebpf_sender_refuses() -> None:
    def stream(*vary: object) -> StreamConfig:
        return StreamConfig(id=0, tx_port=1, rx_port=2, vary=vary)  # type: ignore[arg-type]
    assert ebpf_vary_problem(stream(Steps("src_ip", 1, 1, MAX_CYCLE)), 64) is None
    assert ebpf_vary_problem(stream(Draws("dst_port", 1, 10, field_seed(1, "dst_port"))),
                             64) == (
        "vary: dst_port: random draws that never repeat (the eBPF sender writes a cycle of "
        "at most 65536 frames: give repeat: N, N <= 65536)")
    assert ebpf_vary_problem(stream(Steps("src_ip", 1, 1, 256), Steps("dscp", 0, 1, 63)),
                             64) is None
    assert ebpf_vary_problem(stream(Steps("src_ip", 1, 1, 65536), Steps("dscp", 0, 1, 3)),
                             64) == (
        "vary: the fields repeat every 196608 frames of 64 B; the eBPF sender keeps at most "
        "65536 frames and 128 MiB per stream: choose counts whose least common multiple is "
        "smaller")
    assert ebpf_vary_problem(stream(Steps("src_ip", 1, 1, 65536)), 9000) == (
        "vary: the fields repeat every 65536 frames of 9000 B; the eBPF sender keeps at most "
        "65536 frames and 128 MiB per stream: choose counts whose least common multiple is "
        "smaller")
