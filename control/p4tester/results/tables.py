"""CSV files and terminal tables of trial results. Units are in every column name.

CSV: one row per trial (`write_trials_csv`), one row per stream per trial
(`write_streams_csv`), one row per frame size of a throughput search
(`write_throughput_csv`). Empty cell = no value (e.g. no latency samples). Floats are
written with repr, which reads back to the same float. A latency percentile beyond the
histogram's last edge is its lower bound (results.latency): its latency_*_lower_bound
column says true, and latency_outside_bins_frames how many frames lay beyond.

Terminal: `render_table` lays out fixed-width columns; `throughput_table` and
`trials_table` build on it.
"""

from __future__ import annotations

import csv
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from p4tester.results.checks import CHECK_OK, DUT_LIMITED, TESTER_LIMITED
from p4tester.results.latency import merge_latency
from p4tester.results.model import (
    P50,
    P99,
    P999,
    LatencyStats,
    ReceiverStats,
    StreamLoss,
    StreamStats,
    TrialResult,
)
from p4tester.results.reference import SPIKED_MARK, ReferenceLatency
from p4tester.streams.rates import (
    Rate,
    ResolvedRate,
    format_bitrate,
    l1_frame_bits,
    l2_frame_bits,
)

Cell = str | int | float | bool | None

# A trial's (merged) or a stream's latency. A percentile's lower_bound column: true when
# only its lower bound is known (its rank lies beyond the histogram's last edge), false
# when measured, empty without the percentile.
LATENCY_COLUMNS: Final = (
    "latency_min_us",
    "latency_avg_us",
    "latency_max_us",
    "latency_jitter_us",
    "latency_p50_us",
    "latency_p99_us",
    "latency_p999_us",
    "latency_p50_lower_bound",
    "latency_p99_lower_bound",
    "latency_p999_lower_bound",
    "latency_outside_bins_frames",
)
TRIAL_COLUMNS: Final = (
    "experiment",
    "trial_index",
    "started_at_unix_s",
    "duration_s",
    "frame_size_B",
    "offered_line_rate_pct",
    "offered_pps",
    "offered_l1_bps",
    "offered_l2_bps",
    "streams",
    "tx_frames",
    "rx_frames",
    "lost_frames",
    "loss_pct",
    *LATENCY_COLUMNS,
    "valid",
    "error",
    # The trial's self-check (results.checks): ok / tester-limited / dut-limited, empty
    # where the target has no port counters; frames each side lost itself.
    "self_check",
    "tester_rx_dropped_frames",
    "tester_tx_dropped_frames",
    "dut_rx_dropped_frames",
    "host_load_1m",
    "host_cpus",
    "cpu_steal_pct",
    # What the trial proved it offered, and what it saw beyond its own frames (issue 21):
    # empty where not measured.
    "offered_pps_measured",
    "max_burst_frames",
    "stale_frames",
    "late_frames",
    "dut_buffering_us",
    # The tester's own latency from its reference stream (results.reference), in
    # latency trials on BMv2; empty where the trial ran none.
    "tester_latency_min_us",
    "tester_latency_max_us",
    "tester_spiked",
)
STREAM_COLUMNS: Final = (
    "experiment",
    "trial_index",
    "stream_id",
    "frame_size_B",
    "tx_frames",
    "rx_frames",
    "rx_bytes",
    "lost_frames",
    "loss_pct",
    "gap_events",
    "lost_in_gaps_frames",
    "reordered_frames",
    "duplicate_frames",
    "latency_samples",
    *LATENCY_COLUMNS,
)
THROUGHPUT_COLUMNS: Final = (
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
    # True: the search's upper bound is where the tester gave out on this host, not
    # where the DUT lost frames; the DUT's limit may be higher.
    "ndr_tester_limited",
    "pdr_tester_limited",
    # The search's own bound, the rate its trial was set to offer: above ndr_pps when
    # that trial proved it offered less (measured on the switch's clock).
    "ndr_intended_pps",
    "pdr_intended_pps",
)
LABEL_PREFIX: Final = "label_"  # trial labels get one column each: label_buffer_pct, ...


