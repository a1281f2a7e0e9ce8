"""RFC 2889's address caching capacity and learning rate over a simulated learning
switch whose address cache and learning rate are known exactly: the searches must
find them."""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from p4tester.config.errors import ConfigError
from p4tester.config.profile import profile_from_dict
from p4tester.experiments.recording import Recorder
from p4tester.experiments.rfc2889_addresses import (
    AGEING_MARGIN_S,
    LEARNING_EXPERIMENT,
    PORT_LEARNING_EXPERIMENT,
    PROBE_ATTEMPTS,
    TEST_PORT_FRAMES,
    AddressTest,
    AddressTestConfig,
    run_address_test,
)
from p4tester.experiments.runner import TrialSpec
from p4tester.results.model import StreamStats, TrialResult
from p4tester.runs.rfc2889_addresses_body import address_streams, rfc2889_addresses_report
from p4tester.streams.rates import line_rate_pps

LINE_BPS = 10e6  # 14880.95 frames/s of 64 B
LEARNING, TEST = 20, 21  # the addresses entry's streams
PROFILE = profile_from_dict({"name": "a", "streams": [
    {"addresses": 1000, "between": [1, 2], "id": LEARNING}]}, "a.yaml")


@dataclass
class CachingSwitch:
    """Three ports; learns at most `cache` addresses, and of learning frames sent
    faster than `learning_pps`, only that rate's share (each address frame learnt or
    not in turn). Forgets everything after an ageing wait; floods a frame to an
    unknown address to its two other ports."""

    cache: int
    learning_pps: float = 1e9
    learnt: set[int] = field(default_factory=set)
    test_port_known: bool = False
    specs: list[TrialSpec] = field(default_factory=list)
    slept: list[float] = field(default_factory=list)
    # Seconds between the starts of consecutive trials, per trial (the host's pace);
    # once used up, 0.5 s.
    trial_gaps_s: list[float] = field(default_factory=list)
    now_s: float = 0.0

    def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.learnt.clear()
        self.test_port_known = False

    def run_trial(self, spec: TrialSpec) -> TrialResult:
        self.specs.append(spec)
        ((stream_id, load),) = spec.stream_loads
        ((_, count),) = spec.variation_lengths
        assert spec.frame_count is not None
        pps = load * line_rate_pps(LINE_BPS, spec.frame_size)
        frames, received, flooded = spec.frame_count, spec.frame_count, 0
        if stream_id == LEARNING:
            learnt_every = max(1.0, pps / self.learning_pps)  # 1 in k frames is learnt
            for index in range(frames):
                if len(self.learnt) < self.cache and index % learnt_every < 1:
                    self.learnt.add(index % count)
        elif spec.experiment == PORT_LEARNING_EXPERIMENT:
            self.test_port_known = True
        else:
            flooded = sum(1 for index in range(frames) if index % count not in self.learnt)
        stats = StreamStats(stream_id, spec.frame_size, frames, received,
                            received * spec.frame_size, 0, 0, 0, 0)
        started_at = self.now_s
        self.now_s += self.trial_gaps_s.pop(0) if self.trial_gaps_s else 0.5
        return TrialResult(spec.experiment, spec.trial_index, spec.offered_fraction, pps,
                           spec.duration_s, spec.frame_size, (stats,), started_at=started_at,
                           rx_mismatched=flooded)


def _config(test: AddressTest, **extra: object) -> AddressTestConfig:
    fields: dict[str, object] = {
        "test": test, "learning_stream": LEARNING, "test_stream": TEST, "learning_port": 1,
        "test_port": 2, "port_line_bps": LINE_BPS, "max_addresses": 1000, "frame_size": 64,
        "ageing_s": 3.0, "learning_pps": 1000.0, "test_pps": 1000.0, **extra}
    return AddressTestConfig(**fields)  # type: ignore[arg-type]


def test_the_addresses_entry_gives_a_learning_and_a_test_stream() -> None:
    learning, test = PROFILE.streams
    assert (learning.id, learning.tx_port, learning.rx_port) == (LEARNING, 1, 2)
    assert (test.id, test.tx_port, test.rx_port) == (TEST, 2, 1)
    assert (learning.addresses.src_mac, learning.addresses.dst_mac) == (
        "02:89:01:00:00:00", "02:89:00:00:00:02")
    assert (test.addresses.src_mac, test.addresses.dst_mac) == (
        "02:89:00:00:00:02", "02:89:01:00:00:00")
    assert [entry.src_mac for entry in learning.field_cycle] == [
        0x02_89_01_00_00_00 + i for i in range(1000)]
    assert [entry.dst_mac for entry in test.field_cycle] == [
        0x02_89_01_00_00_00 + i for i in range(1000)]


