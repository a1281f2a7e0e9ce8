"""`GET /metrics`: the live counters in Prometheus's text exposition format.

Base units (seconds, bytes, frames); labels only `stream` and `port` (bounded by the
profile and the topology) and `experiment` (bounded by the CLI's list). Counters are
the switch's own, since it started; latency is a classic histogram with the switch's
bin edges (frames beyond the last edge fall in +Inf only). The histograms have no
_sum: the switch sums latency only since the current trial began, which is not the
population the buckets count.
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import accumulate
from typing import Final

from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.core import (
    CounterMetricFamily,
    GaugeMetricFamily,
    HistogramMetricFamily,
    InfoMetricFamily,
)
from prometheus_client.registry import Collector
from prometheus_client.samples import Sample

from p4tester.results.jsonl import tool_version
from p4tester.results.model import Histogram
from p4tester.runs.catalog import EXPERIMENTS

from .progress import Progress, RunState
from .readings import LiveReading

US_PER_S: Final = 1e6
CONTENT_TYPE: Final = "text/plain; version=0.0.4; charset=utf-8"


def _buckets(histogram: Histogram, scale: float) -> list[tuple[str, float]]:
    """Cumulative (le, count) pairs; bin i is [edge i, edge i+1), so its upper edge is
    the bucket bound (Prometheus' le is inclusive: a sample exactly on an edge counts
    one bucket higher here, the switch's own binning)."""
    running = list(accumulate(histogram.counts))
    pairs = [(repr(float(edge / scale)), float(count))
             for edge, count in zip(histogram.edges[1:], running, strict=True)]
    return [*pairs, ("+Inf", float(histogram.total))]


def _add_histogram(family: HistogramMetricFamily, labels: list[str], histogram: Histogram,
                   scale: float) -> None:
    family.add_metric(labels, _buckets(histogram, scale), sum_value=None)
    # Without a sum prometheus_client leaves _count out too; the count is known exactly.
    family.samples.append(Sample(f"{family.name}_count", dict(zip(family._labelnames, labels,
                                                                   strict=True)),
                                 float(histogram.total)))


class TesterCollector(Collector):
    def __init__(self, reading: LiveReading | None, progress: Progress | None, target: str,
                 simulated: bool) -> None:
        self._reading = reading
        self._progress = progress
        self._target = target
        self._simulated = simulated

    def collect(self) -> Iterator[CounterMetricFamily | GaugeMetricFamily | HistogramMetricFamily
                                   | InfoMetricFamily]:
        build = InfoMetricFamily("p4tester_build", "p4tester version and the switch it drives")
        build.add_metric([], {"version": tool_version(), "target": self._target,
                              "simulated": str(self._simulated).lower()})
        yield build
        yield from self._experiment()
        if self._reading is not None:
            yield from self._streams(self._reading)
            yield from self._ports(self._reading)

    def _experiment(self) -> Iterator[GaugeMetricFamily]:
        progress = self._progress
        running = progress is not None and progress.state in (RunState.RUNNING,
                                                                RunState.STOPPING)
        state = GaugeMetricFamily("p4tester_experiment_running",
                                  "1 while this experiment runs on the switch",
                                  labels=["experiment"])
        for name in EXPERIMENTS:
            state.add_metric([name], 1.0 if running and progress and
                             progress.experiment == name else 0.0)
        yield state
        trials = GaugeMetricFamily("p4tester_experiment_trials",
                                   "trials finished in the current (or last) run")
        trials.add_metric([], float(progress.trials_done if progress else 0))
        yield trials
        load = GaugeMetricFamily("p4tester_experiment_offered_load_ratio",
                                 "offered load of the running trial, share of line rate")
        current = progress.current if progress is not None else None
        load.add_metric([], current.offered_fraction if current is not None else 0.0)
        yield load
        lost = GaugeMetricFamily("p4tester_experiment_trial_lost_frames",
                                 "frames each stream lost in the run's last valid trial: its "
                                 "TX - RX after the drain, never negative (one stream's "
                                 "duplicates never offset another's loss)", labels=["stream"])
        for loss in progress.stream_losses if progress is not None else ():
            lost.add_metric([str(loss.stream_id)], float(loss.lost))
        yield lost

    def _streams(self, reading: LiveReading) -> Iterator[CounterMetricFamily
                                                         | HistogramMetricFamily
                                                         | GaugeMetricFamily]:
        def family(name: str, doc: str) -> CounterMetricFamily:
            return CounterMetricFamily(f"p4tester_stream_{name}", doc, labels=["stream", "port"])

        tx = family("tx_frames", "frames the generator sent (port: TX port)")
        tx_bytes = family("tx_bytes", "bytes the generator sent (port: TX port)")
        rx = family("rx_frames", "frames the checker received (port: RX port)")
        rx_bytes = family("rx_bytes", "bytes the checker received (port: RX port)")
        lost = family("lost_frames", "frames missing in sequence gaps since the stream's "
                      "current trial began (the checker's register; restarts every trial)")
        reordered = family("reordered_frames", "frames below the next expected sequence "
                           "number (RFC 4737)")
        duplicates = family("duplicate_frames", "frames received twice")
        latency = HistogramMetricFamily("p4tester_stream_latency_seconds",
                                        "one-way latency, switch clock, the switch's bins",
                                        labels=["stream", "port"])
        queue = HistogramMetricFamily("p4tester_stream_dut_queue_depth_frames",
                                      "DUT egress queue depth the DUT stamped into frames",
                                      labels=["stream", "port"])
        latency_gauges = GaugeMetricFamily("p4tester_stream_latency_current_seconds",
                                           "min/avg/max latency since the stream's current "
                                           "trial began", labels=["stream", "port", "stat"])
        sent = set()
        for s in reading.streams:
            tx_labels = [str(s.stream), str(s.tx_port)]
            rx_labels = [str(s.stream), str(s.rx_port)]
            # A stream received on several ports has a reading per RX port: its TX
            # series once (a series twice is invalid exposition).
            if s.stream not in sent:
                sent.add(s.stream)
                tx.add_metric(tx_labels, s.tx_frames)
                tx_bytes.add_metric(tx_labels, s.tx_bytes)
            rx.add_metric(rx_labels, s.rx_frames)
            rx_bytes.add_metric(rx_labels, s.rx_bytes)
            if s.lost_in_gaps is not None:
                lost.add_metric(rx_labels, s.lost_in_gaps)
            reordered.add_metric(rx_labels, s.reordered)
            duplicates.add_metric(rx_labels, s.duplicates)
            _add_histogram(latency, rx_labels, s.latency_histogram_us, US_PER_S)
            _add_histogram(queue, rx_labels, s.queue_depth_frames, 1)
            for stat, value in (("min", s.latency_min_us), ("avg", s.latency_avg_us),
                                ("max", s.latency_max_us)):
                if value is not None:
                    latency_gauges.add_metric([*rx_labels, stat], value / US_PER_S)
        yield from (tx, tx_bytes, rx, rx_bytes, lost, reordered, duplicates, latency, queue,
                    latency_gauges)

    def _ports(self, reading: LiveReading) -> Iterator[CounterMetricFamily]:
        families = {name: CounterMetricFamily(f"p4tester_port_{name}", doc, labels=["port"])
                    for name, doc in (("rx_frames", "frames in from the port"),
                                      ("rx_bytes", "bytes in from the port"),
                                      ("tx_frames", "frames out to the port"),
                                      ("tx_bytes", "bytes out to the port"))}
        for p in reading.ports:
            label = [str(p.port)]
            families["rx_frames"].add_metric(label, p.rx_frames)
            families["rx_bytes"].add_metric(label, p.rx_bytes)
            families["tx_frames"].add_metric(label, p.tx_frames)
            families["tx_bytes"].add_metric(label, p.tx_bytes)
        yield from families.values()


def exposition(reading: LiveReading | None, progress: Progress | None, target: str,
               simulated: bool) -> bytes:
    registry = CollectorRegistry(auto_describe=False)
    registry.register(TesterCollector(reading, progress, target, simulated))
    return generate_latest(registry)
