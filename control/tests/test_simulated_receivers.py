"""Streams received on several ports on the simulated switch (runs.simulated_receivers):
each port's figures as a switch's checker counts them, the stream's adding them up,
and the server's live readings per (stream, RX port) over the trial's window."""

from __future__ import annotations

from pathlib import Path

from p4tester.config.profile import load_profile
from p4tester.config.topology import load_topology
from p4tester.experiments.runner import TrialSpec
from p4tester.experiments.simulated_runner import SimulatedRunner
from p4tester.runs.simulated_switch import ProfileStreamsRunner, simulated_dut
from p4tester.server.live_scope import LiveScope
from p4tester.server.simulated import SimulatedCounters

REPO = Path(__file__).resolve().parents[2]
PROFILE = """\
name: several-ports
trial: {duration_s: 1, drain_s: 0.5, settle_s: 0.5}
frame_sizes: [64]
streams:
  - {id: 0, tx_port: 1, rx_port: [2, 3], receive: replicate, share: 0.5}
  - {id: 1, tx_port: 1, rx_port: [3, 2], receive: spread, share: 0.5, udp_src_port: 50000}
"""
# 5 Mbit/s ports: 7440 frames/s of 64 B. Two streams at 45 % offer the DUT 90 % of line
# rate where it forwards 55 %: each stream sends 3348 frames and 2046 pass.
SPEC = TrialSpec(experiment="t", trial_index=0, frame_size=64, offered_fraction=0.45,
                 duration_s=1.0)


def _setup(tmp_path: Path) -> tuple[ProfileStreamsRunner, SimulatedCounters]:
    (tmp_path / "p.yaml").write_text(PROFILE)
    topology = load_topology(REPO / "topologies/bmv2-bridge-replicate.yaml")
    profile = load_profile(tmp_path / "p.yaml", topology)
    runner = ProfileStreamsRunner(SimulatedRunner(simulated_dut(topology, profile)), profile)
    return runner, SimulatedCounters(topology, profile)


def test_a_replicated_stream_comes_back_whole_on_each_port(tmp_path: Path) -> None:
    replicated, _ = _setup(tmp_path)[0].run_trial(SPEC).streams
    assert replicated.replicated
    assert [(r.port, r.rx_frames, r.rx_bytes, r.lost_in_gaps)
            for r in replicated.receivers] == [(2, 2046, 2046 * 64, 1302),
                                               (3, 2046, 2046 * 64, 1302)]
    assert (replicated.tx_frames, replicated.rx_frames, replicated.frames_due,
            replicated.lost, replicated.lost_in_gaps) == (3348, 4092, 6696, 2604, 2604)
    assert [replicated.port_lost(r) for r in replicated.receivers] == [1302, 1302]
    lat = replicated.latency
    assert lat is not None and lat.histogram is not None
    assert lat.samples == lat.histogram.total == 4092
    for r in replicated.receivers:
        assert r.latency is not None
        assert (r.latency.samples, r.latency.min_us, r.latency.max_us) == (
            2046, lat.min_us, lat.max_us)


def test_a_spread_stream_is_shared_out_over_its_ports_in_their_order(tmp_path: Path) -> None:
    _, spread = _setup(tmp_path)[0].run_trial(SPEC).streams
    assert not spread.replicated
    # 2046 frames over two ports; the sequence is the stream's, none per port.
    assert [(r.port, r.rx_frames, r.lost_in_gaps) for r in spread.receivers] == [
        (3, 1023, 0), (2, 1023, 0)]
    assert (spread.tx_frames, spread.rx_frames, spread.lost, spread.lost_in_gaps,
            spread.spread_balance) == (3348, 2046, 1302, 1302, 1.0)
    assert spread.latency is not None and spread.latency.samples == 2046
    assert spread.queue_depth is not None
    assert sum(r.queue_depth.total for r in spread.receivers
               if r.queue_depth is not None) == spread.queue_depth.total


def test_live_readings_are_per_stream_and_rx_port_over_the_trial(tmp_path: Path) -> None:
    runner, counters = _setup(tmp_path)
    counters.commit(runner.run_trial(SPEC))  # an earlier trial, outside the window
    scope = LiveScope(counters.read(), "run", 1)
    trial = runner.run_trial(SPEC)
    counters.commit(trial)
    reading = scope.apply(counters.read())
    assert [(s.stream, s.rx_port, s.tx_frames, s.rx_frames, s.lost_in_gaps)
            for s in reading.streams] == [(0, 2, 3348, 2046, 1302), (0, 3, 3348, 2046, 1302),
                                          (1, 3, 3348, 1023, 1302), (1, 2, 3348, 1023, 0)]
    # Port 1 sent each stream's frames once; ports 2 and 3 took in their copies.
    assert [(p.port, p.tx_frames, p.rx_frames) for p in reading.ports] == [
        (1, 6696, 0), (2, 0, 3069), (3, 0, 3069)]
    for s in reading.streams:
        receiver = next(r for r in next(x for x in trial.streams if x.stream_id == s.stream)
                        .receivers if r.port == s.rx_port)
        assert s.latency_histogram_us == receiver.latency.histogram  # type: ignore[union-attr]


def test_a_trial_that_received_nothing_yet_shows_no_registers_of_the_one_before(
        tmp_path: Path) -> None:
    """At the trial's start the counters count from its baseline (0) while the
    registers still hold the trial before: the window shows no latency and no gaps."""
    runner, counters = _setup(tmp_path)
    counters.commit(runner.run_trial(SPEC))  # the trial before, its registers kept
    before = counters.read()
    assert before.streams[0].latency_max_us is not None and before.streams[0].lost_in_gaps
    reading = LiveScope(before, "run", 1).apply(counters.read())
    assert {(s.rx_frames, s.lost_in_gaps, s.latency_min_us, s.latency_avg_us,
             s.latency_max_us) for s in reading.streams} == {(0, 0, None, None, None)}
