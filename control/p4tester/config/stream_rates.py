"""A stream's frame rate at a load: the one place that turns "a fraction of line rate"
into frames per second for the streams of a profile on a topology's ports (issue 22:
the trial runners, the web server, calibration and validation all ask it).

A load is a fraction of each TX port's line rate, shared by the streams of the port
by their `share`; at a trial's frame size, a stream with a fixed size (an IMIX member)
keeps its own (streams.rates has the per-frame arithmetic: L1 bits, line-rate pps).
"""

from __future__ import annotations

from p4tester.config.profile import Profile, StreamConfig
from p4tester.config.topology import Topology
from p4tester.streams.rates import IFG_BITS, line_rate_pps


def port_line_pps(topology: Topology, stream: StreamConfig, frame_size: int,
                  ifg_bits: int = IFG_BITS) -> float:
    """The line rate of `stream`'s TX port in its frames/s at the trial's `frame_size`
    (or the stream's own), whatever its share; with `ifg_bits`, the most frames/s the
    port carries with that gap (RFC 2889 forward pressure: above line rate)."""
    port = topology.port(stream.tx_port)
    return line_rate_pps(port.line_rate_bps, stream.size_in(frame_size), ifg_bits)


def stream_pps(topology: Topology, stream: StreamConfig, frame_size: int,
               fraction: float = 1.0) -> float:
    """Frames/s of `stream` at `fraction` of its TX port's line rate (its share of it)."""
    return fraction * stream.share * port_line_pps(topology, stream, frame_size)


def profile_pps(topology: Topology, profile: Profile, frame_size: int,
                fraction: float = 1.0) -> float:
    """Frames/s of all the profile's streams together at `fraction`."""
    return sum(stream_pps(topology, stream, frame_size, fraction) for stream in profile.streams)


def busiest_stream_pps(topology: Topology, profile: Profile, frame_size: int,
                       fraction: float = 1.0) -> float:
    """Frames/s of the profile's fastest stream at `fraction`."""
    return max(stream_pps(topology, stream, frame_size, fraction) for stream in profile.streams)
