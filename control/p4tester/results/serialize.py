"""TrialResult <-> JSON-compatible dict, exactly and with a schema version.

The dict uses the model's field names as keys, lists for tuples and null for None.
Non-finite floats (an infinite latency bound, say) become the strings "inf", "-inf",
"nan", so the output stays strict JSON that any tool (jq, pandas) reads. Loading checks
every key and type and names the exact place of a problem, e.g.
`trial.streams[2].latency.min_us: expected a number, got 'x'`.

Bump SCHEMA_VERSION when a field changes meaning or is added/removed; the loader
refuses other versions rather than guess. Version 1 records (before the self-check,
issue 10) still load: their trials have no self_check, dut_check or host_load.
Version 2 records (before the checker told a stream's frames from stale and look-alike
ones) load with rx_stale and rx_mismatched 0. Version 4 added losing_streams, derived
from the streams (issue 21: loss is judged per stream) and written for readers of the
file: optional on read and ignored (the streams say it), so version 3 records load
exactly as before. Version 5 added offered_pps_measured and max_burst_frames (what the
generator proved it offered, issue 21), dut_buffering_us (a trial through which
the DUT's buffer filled) and late_frames; older records load with all four None.
Version 6 added reference (the tester's own latency from its reference stream, null
when the trial ran none); older records load with it None. Version 7 added a stream's
intervals (frames sent and received per interval of the trial, for availability; null
where the target took no samples); older records load with them None. Version 8
added a stream's rate_course (the steps of a shaped stream, intended and measured
rates; [] for a constant rate); older records load with it empty. Version 9 added
a stream's receivers (its figures per RX port, for a stream received on several
ports; [] otherwise) and replicated (each port due every frame); older records load
with none and false. Version 10 gives a latency percentile whose rank lies beyond the
histogram's last edge as that edge, a lower bound (results.latency), where older
versions wrote null; a latency object says so in two keys, LatencyStats fields derived
from its histogram: beyond_histogram (samples at or above the last edge) and
lower_bounds (the names of the percentile keys holding lower bounds). The loader
checks they agree with the histogram. Older records load with those percentiles
filled in as lower bounds, as a version 10 record of the trial would hold them.
Version 11 added settle (how the trial waited for the DUT to drain before it started,
results.settle; null when it did not); older records load with it None.
Version 12 added clocks (the offsets between several testers' clocks in the trial,
results.clocks; [] with one tester); older records load with none. Version 13 added
each clock's a_ptp and b_ptp (what PTP said on each tester's host, null when not
read); version 12 clocks load with them None.
"""

from __future__ import annotations

import math
from typing import Final, TypeAlias

from p4tester.results.checks import HostLoad, PortCheck, SelfCheck
from p4tester.results.clocks import ClockRecord, PtpState
from p4tester.results.latency import with_lower_bounds
from p4tester.results.model import (
    Histogram,
    IntervalCounts,
    LatencyStats,
    RateStep,
    ReceiverStats,
    StreamStats,
    TrialResult,
)
from p4tester.results.reference import ReferenceLatency
from p4tester.results.settle import SettleRecord

SCHEMA_VERSION: Final = 13
# Versions the loader reads; what a version lacks is None in the TrialResult.
READABLE_VERSIONS: Final = (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13)
_V1_KEYS: Final = (
    "schema_version",
    "experiment",
    "trial_index",
    "offered_fraction",
    "offered_pps",
    "duration_s",
    "frame_size",
    "streams",
    "started_at",
    "valid",
    "error",
    "rx_foreign",
    "labels",
)
_V2_KEYS: Final = (*_V1_KEYS, "self_check", "dut_check", "host_load")
_V3_KEYS: Final = (*_V2_KEYS, "rx_stale", "rx_mismatched")
_V5_KEYS: Final = (*_V3_KEYS, "offered_pps_measured", "max_burst_frames", "dut_buffering_us",
                   "late_frames")
