"""`p4tester capture`: run one trial of the profile's streams and write K of the
frames a stream (or a port's foreign traffic) brought back to a pcap file."""

from __future__ import annotations

import argparse
from pathlib import Path

from p4tester.capture.pcap_writer import write_pcap
from p4tester.capture.session import CaptureRequest, CaptureResult, run_capture
from p4tester.cli import exit_codes
from p4tester.cli.output import emit
from p4tester.config.errors import ConfigError
from p4tester.config.profile import Profile
from p4tester.config.topology import Topology

DEFAULT_MIN_GAP_US = 1000  # at most 1000 copies/s per capture: a bounded extra load


def add_options(sub: argparse.ArgumentParser) -> None:
    which = sub.add_mutually_exclusive_group(required=True)
    which.add_argument("--stream", type=int, help="capture this stream's frames")
    which.add_argument("--foreign-port", type=int,
                       help="capture the foreign (non-tester) frames arriving on this port")
    sub.add_argument("--count", type=int, required=True, help="frames to write (K)")
    sub.add_argument("-o", "--output", type=Path, required=True, help="pcap file to write")
    sub.add_argument("--load", type=float, default=0.1,
                     help="offered load of the trial, fraction of line rate (default 0.1)")
    sub.add_argument("--duration", type=float, default=2.0, help="trial seconds (default 2)")
    sub.add_argument("--frame-size", type=int, default=None,
                     help="frame size of the trial (default: the profile's first)")
    sub.add_argument("--min-gap-us", type=int, default=DEFAULT_MIN_GAP_US,
                     help="at least this much switch time between two copies "
                          f"(default {DEFAULT_MIN_GAP_US}; 0 copies every frame)")


def capture(args: argparse.Namespace, topology: Topology, profile: Profile) -> int:
    if topology.switch.target != "bmv2":
        raise ConfigError(f"capture clones frames to the CPU on BMv2; on "
                          f"{topology.switch.target} it is not implemented yet")
    if args.count < 1 or args.min_gap_us < 0 or args.duration <= 0:
        raise ConfigError("--count must be >= 1, --min-gap-us >= 0 and --duration > 0")
    if args.stream is not None and args.stream not in {s.id for s in profile.streams}:
        raise ConfigError(f"--stream {args.stream} is not a stream of {profile.source}; "
                          f"its streams: {sorted(s.id for s in profile.streams)}")
    if args.foreign_port is not None:
        topology.port(args.foreign_port)  # a clear error for a port that does not exist
    frame_size = args.frame_size or profile.frame_sizes[0]
    request = CaptureRequest(stream_id=args.stream, port=args.foreign_port,
                             foreign_only=args.foreign_port is not None, count=args.count,
                             min_gap_us=args.min_gap_us, load=args.load,
                             duration_s=args.duration, frame_size=frame_size)
    from p4tester.targets.bmv2_session import TesterSession

    with TesterSession(topology, profile, push_pipeline=args.push_pipeline) as session:
        result = run_capture(session, request)
    written = write_pcap(args.output, ((when, frame) for when, _port, frame in result.frames))
    emit(_document(result, written, args.output), _text(result, written, args.output),
         args.json)
    return exit_codes.OK


def _document(result: CaptureResult, written: int, path: Path) -> dict[str, object]:
    return {"pcap": str(path), "written": written, "copied": result.copied,
            "skipped_by_rate_limit": result.skipped,
            "ports": sorted({port for _, port, _ in result.frames}),
            "trial_valid": result.trial.valid, "trial_error": result.trial.error,
            "streams": [{"stream": s.stream_id, "tx_frames": s.tx_frames,
                         "rx_frames": s.rx_frames} for s in result.trial.streams]}


def _text(result: CaptureResult, written: int, path: Path) -> str:
    lines = [f"wrote {written} frames to {path}"]
    if result.skipped:
        lines.append(f"a sample: the rate limit left out {result.skipped} matching frames "
                     f"({result.copied} copied)")
    for s in result.trial.streams:
        lines.append(f"stream {s.stream_id}: sent {s.tx_frames}, received {s.rx_frames}")
    if not result.trial.valid:
        lines.append(f"the trial cannot be vouched for: {result.trial.error}")
    return "\n".join(lines)
