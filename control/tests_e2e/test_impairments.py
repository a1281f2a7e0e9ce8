"""Loss, reordering and duplication the tester reports against an independent count:
a tcpdump capture of what the DUT sent, parsed separately (capture.py). The DUT is
the reference DUT with its P4 impairments (topologies/bmv2-impaired.yaml: every
50th tester frame dropped, every 30th held behind the next, every 40th sent twice),
standing in for netem, which this kernel lacks."""

from __future__ import annotations

from pathlib import Path

import pytest
from capture import capture_sent, count_sequence, stream_seqs

from p4tester.config.profile import profile_from_dict
from p4tester.config.topology import load_topology
from p4tester.dataplane import names
from p4tester.experiments.runner import TrialSpec
from p4tester.lab.runner import dut_iface
from p4tester.p4rt import P4InfoSchema, P4RuntimeClient
from p4tester.results.checks import DUT_LIMITED, TESTER_LIMITED
from p4tester.targets.bmv2_session import TesterSession
from p4tester.targets.bmv2_trials import SwitchTrialRunner

LINE_RATE_64B_PPS = 5e6 / (84 * 8)
RATE_PPS = 1000
DURATION_S = 2.0
FRAMES = 2000
# The DUT's pattern over frames 1..2000 of its port 1 (drop before hold before
# duplicate; 30k+1, 40a+1 and 50m+1 never meet another multiple, so no impairment
# hides another's effect):
DROPPED = 2000 // 50  # 40
HELD = 2000 // 30 - 2000 // 150  # 66 - 13 = 53
DUPLICATED = 2000 // 40 - 2000 // 200 - 2000 // 120 + 2000 // 600  # 50 - 10 - 16 + 3 = 27


def pattern(n: int) -> tuple[int, int, int]:
    """(dropped, held, duplicated) of the DUT's pattern over its port's frames 1..n."""
    return (n // 50, n // 30 - n // 150, n // 40 - n // 200 - n // 120 + n // 600)


@pytest.mark.topology("bmv2-impaired.yaml")
def test_tester_counts_equal_a_capture_of_what_the_dut_sent(lab: Path, tmp_path: Path) -> None:
    topology = load_topology(lab)
    profile = profile_from_dict({
        "name": "impaired", "trial": {"duration_s": DURATION_S, "drain_s": 1.0, "settle_s": 1.0},
        "frame_sizes": [64], "streams": [{"id": 0, "tx_port": 1, "rx_port": 2}],
    }, "impaired")
    pcap = tmp_path / "dut-out.pcap"
    with (TesterSession(topology, profile, push_pipeline=True) as session,
          capture_sent(dut_iface(2), pcap)):
        trial = SwitchTrialRunner(session).run_trial(
            TrialSpec("impairments", 0, 64, RATE_PPS / LINE_RATE_64B_PPS, DURATION_S))
    (stream,) = trial.streams
    seen = count_sequence(stream_seqs(pcap, stream_id=0))

    # The tester against the capture, figure by figure.
    assert stream.tx_frames == FRAMES
    assert stream.rx_frames == seen.received
    assert stream.duplicates == seen.duplicates
    assert stream.reordered == seen.reordered
    assert stream.gap_events == seen.gap_events
    assert stream.lost_in_gaps == seen.lost_in_gaps
    assert stream.lost == FRAMES - seen.received

    if trial.dut_check is not None and not trial.dut_check.ok:
        # The lab DUT lost frames to the host (not scheduled for longer than its port's
        # capture ring holds, on a busy host), whether or not the tester could also prove
        # its rate: the trial says so, and the tester still equals the capture above.
        # The DUT applied its pattern to the frames it did receive, counted 1..n: exactly so.
        assert not trial.valid
        assert trial.invalid_reason in (DUT_LIMITED, TESTER_LIMITED), trial.error
        n = FRAMES - trial.dut_check.port(1).rx_dropped
        dropped, held, duplicated = pattern(n)
        assert (seen.received, seen.duplicates, seen.reordered) == (
            n - dropped + duplicated, duplicated, held), (n, seen)
        return
    if not trial.valid:
        # On a busy host the tester may not prove the rate it offered (a stalled loop
        # spaced the frames unevenly): the trial says so, and its counts still equal the
        # capture above. Every frame reached the DUT, so the pattern below holds whole.
        assert trial.invalid_reason == TESTER_LIMITED, trial.error

    # And both against the pattern the DUT was given.
    assert pattern(FRAMES) == (DROPPED, HELD, DUPLICATED)
    assert seen.received == FRAMES - DROPPED + DUPLICATED == 1987
    assert seen.duplicates == DUPLICATED
    assert seen.reordered == HELD
    # A gap shows when a later frame arrives: each held frame makes one (its successor
    # overtakes it), each drop one, except frame 2000's, after which nothing comes.
    assert seen.gap_events == seen.lost_in_gaps == (DROPPED - 1) + HELD == 92

    # The DUT's own counters agree: every held frame left behind a later one.
    dut = dict(topology.dut.settings)
    schema = P4InfoSchema.from_text_file("p4src/build/dut.p4info.txt")
    with P4RuntimeClient(dut["grpc"]) as client:
        impaired = client.read_counter(schema, names.DUT_IMPAIRED)
    assert [impaired[kind].packets for kind in range(7)] == [
        DROPPED, DUPLICATED, HELD, HELD, 0, 0, 0,
    ]
