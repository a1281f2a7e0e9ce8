"""RFC 2889's address tests (issue 24, item 2) on a learning switch, with three ports:
the learning port L, the test port T and the monitoring ports (the DUT's other ports
the tester hears on):

- address caching capacity (section 5.7): the most addresses the DUT learns on L
  such that frames sent to them from T reach L only, found by a binary search on the
  address count at a learning rate the DUT keeps up with;
- address learning rate (5.8): the highest rate of learning frames, n addresses
  each sent once, at which the DUT learns them all, found by a binary search on the
  rate.

One probe (a count n at a rate r) is, in order:
1. wait the DUT's ageing time (plus a margin), so that the addresses of the probe
   before are forgotten: RFC 2889 asks for an empty address table at each trial;
2. T sends a few frames from its own address, so that the DUT knows where T is;
3. L sends n learning frames at r, frame i from address i, to T's address;
4. T sends n test frames at the test rate, frame i to address i.
The probe passes when every test frame reached L and none reached another port: a
frame to an address the DUT did not learn is flooded, and the monitoring ports'
copies are the trial's mismatched frames (`rx_mismatched`), never any stream's.
Steps 2 and 3 are logged like every trial and judged by none (their frames may
flood). Step 4 is a trial of the one trial loop: a trial the tester cannot vouch for
is repeated (Recorder.valid_trial); what it lost is the DUT's.

The DUT must remember the addresses from step 3 to the end of step 4, or it forgets
some during the test: the probe says how long that was (`held_s`, from the trials'
own start times: the reads after a trial's frames do not count) and how long the
whole probe took (`seconds`). A probe whose addresses had to be held as long as the
ageing time (a busy host slows the trials' set-up) proves nothing about the DUT's
cache and is run again, up to PROBE_ATTEMPTS times in all; the result notes a probe
that stayed that slow.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from enum import Enum
from typing import Final

from p4tester.results.model import TrialResult
from p4tester.streams.rates import line_rate_pps

from .recording import Labels, Recorder
from .validation import check_frame_size, check_labels, check_positive

_OWNER: Final = "AddressTestConfig"
PORT_LEARNING_EXPERIMENT: Final = "rfc2889-test-port-learning"
LEARNING_EXPERIMENT: Final = "rfc2889-address-learning"
# Frames T sends from its own address before the learning frames.
TEST_PORT_FRAMES: Final = 3
# Waited beyond the ageing time: a DUT sweeps its table now and then, not at the
# instant an entry expires.
AGEING_MARGIN_S: Final = 1.0
# A probe slower than the ageing time is tried this often in all before its figures are
# used with a note: a busy host is often busy for a moment only.
PROBE_ATTEMPTS: Final = 3


class AddressTest(Enum):
    CACHING_CAPACITY = "address-caching"
    LEARNING_RATE = "address-learning-rate"


@dataclass(frozen=True, slots=True)
class AddressTestConfig:
    """`learning_stream`/`test_stream`: the ids of an `addresses` entry's streams
    (config.stream_learning), which hold `max_addresses` addresses; `ageing_s`: the
    DUT's ageing time; `learning_pps`: the rate of the learning frames (the caching
    test's, and the learning rate search's upper bound); `test_pps`: the rate of the
    test frames; `addresses`: the learning rate test's address count; `min_pps` and
    `resolution_pps`: the learning rate search's lower bound and the width it stops at."""

    test: AddressTest
    learning_stream: int
    test_stream: int
    learning_port: int
    test_port: int
    port_line_bps: float  # the learning and test ports'
    max_addresses: int
    frame_size: int
    ageing_s: float
    learning_pps: float
    test_pps: float
    addresses: int | None = None
    min_pps: float = 10.0
    resolution_pps: float = 10.0
    labels: Labels = ()

    def __post_init__(self) -> None:
        check_frame_size(_OWNER, "frame_size", self.frame_size)
        check_labels(_OWNER, self.labels)
        for name in ("ageing_s", "learning_pps", "test_pps", "min_pps", "resolution_pps"):
            check_positive(_OWNER, name, getattr(self, name), "s" if name == "ageing_s"
                           else "frames/s")
        if self.max_addresses < 1:
            raise ValueError(f"{_OWNER}: the streams hold {self.max_addresses} addresses; "
                             "give the profile an addresses entry")
        line = line_rate_pps(self.port_line_bps, self.frame_size)
        for name in ("learning_pps", "test_pps"):
            if getattr(self, name) > line * (1 + 1e-9):
                raise ValueError(f"{_OWNER}: {name} {getattr(self, name):g} frames/s is above "
                                 f"the ports' line rate, {line:.0f} frames/s of "
                                 f"{self.frame_size} B; lower it")
        if self.test is AddressTest.LEARNING_RATE:
            if self.addresses is None or not 1 <= self.addresses <= self.max_addresses:
                raise ValueError(f"{_OWNER}: the learning rate test learns a given number of "
                                 f"addresses (--addresses), 1 to the streams' "
                                 f"{self.max_addresses}; got {self.addresses}")
            if self.min_pps >= self.learning_pps:
                raise ValueError(f"{_OWNER}: the learning rate search's lower bound "
                                 f"{self.min_pps:g} frames/s must be below its upper bound "
                                 f"{self.learning_pps:g}")

    @property
    def experiment(self) -> str:
        return f"rfc2889-{self.test.value}"

    def load(self, pps: float) -> float:
        """`pps` as a share of the ports' line rate (what a trial takes)."""
        return min(1.0, pps / line_rate_pps(self.port_line_bps, self.frame_size))


