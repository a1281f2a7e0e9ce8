"""Issue 21.7: latency the tester caused. Every latency trial on BMv2 runs a reference
stream looped inside the tester switch; it comes back whole, gives the tester's own
latency floor, and spikes when the host delays the switch. Loopback lab (the streams'
path is the tester's too, so the reference's floor is theirs): trials on a free switch,
then trials with the switch squeezed onto a loaded core (a quarter of it), where the
host delays its threads by milliseconds and the trials say so."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from host_load import busy_host

from p4tester.config.profile import profile_from_dict
from p4tester.config.topology import load_topology
from p4tester.experiments.runner import TrialSpec
from p4tester.results.checks import TESTER_LIMITED
from p4tester.results.model import TrialResult
from p4tester.results.reference import SPIKE_FLOOR_US, spiked
from p4tester.targets.bmv2_session import TesterSession
from p4tester.targets.bmv2_trials import SwitchTrialRunner

TRIAL_S = 2.0
REFERENCE_PPS = 100  # the profile default
LOAD = 0.2  # of the 5 Mbit/s port: 1488 frames/s at 64 B
FREE_TRIALS = 2
MAX_SQUEEZED_TRIALS = 8
TIME_LIMIT_S = 90.0


def reference_of(trial: TrialResult) -> tuple[int, int, float, float, bool]:
    assert trial.reference is not None, trial
    ref = trial.reference
    return ref.tx_frames, ref.rx_frames, ref.min_us, ref.max_us, ref.spiked


@pytest.mark.topology("loopback.yaml")
def test_the_reference_stream_shows_the_testers_own_latency(lab: Path, tmp_path: Path) -> None:
    started = time.monotonic()
    topology = load_topology(lab)
    profile = profile_from_dict({
        "name": "reference", "trial": {"duration_s": TRIAL_S, "drain_s": 0.5, "settle_s": 0.5},
        "frame_sizes": [64], "streams": [{"id": 0, "tx_port": 1, "rx_port": 2}],
    }, "reference")
    switch_pid = json.loads((tmp_path / "lab" / "state.json").read_text())["pids"][-1]
    with TesterSession(topology, profile, push_pipeline=True) as session:
        runner = SwitchTrialRunner(session)
        plain = runner.run_trial(TrialSpec("throughput", 0, 64, LOAD, TRIAL_S))
        # Indexes (epochs) of their own: no trial takes another's frames.
        free = [runner.run_trial(TrialSpec("latency", index, 64, LOAD, TRIAL_S,
                                           reference_loop=True))
                for index in range(1, 1 + FREE_TRIALS)]
        squeezed: list[TrialResult] = []
        with busy_host(switch_pid):
            # How long the host holds the switch's threads varies from trial to trial: the
            # squeeze goes on (bounded) until three trials have figures and one spiked.
            for index in range(1 + FREE_TRIALS, 1 + FREE_TRIALS + MAX_SQUEEZED_TRIALS):
                squeezed.append(runner.run_trial(TrialSpec("latency", index, 64, LOAD, TRIAL_S,
                                                           reference_loop=True)))
                with_figures = [t for t in squeezed if t.streams and t.reference]
                if len(with_figures) >= 3 and any(t.reference.spiked for t in with_figures
                                                  if t.reference):
                    break
    # A squeezed switch may not answer a read in time: such a trial has no figures
    # (tester-limited, tests_e2e/test_tester_limited.py); the others have them all.
    read = [t for t in squeezed if t.streams]
    assert all(t.invalid_reason == TESTER_LIMITED for t in squeezed if not t.streams)
    assert len(read) >= 3, [t.error for t in squeezed]
    # Only latency trials run it.
    assert plain.reference is None
    for trial in (*free, *read):
        tx, rx, low, high, marked = reference_of(trial)
        # Stopped with the stream (sent in the same 2 s), never lost: it never left the
        # switch, and its frames are in no stream's figures.
        assert 0 < tx <= REFERENCE_PPS * TRIAL_S and rx == tx, trial.reference
        assert [s.stream_id for s in trial.streams] == [0]
        assert 0 < low <= high
        largest = max((s.latency.max_us for s in trial.streams if s.latency), default=None)
        assert marked == spiked(low, high, largest)
    # Free, the switch's own loop takes tens of us at least once a trial.
    assert all(reference_of(t)[2] < SPIKE_FLOOR_US for t in free)
    # Squeezed, the host held the switch's threads for more than a millisecond while
    # reference frames were in flight, and trials were marked for it.
    assert max(reference_of(t)[3] for t in read) > SPIKE_FLOOR_US
    assert any(reference_of(t)[4] for t in read), [t.reference for t in read]
    print("\nreference stream, free: " + "; ".join(t.reference.describe() for t in free
                                                   if t.reference)
          + "\nsqueezed: " + "; ".join(t.reference.describe() for t in read if t.reference))
    assert time.monotonic() - started < TIME_LIMIT_S
