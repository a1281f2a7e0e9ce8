"""The RFC 2889 address run: the profile's `addresses` entry carries the learning and
test streams; the report gives what RFC 2889 sections 5.7 and 5.8 ask for (the
capacity or the learning rate, with the ageing time, the rates and the frame size)
and every probe."""

from __future__ import annotations

from p4tester.config.errors import ConfigError
from p4tester.config.profile import Profile, StreamConfig
from p4tester.config.stream_learning import learned_address
from p4tester.config.topology import Topology
from p4tester.experiments.rfc2889_addresses import (
    AddressProbe,
    AddressResult,
    AddressTest,
    AddressTestConfig,
    run_address_test,
)
from p4tester.streams.variation import FieldVariation

from .bodies import Outcome, RunContext
from .requests import Rfc2889AddressRequest


def address_streams(streams: tuple[StreamConfig, ...]) -> tuple[StreamConfig, StreamConfig]:
    """The learning and test streams of the profile's addresses entry."""
    by_id = {s.id: s for s in streams}
    for stream in streams:
        test = by_id.get(stream.id + 1)
        if (test is not None and stream.vary and test.vary
                and [v.field for v in stream.vary] == ["src_mac"]
                and [v.field for v in test.vary] == ["dst_mac"]
                and (test.tx_port, test.rx_port) == (stream.rx_port, stream.tx_port)):
            return stream, test
    raise ConfigError("rfc2889-addresses: the profile has no addresses entry; add one, e.g. "
                      "`- {addresses: 1000, between: [1, 2], id: 0}` (1000 addresses learnt "
                      "on port 1, tested from port 2)")


def require_addresses(request: Rfc2889AddressRequest, topology: Topology,
                      profile: Profile) -> None:
    """The run's check before it starts: the profile's addresses entry."""
    del request, topology
    address_streams(profile.streams)


def rfc2889_addresses_body(request: Rfc2889AddressRequest, run: RunContext) -> Outcome:
    learning, test = address_streams(run.profile.streams)
    # address_streams found a src_mac list: a table variation.
    learned = learning.vary[0]
    assert isinstance(learned, FieldVariation)
    line_bps = min(run.topology.port(p).line_rate_bps for p in (learning.tx_port,
                                                                 test.tx_port))
    config = AddressTestConfig(
        test=AddressTest(request.test), learning_stream=learning.id, test_stream=test.id,
        learning_port=learning.tx_port, test_port=test.tx_port, port_line_bps=line_bps,
        max_addresses=len(learned.values), frame_size=request.frame_size,
        ageing_s=request.ageing_s, learning_pps=request.learning_pps,
        test_pps=request.test_pps, addresses=request.addresses, min_pps=request.min_pps,
        resolution_pps=request.resolution_pps)
    result = run_address_test(config, run.recorder)
    return result, "\n".join(rfc2889_addresses_report(result))


def rfc2889_addresses_report(result: AddressResult) -> list[str]:
    config = result.config
    at_least = "≥ " if result.at_limit else ""
    if config.test is AddressTest.CACHING_CAPACITY:
        found = ("none: the DUT did not forward even one address's frames to its port alone"
                 if result.capacity is None else
                 f"{at_least}{result.capacity} addresses")
        lines = [f"RFC 2889 address caching capacity: {found}",
                 f"learning port {config.learning_port}, test port {config.test_port}, "
                 f"{config.frame_size} B, learning frames at {config.learning_pps:g} fps, "
                 f"test frames at {config.test_pps:g} fps, ageing time {config.ageing_s:g} s"]
        if result.at_limit:
            lines.append(f"≥: every one of the profile's {config.max_addresses} addresses was "
                         "learnt; give the addresses entry more to find the limit")
    else:
        found = ("none: the DUT did not learn them all even at the lowest rate"
                 if result.learning_rate_pps is None else
                 f"{at_least}{result.learning_rate_pps:g} frames/s")
        lines = [f"RFC 2889 address learning rate: {found} ({config.addresses} addresses)",
                 f"learning port {config.learning_port}, test port {config.test_port}, "
                 f"{config.frame_size} B, searched {config.min_pps:g} to "
                 f"{config.learning_pps:g} fps in steps of {config.resolution_pps:g}, test "
                 f"frames at {config.test_pps:g} fps, ageing time {config.ageing_s:g} s"]
        if result.at_limit:
            lines.append("≥: all were learnt at the search's upper bound; raise "
                         "--learning-rate to find the limit")
    lines += ["", f"{'probe':>5} {'addresses':>9} {'learn fps':>9} {'sent':>6} {'to L':>6} "
                  f"{'lost':>5} {'flooded':>7} {'held s':>7}  verdict"]
    lines += [f"{index:>5} {p.count:>9} {p.learning_pps:>9g} {p.sent:>6} {p.received:>6} "
              f"{p.lost:>5} {p.flooded:>7} {p.held_s:>7.1f}  "
              f"{_verdict(p)}"
              for index, p in enumerate(result.probes)]
    lines.append(f"addresses: {learned_address(0)} up; flooded: test frames that reached a "
                 "port other than the learning port (an address the DUT did not learn)")
    lines += list(result.notes)
    return lines


def _verdict(probe: AddressProbe) -> str:
    if probe.repeated:
        return "too slow for the ageing time: run again"
    return "all learnt" if probe.passed else "flooded or lost"
