"""The dashboard's live figures and the API's JSON say which latency percentiles are
only lower bounds (beyond the histogram's last edge), and how many samples lay there."""

from __future__ import annotations

import json

from p4tester.results.latency import latency_stats
from p4tester.results.model import Histogram
from p4tester.runs.outputs import to_jsonable
from p4tester.server.live import live_document
from p4tester.server.readings import LiveReading, StreamReading

# 100 samples: 30 in the bins, 70 at or above the last edge, 5000 us.
MOSTLY_BEYOND = Histogram(edges=(0, 1000, 5000), counts=(10, 20), outside=70)
# 1000 samples, 995 in the bins: p99 is measured, p99.9 only bounded.
TAIL_BEYOND = Histogram(edges=(0, 10, 20), counts=(500, 495), outside=5)


def reading(histogram: Histogram) -> StreamReading:
    return StreamReading(stream=0, tx_port=1, rx_port=2, tx_frames=1000, tx_bytes=64_000,
                         rx_frames=histogram.total, rx_bytes=histogram.total * 64,
                         lost_in_gaps=0, reordered=0, duplicates=0, latency_min_us=1.0,
                         latency_avg_us=10.0, latency_max_us=9000.0,
                         latency_histogram_us=histogram,
                         queue_depth_frames=Histogram((0, 1), (histogram.total,)))


def live_stream(histogram: Histogram) -> dict[str, object]:
    document = live_document(LiveReading(1.0, (reading(histogram),), ()), None, None)
    # As the dashboard receives it: strict JSON.
    [stream] = json.loads(json.dumps(document, allow_nan=False))["streams"]
    assert isinstance(stream, dict)
    return stream


def test_a_live_median_beyond_the_last_edge_is_the_edge_flagged() -> None:
    stream = live_stream(MOSTLY_BEYOND)
    assert (stream["latency_p50_us"], stream["latency_p99_us"],
            stream["latency_p999_us"]) == (5000.0, 5000.0, 5000.0)
    assert stream["latency_lower_bounds"] == ["latency_p50_us", "latency_p99_us",
                                              "latency_p999_us"]
    assert stream["latency_beyond_histogram"] == 70


def test_a_live_p99_inside_the_bins_is_not_flagged() -> None:
    stream = live_stream(TAIL_BEYOND)
    assert stream["latency_p50_us"] == 10.0
    assert stream["latency_p999_us"] == 20.0
    assert stream["latency_lower_bounds"] == ["latency_p999_us"]
    assert stream["latency_beyond_histogram"] == 5
    clean = live_stream(Histogram((0, 10), (4,)))
    assert (clean["latency_lower_bounds"], clean["latency_beyond_histogram"]) == ([], 0)


def test_the_api_json_of_latency_carries_its_lower_bounds() -> None:
    """The run API and summaries write dataclasses field by field (to_jsonable): the
    flags are fields, so they are there too."""
    stats = latency_stats(100, 200.0, 9000.0, 500_000.0, 990.0, MOSTLY_BEYOND)
    written = to_jsonable(stats)
    assert written["p50_us"] == 5000.0
    assert written["lower_bounds"] == ["p50_us", "p99_us", "p999_us"]
    assert written["beyond_histogram"] == 70