@dataclass(frozen=True, slots=True)
class AddressProbe:
    """One probe: `count` addresses learnt at `learning_pps`; `sent`/`received`: the
    test frames T sent and L received; `flooded`: copies of them on other ports."""

    count: int
    learning_pps: float
    sent: int
    received: int
    lost: int
    flooded: int
    seconds: float  # from T's first frame to the test trial's end
    test_trial: TrialResult
    # From the learning trial's start to the test trial's start plus its duration: how
    # long the DUT had to remember the addresses (the trials' reads left out).
    held_s: float = 0.0
    # It took as long as the ageing time and was run again: its figures are not used.
    repeated: bool = False

    @property
    def passed(self) -> bool:
        return self.lost == 0 and self.flooded == 0


@dataclass(frozen=True, slots=True)
class AddressResult:
    """`capacity`: the most addresses learnt (caching test), `learning_rate_pps`: the
    highest rate all were learnt at (learning rate test); None when even the smallest
    probe failed. `at_limit`: the answer is the search's bound (the streams' address
    count, or the learning rate's upper bound): the DUT may do more."""

    config: AddressTestConfig
    probes: tuple[AddressProbe, ...]
    capacity: int | None = None
    learning_rate_pps: float | None = None
    at_limit: bool = False
    notes: tuple[str, ...] = field(default=())


def probe_addresses(config: AddressTestConfig, recorder: Recorder, count: int,
                    learning_pps: float, sleep: Callable[[float], None] = time.sleep,
                    clock: Callable[[], float] = time.monotonic) -> AddressProbe:
    """One probe (the module's steps 1 to 4)."""
    sleep(config.ageing_s + AGEING_MARGIN_S)
    labels = (*config.labels, ("test", config.test.value), ("addresses", str(count)),
              ("learning_pps", f"{learning_pps:g}"))
    started = clock()
    recorder.trial(PORT_LEARNING_EXPERIMENT, config.frame_size, config.load(config.test_pps),
                   _seconds_for(TEST_PORT_FRAMES, config.test_pps),
                   frame_count=TEST_PORT_FRAMES, labels=labels,
                   stream_loads=((config.test_stream, config.load(config.test_pps)),),
                   variation_lengths=((config.test_stream, 1),))
    learning = recorder.trial(
        LEARNING_EXPERIMENT, config.frame_size, config.load(learning_pps),
        _seconds_for(count, learning_pps), frame_count=count, labels=labels,
        stream_loads=((config.learning_stream, config.load(learning_pps)),),
        variation_lengths=((config.learning_stream, count),))
    trial = recorder.valid_trial(
        config.experiment, config.frame_size, config.load(config.test_pps),
        _seconds_for(count, config.test_pps), frame_count=count, labels=labels,
        stream_loads=((config.test_stream, config.load(config.test_pps)),),
        variation_lengths=((config.test_stream, count),))
    seconds = clock() - started
    (stats,) = [s for s in trial.streams if s.stream_id == config.test_stream]
    held_s = trial.started_at + trial.duration_s - learning.started_at
    return AddressProbe(count, learning_pps, stats.tx_frames, stats.rx_frames, stats.lost,
                        trial.rx_mismatched, seconds, trial, held_s)