_V6_KEYS: Final = (*_V5_KEYS, "reference")
_V11_KEYS: Final = (*_V6_KEYS, "settle")
_V12_KEYS: Final = (*_V11_KEYS, "clocks")
_KEYS_OF_VERSION: Final = {1: _V1_KEYS, 2: _V2_KEYS, 3: _V3_KEYS, 4: _V3_KEYS, 5: _V5_KEYS,
                           6: _V6_KEYS, 7: _V6_KEYS, 8: _V6_KEYS, 9: _V6_KEYS, 10: _V6_KEYS,
                           11: _V11_KEYS, 12: _V12_KEYS, 13: _V12_KEYS}
_SETTLE_KEYS: Final = ("waited_s", "frames", "quiet_s", "drained")
_V12_CLOCK_KEYS: Final = ("a", "b", "offset_us", "end_offset_us", "uncertainty_us",
                          "drift_ppm", "exchanges", "start_skew_ms", "jump", "a_to_b", "b_to_a")
_CLOCK_KEYS: Final = (*_V12_CLOCK_KEYS, "a_ptp", "b_ptp")
_PTP_KEYS: Final = ("answered", "port_state", "master_offset_ns", "gm_present", "gm_identity",
                    "why")
_STREAM_KEYS: Final = ("stream_id", "frame_size", "tx_frames", "rx_frames", "rx_bytes",
                       "gap_events", "lost_in_gaps", "reordered", "duplicates", "latency",
                       "queue_depth")
_INTERVALS_SINCE: Final = 7
_INTERVAL_KEYS: Final = ("interval_s", "sent", "received")
_RATE_COURSE_SINCE: Final = 8
_RECEIVERS_SINCE: Final = 9
_LATENCY_KEYS: Final = ("samples", "min_us", "max_us", "avg_us", "jitter_us", "p50_us",
                        "p99_us", "p999_us", "histogram")
# Derived from the histogram, written for readers of the file (jq) from this version on.
_LOWER_BOUNDS_SINCE: Final = 10
_LOWER_BOUND_KEYS: Final = ("beyond_histogram", "lower_bounds")
_RECEIVER_KEYS: Final = ("port", "rx_frames", "rx_bytes", "gap_events", "lost_in_gaps",
                         "reordered", "duplicates", "latency", "queue_depth")
_RATE_STEP_KEYS: Final = ("start_s", "duration_s", "intended_pps", "sent_pps", "received_pps",
                          "measured_s", "max_burst_frames")
_REFERENCE_KEYS: Final = ("stream_id", "tx_frames", "rx_frames", "min_us", "avg_us", "max_us",
                          "spiked")
# Derived keys a record may carry from this version on; the loader does not need them.
_DERIVED_KEYS_SINCE: Final = {"losing_streams": 4}
_PORT_CHECK_KEYS: Final = (
    "port",
    "interface",
    "interface_rx",
    "interface_tx",
    "interface_rx_dropped",
    "interface_tx_dropped",
    "program_rx",
    "program_tx",
)
VERSION_KEY: Final = "schema_version"

JsonValue: TypeAlias = bool | int | float | str | list["JsonValue"] | dict[str, "JsonValue"] | None
JsonObject: TypeAlias = dict[str, JsonValue]

_NON_FINITE: Final = {"inf": math.inf, "-inf": -math.inf, "nan": math.nan}


class SerializeError(ValueError):
    """A dict that is not a trial record of this schema version."""


# ---- writing ---------------------------------------------------------------------------


def _float_out(value: float) -> float | str:
    value = float(value)
    if math.isfinite(value):
        return value
    return "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf")


def _opt_float_out(value: float | None) -> float | str | None:
    return None if value is None else _float_out(value)


def _histogram_out(histogram: Histogram | None) -> JsonObject | None:
    if histogram is None:
        return None
    return {
        "edges": list(histogram.edges),
        "counts": list(histogram.counts),
        "outside": histogram.outside,
    }


def _latency_out(latency: LatencyStats | None) -> JsonObject | None:
    if latency is None:
        return None
    return {
        "samples": latency.samples,
        "min_us": _float_out(latency.min_us),
        "max_us": _float_out(latency.max_us),
        "avg_us": _float_out(latency.avg_us),
        "jitter_us": _float_out(latency.jitter_us),
        "p50_us": _opt_float_out(latency.p50_us),
        "p99_us": _opt_float_out(latency.p99_us),
        "p999_us": _opt_float_out(latency.p999_us),
        "histogram": _histogram_out(latency.histogram),
        "beyond_histogram": latency.beyond_histogram,
        "lower_bounds": list(latency.lower_bounds),
    }


