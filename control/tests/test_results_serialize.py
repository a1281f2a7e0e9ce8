"""TrialResult <-> dict: exact round trip through JSON, version check, precise errors."""

from __future__ import annotations

import dataclasses
import json
import math
from typing import Any

import pytest

from p4tester.results.checks import HostLoad, PortCheck, SelfCheck
from p4tester.results.latency import latency_stats
from p4tester.results.model import (
    P50,
    Histogram,
    IntervalCounts,
    LatencyStats,
    RateStep,
    ReceiverStats,
    StreamLoss,
    StreamStats,
    TrialResult,
)
from p4tester.results.reference import ReferenceLatency
from p4tester.results.serialize import (
    SCHEMA_VERSION,
    SerializeError,
    trial_from_dict,
    trial_to_dict,
)
from p4tester.results.settle import SettleRecord

# Keys version 5 added, and the TrialResult of a record without them.
V5_KEYS = ("offered_pps_measured", "max_burst_frames", "dut_buffering_us", "late_frames",
           "reference")
UNMEASURED: dict[str, Any] = {"offered_pps_measured": None, "max_burst_frames": None,
                              "dut_buffering_us": None, "late_frames": None, "reference": None}
REFERENCE = ReferenceLatency(stream_id=63, tx_frames=250, rx_frames=249, min_us=18.0,
                             avg_us=41.25, max_us=2250.0, spiked=True)


def full_trial() -> TrialResult:
    """Every field set to a non-default value, including None, inf and nested tuples."""
    histogram = Histogram(edges=(0, 2, 4, 8, 16), counts=(1, 500, 480, 9), outside=2)
    latency = LatencyStats(
        samples=992,
        min_us=1.5,
        max_us=math.inf,
        avg_us=3.141592653589793,
        jitter_us=0.1 + 0.2,  # not exactly representable: must survive bit for bit
        p50_us=3.9,
        p99_us=7.75,
        # Rank 991.008 of 992 lies beyond the last edge (990 in the bins): at least 16.
        p999_us=16.0,
        histogram=histogram,
    )
    streams = (
        StreamStats(
            stream_id=7,
            frame_size=64,
            tx_frames=1000,
            rx_frames=992,
            rx_bytes=992 * 64,
            gap_events=3,
            lost_in_gaps=9,
            reordered=1,
            duplicates=1,
            latency=latency,
            queue_depth=Histogram(edges=(0, 1, 64), counts=(900, 92), outside=0),
            intervals=IntervalCounts(1.0, (400, 400, 200), (400, 396, 196)),
            rate_course=(RateStep(0.0, 0.5, 1500.0, 1498.25, 1490.5, 0.375, 3),
                         RateStep(0.5, 0.5, 500.0)),
        ),
        StreamStats(7 + 1, 1518, 10, 0, 0, 0, 0, 0, 0),
    )
    return TrialResult(
        experiment="throughput",
        trial_index=12,
        offered_fraction=0.734375,
        offered_pps=10929.1234,
        duration_s=2.5,
        frame_size=64,
        streams=streams,
        started_at=1_700_000_000.123456,
        valid=False,
        error="switch read failed: 'UNAVAILABLE'",
        labels=(("buffer_pct", "40"), ("dut", "bmv2 \u00e9")),
        self_check=SelfCheck((
            PortCheck(1, "p4lt1", 0, 1000, 0, 0, 0, 1000),
            PortCheck(2, "p4lt2", 992, 0, 0, 0, 818, 0),
        )),
        dut_check=SelfCheck((PortCheck(1, "p4ld1", 1000, 0, 0, 0, 1000, 0),)),
        host_load=HostLoad(load_1m=3.25, cpus=2, steal_fraction=None),
        rx_foreign=7,
        rx_stale=4,
        rx_mismatched=60,
        offered_pps_measured=10911.75,
        max_burst_frames=37,
        dut_buffering_us=9250.5,
        late_frames=12,
        reference=REFERENCE,
    )


def round_trip(trial: TrialResult) -> TrialResult:
    text = json.dumps(trial_to_dict(trial), allow_nan=False)  # strict JSON
    return trial_from_dict(json.loads(text))


