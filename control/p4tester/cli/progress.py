"""The CLI's progress: a line on stderr as each trial ends, so long searches and soaks
show they are alive while stdout stays the result (or the one --json document)."""

from __future__ import annotations

import sys
import time

from p4tester.experiments.runner import TrialRunner, TrialSpec
from p4tester.results.model import TrialResult
from p4tester.results.tables import losing_streams_text


class ProgressRunner:
    """A trial runner that says what each trial was as it ends."""

    def __init__(self, inner: TrialRunner) -> None:
        self.inner = inner
        self.started = time.monotonic()
        self.first = True

    def run_trial(self, spec: TrialSpec) -> TrialResult:
        result = self.inner.run_trial(spec)
        elapsed = time.monotonic() - self.started
        sys.stderr.write(
            f"[{elapsed:7.1f} s] {spec.experiment} trial {spec.trial_index}: {spec.frame_size} B "
            f"at {spec.offered_fraction:.2%} for {spec.duration_s:g} s: TX {result.tx_frames} "
            f"RX {result.rx_frames} loss {result.loss_ratio:.4%}{_losing(result)}"
            f"{_stale(result, self.first)}{_late(result)}{_reference(result)}"
            f"{'' if result.valid else f' [not counted: {result.error}]'}\n")
        self.first = False
        return result


def _late(result: TrialResult) -> str:
    """Frames received after the trial's end, in its drain: counted, said apart."""
    return f" ({result.late_frames} late)" if result.late_frames else ""


def _reference(result: TrialResult) -> str:
    """The tester's own latency in a latency trial (results.reference)."""
    if result.reference is None:
        return ""
    return f" [{result.reference.describe()}]"


def _stale(result: TrialResult, first: bool) -> str:
    """Frames the DUT still held from before the trial: in the first trial of a run
    they can only be the run before's."""
    if not result.rx_stale:
        return ""
    whose = "the run before" if first else "earlier trials or runs"
    return f" stale {result.rx_stale} (of {whose}, in no stream)"


def _losing(result: TrialResult) -> str:
    losing = result.losing_streams
    return f" (stream:lost {losing_streams_text(losing)})" if losing else ""