@dataclass(frozen=True, slots=True)
class ThroughputPoint:
    """Throughput search result for one frame size (RFC 2544 section 26.1)."""

    frame_size: int  # bytes incl. FCS
    line_rate_bps: float  # L1 line rate the fractions refer to (all TX ports together)
    # Of line rate, 0..1, at the rate the trial at the bound proved it offered
    # (SearchResult.proven_lower_bound_fraction); None = loss even at the lowest load.
    ndr_fraction: float | None
    pdr_fraction: float | None
    # The goal's upper bound is the tester's own ceiling on this host (search.trials):
    # the DUT carried everything the tester could offer, its limit may be higher.
    ndr_tester_limited: bool = False
    pdr_tester_limited: bool = False
    # The search's own bounds, the loads their trials were set to (None: not known
    # apart from the fractions above); above them when a trial offered less.
    ndr_intended_fraction: float | None = None
    pdr_intended_fraction: float | None = None

    def __post_init__(self) -> None:
        for name in ("ndr_fraction", "pdr_fraction", "ndr_intended_fraction",
                     "pdr_intended_fraction"):
            value = getattr(self, name)
            if value is not None and not 0.0 < value <= 1.0:
                raise ValueError(
                    f"{name} {value} of frame size {self.frame_size} B must be in (0, 1] "
                    "(a share of line rate) or None when not found"
                )

    def ndr(self) -> ResolvedRate | None:
        return self._resolve(self.ndr_fraction)

    def pdr(self) -> ResolvedRate | None:
        return self._resolve(self.pdr_fraction)

    def ndr_intended(self) -> ResolvedRate | None:
        return self._resolve(self.ndr_intended_fraction)

    def pdr_intended(self) -> ResolvedRate | None:
        return self._resolve(self.pdr_intended_fraction)

    def below_intended(self) -> tuple[tuple[str, ResolvedRate | None, ResolvedRate], ...]:
        """(goal, reported, intended) of each goal whose reported bound is below the
        search's own: its trial proved it offered less than it was set to."""
        goals = (("NDR", self.ndr(), self.ndr_intended()),
                 ("PDR", self.pdr(), self.pdr_intended()))
        # Compared as the table shows them (whole frames/s): a trial that offered 405.8
        # of its 406 frames/s is no news to a reader.
        return tuple((goal, reported, intended) for goal, reported, intended in goals
                     if intended is not None
                     and (reported is None or round(reported.pps) < round(intended.pps)))

    def _resolve(self, fraction: float | None) -> ResolvedRate | None:
        if fraction is None:
            return None
        return Rate.from_percent(fraction * 100.0).resolve(self.frame_size, self.line_rate_bps)


# ---- CSV -------------------------------------------------------------------------------


def _csv_cell(value: Cell) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return repr(value)
    return str(value)


def write_csv(path: Path | str, header: Sequence[str], rows: Iterable[Sequence[Cell]]) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", newline="", encoding="utf-8") as stream:
        writer = csv.writer(stream, lineterminator="\n")
        writer.writerow(header)
        for row in rows:
            writer.writerow([_csv_cell(value) for value in row])
    return path


def _latency_cells(latency: LatencyStats | None) -> list[Cell]:
    """The LATENCY_COLUMNS of one latency."""
    if latency is None:
        return [None] * len(LATENCY_COLUMNS)
    quantiles = (P50, P99, P999)
    return [
        latency.min_us,
        latency.avg_us,
        latency.max_us,
        latency.jitter_us,
        *(latency.percentile_us(q) for q in quantiles),
        *(None if latency.percentile_us(q) is None else latency.is_lower_bound(q)
          for q in quantiles),
        None if latency.histogram is None else latency.beyond_histogram,
    ]


def trial_latency(trial: TrialResult) -> LatencyStats | None:
    """All streams' latency of a trial merged (see latency.merge_latency)."""
    return merge_latency([s.latency for s in trial.streams if s.latency is not None])


def _label_keys(trials: Sequence[TrialResult]) -> list[str]:
    keys: dict[str, None] = {}  # ordered set: columns in order of first appearance
    for trial in trials:
        for key, _ in trial.labels:
            keys.setdefault(key, None)
    return list(keys)