def _stream_out(stream: StreamStats) -> JsonObject:
    return {
        "stream_id": stream.stream_id,
        "frame_size": stream.frame_size,
        "tx_frames": stream.tx_frames,
        "rx_frames": stream.rx_frames,
        "rx_bytes": stream.rx_bytes,
        "gap_events": stream.gap_events,
        "lost_in_gaps": stream.lost_in_gaps,
        "reordered": stream.reordered,
        "duplicates": stream.duplicates,
        "latency": _latency_out(stream.latency),
        "queue_depth": _histogram_out(stream.queue_depth),
        "intervals": _intervals_out(stream.intervals),
        "rate_course": [_rate_step_out(step) for step in stream.rate_course],
        "receivers": [_receiver_out(receiver) for receiver in stream.receivers],
        "replicated": stream.replicated,
    }


def _receiver_out(receiver: ReceiverStats) -> JsonObject:
    return {
        "port": receiver.port,
        "rx_frames": receiver.rx_frames,
        "rx_bytes": receiver.rx_bytes,
        "gap_events": receiver.gap_events,
        "lost_in_gaps": receiver.lost_in_gaps,
        "reordered": receiver.reordered,
        "duplicates": receiver.duplicates,
        "latency": _latency_out(receiver.latency),
        "queue_depth": _histogram_out(receiver.queue_depth),
    }


def _rate_step_out(step: RateStep) -> JsonObject:
    return {"start_s": step.start_s, "duration_s": step.duration_s,
            "intended_pps": step.intended_pps, "sent_pps": _opt_float_out(step.sent_pps),
            "received_pps": _opt_float_out(step.received_pps),
            "measured_s": step.measured_s, "max_burst_frames": step.max_burst_frames}


def _intervals_out(intervals: IntervalCounts | None) -> JsonObject | None:
    if intervals is None:
        return None
    return {"interval_s": intervals.interval_s, "sent": list(intervals.sent),
            "received": list(intervals.received)}


def _self_check_out(check: SelfCheck | None) -> JsonObject | None:
    if check is None:
        return None
    ports: list[JsonValue] = [
        {
            "port": p.port,
            "interface": p.interface,
            "interface_rx": p.interface_rx,
            "interface_tx": p.interface_tx,
            "interface_rx_dropped": p.interface_rx_dropped,
            "interface_tx_dropped": p.interface_tx_dropped,
            "program_rx": p.program_rx,
            "program_tx": p.program_tx,
            # Only where it holds: files without it load as before (False).
            **({"feeds_dut": True} if p.feeds_dut else {}),
        }
        for p in check.ports
    ]
    # The verdict and drop figures are derived, written for readers of the file (jq).
    out: JsonObject = {"ok": check.ok, "rx_dropped": check.rx_dropped,
                       "tx_dropped": check.tx_dropped, "ports": ports}
    if check.unvouched:  # only then: files of every earlier version lack the key
        out["unvouched"] = check.unvouched
    if check.overdriven:  # likewise
        out["overdriven"] = True
    return out


def _host_load_out(load: HostLoad | None) -> JsonObject | None:
    if load is None:
        return None
    return {"load_1m": _float_out(load.load_1m), "cpus": load.cpus,
            "steal_fraction": _opt_float_out(load.steal_fraction)}


def _reference_out(reference: ReferenceLatency | None) -> JsonObject | None:
    if reference is None:
        return None
    return {"stream_id": reference.stream_id, "tx_frames": reference.tx_frames,
            "rx_frames": reference.rx_frames, "min_us": _float_out(reference.min_us),
            "avg_us": _float_out(reference.avg_us), "max_us": _float_out(reference.max_us),
            "spiked": reference.spiked}


