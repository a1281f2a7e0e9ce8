"""The three streams the Tofino driver tests of both chips run on the fake switch:
their ports, the templates the runner would send, and the driver calls that prepare
and start them (the chip's own target is made by each test file)."""

from __future__ import annotations

from p4tester.streams.frame_sizes import Encapsulation
from p4tester.streams.template import FrameSpec, build_template
from p4tester.targets.tofino.driver import StreamPorts, TofinoTarget

# Topology port n is front panel "n/0" (a Tofino 2 cage's channel 0).
FRONT = {n: f"{n}/0" for n in range(1, 33)}
# Streams 0: port 1 -> 9, 1: port 2 -> 17, 5: port 9 -> 1 (pipes 0 -> 1, 0 -> 2, 1 -> 0).
STREAMS = [StreamPorts(0, 1, 9), StreamPorts(1, 2, 17), StreamPorts(5, 9, 1)]
# Templates the runner would send: IPv4 at 64 B (epoch 0), IPv6 at 128 B (epoch 5).
F60 = build_template(FrameSpec(stream_id=0, frame_size=64))
F124 = build_template(FrameSpec(stream_id=0, frame_size=128, epoch=5,
                                encapsulation=Encapsulation(ipv6=True)))


def prepare(target: TofinoTarget) -> TofinoTarget:
    """The three streams' ports and the latency and queue-depth bins, as a run's
    first trial prepares them."""
    target.prepare([0, 1, 5], [1, 2, 9])
    target.set_latency_bins([0, 1, 2, 5])
    target.set_qdepth_bins([0, 4, 8])
    return target


def start(target: TofinoTarget) -> TofinoTarget:
    """Templates and rates of the three streams on a prepared target."""
    target.set_templates({0: F60, 1: F60, 5: F124})
    target.set_stream_rates({0: 1e6, 1: 1e6, 5: 2e6})
    return target