def write_trials_csv(trials: Iterable[TrialResult], path: Path | str) -> Path:
    """One row per trial, TRIAL_COLUMNS then one label_<name> column per label name."""
    trials = list(trials)
    label_keys = _label_keys(trials)
    rows: list[list[Cell]] = []
    for trial in trials:
        labels = dict(trial.labels)
        rows.append(
            [
                trial.experiment,
                trial.trial_index,
                trial.started_at,
                trial.duration_s,
                trial.frame_size,
                trial.offered_fraction * 100.0,
                trial.offered_pps,
                trial.offered_pps * l1_frame_bits(trial.frame_size),
                trial.offered_pps * l2_frame_bits(trial.frame_size),
                len(trial.streams),
                trial.tx_frames,
                trial.rx_frames,
                trial.lost,
                trial.loss_ratio * 100.0,
                *_latency_cells(trial_latency(trial)),
                trial.valid,
                trial.error,
                *_check_cells(trial),
                trial.offered_pps_measured,
                trial.max_burst_frames,
                trial.rx_stale,
                trial.late_frames,
                trial.dut_buffering_us,
                *_reference_cells(trial.reference),
                *(labels.get(key) for key in label_keys),
            ]
        )
    header = [*TRIAL_COLUMNS, *(LABEL_PREFIX + key for key in label_keys)]
    return write_csv(path, header, rows)


def _reference_cells(reference: ReferenceLatency | None) -> list[Cell]:
    if reference is None:
        return [None, None, None]
    return [reference.min_us, reference.max_us, reference.spiked]


def check_text(trial: TrialResult) -> str | None:
    """ok / tester-limited / dut-limited; None when no side could check (no counters)."""
    if trial.self_check is None and trial.dut_check is None:
        return None
    if trial.tester_limited:
        return TESTER_LIMITED
    if trial.dut_limited:
        return DUT_LIMITED
    return CHECK_OK


def _check_cells(trial: TrialResult) -> list[Cell]:
    tester, dut, load = trial.self_check, trial.dut_check, trial.host_load
    steal = None if load is None or load.steal_fraction is None else load.steal_fraction * 100
    return [
        check_text(trial),
        None if tester is None else tester.rx_dropped,
        None if tester is None else tester.tx_dropped,
        None if dut is None else dut.rx_dropped,
        None if load is None else load.load_1m,
        None if load is None else load.cpus,
        steal,
    ]


def _stream_row(trial: TrialResult, stream: StreamStats) -> list[Cell]:
    latency = stream.latency
    return [
        trial.experiment,
        trial.trial_index,
        stream.stream_id,
        stream.frame_size,
        stream.tx_frames,
        stream.rx_frames,
        stream.rx_bytes,
        stream.lost,
        stream.loss_ratio * 100.0,
        stream.gap_events,
        stream.lost_in_gaps,
        stream.reordered,
        stream.duplicates,
        latency.samples if latency is not None else None,
        *_latency_cells(latency),
    ]


def write_streams_csv(trials: Iterable[TrialResult], path: Path | str) -> Path:
    """One row per stream per trial (STREAM_COLUMNS)."""
    rows = [_stream_row(trial, stream) for trial in trials for stream in trial.streams]
    return write_csv(path, STREAM_COLUMNS, rows)


RECEIVER_COLUMNS: Final = (
    "experiment", "trial_index", "stream_id", "receive", "rx_port", "tx_frames", "rx_frames",
    "rx_bytes", "lost", "share_pct", "gap_events", "lost_in_gaps", "reordered", "duplicates",
    "latency_min_us", "latency_avg_us", "latency_max_us",
)


def _receive_mode(stream: StreamStats) -> str:
    return "replicate" if stream.replicated else "spread"


def _receiver_row(trial: TrialResult, stream: StreamStats, receiver: ReceiverStats) -> list[Cell]:
    latency = receiver.latency
    return [
        trial.experiment, trial.trial_index, stream.stream_id, _receive_mode(stream),
        receiver.port, stream.tx_frames, receiver.rx_frames, receiver.rx_bytes,
        stream.port_lost(receiver), _share_pct(stream, receiver), receiver.gap_events,
        receiver.lost_in_gaps, receiver.reordered, receiver.duplicates,
        latency.min_us if latency else None, latency.avg_us if latency else None,
        latency.max_us if latency else None,
    ]