def trial_to_dict(trial: TrialResult) -> JsonObject:
    """A JSON-compatible dict of the trial, with VERSION_KEY first."""
    return {
        VERSION_KEY: SCHEMA_VERSION,
        "experiment": trial.experiment,
        "trial_index": trial.trial_index,
        "offered_fraction": _float_out(trial.offered_fraction),
        "offered_pps": _float_out(trial.offered_pps),
        "duration_s": _float_out(trial.duration_s),
        "frame_size": trial.frame_size,
        "streams": [_stream_out(stream) for stream in trial.streams],
        "started_at": _float_out(trial.started_at),
        "valid": trial.valid,
        "error": trial.error,
        "rx_foreign": trial.rx_foreign,
        "labels": [[key, value] for key, value in trial.labels],
        "self_check": _self_check_out(trial.self_check),
        "dut_check": _self_check_out(trial.dut_check),
        "host_load": _host_load_out(trial.host_load),
        "rx_stale": trial.rx_stale,
        "rx_mismatched": trial.rx_mismatched,
        "offered_pps_measured": _opt_float_out(trial.offered_pps_measured),
        "max_burst_frames": trial.max_burst_frames,
        "dut_buffering_us": _opt_float_out(trial.dut_buffering_us),
        "late_frames": trial.late_frames,
        "reference": _reference_out(trial.reference),
        "settle": _settle_out(trial.settle),
        "clocks": [_clock_out(clock) for clock in trial.clocks],
        # Derived, for readers of the file (jq): which streams lost frames, worst first.
        "losing_streams": [{"stream_id": loss.stream_id, "lost": loss.lost}
                           for loss in trial.losing_streams],
    }


# ---- reading ---------------------------------------------------------------------------


class _Fields:
    """The keys of one JSON object, read with type checks; errors name the path."""

    __slots__ = ("_data", "_where")

    def __init__(self, value: object, where: str, keys: tuple[str, ...],
                 version: int = SCHEMA_VERSION) -> None:
        if not isinstance(value, dict):
            raise SerializeError(f"{where}: expected an object, got {_show(value)}")
        missing = [key for key in keys if key not in value]
        unknown = sorted(str(key) for key in value if key not in keys)
        problems: list[str] = []
        if missing:
            problems.append(f"missing {', '.join(missing)}")
        if unknown:
            problems.append(f"unknown {', '.join(unknown)}")
        if problems:
            raise SerializeError(
                f"{where}: {'; '.join(problems)} "
                f"(schema version {version} has exactly: {', '.join(keys)})"
            )
        self._data: dict[str, object] = value
        self._where = where

    def path(self, key: str) -> str:
        return f"{self._where}.{key}"

    def raw(self, key: str) -> object:
        return self._data[key]

    def integer(self, key: str) -> int:
        return _int(self._data[key], self.path(key))

    def number(self, key: str) -> float:
        return _float(self._data[key], self.path(key))

    def opt_number(self, key: str) -> float | None:
        value = self._data[key]
        return None if value is None else _float(value, self.path(key))

    def text(self, key: str) -> str:
        return _text(self._data[key], self.path(key))

    def opt_text(self, key: str) -> str | None:
        return None if self._data[key] is None else self.text(key)

    def flag(self, key: str) -> bool:
        value = self._data[key]
        if not isinstance(value, bool):
            raise SerializeError(f"{self.path(key)}: expected true or false, got {_show(value)}")
        return value

    def items(self, key: str) -> list[object]:
        return _list(self._data[key], self.path(key))

    def get(self, key: str) -> object:
        """The value of a key this version may lack (None then)."""
        return self._data.get(key)


