"""The live figures as one JSON document, and `GET /api/live`: that document as
Server-Sent Events, at a bounded rate for a bounded time (a browser's EventSource
reconnects by itself)."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator, Callable
from typing import Any, Final

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request

from p4tester.runs.outputs import to_jsonable

from .live_scope import LiveScope
from .progress import Progress
from .readings import LiveReading

MIN_INTERVAL_S: Final = 0.25
MAX_INTERVAL_S: Final = 10.0
MAX_STREAM_S: Final = 3600.0
_EXIT_POLL_S: Final = 0.25


# The live document's percentile keys, in StreamReading.percentiles_us's order.
PERCENTILE_KEYS: Final = ("latency_p50_us", "latency_p99_us", "latency_p999_us")
# Before any trial: every figure since the switch started.
SINCE_SWITCH_START: Final = LiveScope()


def live_document(reading: LiveReading | None, error: str | None,
                  progress: Progress | None, scope: LiveScope = SINCE_SWITCH_START
                  ) -> dict[str, Any]:
    """Every figure of a stream or port over `scope`'s window (its text in "scope"),
    and each stream's frames since the switch started (total_tx_frames,
    total_rx_frames: rates are their differences over time)."""
    scoped = scope.apply(reading) if reading is not None else None
    streams = []
    for total, s in zip(reading.streams if reading is not None else (),
                        scoped.streams if scoped is not None else (), strict=True):
        percentiles = dict(zip(PERCENTILE_KEYS, s.percentiles_us, strict=True))
        # Which percentiles are only lower bounds (beyond the last bin edge), and the
        # samples there, so the dashboard shows "≥ edge" and how many lay beyond.
        bounds = [key for key, bound in zip(PERCENTILE_KEYS, s.percentiles_lower_bound,
                                            strict=True) if bound]
        streams.append({**to_jsonable(s), **percentiles, "latency_lower_bounds": bounds,
                        "latency_beyond_histogram": s.latency_histogram_us.outside,
                        "total_tx_frames": total.tx_frames,
                        "total_rx_frames": total.rx_frames})
    return {"time": reading.time if reading is not None else time.time(),
            "sim_time_s": reading.sim_time_s if reading is not None else None,
            "scope": scope.describe(),
            "streams": streams,
            "ports": to_jsonable(scoped.ports) if scoped is not None else [],
            "error": error,
            "progress": to_jsonable(progress) if progress is not None else None}


def clamp_interval(interval_s: float) -> float:
    return min(MAX_INTERVAL_S, max(MIN_INTERVAL_S, interval_s))


async def event_stream(request: Request, document: Callable[[], dict[str, Any]],
                       interval_s: float, limit: int | None,
                       exiting: Callable[[], bool] = lambda: False) -> AsyncIterator[str]:
    """One `data:` event per interval; at most `limit` events (None: until the client
    goes, the server exits or MAX_STREAM_S passes)."""
    interval_s = clamp_interval(interval_s)
    started = time.monotonic()
    sent = 0
    yield f"retry: {int(interval_s * 1000)}\n\n"
    while time.monotonic() - started < MAX_STREAM_S and (limit is None or sent < limit):
        if exiting() or await request.is_disconnected():
            return
        body = await run_in_threadpool(document)  # a switch read blocks
        yield f"data: {json.dumps(body, sort_keys=True, allow_nan=False)}\n\n"
        sent += 1
        wake = time.monotonic() + interval_s
        while (limit is None or sent < limit) and not exiting() and time.monotonic() < wake:
            await asyncio.sleep(min(_EXIT_POLL_S, max(0.0, wake - time.monotonic())))