def _share_pct(stream: StreamStats, receiver: ReceiverStats) -> float | None:
    """A spread stream's share of its frames that came on this port (None: replicated,
    or none came)."""
    if stream.replicated or not stream.rx_frames:
        return None
    return receiver.rx_frames / stream.rx_frames * 100.0


def write_receivers_csv(trials: Iterable[TrialResult], path: Path | str) -> Path | None:
    """One row per RX port of each stream received on several ports, per trial
    (RECEIVER_COLUMNS); nothing written (None) when no stream is."""
    rows = [_receiver_row(trial, stream, receiver) for trial in trials
            for stream in trial.streams for receiver in stream.receivers]
    return write_csv(path, RECEIVER_COLUMNS, rows) if rows else None


def receivers_table(trial: TrialResult) -> str:
    """The trial's streams received on several ports, a line per (stream, RX port): a
    replicated stream's loss per port (each port is due every frame), a spread
    stream's share per port and its balance (most over least loaded port); "" when
    no stream of the trial is received on several ports."""
    several = [s for s in trial.streams if s.receivers]
    if not several:
        return ""
    columns = [Column("stream"), Column("receive", left=True), Column("port"),
               Column("tx frames"), Column("rx frames"), Column("lost"), Column("share %"),
               Column("reordered"), Column("dup"), Column("lat min us"), Column("lat avg us"),
               Column("lat max us")]
    rows = []
    for stream in several:
        for receiver in stream.receivers:
            lost = stream.port_lost(receiver)
            share = _share_pct(stream, receiver)
            latency = receiver.latency
            rows.append([
                str(stream.stream_id), _receive_mode(stream), str(receiver.port),
                str(stream.tx_frames), str(receiver.rx_frames),
                _MISSING if lost is None else str(lost), fixed_text(share, 2),
                str(receiver.reordered), str(receiver.duplicates),
                fixed_text(latency.min_us if latency else None, 1),
                fixed_text(latency.avg_us if latency else None, 1),
                fixed_text(latency.max_us if latency else None, 1)])
    notes = []
    for stream in several:
        if stream.replicated:
            notes.append(f"stream {stream.stream_id}: replicated to {len(stream.receivers)} "
                         f"ports, {stream.frames_due} frames due, {stream.lost} lost "
                         f"({stream.loss_ratio * 100.0:.4f}%)")
        else:
            balance = stream.spread_balance
            shown = _MISSING if balance is None else f"{balance:.3f}"
            notes.append(f"stream {stream.stream_id}: spread over {len(stream.receivers)} ports, "
                         f"{stream.lost} lost, {stream.reordered} reordered, "
                         f"{stream.duplicates} duplicates over all ports; balance "
                         f"(most / least loaded port) {shown}")
    return render_table(columns, rows) + "\n" + "\n".join(notes)


def _rate_cells(rate: ResolvedRate | None) -> list[Cell]:
    if rate is None:
        return [None] * 4
    return [rate.percent, rate.pps, rate.l1_bps, rate.l2_bps]


def _intended_pps_cells(point: ThroughputPoint) -> list[Cell]:
    return [None if rate is None else rate.pps
            for rate in (point.ndr_intended(), point.pdr_intended())]


def write_throughput_csv(points: Iterable[ThroughputPoint], path: Path | str) -> Path:
    """One row per frame size: NDR and PDR in % of line rate, pps, L1 and L2 bit/s (at
    the rate proven offered), then the pps the search's bounds were set to."""
    rows = [
        [p.frame_size, p.line_rate_bps, *_rate_cells(p.ndr()), *_rate_cells(p.pdr()),
         p.ndr_tester_limited, p.pdr_tester_limited, *_intended_pps_cells(p)]
        for p in points
    ]
    return write_csv(path, THROUGHPUT_COLUMNS, rows)


# ---- terminal --------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Column:
    """A column of a text table; numbers read best right-aligned, names left-aligned."""

    title: str
    left: bool = False