def test_round_trip_is_exact() -> None:
    trial = full_trial()
    assert round_trip(trial) == trial
    assert round_trip(TrialResult("x", 0, 0.5, 100.0, 1.0, 64)) == TrialResult(
        "x", 0, 0.5, 100.0, 1.0, 64
    )


def test_an_overdriven_self_check_round_trips_and_older_files_load_without_it() -> None:
    overdriven = dataclasses.replace(full_trial(), self_check=SelfCheck(
        (PortCheck(1, "p4lt1", 0, 1000, 0, 0, 0, 1000),),
        unvouched="stream 0 sent 141 frames beyond its 20208 frames/s", overdriven=True))
    assert as_json(overdriven)["self_check"]["overdriven"] is True
    assert round_trip(overdriven) == overdriven
    assert "overdriven" not in as_json(full_trial())["self_check"]
    assert round_trip(full_trial()).self_check.overdriven is False


def test_a_port_feeding_a_duts_input_round_trips_and_older_files_load_without_it() -> None:
    fed = dataclasses.replace(full_trial(), self_check=SelfCheck(
        (PortCheck(1, "p4lt1", 0, 213_797, 0, 9417, 0, 223_214, feeds_dut=True),)))
    assert as_json(fed)["self_check"]["ports"][0]["feeds_dut"] is True
    assert as_json(fed)["self_check"]["tx_dropped"] == 0
    assert round_trip(fed) == fed
    assert "feeds_dut" not in as_json(full_trial())["self_check"]["ports"][0]
    assert round_trip(full_trial()).self_check.ports[0].feeds_dut is False


def as_json(trial: TrialResult) -> Any:
    """The dict as a JSON reader sees it (Any: tests index into it freely)."""
    return json.loads(json.dumps(trial_to_dict(trial)))


def test_non_finite_floats_are_strict_json_strings() -> None:
    latency = as_json(full_trial())["streams"][0]["latency"]
    assert latency["max_us"] == "inf"
    nan_trial = dataclasses.replace(full_trial(), offered_pps=math.nan)
    assert math.isnan(round_trip(nan_trial).offered_pps)


def test_dict_shape() -> None:
    data = as_json(full_trial())
    assert next(iter(data)) == "schema_version"
    assert data["schema_version"] == SCHEMA_VERSION == 13
    assert (data["rx_foreign"], data["rx_stale"], data["rx_mismatched"]) == (7, 4, 60)
    assert data["labels"] == [["buffer_pct", "40"], ["dut", "bmv2 \u00e9"]]
    assert data["streams"][1]["latency"] is None
    # The verdict and drop totals are written for readers of the file.
    assert {k: v for k, v in data["self_check"].items() if k != "ports"} == {
        "ok": False, "rx_dropped": 174, "tx_dropped": 0}
    assert data["self_check"]["ports"][1] == {
        "port": 2, "interface": "p4lt2", "interface_rx": 992, "interface_tx": 0,
        "interface_rx_dropped": 0, "interface_tx_dropped": 0, "program_rx": 818,
        "program_tx": 0}
    assert data["host_load"] == {"load_1m": 3.25, "cpus": 2, "steal_fraction": None}
    assert data["reference"] == {"stream_id": 63, "tx_frames": 250, "rx_frames": 249,
                                 "min_us": 18.0, "avg_us": 41.25, "max_us": 2250.0,
                                 "spiked": True}
    # Worst first: stream 8 lost all its 10 frames, stream 7 only 8 of 1000.
    assert data["losing_streams"] == [{"stream_id": 8, "lost": 10}, {"stream_id": 7, "lost": 8}]
    assert data["streams"][0]["rate_course"][1] == {
        "start_s": 0.5, "duration_s": 0.5, "intended_pps": 500.0, "sent_pps": None,
        "received_pps": None, "measured_s": 0.0, "max_burst_frames": 0}
    assert data["streams"][1]["rate_course"] == []
    latency = data["streams"][0]["latency"]
    assert (latency["p99_us"], latency["p999_us"]) == (7.75, 16.0)
    assert (latency["beyond_histogram"], latency["lower_bounds"]) == (2, ["p999_us"])