def _show(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _int(value: object, where: str) -> int:
    # bool is an int in Python but never a count here.
    if isinstance(value, bool) or not isinstance(value, int):
        raise SerializeError(f"{where}: expected an integer, got {_show(value)}")
    return value


def _float(value: object, where: str) -> float:
    if isinstance(value, str) and value in _NON_FINITE:
        return _NON_FINITE[value]
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise SerializeError(f"{where}: expected a number, got {_show(value)}")
    return float(value)


def _text(value: object, where: str) -> str:
    if not isinstance(value, str):
        raise SerializeError(f"{where}: expected a string, got {_show(value)}")
    return value


def _list(value: object, where: str) -> list[object]:
    if not isinstance(value, list):
        raise SerializeError(f"{where}: expected a list, got {_show(value)}")
    return value


def _histogram_in(value: object, where: str) -> Histogram | None:
    if value is None:
        return None
    fields = _Fields(value, where, ("edges", "counts", "outside"))
    edges = fields.items("edges")
    counts = fields.items("counts")
    try:
        return Histogram(
            edges=tuple(_int(v, f"{where}.edges[{i}]") for i, v in enumerate(edges)),
            counts=tuple(_int(v, f"{where}.counts[{i}]") for i, v in enumerate(counts)),
            outside=fields.integer("outside"),
        )
    except SerializeError:
        raise
    except ValueError as error:
        raise SerializeError(f"{where}: {error}") from None


def _latency_in(value: object, where: str, version: int) -> LatencyStats | None:
    if value is None:
        return None
    with_bounds = version >= _LOWER_BOUNDS_SINCE
    fields = _Fields(value, where, (*_LATENCY_KEYS, *(_LOWER_BOUND_KEYS if with_bounds else ())),
                     version)
    stats = _latency_stats_in(fields)
    if not with_bounds:
        return with_lower_bounds(stats)  # null then meant "beyond the last edge"
    _check_lower_bounds(fields, stats)
    return stats


def _check_lower_bounds(fields: _Fields, stats: LatencyStats) -> None:
    """The derived keys must say what the histogram does: a file whose flags disagree
    with its counts was edited or is corrupt, and either may be the wrong one."""
    beyond = fields.integer("beyond_histogram")
    if beyond != stats.beyond_histogram:
        raise SerializeError(f"{fields.path('beyond_histogram')}: {beyond}, but the histogram "
                             f"has {stats.beyond_histogram} samples beyond its last edge")
    names = tuple(_text(v, f"{fields.path('lower_bounds')}[{i}]")
                  for i, v in enumerate(fields.items("lower_bounds")))
    if names != stats.lower_bounds:
        raise SerializeError(f"{fields.path('lower_bounds')}: {list(names)}, but the histogram "
                             f"makes {list(stats.lower_bounds)} lower bounds")


def _latency_stats_in(fields: _Fields) -> LatencyStats:
    return LatencyStats(
        samples=fields.integer("samples"),
        min_us=fields.number("min_us"),
        max_us=fields.number("max_us"),
        avg_us=fields.number("avg_us"),
        jitter_us=fields.number("jitter_us"),
        p50_us=fields.opt_number("p50_us"),
        p99_us=fields.opt_number("p99_us"),
        p999_us=fields.opt_number("p999_us"),
        histogram=_histogram_in(fields.raw("histogram"), fields.path("histogram")),
    )


def _stream_in(value: object, where: str, version: int = SCHEMA_VERSION) -> StreamStats:
    with_intervals = version >= _INTERVALS_SINCE
    with_course = version >= _RATE_COURSE_SINCE
    with_receivers = version >= _RECEIVERS_SINCE
    keys = (*_STREAM_KEYS, *(("intervals",) if with_intervals else ()),
            *(("rate_course",) if with_course else ()),
            *(("receivers", "replicated") if with_receivers else ()))
    fields = _Fields(value, where, keys, version)
    return StreamStats(
        stream_id=fields.integer("stream_id"),
        frame_size=fields.integer("frame_size"),
        tx_frames=fields.integer("tx_frames"),
        rx_frames=fields.integer("rx_frames"),
        rx_bytes=fields.integer("rx_bytes"),
        gap_events=fields.integer("gap_events"),
        lost_in_gaps=fields.integer("lost_in_gaps"),
        reordered=fields.integer("reordered"),
        duplicates=fields.integer("duplicates"),
        latency=_latency_in(fields.raw("latency"), fields.path("latency"), version),
        queue_depth=_histogram_in(fields.raw("queue_depth"), fields.path("queue_depth")),
        intervals=(_intervals_in(fields.raw("intervals"), fields.path("intervals"))
                   if with_intervals else None),
        rate_course=tuple(_rate_step_in(step, f"{fields.path('rate_course')}[{i}]")
                          for i, step in enumerate(fields.items("rate_course")))
        if with_course else (),
        receivers=tuple(_receiver_in(receiver, f"{fields.path('receivers')}[{i}]", version)
                        for i, receiver in enumerate(fields.items("receivers")))
        if with_receivers else (),
        replicated=fields.flag("replicated") if with_receivers else False,
    )


def _receiver_in(value: object, where: str, version: int) -> ReceiverStats:
    fields = _Fields(value, where, _RECEIVER_KEYS, version)
    return ReceiverStats(
        port=fields.integer("port"),
        rx_frames=fields.integer("rx_frames"),
        rx_bytes=fields.integer("rx_bytes"),
        gap_events=fields.integer("gap_events"),
        lost_in_gaps=fields.integer("lost_in_gaps"),
        reordered=fields.integer("reordered"),
        duplicates=fields.integer("duplicates"),
        latency=_latency_in(fields.raw("latency"), fields.path("latency"), version),
        queue_depth=_histogram_in(fields.raw("queue_depth"), fields.path("queue_depth")),
    )


def _rate_step_in(value: object, where: str) -> RateStep:
    fields = _Fields(value, where, _RATE_STEP_KEYS)
    return RateStep(fields.number("start_s"), fields.number("duration_s"),
                    fields.number("intended_pps"), fields.opt_number("sent_pps"),
                    fields.opt_number("received_pps"), fields.number("measured_s"),
                    fields.integer("max_burst_frames"))


def _intervals_in(value: object, where: str) -> IntervalCounts | None:
    if value is None:
        return None
    fields = _Fields(value, where, _INTERVAL_KEYS)
    sent = tuple(_int(v, f"{where}.sent[{i}]") for i, v in enumerate(fields.items("sent")))
    received = tuple(_int(v, f"{where}.received[{i}]")
                     for i, v in enumerate(fields.items("received")))
    try:
        return IntervalCounts(fields.number("interval_s"), sent, received)
    except ValueError as exc:  # counts of unequal lengths
        raise SerializeError(f"{where}: {exc}") from exc


def _self_check_in(value: object, where: str) -> SelfCheck | None:
    if value is None:
        return None
    keys: tuple[str, ...] = ("ok", "rx_dropped", "tx_dropped", "ports")
    if isinstance(value, dict):
        keys = (*keys, *(key for key in ("unvouched", "overdriven") if key in value))
    fields = _Fields(value, where, keys)
    ports = []
    for i, item in enumerate(fields.items("ports")):
        # feeds_dut: written since the DUT's input drops were told apart (older: False).
        port_keys = (*_PORT_CHECK_KEYS,
                     *(("feeds_dut",) if isinstance(item, dict) and "feeds_dut" in item else ()))
        port = _Fields(item, f"{where}.ports[{i}]", port_keys)
        ports.append(PortCheck(
            port=port.integer("port"),
            interface=port.text("interface"),
            interface_rx=port.integer("interface_rx"),
            interface_tx=port.integer("interface_tx"),
            interface_rx_dropped=port.integer("interface_rx_dropped"),
            interface_tx_dropped=port.integer("interface_tx_dropped"),
            program_rx=port.integer("program_rx"),
            program_tx=port.integer("program_tx"),
            feeds_dut=port.flag("feeds_dut") if "feeds_dut" in port_keys else False,
        ))
    unvouched = fields.text("unvouched") if "unvouched" in keys else ""
    overdriven = fields.flag("overdriven") if "overdriven" in keys else False
    return SelfCheck(tuple(ports), unvouched=unvouched, overdriven=overdriven)


def _host_load_in(value: object, where: str) -> HostLoad | None:
    if value is None:
        return None
    fields = _Fields(value, where, ("load_1m", "cpus", "steal_fraction"))
    return HostLoad(load_1m=fields.number("load_1m"), cpus=fields.integer("cpus"),
                    steal_fraction=fields.opt_number("steal_fraction"))


def _label_in(value: object, where: str) -> tuple[str, str]:
    pair = _list(value, where)
    if len(pair) != 2 or not all(isinstance(part, str) for part in pair):
        raise SerializeError(
            f"{where}: expected a [name, value] pair of strings, got {_show(value)}"
        )
    return str(pair[0]), str(pair[1])


def check_schema_version(data: object, where: str = "trial") -> None:
    """Raise SerializeError unless `data` is an object of this SCHEMA_VERSION."""
    if not isinstance(data, dict):
        raise SerializeError(f"{where}: expected an object, got {_show(data)}")
    if VERSION_KEY not in data:
        raise SerializeError(
            f"{where}: no {VERSION_KEY!r} key: this is not a p4tester trial record"
        )
    version = data[VERSION_KEY]
    if isinstance(version, bool) or version not in READABLE_VERSIONS:
        newer = isinstance(version, int) and version > SCHEMA_VERSION
        hint = (
            "written by a newer p4tester: upgrade p4tester to read it"
            if newer
            else "convert the file or read it with the p4tester version that wrote it"
        )
        raise SerializeError(
            f"{where}: unknown schema version {_show(version)}; this p4tester reads "
            f"versions {', '.join(map(str, READABLE_VERSIONS))} ({hint})"
        )


def trial_from_dict(data: object, where: str = "trial") -> TrialResult:
    """The TrialResult that trial_to_dict wrote; SerializeError names what is wrong."""
    check_schema_version(data, where)
    assert isinstance(data, dict)  # checked above
    version = data[VERSION_KEY]
    derived = tuple(key for key, since in _DERIVED_KEYS_SINCE.items()
                    if version >= since and key in data)
    fields = _Fields(data, where, (*_KEYS_OF_VERSION[version], *derived), version)
    streams = fields.items("streams")
    labels = fields.items("labels")
    return TrialResult(
        experiment=fields.text("experiment"),
        trial_index=fields.integer("trial_index"),
        offered_fraction=fields.number("offered_fraction"),
        offered_pps=fields.number("offered_pps"),
        duration_s=fields.number("duration_s"),
        frame_size=fields.integer("frame_size"),
        streams=tuple(
            _stream_in(value, f"{where}.streams[{i}]", version)
            for i, value in enumerate(streams)
        ),
        started_at=fields.number("started_at"),
        valid=fields.flag("valid"),
        error=fields.opt_text("error"),
        rx_foreign=fields.integer("rx_foreign"),
        labels=tuple(_label_in(value, f"{where}.labels[{i}]") for i, value in enumerate(labels)),
        self_check=_self_check_in(fields.get("self_check"), fields.path("self_check")),
        dut_check=_self_check_in(fields.get("dut_check"), fields.path("dut_check")),
        host_load=_host_load_in(fields.get("host_load"), fields.path("host_load")),
        rx_stale=fields.integer("rx_stale") if version >= 3 else 0,
        rx_mismatched=fields.integer("rx_mismatched") if version >= 3 else 0,
        offered_pps_measured=fields.opt_number("offered_pps_measured") if version >= 5 else None,
        max_burst_frames=(None if version < 5 or fields.get("max_burst_frames") is None
                          else fields.integer("max_burst_frames")),
        dut_buffering_us=fields.opt_number("dut_buffering_us") if version >= 5 else None,
        late_frames=(None if version < 5 or fields.get("late_frames") is None
                     else fields.integer("late_frames")),
        reference=_reference_in(fields.get("reference"), fields.path("reference")),
        settle=_settle_in(fields.get("settle"), fields.path("settle")) if version >= 11
        else None,
        clocks=tuple(_clock_in(value, f"{where}.clocks[{i}]", version)
                     for i, value in enumerate(fields.items("clocks"))) if version >= 12
        else (),
    )


def _clock_out(clock: ClockRecord) -> JsonObject:
    return {"a": clock.a, "b": clock.b, "offset_us": _float_out(clock.offset_us),
            "end_offset_us": _opt_float_out(clock.end_offset_us),
            "uncertainty_us": _float_out(clock.uncertainty_us),
            "drift_ppm": _opt_float_out(clock.drift_ppm), "exchanges": clock.exchanges,
            "start_skew_ms": _float_out(clock.start_skew_ms), "jump": clock.jump,
            "a_to_b": list(clock.a_to_b), "b_to_a": list(clock.b_to_a),
            "a_ptp": _ptp_out(clock.a_ptp), "b_ptp": _ptp_out(clock.b_ptp)}


def _ptp_out(state: PtpState | None) -> JsonObject | None:
    if state is None:
        return None
    return {"answered": state.answered, "port_state": state.port_state,
            "master_offset_ns": state.master_offset_ns, "gm_present": state.gm_present,
            "gm_identity": state.gm_identity, "why": state.why,
            "timestamping": state.timestamping, "phc2sys": state.phc2sys}


def _clock_in(value: object, where: str, version: int) -> ClockRecord:
    fields = _Fields(value, where, _CLOCK_KEYS if version >= 13 else _V12_CLOCK_KEYS)
    return ClockRecord(a=fields.text("a"), b=fields.text("b"),
                       offset_us=fields.number("offset_us"),
                       end_offset_us=fields.opt_number("end_offset_us"),
                       uncertainty_us=fields.number("uncertainty_us"),
                       drift_ppm=fields.opt_number("drift_ppm"),
                       exchanges=fields.integer("exchanges"),
                       start_skew_ms=fields.number("start_skew_ms"), jump=fields.text("jump"),
                       a_to_b=tuple(_int(v, f"{where}.a_to_b") for v in fields.items("a_to_b")),
                       b_to_a=tuple(_int(v, f"{where}.b_to_a") for v in fields.items("b_to_a")),
                       a_ptp=_ptp_in(fields.get("a_ptp"), f"{where}.a_ptp"),
                       b_ptp=_ptp_in(fields.get("b_ptp"), f"{where}.b_ptp"))


def _ptp_in(value: object, where: str) -> PtpState | None:
    if value is None:
        return None
    # timestamping and phc2sys: written since they were read (older records: unread).
    later = tuple(key for key in ("timestamping", "phc2sys")
                  if isinstance(value, dict) and key in value)
    fields = _Fields(value, where, (*_PTP_KEYS, *later))
    offset = fields.get("master_offset_ns")
    phc2sys = fields.get("phc2sys") if "phc2sys" in later else None
    return PtpState(answered=fields.flag("answered"), port_state=fields.text("port_state"),
                    master_offset_ns=None if offset is None
                    else _int(offset, fields.path("master_offset_ns")),
                    gm_present=fields.flag("gm_present"),
                    gm_identity=fields.text("gm_identity"), why=fields.text("why"),
                    timestamping=fields.text("timestamping") if "timestamping" in later else "",
                    phc2sys=None if phc2sys is None else fields.flag("phc2sys"))


def _settle_out(settle: SettleRecord | None) -> JsonObject | None:
    if settle is None:
        return None
    return {"waited_s": _float_out(settle.waited_s), "frames": settle.frames,
            "quiet_s": _float_out(settle.quiet_s), "drained": settle.drained}


def _settle_in(value: object, where: str) -> SettleRecord | None:
    if value is None:
        return None
    fields = _Fields(value, where, _SETTLE_KEYS)
    try:
        return SettleRecord(waited_s=fields.number("waited_s"), frames=fields.integer("frames"),
                            quiet_s=fields.number("quiet_s"), drained=fields.flag("drained"))
    except ValueError as wrong:
        if isinstance(wrong, SerializeError):
            raise
        raise SerializeError(f"{where}: {wrong}") from None


def _reference_in(value: object, where: str) -> ReferenceLatency | None:
    if value is None:
        return None
    fields = _Fields(value, where, _REFERENCE_KEYS)
    try:
        return ReferenceLatency(
            stream_id=fields.integer("stream_id"), tx_frames=fields.integer("tx_frames"),
            rx_frames=fields.integer("rx_frames"), min_us=fields.number("min_us"),
            avg_us=fields.number("avg_us"), max_us=fields.number("max_us"),
            spiked=fields.flag("spiked"))
    except ValueError as wrong:
        if isinstance(wrong, SerializeError):
            raise
        raise SerializeError(f"{where}: {wrong}") from None