@pytest.mark.parametrize(("entry", "message"), [
    ({"addresses": 3000, "between": [1, 2], "id": 0},
     "addresses: 3000 addresses take 6000 of the data plane's 4096 variation entries"),
    ({"addresses": 10, "between": [1, 1], "id": 0},
     "addresses: give between: [learning port, test port], two different ports"),
    ({"addresses": 10, "between": [1, 2], "id": 0, "src_mac": "02:00:00:00:00:01"},
     "addresses: src_mac are set by the entry; drop them"),
    ({"addresses": 0, "between": [1, 2], "id": 0},
     "addresses: 0 must be a whole number of addresses, at least 1"),
])
def test_a_bad_addresses_entry_names_the_problem(entry: dict[str, object],
                                                 message: str) -> None:
    with pytest.raises(ConfigError) as error:
        profile_from_dict({"name": "a", "streams": [entry]}, "a.yaml")
    assert message in str(error.value)


def test_the_caching_capacity_is_the_cache_size() -> None:
    switch = CachingSwitch(cache=300)
    result = run_address_test(_config(AddressTest.CACHING_CAPACITY), Recorder(switch),
                              sleep=switch.sleep)
    assert (result.capacity, result.at_limit) == (300, False)
    # 1000 fails, 1 passes, then halving between them: 500, 250, 375, ... 300, 301.
    counts = [p.count for p in result.probes]
    assert counts[:4] == [1000, 1, 500, 250]
    assert max(p.count for p in result.probes if p.passed) == 300
    assert min(p.count for p in result.probes if not p.passed) == 301
    failed_at_301 = next(p for p in result.probes if p.count == 301)
    assert (failed_at_301.flooded, failed_at_301.lost, failed_at_301.sent) == (1, 0, 301)
    # Every probe waits the ageing time first, then: T's own frames, the learning
    # frames, the test frames.
    assert switch.slept == [3.0 + AGEING_MARGIN_S] * len(result.probes)
    first = switch.specs[:3]
    assert [s.experiment for s in first] == [PORT_LEARNING_EXPERIMENT, LEARNING_EXPERIMENT,
                                             "rfc2889-address-caching"]
    assert [(s.stream_loads[0][0], s.frame_count, s.variation_lengths) for s in first] == [
        (TEST, TEST_PORT_FRAMES, ((TEST, 1),)), (LEARNING, 1000, ((LEARNING, 1000),)),
        (TEST, 1000, ((TEST, 1000),))]
    assert first[1].stream_loads[0][1] == pytest.approx(1000 / line_rate_pps(LINE_BPS, 64))


def test_a_cache_larger_than_the_streams_addresses_is_reported_at_the_limit() -> None:
    switch = CachingSwitch(cache=5000)
    result = run_address_test(_config(AddressTest.CACHING_CAPACITY), Recorder(switch),
                              sleep=switch.sleep)
    assert (result.capacity, result.at_limit, len(result.probes)) == (1000, True, 1)


def test_a_switch_that_learns_nothing_has_no_capacity() -> None:
    switch = CachingSwitch(cache=0)
    result = run_address_test(_config(AddressTest.CACHING_CAPACITY), Recorder(switch),
                              sleep=switch.sleep)
    assert (result.capacity, [p.count for p in result.probes]) == (None, [1000, 1])


def test_the_learning_rate_is_the_switchs_within_the_resolution() -> None:
    # Learns 1 of every ceil(r / 437) frames: all 200 addresses only at 437 frames/s or
    # below; the search goes in 10-frame/s steps from 10: 430 is the last step at or below.
    switch = CachingSwitch(cache=10_000, learning_pps=437.0)
    result = run_address_test(_config(AddressTest.LEARNING_RATE, addresses=200),
                              Recorder(switch), sleep=switch.sleep)
    assert (result.learning_rate_pps, result.at_limit) == (430.0, False)
    assert all(p.count == 200 for p in result.probes)
    assert min(p.learning_pps for p in result.probes if not p.passed) == 440.0


