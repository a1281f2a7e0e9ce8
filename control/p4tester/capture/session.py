"""One capture: a rule in the switch, a trial of the profile's streams while it is
set, the copies collected and the rule removed. The copies are rate-limited in the
data plane (min_gap_us), so a capture adds a bounded load to the trial it watches;
the trial's own figures come with it, so a reader sees they were not disturbed."""

from __future__ import annotations

import time
from dataclasses import dataclass

from p4tester.dataplane import names
from p4tester.dataplane.constants import RX_KIND_FOREIGN, RX_KIND_STREAM
from p4tester.experiments.runner import TrialSpec
from p4tester.results.model import TrialResult
from p4tester.targets.bmv2_session import TesterSession
from p4tester.targets.bmv2_trials import SwitchTrialRunner

CAPTURE_RULE = 0
# After the trial, copies still on their way to the controller.
COLLECT_TIMEOUT_S = 2.0


@dataclass(frozen=True, slots=True)
class CaptureRequest:
    stream_id: int | None  # that stream's frames (RX kind stream), or
    port: int | None       # what arrives on that port (with foreign_only: foreign frames)
    foreign_only: bool
    count: int
    min_gap_us: int
    load: float
    duration_s: float
    frame_size: int


@dataclass(frozen=True, slots=True)
class CaptureResult:
    frames: tuple[tuple[float, int, bytes], ...]  # (arrival at controller, port, frame)
    copied: int    # copies the switch made
    skipped: int   # matching frames the rate limit left out
    trial: TrialResult


def run_capture(session: TesterSession, request: CaptureRequest) -> CaptureResult:
    dataplane = session.dataplane
    rx_kind = RX_KIND_STREAM if request.stream_id is not None else (
        RX_KIND_FOREIGN if request.foreign_only else None)
    copied_before = _cell(session, names.CAPTURE_COPIED)
    skipped_before = _cell(session, names.CAPTURE_SKIPPED)
    dataplane.captured_frames(timeout_s=0.0, wanted=0)  # copies of an earlier run
    dataplane.set_capture_rule(CAPTURE_RULE, port=request.port, stream_id=request.stream_id,
                               rx_kind=rx_kind, min_gap_us=request.min_gap_us)
    try:
        trial = SwitchTrialRunner(session).run_trial(TrialSpec(
            experiment="capture", trial_index=0, frame_size=request.frame_size,
            offered_fraction=request.load, duration_s=request.duration_s))
    finally:
        dataplane.clear_capture_rule(CAPTURE_RULE)
    copied = _cell(session, names.CAPTURE_COPIED) - copied_before
    skipped = _cell(session, names.CAPTURE_SKIPPED) - skipped_before
    frames: list[tuple[float, int, bytes]] = []
    deadline = time.monotonic() + COLLECT_TIMEOUT_S
    while len(frames) < min(copied, request.count) and time.monotonic() < deadline:
        got = dataplane.captured_frames(timeout_s=deadline - time.monotonic(),
                                        wanted=request.count - len(frames))
        frames += got
    return CaptureResult(tuple(frames[:request.count]), copied, skipped, trial)


def _cell(session: TesterSession, counter: str) -> int:
    cells = session.dataplane.read_counter(counter)
    return cells[CAPTURE_RULE].packets if CAPTURE_RULE in cells else 0
