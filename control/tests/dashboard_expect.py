"""What the dashboard should show of a run, computed here from its trials.jsonl the way
static/format.js and static/run_tables.js print it: the browser test compares the page
with these, figure by figure (issue 43: every figure equals the run's record)."""

from __future__ import annotations

import math
from decimal import ROUND_HALF_UP, Decimal

from p4tester.results.model import StreamStats, TrialResult
from p4tester.server.progress import Bounds

DASH = "\u2013"  # an en dash: what the page shows for no figure


def _fixed(value: float, decimals: int) -> str:
    # JavaScript's toFixed: the exact binary value rounded, halves away from zero.
    return str(Decimal(value).quantize(Decimal(1).scaleb(-decimals), rounding=ROUND_HALF_UP))


def us(value: float | None) -> str:
    return DASH if value is None else _fixed(value, 1)


def fps(value: float | None) -> str:
    return DASH if value is None else str(math.floor(value + 0.5))


def pct(ratio: float | None) -> str:
    return DASH if ratio is None else _fixed(ratio * 100, 2) + " %"


def js_number(value: float) -> str:
    """A number as JavaScript's String() writes it (2.0 -> "2")."""
    return str(int(value)) if float(value).is_integer() else repr(value)


def _label(trial: TrialResult, key: str) -> str | None:
    return dict(trial.labels).get(key)


def _merged(streams: tuple[StreamStats, ...]) -> tuple[float | None, float | None,
                                                           float | None]:
    lat = [s.latency for s in streams if s.latency is not None and s.latency.samples > 0]
    if not lat:
        return None, None, None
    samples = sum(x.samples for x in lat)
    return (min(x.min_us for x in lat), sum(x.avg_us * x.samples for x in lat) / samples,
            max(x.max_us for x in lat))


def result_rows(trials: list[TrialResult]) -> list[list[str]]:
    rows = []
    for t in trials:
        low, avg, high = _merged(t.streams)
        rows.append([str(t.trial_index), str(t.frame_size), pct(t.offered_fraction),
                     js_number(t.duration_s), str(t.tx_frames), str(t.rx_frames),
                     pct(t.loss_ratio), us(low), us(avg), us(high), "yes" if t.valid else "no"])
    return rows


def interval_rows(trials: list[TrialResult]) -> list[list[str]]:
    rows, start = [], 0.0
    for t in trials:
        rows.append([_label(t, "soak_interval") or str(t.trial_index), _fixed(start, 1),
                     js_number(t.duration_s), str(t.tx_frames), str(t.rx_frames), str(t.lost),
                     pct(t.loss_ratio), us(_merged(t.streams)[2])])
        start += t.duration_s
    return rows


def service_rows(trials: list[TrialResult], stream_of: dict[str, int]) -> list[list[str]]:
    rows = []
    for t in trials:
        step, share = _label(t, "step") or "?", _label(t, "cir_share")
        for name in (_label(t, "service") or "").split(","):
            s = next(x for x in t.streams if x.stream_id == stream_of[name])
            ir = min(s.rx_frames, s.tx_frames) * s.frame_size * 8 / t.duration_s
            rows.append([name, f"{step} {_fixed(float(share) * 100, 0)} %" if share else step,
                         fps(s.tx_frames / t.duration_s), fps(s.rx_frames / t.duration_s),
                         _fixed(ir / 1e6, 4), pct(s.loss_ratio),
                         us(s.latency.avg_us if s.latency else None),
                         us(s.latency.max_us if s.latency else None)])
    return rows


def bound_rows(bounds: tuple[Bounds, ...]) -> list[list[str]]:
    return [[str(b.frame_size), pct(b.ndr_lower), pct(b.ndr_upper), pct(b.pdr_lower),
             pct(b.pdr_upper)] for b in bounds]


def ramp_rows(trials: list[TrialResult]) -> list[list[str]]:
    return [[_label(t, "ramp_step") or str(t.trial_index), pct(t.offered_fraction),
             fps(t.offered_pps), fps(t.tx_frames / t.duration_s),
             fps(t.rx_frames / t.duration_s), pct(t.loss_ratio)] for t in trials]


def shape_rows(trials: list[TrialResult]) -> list[list[str]]:
    return [[str(s.stream_id), _fixed(step.start_s, 2), _fixed(step.duration_s, 2),
             fps(step.intended_pps), fps(step.sent_pps), fps(step.received_pps),
             pct(step.lost_share)]
            for t in trials for s in t.streams for step in s.rate_course]


def receiver_rows(trial: TrialResult) -> tuple[list[list[str]], str]:
    """The per-RX-port panel of a trial (static/receivers.js): a row per port of each
    stream received on several, and a note per such stream."""
    rows, notes = [], []
    for s in (s for s in trial.streams if s.receivers):
        mode = "replicate" if s.replicated else "spread"
        for r in s.receivers:
            lost = s.port_lost(r)
            rows.append([str(s.stream_id), mode, str(r.port), str(s.tx_frames),
                         str(r.rx_frames), DASH if lost is None else str(lost),
                         DASH if lost is None else pct(lost / s.tx_frames if s.tx_frames else 0),
                         DASH if s.replicated or not s.rx_frames
                         else pct(r.rx_frames / s.rx_frames)])
        if s.replicated:
            notes.append(f"stream {s.stream_id}: replicated to {len(s.receivers)} ports, "
                         f"{s.frames_due} frames due, {s.lost} lost ({pct(s.loss_ratio)})")
        else:
            balance = s.spread_balance
            shown = DASH if balance is None else "∞" if math.isinf(balance) else _fixed(
                balance, 3)
            notes.append(f"stream {s.stream_id}: spread over {len(s.receivers)} ports, "
                         f"{s.lost} lost over all ports; balance (most / least loaded "
                         f"port) {shown}")
    return rows, "\n".join(notes)