def test_the_learning_rate_test_needs_an_address_count_within_the_streams() -> None:
    with pytest.raises(ValueError, match=r"learns a given number of addresses \(--addresses\), "
                                         r"1 to the streams' 1000; got 2000"):
        _config(AddressTest.LEARNING_RATE, addresses=2000)


def test_rates_above_the_line_rate_are_refused() -> None:
    with pytest.raises(ValueError, match=r"learning_pps 20000 frames/s is above the ports' "
                                         r"line rate, 14881 frames/s of 64 B; lower it"):
        _config(AddressTest.CACHING_CAPACITY, learning_pps=20000.0)


def test_a_probe_slower_than_the_ageing_time_in_every_try_is_noted() -> None:
    """Every trial starts 2.5 s after the one before (a busy host's set-up): the test
    trial's 1000 frames at 1000 fps end 3.5 s after the learning trial began."""
    switch = CachingSwitch(cache=5000, trial_gaps_s=[2.5] * 9)
    result = run_address_test(_config(AddressTest.CACHING_CAPACITY), Recorder(switch),
                              sleep=switch.sleep)
    assert [(p.count, p.repeated, p.held_s) for p in result.probes] == [
        (1000, True, 3.5), (1000, True, 3.5), (1000, False, 3.5)]
    assert len(switch.slept) == PROBE_ATTEMPTS == 3
    assert result.notes == (
        "1 probe(s) needed the DUT to hold its addresses as long as the ageing time or "
        "longer in each of 3 tries (up to 3.5 s against 3 s): the DUT may have forgotten "
        "addresses during them; run on a less busy host or give the DUT a longer ageing "
        "time",)


def test_a_probe_slowed_once_is_run_again_and_only_the_repeat_counts() -> None:
    """The first probe of 1000 is slowed (its test trial starts 2.5 s after the
    learning trial), its repeat is not: the capacity comes from the repeat, the slow
    one is kept and marked, and nothing is noted."""
    switch = CachingSwitch(cache=300, trial_gaps_s=[0.5, 2.5])
    result = run_address_test(_config(AddressTest.CACHING_CAPACITY), Recorder(switch),
                              sleep=switch.sleep)
    assert [(p.count, p.repeated, round(p.held_s, 9)) for p in result.probes[:3]] == [
        (1000, True, 3.5), (1000, False, 1.5), (1, False, 0.6)]
    assert (result.capacity, result.notes) == (300, ())
    lines = rfc2889_addresses_report(result)
    assert lines[4].endswith("3.5  too slow for the ageing time: run again")


def test_the_report_gives_the_capacity_the_conditions_and_every_probe() -> None:
    switch = CachingSwitch(cache=2)
    config = _config(AddressTest.CACHING_CAPACITY, max_addresses=4)
    lines = rfc2889_addresses_report(run_address_test(config, Recorder(switch),
                                                      sleep=switch.sleep,
                                                      clock=lambda: 0.0))
    assert lines[:2] == [
        "RFC 2889 address caching capacity: 2 addresses",
        "learning port 1, test port 2, 64 B, learning frames at 1000 fps, test frames at "
        "1000 fps, ageing time 3 s"]
    # Probes 4 (2 flooded), 1, 2, 3 (1 flooded); the addresses held from the learning
    # trial's start (0.5 s before the test trial's) to the end of the test frames.
    assert lines[3].endswith("flooded  held s  verdict")
    assert lines[4:8] == [
        "    0         4      1000      4      4     0       2     0.6  flooded or lost",
        "    1         1      1000      1      1     0       0     0.6  all learnt",
        "    2         2      1000      2      2     0       0     0.6  all learnt",
        "    3         3      1000      3      3     0       1     0.6  flooded or lost"]


def test_a_profile_without_an_addresses_entry_is_refused_saying_how_to_add_one() -> None:
    mesh = profile_from_dict({"name": "m", "streams": [{"mesh": [1, 2], "id": 0}]}, "m.yaml")
    with pytest.raises(ConfigError, match=r"the profile has no addresses entry; add one, e.g. "
                                          r"`- \{addresses: 1000, between: \[1, 2\], id: 0\}`"):
        address_streams(mesh.streams)
    assert [s.id for s in address_streams(PROFILE.streams)] == [LEARNING, TEST]
