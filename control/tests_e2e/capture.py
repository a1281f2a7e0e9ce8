"""An independent count of what crossed a link: tcpdump writes the frames a lab
interface sent, and this module reads the pcap with its own parser (not the
controller's) and applies the RFC 4737 / RFC 3393-style definitions the tester's
checker documents, frame by frame."""

from __future__ import annotations

import re
import signal
import struct
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

TESTER_UDP_PORT = 0x5054
TESTER_SIGNATURE = b"P4"
PCAP_GLOBAL_HEADER = 24
PCAP_RECORD_HEADER = 16
# Tester-header flags bits 1-7: the trial epoch (p4src/common/constants.p4).
EPOCH_MASK = 0xFE
EPOCH_SHIFT = 1


@dataclass
class CaptureStats:
    """What tcpdump said of itself when it stopped: frames its own buffer dropped. A
    count from a capture that dropped frames is not independent evidence of anything."""

    dropped_by_capture: int | None = None


@contextmanager
def capture_sent(iface: str, path: Path, netns: str = "") -> Iterator[CaptureStats]:
    """tcpdump of the frames `iface` sends (not those it receives), for the block; in
    network namespace `netns` when given."""
    with _capture(iface, "out", path, netns=netns) as stats:
        yield stats


# What the captures keep by default: UDP to the tester's port.
TESTER_UDP_FILTER = ("udp", "dst", "port", str(TESTER_UDP_PORT))


@contextmanager
def capture_received(iface: str, path: Path,
                     filter_expr: tuple[str, ...] = TESTER_UDP_FILTER,
                     netns: str = "") -> Iterator[CaptureStats]:
    """tcpdump of the frames `iface` receives: what reached a tester port from the
    wire, before the tester's switch read it."""
    with _capture(iface, "in", path, filter_expr, netns) as stats:
        yield stats


@contextmanager
def _capture(iface: str, direction: str, path: Path,
             filter_expr: tuple[str, ...] = TESTER_UDP_FILTER,
             netns: str = "") -> Iterator[CaptureStats]:
    # A 64 MiB buffer holds every frame of a lab trial even while tcpdump itself waits
    # for a busy CPU: the capture must not lose what the tester is accused of losing.
    # `ip netns exec` execs tcpdump itself, so the signal below reaches it.
    process = subprocess.Popen(
        [*(["ip", "netns", "exec", netns] if netns else []), "tcpdump", "-i", iface,
         "-Q", direction, "-U", "--immediate-mode", "-B", "65536",
         "-w", str(path), *filter_expr],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    stats = CaptureStats()
    try:
        # tcpdump prints "listening on" once its socket is open.
        assert process.stderr is not None
        line = process.stderr.readline().decode()
        assert "listening on" in line, line
        yield stats
        time.sleep(0.5)  # frames still in flight through the DUT
    finally:
        process.send_signal(signal.SIGINT)
        _out, err = process.communicate(timeout=10)
        dropped = re.search(r"(\d+) packets? dropped by kernel", err.decode())
        stats.dropped_by_capture = int(dropped.group(1)) if dropped else None


def stream_seqs(path: Path, stream_id: int) -> list[int]:
    """Sequence numbers of a stream's tester frames, in capture order."""
    return [seq for _flags, stream, seq in _tester_frames(path) if stream == stream_id]


def stream_times(path: Path, stream_id: int, epoch: int) -> dict[int, float]:
    """When the capture saw each frame of one stream in one generator epoch (the
    trial's index % 128), in seconds, by sequence number."""
    return {seq: when for when, flags, stream, seq in _tester_records(path)
            if stream == stream_id and (flags & EPOCH_MASK) >> EPOCH_SHIFT == epoch}


def frame_latencies_us(sent: dict[int, float], received: dict[int, float]) -> dict[int, float]:
    """Each received frame's latency in microseconds, by sequence number, from when
    one capture saw it leave and another saw it arrive (stream_times of each)."""
    return {seq: (when - sent[seq]) * 1e6 for seq, when in received.items()}


def _tester_frames(path: Path) -> Iterator[tuple[int, int, int]]:
    """(flags, stream id, seq) of each tester frame of a pcap, in capture order."""
    for _when, flags, stream, seq in _tester_records(path):
        yield flags, stream, seq


def _tester_records(path: Path) -> Iterator[tuple[float, int, int, int]]:
    """(capture time in s, flags, stream id, seq) of each tester frame of a pcap, in
    capture order (microsecond pcap as tcpdump writes it; Ethernet, IPv4 without
    options, UDP to the tester port)."""
    data = path.read_bytes()
    offset = PCAP_GLOBAL_HEADER
    while offset + PCAP_RECORD_HEADER <= len(data):
        seconds, micros, captured, _ = struct.unpack_from("<IIII", data, offset)
        frame = data[offset + PCAP_RECORD_HEADER: offset + PCAP_RECORD_HEADER + captured]
        offset += PCAP_RECORD_HEADER + captured
        if len(frame) < 14 + 20 + 8 + 18 or frame[12:14] != b"\x08\x00" or frame[23] != 17:
            continue
        udp = 14 + (frame[14] & 0x0F) * 4
        (dst_port,) = struct.unpack_from("!H", frame, udp + 2)
        tester = udp + 8
        if dst_port != TESTER_UDP_PORT or frame[tester:tester + 2] != TESTER_SIGNATURE:
            continue
        flags, stream, seq = struct.unpack_from("!BHI", frame, tester + 3)  # after the run byte
        yield seconds + micros / 1e6, flags, stream, seq


def stream_frames_by_epoch(path: Path, stream_id: int) -> dict[int, int]:
    """Frames of one stream per generator epoch (tester-header flags bits 1-7): a
    trial's frames carry epoch trial_index % 128, so one capture counts many trials."""
    counts: dict[int, int] = {}
    for flags, stream, _seq in _tester_frames(path):
        if stream == stream_id:
            epoch = (flags & EPOCH_MASK) >> EPOCH_SHIFT
            counts[epoch] = counts.get(epoch, 0) + 1
    return counts


@dataclass(frozen=True, slots=True)
class SequenceCounts:
    received: int
    duplicates: int  # repeat of the frame just before
    reordered: int  # below the next expected (RFC 4737), not a repeat
    gap_events: int
    lost_in_gaps: int


def count_sequence(seqs: list[int], first_seq: int = 0) -> SequenceCounts:
    next_expected = first_seq
    previous: int | None = None
    duplicates = reordered = gap_events = lost_in_gaps = 0
    for seq in seqs:
        if seq == next_expected:
            next_expected = seq + 1
        elif seq == previous:
            duplicates += 1
        elif seq > next_expected:
            gap_events += 1
            lost_in_gaps += seq - next_expected
            next_expected = seq + 1
        else:
            reordered += 1
        previous = seq
    return SequenceCounts(len(seqs), duplicates, reordered, gap_events, lost_in_gaps)