def render_table(columns: Sequence[Column], rows: Sequence[Sequence[str]]) -> str:
    """Fixed-width text: header, a dashed rule, the rows; two spaces between columns."""
    for number, row in enumerate(rows, start=1):
        if len(row) != len(columns):
            raise ValueError(
                f"table row {number} has {len(row)} cells for {len(columns)} columns: {row!r}"
            )
    widths = [
        max([len(column.title), *(len(row[i]) for row in rows)]) for i, column in enumerate(columns)
    ]

    def line(cells: Sequence[str]) -> str:
        text = "  ".join(
            cell.ljust(width) if column.left else cell.rjust(width)
            for cell, width, column in zip(cells, widths, columns, strict=True)
        )
        return text.rstrip()

    rule = "  ".join("-" * width for width in widths)
    return "\n".join([line([c.title for c in columns]), rule, *(line(row) for row in rows)])


_MISSING: Final = "-"


def fixed_text(value: float | None, digits: int) -> str:
    return _MISSING if value is None else f"{value:.{digits}f}"


# Marks a percentile known only from below: its rank lies beyond the histogram's last
# edge, so it is at least that edge (results.latency).
LOWER_BOUND_MARK: Final = "≥"


def bounded_text(value: float, lower_bound: bool) -> str:
    """A percentile to a tenth of a microsecond (all the BMv2 clock's 1 us supports), or
    '≥ 5000' when only its lower bound is known: a bin edge, shown as the whole number
    it is."""
    if not lower_bound:
        return f"{value:.1f}"
    shown = f"{value:.0f}" if float(value).is_integer() else f"{value:.1f}"
    return f"{LOWER_BOUND_MARK} {shown}"


def _percentile_text(latency: LatencyStats | None, quantile: float) -> str:
    """One of the latency's percentiles for a table cell; '-' without it."""
    if latency is None:
        return _MISSING
    value = latency.percentile_us(quantile)
    return _MISSING if value is None else bounded_text(value, latency.is_lower_bound(quantile))


def lower_bound_note(name: str, beyond: Sequence[tuple[int, LatencyStats]]) -> str:
    """The line under a table whose `name` percentile (e.g. "p99") is a lower bound in
    the given trials (trial index, its latency): how many frames lay beyond the last
    edge, and what would measure it."""
    counts = [f"{latency.beyond_histogram} of {latency.samples} frames in trial {index}"
              for index, latency in beyond]
    return (f"{LOWER_BOUND_MARK} {name}: only a lower bound is known, the histogram's last "
            f"edge: {', '.join(counts)} lay at or above it (raise the profile's last "
            "latency_bins_us edge to measure it)")


def _rate_text(rate: ResolvedRate | None) -> list[str]:
    if rate is None:
        return [_MISSING] * 4
    return [
        f"{rate.percent:.2f}",
        f"{rate.pps:.0f}",
        # Auto-scaled: a lab port's NDR is kbit/s, a Tofino port's Gbit/s.
        format_bitrate(float(f"{rate.l1_bps:.4g}")),
        format_bitrate(float(f"{rate.l2_bps:.4g}")),
    ]


TESTER_LIMIT_MARK: Final = "*"
TESTER_LIMIT_NOTE: Final = (
    f"{TESTER_LIMIT_MARK} tester-limited: the search went no higher than the tester itself "
    "carries on this host (its calibrated capacity, or a load it could not carry) or than a "
    "lab DUT on this host held its configured behaviour; the DUT's limit is at least this, "
    "maybe higher"
)


PROVEN_OFFERED_WHY: Final = (
    ": the trial at the bound offered less than it was set to (measured on the "
    "switch's clock)")