# 100 samples: 30 in the bins, 70 at or above the last edge, 5000 us, up to 9000 us.
MEDIAN_BEYOND = latency_stats(100, 200.0, 9000.0, 500_000.0, 990.0,
                              Histogram(edges=(0, 1000, 5000), counts=(10, 20), outside=70))


def test_a_median_beyond_the_last_edge_round_trips_as_a_lower_bound() -> None:
    trial = dataclasses.replace(full_trial(), streams=(dataclasses.replace(
        full_trial().streams[0], latency=MEDIAN_BEYOND),))
    latency = as_json(trial)["streams"][0]["latency"]
    assert (latency["p50_us"], latency["p99_us"], latency["p999_us"]) == (5000.0,) * 3
    assert latency["beyond_histogram"] == 70
    assert latency["lower_bounds"] == ["p50_us", "p99_us", "p999_us"]
    loaded = round_trip(trial).streams[0].latency
    assert loaded == MEDIAN_BEYOND
    assert loaded is not None and loaded.is_lower_bound(P50)


def test_a_version_9_record_loads_its_beyond_percentiles_as_lower_bounds() -> None:
    """Before version 10 a percentile beyond the last edge was written as null: it
    loads as the lower bound a version 10 record holds."""
    data = _mutated(("schema_version",), 9)
    latency = data["streams"][0]["latency"]
    assert "lower_bounds" not in latency and "beyond_histogram" not in latency
    latency["p999_us"] = None
    assert trial_from_dict(data) == full_trial()  # p999_us 16.0, flagged
    data["streams"][0]["latency"]["beyond_histogram"] = 2
    with pytest.raises(SerializeError, match=r"^trial\.streams\[0\]\.latency: unknown "
                                             r"beyond_histogram \(schema version 9"):
        trial_from_dict(data)


def test_lower_bound_keys_must_agree_with_the_histogram() -> None:
    with pytest.raises(SerializeError, match=r"^trial\.streams\[0\]\.latency\.lower_bounds: "
                                             r"\['p99_us', 'p999_us'\], but the histogram makes "
                                             r"\['p999_us'\] lower bounds$"):
        trial_from_dict(_mutated(("streams", 0, "latency", "lower_bounds"),
                                 ["p99_us", "p999_us"]))
    with pytest.raises(SerializeError, match=r"latency\.beyond_histogram: 3, but the histogram "
                                             r"has 2 samples beyond its last edge$"):
        trial_from_dict(_mutated(("streams", 0, "latency", "beyond_histogram"), 3))
    with pytest.raises(SerializeError, match=r"latency\.lower_bounds\[0\]: expected a string"):
        trial_from_dict(_mutated(("streams", 0, "latency", "lower_bounds"), [1]))
    data = as_json(full_trial())
    del data["streams"][0]["latency"]["lower_bounds"]
    with pytest.raises(SerializeError, match=r"latency: missing lower_bounds"):
        trial_from_dict(data)


def test_version_1_records_load_without_checks() -> None:
    """Logs written before the self-check (issue 10) still resume and report."""
    data = _mutated(("schema_version",), 1)
    for key in ("self_check", "dut_check", "host_load", "rx_stale", "rx_mismatched",
                "losing_streams", *V5_KEYS):
        del data[key]
    loaded = trial_from_dict(data)
    assert loaded == dataclasses.replace(before_intervals(full_trial()), self_check=None,
                                         dut_check=None, host_load=None, rx_stale=0,
                                         rx_mismatched=0, **UNMEASURED)
    data["self_check"] = None
    with pytest.raises(SerializeError, match=r"^trial: unknown self_check \(schema version 1"):
        trial_from_dict(data)


def test_version_2_records_load_with_no_stale_or_mismatched_frames() -> None:
    """Logs written before the checker told stale and look-alike frames apart."""
    data = _mutated(("schema_version",), 2)
    del data["rx_stale"], data["rx_mismatched"], data["losing_streams"]
    for key in V5_KEYS:
        del data[key]
    assert trial_from_dict(data) == dataclasses.replace(before_intervals(full_trial()), rx_stale=0,
                                                        rx_mismatched=0, **UNMEASURED)
    data["rx_stale"] = 4
    with pytest.raises(SerializeError, match=r"^trial: unknown rx_stale \(schema version 2"):
        trial_from_dict(data)