def _seconds_for(frames: int, pps: float) -> float:
    """A trial long enough for `frames` at `pps` (frame_count makes it stop at them)."""
    return max(0.1, frames / pps)


def run_address_test(config: AddressTestConfig, recorder: Recorder,
                     sleep: Callable[[float], None] = time.sleep,
                     clock: Callable[[], float] = time.monotonic) -> AddressResult:
    """The test's binary search. Errors of the trials (InvalidTrialsError,
    UnvouchedTrialError) propagate; the finished trials are in the recorder's log."""
    probes: list[AddressProbe] = []

    def probe(count: int, pps: float) -> bool:
        for _ in range(PROBE_ATTEMPTS - 1):
            tried = probe_addresses(config, recorder, count, pps, sleep, clock)
            if tried.held_s < config.ageing_s:
                probes.append(tried)
                return tried.passed
            probes.append(replace(tried, repeated=True))
        probes.append(probe_addresses(config, recorder, count, pps, sleep, clock))
        return probes[-1].passed

    if config.test is AddressTest.CACHING_CAPACITY:
        best = _largest_passing(1, config.max_addresses,
                                lambda n: probe(n, config.learning_pps))
        return AddressResult(config, tuple(probes), capacity=best,
                             at_limit=best == config.max_addresses,
                             notes=_ageing_notes(config, probes))
    assert config.addresses is not None
    count = config.addresses
    # In steps of the resolution from the lower bound: the answer is a step's rate.
    steps = math.floor((config.learning_pps - config.min_pps) / config.resolution_pps)
    rates = [config.min_pps + i * config.resolution_pps for i in range(steps + 1)]
    if rates[-1] < config.learning_pps:
        rates.append(config.learning_pps)
    best_step = _largest_passing(0, len(rates) - 1, lambda i: probe(count, rates[i]))
    return AddressResult(config, tuple(probes),
                         learning_rate_pps=None if best_step is None else rates[best_step],
                         at_limit=best_step == len(rates) - 1,
                         notes=_ageing_notes(config, probes))


def _largest_passing(low: int, high: int, passes: Callable[[int], bool]) -> int | None:
    """The largest k in [low, high] with passes(k), for a `passes` true up to some k and
    false above it; None when passes(low) is false. The top is tried first (a DUT that
    does it all takes one probe), then the bottom, then halves."""
    if passes(high):
        return high
    if high == low or not passes(low):
        return None
    good, bad = low, high
    while bad - good > 1:
        middle = (good + bad) // 2
        if passes(middle):
            good = middle
        else:
            bad = middle
    return good


def _ageing_notes(config: AddressTestConfig, probes: list[AddressProbe]) -> tuple[str, ...]:
    slow = [p for p in probes if p.held_s >= config.ageing_s and not p.repeated]
    if not slow:
        return ()
    worst = max(slow, key=lambda p: p.held_s)
    return (f"{len(slow)} probe(s) needed the DUT to hold its addresses as long as the "
            f"ageing time or longer in each of {PROBE_ATTEMPTS} tries (up to "
            f"{worst.held_s:.1f} s against {config.ageing_s:g} s): the DUT may have "
            "forgotten addresses during them; run on a less busy host or give the DUT a "
            "longer ageing time",)
