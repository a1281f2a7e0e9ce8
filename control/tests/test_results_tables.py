"""CSV writers (exact header and rows, units in column names) and terminal tables."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from p4tester.results.checks import HostLoad, PortCheck, SelfCheck
from p4tester.results.latency import latency_stats
from p4tester.results.model import Histogram, LatencyStats, StreamStats, TrialResult
from p4tester.results.reference import ReferenceLatency
from p4tester.results.tables import (
    Column,
    ThroughputPoint,
    bounded_text,
    render_table,
    throughput_table,
    trials_table,
    write_streams_csv,
    write_throughput_csv,
    write_trials_csv,
)

LATENCY = LatencyStats(
    samples=1990,
    min_us=2.0,
    max_us=10.0,
    avg_us=4.0,
    jitter_us=0.5,
    p50_us=3.0,
    p99_us=9.0,
    # Rank 1988.01 of 1990 lies beyond the last edge: a lower bound (20, clamped to the max).
    p999_us=10.0,
    histogram=Histogram(edges=(0, 5, 20), counts=(1000, 980), outside=10),
)
GOOD = TrialResult(
    experiment="t",
    trial_index=3,
    offered_fraction=0.5,
    offered_pps=1000.0,
    duration_s=2.0,
    frame_size=64,
    streams=(StreamStats(1, 64, 2000, 1990, 127360, 2, 10, 1, 0, LATENCY),),
    started_at=1_700_000_000.5,
    labels=(("buffer_pct", "40"),),
    offered_pps_measured=1001.5,
    max_burst_frames=3,
    late_frames=12,
    reference=ReferenceLatency(stream_id=63, tx_frames=200, rx_frames=200, min_us=17.0,
                               avg_us=25.5, max_us=480.0, spiked=False),
)
BAD = TrialResult(
    experiment="t",
    trial_index=4,
    offered_fraction=0.25,
    offered_pps=100.0,
    duration_s=1.0,
    frame_size=1518,
    started_at=1_700_000_010.0,
    valid=False,
    error="switch died, restarted",
)
# The tester lost 174 frames on port 2 itself, on a host at load 3.5 on 2 CPUs.
LIMITED = TrialResult(
    experiment="t",
    trial_index=5,
    offered_fraction=0.9,
    offered_pps=6696.0,
    duration_s=1.0,
    frame_size=64,
    streams=(StreamStats(0, 64, 6696, 6522, 6522 * 64, 3, 174, 0, 0),),
    started_at=1_700_000_020.0,
    valid=False,
    error="tester-limited: port 2: 174 of 6696 frames p4lt2 received never reached the program",
    self_check=SelfCheck((PortCheck(1, "p4lt1", 0, 6696, 0, 0, 0, 6696),
                          PortCheck(2, "p4lt2", 6696, 0, 0, 0, 6522, 0))),
    host_load=HostLoad(3.5, 2, 0.125),
    offered_pps_measured=6610.25,
    max_burst_frames=140,
    rx_stale=7,
    late_frames=0,
    dut_buffering_us=9250.5,
)


def test_trials_csv_exact(tmp_path: Path) -> None:
    path = write_trials_csv([GOOD, BAD, LIMITED], tmp_path / "out" / "trials.csv")
    assert path.read_text().splitlines() == [
        "experiment,trial_index,started_at_unix_s,duration_s,frame_size_B,"
        "offered_line_rate_pct,offered_pps,offered_l1_bps,offered_l2_bps,streams,tx_frames,"
        "rx_frames,lost_frames,loss_pct,latency_min_us,latency_avg_us,latency_max_us,"
        "latency_jitter_us,latency_p50_us,latency_p99_us,latency_p999_us,"
        "latency_p50_lower_bound,latency_p99_lower_bound,latency_p999_lower_bound,"
        "latency_outside_bins_frames,valid,error,self_check,tester_rx_dropped_frames,tester_tx_dropped_frames,dut_rx_dropped_frames,"
        "host_load_1m,host_cpus,cpu_steal_pct,offered_pps_measured,max_burst_frames,"
        "stale_frames,late_frames,dut_buffering_us,tester_latency_min_us,"
        "tester_latency_max_us,tester_spiked,label_buffer_pct",
        # 1000 pps of 64 B: 1000 * 84 * 8 L1 bit/s, 1000 * 64 * 8 L2 bit/s
        "t,3,1700000000.5,2.0,64,50.0,1000.0,672000.0,512000.0,1,2000,1990,10,0.5,"
        "2.0,4.0,10.0,0.5,3.0,9.0,10.0,false,false,true,10,true,,,,,,,,,1001.5,3,0,12,,17.0,"
        "480.0,false,40",
        # 100 pps of 1518 B: 100 * 1538 * 8 and 100 * 1518 * 8
        "t,4,1700000010.0,1.0,1518,25.0,100.0,1230400.0,1214400.0,0,0,0,0,0.0,"
        ',,,,,,,,,,,false,"switch died, restarted",,,,,,,,,,0,,,,,,',
        "t,5,1700000020.0,1.0,64,90.0,6696.0,4499712.0,3428352.0,1,6696,6522,174,"
        "2.5985663082437274,,,,,,,,,,,,false,tester-limited: port 2: 174 of 6696 frames p4lt2 "
        "received never reached the program,tester-limited,174,0,,3.5,2,12.5,6610.25,140,"
        "7,0,9250.5,,,,",
    ]


def test_streams_csv_exact(tmp_path: Path) -> None:
    path = write_streams_csv([GOOD, BAD], tmp_path / "streams.csv")
    assert path.read_text().splitlines() == [
        "experiment,trial_index,stream_id,frame_size_B,tx_frames,rx_frames,rx_bytes,"
        "lost_frames,loss_pct,gap_events,lost_in_gaps_frames,reordered_frames,"
        "duplicate_frames,latency_samples,latency_min_us,latency_avg_us,latency_max_us,"
        "latency_jitter_us,latency_p50_us,latency_p99_us,latency_p999_us,"
        "latency_p50_lower_bound,latency_p99_lower_bound,latency_p999_lower_bound,"
        "latency_outside_bins_frames",
        "t,3,1,64,2000,1990,127360,10,0.5,2,10,1,0,1990,2.0,4.0,10.0,0.5,3.0,9.0,10.0,false,"
        "false,true,10",
    ]


POINTS = [
    ThroughputPoint(frame_size=64, line_rate_bps=10e9, ndr_fraction=0.5, pdr_fraction=0.75),
    ThroughputPoint(frame_size=1518, line_rate_bps=10e9, ndr_fraction=1.0, pdr_fraction=None),
]


def test_throughput_csv(tmp_path: Path) -> None:
    path = write_throughput_csv(POINTS, tmp_path / "throughput.csv")
    with path.open(newline="") as stream:
        rows = list(csv.DictReader(stream))
    assert list(rows[0]) == [
        "frame_size_B",
        "line_rate_bps",
        "ndr_line_rate_pct",
        "ndr_pps",
        "ndr_l1_bps",
        "ndr_l2_bps",
        "pdr_line_rate_pct",
        "pdr_pps",
        "pdr_l1_bps",
        "pdr_l2_bps",
        "ndr_tester_limited",
        "pdr_tester_limited",
        "ndr_intended_pps",
        "pdr_intended_pps",
    ]
    first, second = rows
    assert (first["ndr_tester_limited"], first["pdr_tester_limited"]) == ("false", "false")
    assert float(first["ndr_pps"]) == pytest.approx(7_440_476.19, abs=0.01)
    assert float(first["ndr_l1_bps"]) == 5e9
    assert float(first["pdr_pps"]) == pytest.approx(11_160_714.29, abs=0.01)
    assert float(first["pdr_l2_bps"]) == pytest.approx(11_160_714.29 * 512, rel=1e-9)
    assert float(second["ndr_pps"]) == pytest.approx(812_743.8, abs=0.05)
    assert (second["pdr_line_rate_pct"], second["pdr_pps"]) == ("", "")
    assert (first["ndr_intended_pps"], first["pdr_intended_pps"]) == ("", "")  # not given


# Issue 41: the trial at 105 773 frames/s asked (10 % of a 1 057 730-frames/s port at
# 64 B) proved it offered 104 184.
PROVEN_POINT = ThroughputPoint(64, 1_057_730 * 84 * 8, 0.1 * 104_184 / 105_773, None,
                               ndr_tester_limited=True, ndr_intended_fraction=0.1)


def test_throughput_csv_keeps_the_intended_bound(tmp_path: Path) -> None:
    path = write_throughput_csv([PROVEN_POINT], tmp_path / "throughput.csv")
    with path.open(newline="") as stream:
        (row,) = list(csv.DictReader(stream))
    assert float(row["ndr_pps"]) == pytest.approx(104_184.0, rel=1e-12)
    assert float(row["ndr_intended_pps"]) == pytest.approx(105_773.0, rel=1e-12)
    assert row["pdr_intended_pps"] == ""


def test_render_table_fixed_width() -> None:
    text = render_table([Column("name", left=True), Column("pps")], [["a", "1"], ["bbb", "1000"]])
    assert text == "name   pps\n----  ----\na        1\nbbb   1000"
    with pytest.raises(ValueError, match=r"table row 1 has 1 cells for 2 columns"):
        render_table([Column("a"), Column("b")], [["x"]])


def test_throughput_table() -> None:
    lines = throughput_table(POINTS).splitlines()
    assert lines[0].split("  ")[0] == "frame B"
    assert "NDR L1" in lines[0] and "PDR L2" in lines[0]
    assert lines[2] == (
        "     64   50.00  7440476   5 Gbit/s  3.81 Gbit/s  75.00  11160714  7.5 Gbit/s"
        "  5.714 Gbit/s"
    )
    assert lines[3] == (
        "   1518  100.00   812744  10 Gbit/s  9.87 Gbit/s      -         -           -"
        "             -"
    )
    assert len({len(line) for line in lines[:3]}) == 1  # fixed width
    assert len(lines) == 4  # no note without a tester-limited goal


def test_throughput_table_marks_tester_limited_bounds() -> None:
    point = ThroughputPoint(64, 10e9, 0.5, 0.5, ndr_tester_limited=True,
                            pdr_tester_limited=True)
    lines = throughput_table([point]).splitlines()
    assert lines[2].split()[:2] == ["64", "50.00*"]
    assert lines[2].split().count("50.00*") == 2  # NDR and PDR
    assert lines[3] == (
        "* tester-limited: the search went no higher than the tester itself carries on this "
        "host (its calibrated capacity, or a load it could not carry) or than a lab DUT on "
        "this host held its configured behaviour; the DUT's limit is at least this, maybe "
        "higher")


def test_throughput_table_says_a_bound_is_below_the_load_asked() -> None:
    lines = throughput_table([PROVEN_POINT]).splitlines()
    assert lines[2].split()[:3] == ["64", "9.85*", "104184"]
    assert lines[4] == (
        "64 B: NDR ≥ 104184 frames/s (proven offered; 105773 intended): the trial at the "
        "bound offered less than it was set to (measured on the switch's clock)")
    assert len(lines) == 5
    at_intended = ThroughputPoint(64, 10e9, 0.5, None, ndr_intended_fraction=0.5)
    assert len(throughput_table([at_intended]).splitlines()) == 3  # no line: as asked


def test_trials_table() -> None:
    # Rank 9.9 of 10 lies beyond the last edge (20): p99 is at least 20.
    beyond = latency_stats(10, 1.0, 40.0, 50.0, 9.0, Histogram((0, 20), (9,), 1))
    trial = TrialResult(
        "t", 5, 0.1, 10.0, 1.0, 64, (StreamStats(2, 64, 10, 10, 640, 0, 0, 0, 0, beyond),)
    )
    lines = trials_table([GOOD, BAD, trial, LIMITED]).splitlines()
    assert lines[0].split("  ")[0] == "#"
    assert lines[0].split()[-3:] == ["host", "load", "status"]
    assert lines[2].split() == [
        "3", "64", "50.00", "1000", "2000", "1990", "10", "0.5000", "1:10",
        "2.0", "4.0", "10.0", "9.0", "-", "ok",
    ]  # fmt: skip
    assert lines[3].endswith("-  invalid: switch died, restarted")
    assert lines[4].split()[-4:] == ["≥", "20", "-", "ok"]  # p99 lies beyond the last edge
    assert lines[5].split()[-15:] == [
        "3.50", "invalid:", "tester-limited:", "port", "2:", "174", "of", "6696", "frames",
        "p4lt2", "received", "never", "reached", "the", "program"]
    assert lines[6] == (
        "≥ p99: only a lower bound is known, the histogram's last edge: 1 of 10 frames in "
        "trial 5 lay at or above it (raise the profile's last latency_bins_us edge to "
        "measure it)")
    assert len(lines) == 7
    assert len(trials_table([GOOD]).splitlines()) == 3  # p99 measured: no note


def test_a_lower_bound_reads_as_at_least_the_edge() -> None:
    assert bounded_text(5000.0, lower_bound=True) == "≥ 5000"
    assert bounded_text(4500.5, lower_bound=True) == "≥ 4500.5"  # clamped to a max
    assert bounded_text(5000.0, lower_bound=False) == "5000.0"
    assert bounded_text(12.34, lower_bound=False) == "12.3"


def test_throughput_point_validation() -> None:
    with pytest.raises(ValueError, match=r"ndr_fraction 0\.0 of frame size 64 B must be in"):
        ThroughputPoint(64, 10e9, 0.0, None)
    with pytest.raises(ValueError, match=r"pdr_fraction 1\.5"):
        ThroughputPoint(64, 10e9, None, 1.5)