def test_version_3_records_load_without_losing_streams() -> None:
    """Logs written before losing_streams (issue 21) load: it is derived from the streams."""
    data = _mutated(("schema_version",), 3)
    del data["losing_streams"]
    for key in V5_KEYS:
        del data[key]
    loaded = trial_from_dict(data)
    assert loaded == dataclasses.replace(before_intervals(full_trial()), **UNMEASURED)
    assert loaded.losing_streams == (StreamLoss(8, 10), StreamLoss(7, 8))
    data["losing_streams"] = []
    with pytest.raises(SerializeError, match=r"^trial: unknown losing_streams \(schema version 3"):
        trial_from_dict(data)


def test_version_4_records_load_without_the_offered_load_proof() -> None:
    """Logs written before trials measured what they offered (issue 21) load with
    offered_pps_measured and max_burst_frames None; a version 4 record with them is
    not version 4."""
    data = _mutated(("schema_version",), 4)
    for key in V5_KEYS:
        del data[key]
    assert trial_from_dict(data) == dataclasses.replace(before_intervals(full_trial()),
                                                        **UNMEASURED)
    data["max_burst_frames"] = 3
    with pytest.raises(SerializeError,
                       match=r"^trial: unknown max_burst_frames \(schema version 4"):
        trial_from_dict(data)


def test_version_5_records_load_without_a_reference_stream() -> None:
    """Logs written before latency trials ran a reference stream (issue 21.7)."""
    data = _mutated(("schema_version",), 5)
    del data["reference"]
    assert trial_from_dict(data) == dataclasses.replace(before_intervals(full_trial()),
                                                        reference=None)
    data["reference"] = None
    with pytest.raises(SerializeError, match=r"^trial: unknown reference \(schema version 5"):
        trial_from_dict(data)


def test_version_6_records_load_without_intervals() -> None:
    """Logs written before streams carried their interval counts (Y.1564 availability)."""
    data = _mutated(("schema_version",), 6)
    assert trial_from_dict(data) == before_intervals(full_trial())
    data["streams"][0]["intervals"] = None
    with pytest.raises(SerializeError,
                       match=r"^trial\.streams\[0\]: unknown intervals \(schema version 6"):
        trial_from_dict(data)


def test_version_7_records_load_without_rate_courses() -> None:
    """Logs written before shaped streams carried their steps (issue 24)."""
    data = _mutated(("schema_version",), 7)
    assert trial_from_dict(data) == before_rate_courses(full_trial())
    data["streams"][0]["rate_course"] = []
    with pytest.raises(SerializeError,
                       match=r"^trial\.streams\[0\]: unknown rate_course \(schema version 7"):
        trial_from_dict(data)


def test_version_8_records_load_without_receivers() -> None:
    """Logs written before streams were received on several ports (issue 24, item 1)."""
    data = _mutated(("schema_version",), 8)
    assert trial_from_dict(data) == full_trial()
    data["streams"][0]["receivers"] = []
    with pytest.raises(SerializeError,
                       match=r"^trial\.streams\[0\]: unknown receivers\b"):
        trial_from_dict(data)


def test_the_wait_for_the_dut_to_drain_round_trips() -> None:
    """Version 11: how the trial waited before it started (results.settle)."""
    waited = dataclasses.replace(full_trial(), settle=SettleRecord(12.25, 2700, 0.5, False))
    data = as_json(waited)
    assert data["settle"] == {"waited_s": 12.25, "frames": 2700, "quiet_s": 0.5,
                              "drained": False}
    assert round_trip(waited) == waited
    data["settle"]["frames"] = -1
    with pytest.raises(SerializeError, match=r"^trial\.settle: a settle's wait 12\.25 s, quiet "
                                             r"time 0\.5 s and frames -1 must not be negative$"):
        trial_from_dict(data)
    older = _mutated(("schema_version",), 10)
    assert "settle" not in older and trial_from_dict(older) == full_trial()
    older["settle"] = None
    with pytest.raises(SerializeError, match=r"^trial: unknown settle \(schema version 10"):
        trial_from_dict(older)


