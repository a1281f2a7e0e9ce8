"""OTG MetricsResponse documents (port_metrics, flow_metrics) from a Reading."""

from __future__ import annotations

from typing import Any

from p4tester.results.model import frames_lost, loss_ratio_of

from .mapping import MappedConfig, MappedFlow
from .readings import FlowCounters, PortCounters, Reading

STARTED = "started"
STOPPED = "stopped"
PAUSED = "paused"


def flow_metric(flow: MappedFlow, counters: FlowCounters) -> dict[str, Any]:
    """Rates: frames/s averaged since the flow started, while it transmits; 0 once
    stopped or paused. loss: percent of the frames sent that were not received, never
    negative: a flow's duplicates are not a gain (results.model.frames_lost)."""
    sending = counters.started and not counters.paused
    elapsed = counters.elapsed_s if sending and counters.elapsed_s > 0 else 0.0
    metric: dict[str, Any] = {
        "name": flow.name,
        "port_tx": flow.tx_port,
        "port_rx": flow.rx_port,
        "transmit": PAUSED if counters.paused else STARTED if counters.started else STOPPED,
        "frames_tx": counters.frames_tx,
        "frames_rx": counters.frames_rx,
        "bytes_tx": counters.bytes_tx,
        "bytes_rx": counters.bytes_rx,
        "frames_tx_rate": counters.frames_tx / elapsed if elapsed else 0.0,
        "frames_rx_rate": counters.frames_rx / elapsed if elapsed else 0.0,
        "loss": 100.0 * loss_ratio_of(frames_lost(counters.frames_tx, counters.frames_rx),
                                      counters.frames_tx),
    }
    if counters.latency is not None:
        metric["latency"] = {"minimum_ns": counters.latency.minimum_ns,
                             "maximum_ns": counters.latency.maximum_ns,
                             "average_ns": counters.latency.average_ns}
    return metric


def port_metric(name: str, location: str, counters: PortCounters, transmitting: bool,
                capturing: bool) -> dict[str, Any]:
    return {
        "name": name,
        "location": location,
        "link": "up",
        "capture": STARTED if capturing else STOPPED,
        "frames_tx": counters.frames_tx,
        "frames_rx": counters.frames_rx,
        "bytes_tx": counters.bytes_tx,
        "bytes_rx": counters.bytes_rx,
        "transmit": STARTED if transmitting else STOPPED,
    }


def flow_metrics(config: MappedConfig, reading: Reading, names: list[str]) -> list[dict[str, Any]]:
    flows = [config.flow(n) for n in names] if names else list(config.flows)
    return [flow_metric(f, reading.flows.get(f.name, FlowCounters())) for f in flows]


def port_metrics(config: MappedConfig, reading: Reading, names: list[str],
                 capturing: set[str]) -> list[dict[str, Any]]:
    ports = [config.port(n) for n in names] if names else list(config.ports)
    sending = {f.tx_port for f in config.flows
               if reading.flows.get(f.name, FlowCounters()).started}
    return [port_metric(p.name, p.location, reading.ports.get(p.name, PortCounters()),
                        p.name in sending, p.name in capturing) for p in ports]