def throughput_table(points: Iterable[ThroughputPoint]) -> str:
    """Frame size, then NDR and PDR each as % line rate, pps, L1 and L2 bit/s, at the
    rate the trial at the bound proved it offered; a goal whose upper bound was the
    tester's own ceiling is marked, with a note below, and one reported below the load
    its search set gets a line saying both (proven_offered_lines)."""
    columns = [Column("frame B")]
    for goal in ("NDR", "PDR"):
        columns += [
            Column(f"{goal} %"),
            Column(f"{goal} pps"),
            Column(f"{goal} L1"),
            Column(f"{goal} L2"),
        ]
    points = list(points)
    rows = [[str(p.frame_size), *_marked(_rate_text(p.ndr()), p.ndr_tester_limited),
             *_marked(_rate_text(p.pdr()), p.pdr_tester_limited)] for p in points]
    table = render_table(columns, rows)
    if any(p.ndr_tester_limited or p.pdr_tester_limited for p in points):
        table += "\n" + TESTER_LIMIT_NOTE
    return "\n".join([table, *proven_offered_lines(points)])


def proven_offered_lines(points: Iterable[ThroughputPoint]) -> list[str]:
    """A line per frame size and goal reported below the load its search set, e.g.
    '64 B: NDR ≥ 104184 frames/s (proven offered; 105773 intended)': the table says
    what the trial proved it offered, this line why that is not the load asked."""
    return [f"{p.frame_size} B: {goal} ≥ {0.0 if proven is None else proven.pps:.0f} "
            f"frames/s (proven offered; {intended.pps:.0f} intended){PROVEN_OFFERED_WHY}"
            for p in points for goal, proven, intended in p.below_intended()]


def _marked(cells: list[str], tester_limited: bool) -> list[str]:
    if not tester_limited:
        return cells
    return [cells[0] + TESTER_LIMIT_MARK, *cells[1:]]


# Streams named in a cell; more would widen the table without helping to find them.
LOSING_STREAMS_SHOWN: Final = 3


def losing_streams_text(losses: Sequence[StreamLoss]) -> str:
    """'0:100,3:7': stream id:frames lost, in the given order (worst first), the first
    LOSING_STREAMS_SHOWN and '+N' for the rest; '-' when no stream lost a frame."""
    if not losses:
        return _MISSING
    shown = [f"{loss.stream_id}:{loss.lost}" for loss in losses[:LOSING_STREAMS_SHOWN]]
    rest = len(losses) - LOSING_STREAMS_SHOWN
    return ",".join(shown + ([f"+{rest}"] if rest > 0 else []))


def trials_table(trials: Iterable[TrialResult]) -> str:
    """One line per trial: load, counts, loss and the streams that lost (per stream,
    results.model), merged latency and whether it is valid; a line under the table
    when a p99 is only a lower bound."""
    columns = [
        Column("#"),
        Column("frame B"),
        Column("offered %"),
        Column("offered pps"),
        Column("tx frames"),
        Column("rx frames"),
        Column("lost"),
        Column("loss %"),
        Column("stream:lost", left=True),
        Column("lat min us"),
        Column("lat avg us"),
        Column("lat max us"),
        Column("p99 us"),
        Column("host load"),
        Column("status", left=True),
    ]
    rows = []
    beyond: list[tuple[int, LatencyStats]] = []  # trials whose p99 is a lower bound
    for trial in trials:
        latency = trial_latency(trial)
        rows.append(
            [
                str(trial.trial_index),
                str(trial.frame_size),
                f"{trial.offered_fraction * 100.0:.2f}",
                f"{trial.offered_pps:.0f}",
                str(trial.tx_frames),
                str(trial.rx_frames),
                str(trial.lost),
                f"{trial.loss_ratio * 100.0:.4f}",
                losing_streams_text(trial.losing_streams),
                fixed_text(latency.min_us if latency else None, 1),
                fixed_text(latency.avg_us if latency else None, 1),
                fixed_text(latency.max_us if latency else None, 1),
                _percentile_text(latency, P99),
                _MISSING if trial.host_load is None else f"{trial.host_load.load_1m:.2f}",
                _status(trial),
            ]
        )
        if latency is not None and latency.is_lower_bound(P99):
            beyond.append((trial.trial_index, latency))
    table = render_table(columns, rows)
    return (table + "\n" + lower_bound_note("p99", beyond)) if beyond else table


def _status(trial: TrialResult) -> str:
    if not trial.valid:
        return f"invalid: {trial.error or 'no reason given'}"
    spiked = trial.reference is not None and trial.reference.spiked
    return f"ok ({SPIKED_MARK})" if spiked else "ok"