def several_port_trial(replicated: bool) -> TrialResult:
    """A trial whose stream 3 came back on ports 2 and 5, with figures per port."""
    port_latency = LatencyStats(samples=40, min_us=11.0, max_us=90.5, avg_us=30.25,
                                jitter_us=2.5, histogram=Histogram((0, 50, 100), (30, 10)))
    receivers = (ReceiverStats(2, 40, 40 * 128, 1, 2, 0, 1, port_latency,
                               Histogram((0, 1, 64), (38, 2))),
                 ReceiverStats(5, 38, 38 * 128))
    stream = StreamStats(3, 128, 42, 78, 78 * 128, 0, 0, 0, 0, receivers=receivers,
                         replicated=replicated)
    return dataclasses.replace(full_trial(), streams=(stream,))


@pytest.mark.parametrize("replicated", [True, False])
def test_receivers_round_trip_exactly(replicated: bool) -> None:
    trial = several_port_trial(replicated)
    assert round_trip(trial) == trial
    data = as_json(trial)["streams"][0]
    assert data["replicated"] is replicated
    assert [r["port"] for r in data["receivers"]] == [2, 5]
    assert data["receivers"][1] == {
        "port": 5, "rx_frames": 38, "rx_bytes": 4864, "gap_events": 0, "lost_in_gaps": 0,
        "reordered": 0, "duplicates": 0, "latency": None, "queue_depth": None}


def test_receivers_are_checked_on_load() -> None:
    data = as_json(several_port_trial(True))
    data["streams"][0]["receivers"][1]["rx_frames"] = "many"
    with pytest.raises(SerializeError, match=r"^trial\.streams\[0\]\.receivers\[1\]\."
                                             r"rx_frames: expected an integer"):
        trial_from_dict(data)


def test_rate_steps_are_checked_on_load() -> None:
    data = _mutated(("streams", 0, "rate_course", 0, "sent_pps"), "fast")
    with pytest.raises(SerializeError, match=r"^trial\.streams\[0\]\.rate_course\[0\]\.sent_pps: "
                                             r"expected a number"):
        trial_from_dict(data)


def test_interval_counts_are_checked_on_load() -> None:
    data = _mutated(("streams", 0, "intervals", "received"), [400, 396])
    with pytest.raises(SerializeError, match=r"^trial\.streams\[0\]\.intervals: interval "
                                             r"counts: 3 sent against 2 received intervals$"):
        trial_from_dict(data)
    data = _mutated(("streams", 0, "intervals", "sent", 1), "x")
    with pytest.raises(SerializeError,
                       match=r"^trial\.streams\[0\]\.intervals\.sent\[1\]: expected an integer"):
        trial_from_dict(data)


def test_reference_stream_is_checked_on_load() -> None:
    with pytest.raises(SerializeError, match=r"^trial\.reference\.spiked: expected true or "):
        trial_from_dict(_mutated(("reference", "spiked"), 1))
    with pytest.raises(SerializeError, match=r"^trial\.reference: reference stream: 251 frames "
                                             r"received of 250 sent$"):
        trial_from_dict(_mutated(("reference", "rx_frames"), 251))
    with pytest.raises(SerializeError, match=r"^trial\.reference: missing max_us"):
        data = as_json(full_trial())
        del data["reference"]["max_us"]
        trial_from_dict(data)


def test_unmeasured_offered_load_round_trips_as_null() -> None:
    trial = dataclasses.replace(full_trial(), **UNMEASURED)
    data = as_json(trial)
    assert (data["offered_pps_measured"], data["max_burst_frames"]) == (None, None)
    assert round_trip(trial) == trial
    assert (as_json(full_trial())["offered_pps_measured"],
            as_json(full_trial())["max_burst_frames"]) == (10911.75, 37)


def test_losing_streams_are_derived_not_read() -> None:
    """The figures come from the streams; the written list is for readers of the file,
    and a record without it loads the same."""
    data = _mutated(("losing_streams",), [])
    assert trial_from_dict(data).losing_streams == (StreamLoss(8, 10), StreamLoss(7, 8))
    del data["losing_streams"]
    assert trial_from_dict(data) == full_trial()


