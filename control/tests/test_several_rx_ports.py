"""Streams received on several ports (issue 24, item 1): the profile's entry, the
checker slots, the figures per (stream, RX port) and over the stream, loss judged on
every frame due, and the report. Exact figures."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from prometheus_client.parser import text_string_to_metric_families
from test_targets_tofino_runner import TOPOLOGY as TOFINO_TOPOLOGY
from test_targets_tofino_runner import FakeBfrt

from p4tester.config.errors import ConfigError
from p4tester.config.profile import check_profile_fits, profile_from_dict
from p4tester.config.stream_receive import Receive
from p4tester.config.topology import topology_from_dict
from p4tester.dataplane.constants import HIST_CELLS_PER_STREAM, MAX_STREAMS
from p4tester.p4rt import CounterValue
from p4tester.results.model import Histogram, ReceiverStats, StreamStats, TrialResult
from p4tester.results.tables import receivers_table
from p4tester.runs.outputs import write_outputs
from p4tester.search.mlr import _RecordingMeasurer
from p4tester.server.metrics import exposition
from p4tester.server.readings import LiveReading, StreamReading
from p4tester.targets.ebpf.session import check_profile as check_ebpf_profile
from p4tester.targets.ebpf.tester import port_slot_cell, port_slot_index
from p4tester.targets.tofino.runner import target_from_config
from p4tester.tester.receive_slots import (
    PortSlots,
    ReceiveCell,
    ReceiveSlots,
    plan_receive_slots,
    profile_receive_slots,
    receive_cells,
)
from p4tester.tester.snapshot import CounterSnapshot
from p4tester.tester.stream_figures import LatencySums, StreamCounters, several_port_figures


def profile(*streams: dict[str, Any]) -> dict[str, Any]:
    return {"name": "p", "streams": list(streams)}


# ---- the profile's entry -------------------------------------------------------------


def test_a_list_of_rx_ports_with_what_the_dut_does() -> None:
    prof = profile_from_dict(profile(
        {"id": 0, "tx_port": 1, "rx_port": [3, 2], "receive": "replicate"},
        {"id": 1, "tx_port": 1, "rx_port": [2, 3, 4], "receive": "spread"},
        {"id": 2, "tx_port": 1, "rx_port": [4]},
        {"id": 3, "tx_port": 1, "rx_port": 4}), "p.yaml")
    replicated, spread, one_listed, plain = prof.streams
    assert (replicated.rx_port, replicated.receive) == (3, Receive("replicate", (3, 2)))
    assert replicated.rx_ports == (3, 2)
    assert (spread.rx_port, spread.rx_ports, spread.receive.replicates) == (  # type: ignore[union-attr]
        2, (2, 3, 4), False)
    assert (one_listed.rx_port, one_listed.receive) == (4, None)
    assert (plain.rx_ports, plain.receive) == ((4,), None)


@pytest.mark.parametrize(("entry", "message"), [
    ({"rx_port": [2, 3]},
     "p.yaml: streams[0]: rx_port [2, 3] names several ports: say what the DUT does with "
     "the frames, receive: replicate (every port gets every frame) or receive: spread "
     "(each frame once, on any of them)"),
    ({"rx_port": 2, "receive": "spread"},
     "p.yaml: streams[0]: receive: 'spread' is for a stream received on several ports: "
     "give rx_port a list, e.g. rx_port: [2, 3]"),
    ({"rx_port": [2, 3], "receive": "multicast"},
     "p.yaml: streams[0]: receive: 'multicast' is not one of replicate, spread"),
    ({"rx_port": [2, 2], "receive": "replicate"},
     "p.yaml: streams[0]: rx_port: [2, 2] names a port twice"),
    ({"rx_port": [], "receive": "replicate"},
     "p.yaml: streams[0]: rx_port: expected a port number or a list of them"),
    ({"rx_port": ["2"], "receive": "replicate"},
     "p.yaml: streams[0]: rx_port: expected a port number or a list of them"),
])
def test_bad_rx_ports_are_refused_with_the_fix(entry: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigError) as caught:
        profile_from_dict(profile({"id": 0, "tx_port": 1, **entry}), "p.yaml")
    assert str(caught.value) == message


def test_every_rx_port_must_be_in_the_topology() -> None:
    topology = topology_from_dict({
        "name": "t", "switch": {"grpc": "127.0.0.1:9559", "thrift_port": 9090},
        "ports": {n: {"line_rate": "1Gbps"} for n in (1, 2, 3)},
        "dut": {"kind": "loopback"}}, "t.yaml")
    prof = profile_from_dict(profile(
        {"id": 0, "tx_port": 1, "rx_port": [2, 3, 5], "receive": "spread"}), "p.yaml")
    with pytest.raises(ConfigError, match=r"^p\.yaml: stream 0: .*port 5"):
        check_profile_fits(prof, topology)


def test_tofino_plans_slots_from_its_own_cells() -> None:
    topology = topology_from_dict({**TOFINO_TOPOLOGY, "ports": {
        n: {"line_rate": "100Gbps", "front_panel": f"{n}/0"} for n in (1, 2, 3)}}, "t.yaml")
    prof = profile_from_dict(profile(
        {"id": 5, "tx_port": 1, "rx_port": [2, 3], "receive": "replicate"}), "p.yaml")
    fake = FakeBfrt()
    target = target_from_config(fake, topology, prof)
    target.prepare([5], [1])
    # No reference stream on Tofino: port 3 takes the lowest free cell, 0.
    assert {(e.key["stream"], e.key["rx_port"]): e.data
            for e in fake.entries("pipe.TesterIngress.port_slots.rx_port_slots")} == {
        (5, 8): {"seq": 5, "figures": 5}, (5, 16): {"seq": 0, "figures": 0}}


def test_ebpf_refuses_a_spread_stream() -> None:
    """A spread stream's one sequence would be updated from two interfaces' CPUs at once
    (the eBPF program's register updates are not atomic across CPUs)."""
    topology = topology_from_dict({"name": "t", "switch": {"target": "ebpf"},
                                   "ports": {n: {"line_rate": "1Gbps"} for n in (1, 2, 3)},
                                   "dut": {"kind": "external"}}, "t.yaml")
    prof = profile_from_dict(profile(
        {"id": 0, "tx_port": 1, "rx_port": [2, 3], "receive": "spread"}), "p.yaml")
    with pytest.raises(ConfigError) as caught:
        check_ebpf_profile(topology, prof)
    assert str(caught.value) == (
        "p.yaml: stream 0: receive: spread (one sequence over several interfaces; replicate "
        "works) not supported on target ebpf (BMv2 supports it); drop it from the stream")


def test_ebpf_slot_cells() -> None:
    """rx_port_slots (p4src/psa/rx_port_slots.p4): a cell per (stream, port)."""
    assert port_slot_index(3, 2) == 3 * 256 + 2
    assert port_slot_cell(3, 40) == 3 | 40 << 16 | 1 << 40
    with pytest.raises(ValueError, match=r"stream 0, port 256: the slots have cells for "
                                         r"streams 0..63, ports 0..255"):
        port_slot_index(0, 256)


# ---- checker slots -------------------------------------------------------------------


def test_slots_come_from_ids_no_stream_uses() -> None:
    prof = profile_from_dict(profile(
        {"id": 0, "tx_port": 1, "rx_port": [2, 3, 4], "receive": "replicate"},
        {"id": 1, "tx_port": 1, "rx_port": 2},
        {"id": 2, "tx_port": 1, "rx_port": [3, 4], "receive": "spread"}), "p.yaml")
    plans = plan_receive_slots(prof.streams, {0, 1, 2}, reserved={3})
    # Replicated: the first port keeps the stream's own cells, the others get 4 and 5.
    assert plans[0] == ReceiveSlots(0, True, (PortSlots(2, 0, 0), PortSlots(3, 4, 4),
                                              PortSlots(4, 5, 5)))
    # Spread: the sequence in the stream's own cells, each port's figures apart.
    assert plans[2] == ReceiveSlots(2, False, (PortSlots(3, 2, 6), PortSlots(4, 2, 7)))
    assert (plans[0].extra_slots, plans[2].extra_slots) == ((4, 5), (6, 7))
    assert 1 not in plans


def test_too_few_slots_say_how_many_are_needed() -> None:
    streams = [{"id": i, "tx_port": 1, "rx_port": [2, 3, 4], "receive": "replicate"}
               for i in range(30)]
    prof = profile_from_dict(profile(*streams), "p.yaml")
    with pytest.raises(ConfigError) as caught:
        plan_receive_slots(prof.streams, set(range(30)), reserved={MAX_STREAMS - 1})
    assert str(caught.value) == (
        "the streams received on several ports need 60 checker slots beyond the profile's "
        f"30 stream ids, and the BMv2 tester has {MAX_STREAMS} in all (1 reserved): use "
        "fewer streams or fewer RX ports")


# ---- figures and loss ----------------------------------------------------------------


def test_a_replicated_stream_is_due_every_frame_on_every_port() -> None:
    """Port 2 got 3 copies too many (duplicates), port 3 lost 40: the copies never
    make up for port 3's loss."""
    stream = StreamStats(0, 64, 100, 163, 163 * 64, 0, 0, 0, 3, replicated=True,
                         receivers=(ReceiverStats(2, 103, 103 * 64, duplicates=3),
                                    ReceiverStats(3, 60, 60 * 64)))
    assert (stream.frames_due, stream.lost, stream.loss_ratio) == (200, 40, 0.2)
    assert [stream.port_lost(r) for r in stream.receivers] == [0, 40]
    assert stream.spread_balance is None
    trial = TrialResult("latency", 0, 0.1, 100.0, 1.0, 64, streams=(
        stream, StreamStats(1, 64, 50, 50, 50 * 64, 0, 0, 0, 0)))
    assert (trial.frames_due, trial.lost, trial.loss_ratio) == (250, 40, 0.16)


def test_a_spread_stream_is_due_each_frame_once() -> None:
    stream = StreamStats(0, 64, 100, 95, 95 * 64, 0, 0, 0, 0, replicated=False,
                         receivers=(ReceiverStats(2, 70, 70 * 64), ReceiverStats(3, 25, 25 * 64)))
    assert (stream.frames_due, stream.lost, stream.loss_ratio) == (100, 5, 0.05)
    assert [stream.port_lost(r) for r in stream.receivers] == [None, None]
    assert stream.spread_balance == 2.8


COUNTERS = StreamCounters("rx_stream", "tx_stream", "gaps", "reordered", "duplicates",
                          "latency_hist", "qdepth_hist")


def snapshot(cells: dict[str, dict[int, int]]) -> CounterSnapshot:
    names = ("rx_stream", "tx_stream", "gaps", "reordered", "duplicates", "latency_hist",
             "qdepth_hist")
    return CounterSnapshot({name: {i: CounterValue(n, n * 60) for i, n in
                                   cells.get(name, {}).items()} for name in names})


def hist_cell(slot: int, bin_index: int) -> int:
    return slot * HIST_CELLS_PER_STREAM + bin_index


def test_replicated_figures_per_port_and_summed() -> None:
    slots = ReceiveSlots(0, True, (PortSlots(2, 0, 0), PortSlots(3, 9, 9)))
    after = snapshot({"tx_stream": {0: 100}, "rx_stream": {0: 100, 9: 58},
                      "gaps": {9: 2}, "duplicates": {9: 1},
                      "latency_hist": {hist_cell(0, 0): 100, hist_cell(9, 1): 58}})
    latency = {0: LatencySums(100, 10.0, 30.0, 2000.0, 100.0),
               9: LatencySums(58, 40.0, 90.0, 2900.0, 58.0)}
    stream = several_port_figures(0, 64, snapshot({}), after, COUNTERS, slots, latency,
                                  {0: 0, 9: 43}, [0, 50, 100], [0, 1])
    port2, port3 = stream.receivers
    assert (port2.port, port2.rx_frames, port2.rx_bytes, port2.gap_events) == (2, 100, 6400, 0)
    assert (port3.port, port3.rx_frames, port3.gap_events, port3.lost_in_gaps,
            port3.duplicates) == (3, 58, 2, 43, 1)
    assert (stream.tx_frames, stream.rx_frames, stream.lost, stream.frames_due) == (
        100, 158, 42, 200)
    assert (stream.gap_events, stream.lost_in_gaps, stream.duplicates) == (2, 43, 1)
    assert port3.latency is not None and port3.latency.avg_us == 50.0
    joined = stream.latency
    assert joined is not None
    assert (joined.samples, joined.min_us, joined.max_us, joined.avg_us) == (158, 10.0, 90.0,
                                                                              4900.0 / 158)
    assert joined.histogram is not None and joined.histogram.counts == (100, 58)


def test_spread_figures_keep_one_sequence_over_the_ports() -> None:
    """The sequence figures are the stream's seq slot's (0); each port's figure slot
    has its counts and latency only."""
    slots = ReceiveSlots(0, False, (PortSlots(2, 0, 7), PortSlots(3, 0, 8)))
    after = snapshot({"tx_stream": {0: 100}, "rx_stream": {7: 60, 8: 41},
                      "reordered": {0: 4}, "duplicates": {0: 1},
                      "latency_hist": {hist_cell(7, 0): 60, hist_cell(8, 0): 41}})
    latency = {0: LatencySums(101, 0.0, 0.0, 0.0, 0.0), 7: LatencySums(60, 5.0, 8.0, 360.0, 6.0),
               8: LatencySums(41, 6.0, 9.0, 287.0, 4.1)}
    stream = several_port_figures(0, 64, snapshot({}), after, COUNTERS, slots, latency,
                                  {0: 0, 7: 0, 8: 0}, [0, 50, 100], [0, 1])
    assert [(r.port, r.rx_frames, r.reordered, r.duplicates) for r in stream.receivers] == [
        (2, 60, 0, 0), (3, 41, 0, 0)]
    # 101 received, one a duplicate: RX above TX is no loss (duplicates are apart).
    assert (stream.rx_frames, stream.lost, stream.reordered, stream.duplicates) == (101, 0, 4, 1)
    assert stream.latency is not None
    assert (stream.latency.samples, stream.latency.min_us, stream.latency.max_us) == (101, 5.0, 9.0)
    assert stream.spread_balance == 60 / 41


def test_the_report_gives_each_port_its_line() -> None:
    replicated = StreamStats(0, 64, 100, 160, 160 * 64, 0, 0, 0, 0, replicated=True,
                             receivers=(ReceiverStats(2, 100, 6400), ReceiverStats(3, 60, 3840)))
    spread = StreamStats(1, 64, 100, 100, 6400, 0, 0, 2, 0, replicated=False,
                         receivers=(ReceiverStats(2, 75, 4800), ReceiverStats(4, 25, 1600)))
    trial = TrialResult("latency", 3, 0.1, 200.0, 1.0, 64, streams=(replicated, spread))
    assert receivers_table(trial).splitlines() == [
        "stream  receive    port  tx frames  rx frames  lost  share %  reordered  dup  "
        "lat min us  lat avg us  lat max us",
        "------  ---------  ----  ---------  ---------  ----  -------  ---------  ---  "
        "----------  ----------  ----------",
        "     0  replicate     2        100        100     0        -          0    0  "
        "         -           -           -",
        "     0  replicate     3        100         60    40        -          0    0  "
        "         -           -           -",
        "     1  spread        2        100         75     -    75.00          0    0  "
        "         -           -           -",
        "     1  spread        4        100         25     -    25.00          0    0  "
        "         -           -           -",
        "stream 0: replicated to 2 ports, 200 frames due, 40 lost (20.0000%)",
        "stream 1: spread over 2 ports, 0 lost, 2 reordered, 0 duplicates over all ports; "
        "balance (most / least loaded port) 3.000",
    ]
    plain = TrialResult("latency", 3, 0.1, 200.0, 1.0, 64,
                        streams=(StreamStats(5, 64, 1, 1, 64, 0, 0, 0, 0),))
    assert receivers_table(plain) == ""


# ---- live readings -------------------------------------------------------------------


def test_live_rows_per_rx_port_with_the_sequence_counted_once() -> None:
    prof = profile_from_dict(profile(
        {"id": 0, "tx_port": 1, "rx_port": [2, 3], "receive": "replicate"},
        {"id": 1, "tx_port": 1, "rx_port": 2},
        {"id": 2, "tx_port": 1, "rx_port": [3, 4], "receive": "spread"}), "p.yaml")
    # Free ids from 3 up; 63, the highest free, is the reference stream's.
    assert receive_cells(prof, profile_receive_slots(prof)) == (
        ReceiveCell(0, 2, 0, 0), ReceiveCell(0, 3, 3, 3),
        ReceiveCell(1, 2, 1, 1),
        ReceiveCell(2, 3, 2, 4, sequence=True), ReceiveCell(2, 4, 2, 5, sequence=False))


def test_metrics_give_a_stream_one_tx_series_and_an_rx_series_per_port() -> None:
    empty = Histogram((0, 10), (0,))

    def row(rx_port: int, rx_frames: int) -> StreamReading:
        return StreamReading(0, 1, rx_port, 100, 6400, rx_frames, rx_frames * 64, 0, 0, 0,
                             None, None, None, empty, empty)

    reading = LiveReading(0.0, (row(2, 100), row(3, 60)), ())
    text = exposition(reading, None, "bmv2", simulated=False).decode()
    families = {f.name: f for f in text_string_to_metric_families(text)}
    assert [(s.labels, s.value) for s in families["p4tester_stream_tx_frames"].samples
            if s.name.endswith("_total")] == [({"stream": "0", "port": "1"}, 100.0)]
    assert [(s.labels["port"], s.value) for s in families["p4tester_stream_rx_frames"].samples
            if s.name.endswith("_total")] == [("2", 100.0), ("3", 60.0)]


def test_the_run_writes_receivers_csv_and_plot(tmp_path: Path) -> None:
    """write_outputs: a row per (trial, stream, RX port) and the last valid trial's plot;
    neither for a run without several-port streams."""
    replicated = StreamStats(0, 64, 100, 160, 160 * 64, 0, 0, 0, 0, replicated=True,
                             receivers=(ReceiverStats(2, 100, 6400), ReceiverStats(3, 60, 3840)))
    trials = (TrialResult("latency", 0, 0.1, 200.0, 1.0, 64, streams=(replicated,)),
              TrialResult("latency", 1, 0.1, 200.0, 1.0, 64, streams=(replicated,),
                          valid=False, error="tester-limited: x"))
    write_outputs(tmp_path, {}, trials)
    rows = (tmp_path / "receivers.csv").read_text().splitlines()
    assert rows[1:] == ["latency,0,0,replicate,2,100,100,6400,0,,0,0,0,0,,,",
                        "latency,0,0,replicate,3,100,60,3840,40,,0,0,0,0,,,",
                        "latency,1,0,replicate,2,100,100,6400,0,,0,0,0,0,,,",
                        "latency,1,0,replicate,3,100,60,3840,40,,0,0,0,0,,,"]
    assert (tmp_path / "receivers.png").read_bytes().startswith(b"\x89PNG\r\n\x1a\n")
    plain = tmp_path / "plain"
    plain.mkdir()
    write_outputs(plain, {}, (TrialResult("latency", 0, 0.1, 1.0, 1.0, 64, streams=(
        StreamStats(5, 64, 1, 1, 64, 0, 0, 0, 0),)),))
    assert not (plain / "receivers.csv").exists()
    assert not (plain / "receivers.png").exists()


def test_mlrsearch_is_told_the_frames_due() -> None:
    """A replicated stream lost 40 of the 200 frames due on its two ports (of 100 sent):
    MLRsearch's loss ratio is 0.2, not 40 of 100."""

    class OneTrial:
        def measure(self, duration_s: float, load: float) -> TrialResult:
            stream = StreamStats(0, 64, 100, 160, 10240, 0, 0, 0, 0, replicated=True,
                                 receivers=(ReceiverStats(2, 100, 6400),
                                            ReceiverStats(3, 60, 3840)))
            return TrialResult("throughput", 0, load, 100.0, duration_s, 64, streams=(stream,))

    result = _RecordingMeasurer(OneTrial()).measure(1.0, 0.5)  # type: ignore[arg-type]
    assert (result.offered_count, result.loss_count) == (200, 40)
    assert result.loss_ratio == 0.2


def test_a_y1564_service_needs_a_stream_with_one_rx_port() -> None:
    with pytest.raises(ConfigError) as caught:
        profile_from_dict({**profile(
            {"id": 0, "tx_port": 1, "rx_port": [2, 3], "receive": "spread"}),
            "services": [{"name": "voice", "stream": 0, "cir": "2Mbps",
                          "sla": {"ftd_ms": 10, "fdv_ms": 2, "flr": 0.001}}]}, "p.yaml")
    assert str(caught.value) == (
        "p.yaml: services: voice: stream 0 is received on several ports; a Y.1564 service "
        "is measured on one RX port: give it a stream with one rx_port")
