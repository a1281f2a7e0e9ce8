"""How sure a run is of itself, over all its trials: how many were repeated or left
out and why (tester-limited, dut-limited, failed), how many frames the tester and a
lab DUT lost themselves, and how busy the host was. Written into every summary and
printed at the end of every experiment (issue 10)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from p4tester.results.checks import (
    CHECK_OK,
    DUT_LIMITED,
    DUT_NOT_DRAINED,
    NO_TRIALS,
    TESTER_LIMITED,
    TRIAL_ERROR,
)
from p4tester.results.model import TrialResult


@dataclass(frozen=True, slots=True)
class RunConfidence:
    trials: int
    tester_limited: int  # trials invalid because the tester lost frames itself
    dut_limited: int  # trials invalid because the lab DUT did not hold its behaviour
    failed: int  # trials invalid for an error (switch died, read failed)
    unchecked: int  # valid trials without a self-check (no port counters here)
    unvouched: int  # trials a side could not vouch for beyond its ports' drop counts
    tester_rx_dropped: int  # frames, over all trials
    tester_tx_dropped: int
    dut_rx_dropped: int
    max_load_1m: float | None  # highest 1-minute load average any trial saw
    cpus: int | None
    max_steal_fraction: float | None
    # Frames of a stream that were not of its trial (an earlier trial's or run's, a
    # DUT still held them): in no stream's figures, over all trials.
    stale_frames: int = 0
    # Trials the DUT had not drained for (results.settle), and the waits before trials:
    # the longest, and the frames of earlier trials that arrived while they waited.
    not_drained: int = 0
    longest_settle_s: float | None = None
    settle_frames: int = 0

    @classmethod
    def of(cls, trials: Iterable[TrialResult]) -> RunConfidence:
        trials = list(trials)
        reasons = [t.invalid_reason for t in trials]
        loads = [t.host_load for t in trials if t.host_load is not None]
        steals = [load.steal_fraction for load in loads if load.steal_fraction is not None]
        return cls(
            trials=len(trials),
            tester_limited=reasons.count(TESTER_LIMITED),
            dut_limited=reasons.count(DUT_LIMITED),
            failed=reasons.count(TRIAL_ERROR),
            unchecked=sum(1 for t in trials if t.valid and t.self_check is None),
            unvouched=sum(1 for t in trials
                           if any(c is not None and c.unvouched
                                  for c in (t.self_check, t.dut_check))),
            tester_rx_dropped=sum(t.self_check.rx_dropped for t in trials if t.self_check),
            tester_tx_dropped=sum(t.self_check.tx_dropped for t in trials if t.self_check),
            dut_rx_dropped=sum(t.dut_check.rx_dropped for t in trials if t.dut_check),
            max_load_1m=max((load.load_1m for load in loads), default=None),
            cpus=loads[-1].cpus if loads else None,
            max_steal_fraction=max(steals, default=None),
            stale_frames=sum(t.rx_stale for t in trials),
            not_drained=reasons.count(DUT_NOT_DRAINED),
            longest_settle_s=max((t.settle.waited_s for t in trials if t.settle), default=None),
            settle_frames=sum(t.settle.frames for t in trials if t.settle),
        )

    @property
    def verdict(self) -> str:
        """'ok' when every trial vouched for itself, else the first reason it did not
        ('no-trials' when none ran: a run that measured nothing is not ok)."""
        if not self.trials:
            return NO_TRIALS
        if self.tester_limited:
            return TESTER_LIMITED
        if self.dut_limited:
            return DUT_LIMITED
        return CHECK_OK

    def describe(self) -> str:
        """One line for the end of a run."""
        if not self.trials:
            return "no trial ran: nothing was measured"
        repeated = []
        tester_lost = self.tester_rx_dropped + self.tester_tx_dropped
        if self.tester_limited:
            repeated.append(f"{self.tester_limited} tester-limited" + (
                f" (the tester lost {tester_lost} frames itself)" if tester_lost else ""))
        if self.dut_limited:
            repeated.append(f"{self.dut_limited} dut-limited" + (
                f" (the lab DUT missed {self.dut_rx_dropped} frames its interfaces delivered)"
                if self.dut_rx_dropped else ""))
        if self.unvouched:
            repeated.append(f"{self.unvouched} of them not vouched for (the switch or the lab "
                            "DUT did not answer in time, the generator fell behind, or the "
                            "tester's counts held frames from before the trial)")
        if self.not_drained:
            repeated.append(f"{self.not_drained} the DUT had not drained for (frames of "
                            "earlier trials arrived)")
        if self.failed:
            repeated.append(f"{self.failed} failed")
        left_out = sum((self.tester_limited, self.dut_limited, self.not_drained, self.failed))
        head = (f"{left_out} of {self.trials} "
                f"trials repeated or left out, never counted as DUT loss: "
                f"{', '.join(repeated)}" if repeated
                else f"all {self.trials} trials vouched for by the tester's self-check")
        if self.unchecked and not repeated:
            head = (f"{self.unchecked} of {self.trials} trials without a self-check (no port "
                    "counters on this target)")
        if self.stale_frames:
            head += (f"; {self.stale_frames} stale frames (of earlier trials or runs, still "
                     "held by the DUT) counted in no stream")
        if self.longest_settle_s is not None and self.settle_frames:
            head += (f"; the DUT drained {self.settle_frames} frames of earlier trials before "
                     f"trials started (waits up to {self.longest_settle_s:.1f} s)")
        load = ""
        if self.max_load_1m is not None:
            load = f"; host load up to {self.max_load_1m:.2f} on {self.cpus} CPUs"
            if self.max_steal_fraction:
                load += f", CPU steal up to {self.max_steal_fraction:.1%}"
        return head + load