def test_every_model_field_is_written() -> None:
    """Fails when a field is added to the model but not to the serializer."""
    data = as_json(full_trial())
    stream = data["streams"][0]
    pairs: list[tuple[type[Any], Any]] = [
        (TrialResult, data),
        (StreamStats, stream),
        (LatencyStats, stream["latency"]),
        (Histogram, stream["latency"]["histogram"]),
        (IntervalCounts, stream["intervals"]),
    ]
    for cls, written in pairs:
        expected = {f.name for f in dataclasses.fields(cls)}
        if cls is TrialResult:
            expected |= {"schema_version", "losing_streams"}  # the latter derived
        assert set(written) == expected, cls.__name__


def before_intervals(trial: TrialResult) -> TrialResult:
    """The trial as a record from before version 7 loads: no stream has intervals (nor
    a rate course)."""
    return dataclasses.replace(trial, streams=tuple(
        dataclasses.replace(stream, intervals=None, rate_course=()) for stream in trial.streams))


def before_rate_courses(trial: TrialResult) -> TrialResult:
    """The trial as a record from before version 8 loads: no stream has a rate course."""
    return dataclasses.replace(trial, streams=tuple(
        dataclasses.replace(stream, rate_course=()) for stream in trial.streams))


def _mutated(path: tuple[str | int, ...], value: Any) -> dict[str, Any]:
    """full_trial's record with one value changed; an older schema version's record
    also without what that version did not have in its streams (intervals) and their
    latency (lower_bounds)."""
    data: dict[str, Any] = as_json(full_trial())
    if path == ("schema_version",) and isinstance(value, int) and value < 12:
        del data["clocks"]
    if path == ("schema_version",) and isinstance(value, int) and value < 11:
        del data["settle"]
    if path == ("schema_version",) and isinstance(value, int) and value < 10:
        for stream in data["streams"]:
            if stream["latency"] is not None:
                del stream["latency"]["beyond_histogram"], stream["latency"]["lower_bounds"]
            if value < 9:
                del stream["receivers"], stream["replicated"]
            if value < 8:
                del stream["rate_course"]
            if value < 7:
                del stream["intervals"]
    target: Any = data
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    return data


def test_unknown_version_is_rejected() -> None:
    with pytest.raises(SerializeError) as caught:
        trial_from_dict(_mutated(("schema_version",), 14))
    assert str(caught.value) == (
        "trial: unknown schema version 14; this p4tester reads versions 1, 2, 3, 4, 5, 6, 7, 8, "
        "9, 10, 11, 12, 13 (written by a newer p4tester: upgrade p4tester to read it)"
    )
    with pytest.raises(SerializeError, match=r"unknown schema version '1'"):
        trial_from_dict(_mutated(("schema_version",), "1"))
    data = _mutated(("schema_version",), 1)
    del data["schema_version"]
    with pytest.raises(SerializeError, match=r"no 'schema_version' key"):
        trial_from_dict(data)


def test_errors_name_the_exact_place() -> None:
    with pytest.raises(
        SerializeError, match=r"^trial\.streams\[0\]\.latency\.min_us: expected a number, got 'x'$"
    ):
        trial_from_dict(_mutated(("streams", 0, "latency", "min_us"), "x"))
    with pytest.raises(
        SerializeError, match=r"trial\.streams\[1\]\.tx_frames: expected an integer"
    ):
        trial_from_dict(_mutated(("streams", 1, "tx_frames"), True))
    with pytest.raises(SerializeError, match=r"trial\.labels\[0\]: expected a \[name, value\]"):
        trial_from_dict(_mutated(("labels", 0), ["only-one"]))
    with pytest.raises(
        SerializeError,
        match=r"trial\.streams\[0\]\.latency\.histogram: histogram: 4 bins need 5 edges",
    ):
        trial_from_dict(_mutated(("streams", 0, "latency", "histogram", "edges"), [0, 1]))


def test_unknown_and_missing_keys_are_rejected() -> None:
    data = _mutated(("colour",), "blue")
    with pytest.raises(SerializeError, match=r"^trial: unknown colour \(schema version 13 has"):
        trial_from_dict(data)
    data = _mutated(("streams", 0, "latency"), {"samples": 1})
    with pytest.raises(SerializeError, match=r"latency: missing min_us, max_us"):
        trial_from_dict(data)


def test_not_an_object() -> None:
    with pytest.raises(SerializeError, match=r"trial: expected an object, got \[1, 2\]"):
        trial_from_dict([1, 2])
