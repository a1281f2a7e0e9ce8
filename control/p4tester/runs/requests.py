"""Typed, frozen requests: what an experiment run takes, whichever front end parsed it
(the CLI from argv, the web server from JSON). Each request lists its options once
(`OPTIONS`): their names, help, parsers and which are required; a request's defaults
are its fields' defaults."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar

from p4tester.config.profile import Profile
from p4tester.experiments.rfc2889_pressure import DEFAULT_MFR_STEPS
from p4tester.experiments.throughput import SearchMethod
from p4tester.streams.rates import FORWARD_PRESSURE_IFG_BITS, Rate, RateUnit, gap_load
from p4tester.streams.shapes import TrafficShape

from .option_parsers import (
    count,
    frames_per_second,
    load_fraction,
    load_rate,
    load_step,
    percent_list,
    port_list,
    seconds,
    shape_list,
    size_list,
)


@dataclass(frozen=True, slots=True)
class Option:
    """One option: `name` as the CLI spells it without dashes and the API takes it."""

    name: str
    help: str
    parse: Callable[[str], object]
    required: bool = False
    choices: tuple[str, ...] | None = None
    field_name: str = ""  # the request's field, when not the name with underscores

    @property
    def field(self) -> str:
        return self.field_name or self.name.replace("-", "_")


def _duration() -> Option:
    return Option("duration", "trial seconds (default: the profile's)", seconds,
                  field_name="duration_s")


class ExperimentRequest:
    """What every request answers: its options, the loads to check against line rate
    and the fixed loads to check against the tester's calibrated capacity."""

    __slots__ = ()
    OPTIONS: ClassVar[tuple[Option, ...]] = ()

    def rates_at_one_size(self) -> tuple[int, dict[str, Rate]]:
        """The frame size and the loads (option name -> Rate) given at it."""
        return 0, {}

    def fixed_loads(self, profile: Profile) -> list[tuple[int, Rate | float]]:
        """(frame size, load) of the highest fixed load offered, a Rate or a share of
        line rate."""
        del profile
        return []

    def frame_sizes_asked(self) -> tuple[tuple[str, tuple[int, ...]], ...]:
        """The frame sizes the options name, by option name (so an error can point at
        the field it is about); none: the profile's own, checked when it was loaded."""
        sizes: tuple[int, ...] = getattr(self, "frame_sizes", None) or ()
        single: int | None = getattr(self, "frame_size", None)
        return ((("frame-sizes", sizes),) if sizes else ()) + \
            ((("frame-size", (single,)),) if single is not None else ())

    def trial_s(self, profile: Profile) -> float:
        duration = getattr(self, "duration_s", None)
        return float(duration) if duration else profile.trial.duration_s

    @classmethod
    def defaults(cls) -> dict[str, object]:
        return {f.name: f.default for f in dataclasses.fields(cls)  # type: ignore[arg-type]
                if f.default is not dataclasses.MISSING}


@dataclass(frozen=True, slots=True)
class ThroughputRequest(ExperimentRequest):
    OPTIONS: ClassVar[tuple[Option, ...]] = (
        Option("method", "search method (default: the profile's)", str,
               choices=tuple(m.value for m in SearchMethod)),
        Option("frame-sizes", "e.g. 64,512,1518", size_list),
        _duration(),
    )
    method: str | None = None
    frame_sizes: tuple[int, ...] | None = None
    duration_s: float | None = None


@dataclass(frozen=True, slots=True)
class LatencyRequest(ExperimentRequest):
    OPTIONS: ClassVar[tuple[Option, ...]] = (
        Option("frame-size", "frame size (B)", int, required=True),
        Option("load", "offered load, normally the throughput found: 95%, 3000pps, 2Mbps",
               load_rate, required=True),
        Option("trials", "RFC 2544: at least 20", count),
        _duration(),
    )
    frame_size: int
    load: Rate
    trials: int = 20
    duration_s: float | None = None

    def rates_at_one_size(self) -> tuple[int, dict[str, Rate]]:
        return self.frame_size, {"load": self.load}

    def fixed_loads(self, profile: Profile) -> list[tuple[int, Rate | float]]:
        return [(self.frame_size, self.load)]


@dataclass(frozen=True, slots=True)
class FrameLossRequest(ExperimentRequest):
    OPTIONS: ClassVar[tuple[Option, ...]] = (
        Option("frame-sizes", "e.g. 64,512,1518", size_list),
        Option("step", "load step, at most 10% of line rate (RFC 2544): 10%, 0.05", load_step),
        _duration(),
    )
    frame_sizes: tuple[int, ...] | None = None
    step: float = 0.1
    duration_s: float | None = None


@dataclass(frozen=True, slots=True)
class BackToBackRequest(ExperimentRequest):
    OPTIONS: ClassVar[tuple[Option, ...]] = (
        Option("frame-size", "frame size (B)", int, required=True),
        Option("throughput", "the DUT's measured throughput, for RFC 9004's correction",
               load_rate, required=True),
        Option("repetitions", "RFC 2544: 50", count),
        Option("max-burst", "longest burst tried (frames)", count),
        _duration(),
    )
    frame_size: int
    throughput: Rate
    repetitions: int = 50
    max_burst: int | None = None
    duration_s: float | None = None

    def rates_at_one_size(self) -> tuple[int, dict[str, Rate]]:
        return self.frame_size, {"throughput": self.throughput}


@dataclass(frozen=True, slots=True)
class FrameSizeScanRequest(ExperimentRequest):
    OPTIONS: ClassVar[tuple[Option, ...]] = (
        Option("start", "first frame size (B)", int, required=True),
        Option("end", "last frame size (B)", int, required=True),
        Option("step", "bytes between sizes", count),
        Option("load", "share of line rate at every size: 100%, 0.5", load_fraction),
        _duration(),
    )
    start: int
    end: int
    step: int = 1
    load: float = 1.0
    duration_s: float | None = None

    def frame_sizes_asked(self) -> tuple[tuple[str, tuple[int, ...]], ...]:
        return (("start", (self.start,)), ("end", (self.end,)))


@dataclass(frozen=True, slots=True)
class RampRequest(ExperimentRequest):
    OPTIONS: ClassVar[tuple[Option, ...]] = (
        Option("frame-size", "frame size (B)", int),
        Option("start", "e.g. 20%, 1000pps", load_rate, required=True),
        Option("end", "last load", load_rate, required=True),
        Option("step", "load added every step", load_rate, required=True),
        _duration(),
    )
    start: Rate
    end: Rate
    step: Rate
    frame_size: int = 64
    duration_s: float | None = None

    def rates_at_one_size(self) -> tuple[int, dict[str, Rate]]:
        return self.frame_size, {"start": self.start, "end": self.end, "step": self.step}

    def fixed_loads(self, profile: Profile) -> list[tuple[int, Rate | float]]:
        return [(self.frame_size, self.end)]


@dataclass(frozen=True, slots=True)
class SoakRequest(ExperimentRequest):
    OPTIONS: ClassVar[tuple[Option, ...]] = (
        Option("frame-size", "frame size (B)", int),
        Option("load", "e.g. 30%, 2000pps", load_rate, required=True),
        Option("total", "soak seconds", seconds, required=True, field_name="total_s"),
        Option("interval", "seconds per interval", seconds, field_name="interval_s"),
    )
    load: Rate
    total_s: float
    frame_size: int = 64
    interval_s: float = 10.0

    def rates_at_one_size(self) -> tuple[int, dict[str, Rate]]:
        return self.frame_size, {"load": self.load}

    def fixed_loads(self, profile: Profile) -> list[tuple[int, Rate | float]]:
        return [(self.frame_size, self.load)]


@dataclass(frozen=True, slots=True)
class QueueSweepRequest(ExperimentRequest):
    OPTIONS: ClassVar[tuple[Option, ...]] = (
        Option("frame-sizes", "e.g. 64,512,1518", size_list),
        Option("buffers", "DUT buffer thresholds, % of its queue depth", percent_list,
               field_name="buffer_percents"),
        Option("load", "per TX port (seed 004: two ports at ~50% into one)", load_fraction),
        Option("repetitions", "trials per frame size and threshold; the fit uses their "
               "medians", count),
        _duration(),
    )
    frame_sizes: tuple[int, ...] | None = None
    buffer_percents: tuple[float, ...] = (1, 10, 20, 40, 60, 80, 100)
    load: float = 0.502
    repetitions: int = 3
    duration_s: float | None = None

    def fixed_loads(self, profile: Profile) -> list[tuple[int, Rate | float]]:
        return [(size, self.load) for size in self.frame_sizes or profile.frame_sizes]


@dataclass(frozen=True, slots=True)
class ShapeRequest(ExperimentRequest):
    OPTIONS: ClassVar[tuple[Option, ...]] = (
        Option("shape", "sine|triangle|sawtooth|square,period=S,amplitude=A or flash-crowd,"
               "start=S,rise=S,peak=X,decay=S; per stream: '0:sine,period=4;1:constant'",
               shape_list, required=True),
        Option("load", "the load the shape swings around, per TX port: 50%, 3000pps",
               load_rate, required=True),
        Option("frame-size", "frame size (B)", int),
        Option("step", "seconds of constant rate per step (at least 0.25)", seconds,
               field_name="step_s"),
        _duration(),
    )
    shape: tuple[tuple[int | None, TrafficShape], ...]
    load: Rate
    frame_size: int = 64
    step_s: float = 0.5
    duration_s: float | None = None

    def rates_at_one_size(self) -> tuple[int, dict[str, Rate]]:
        return self.frame_size, {"load": self.load}

    def fixed_loads(self, profile: Profile) -> list[tuple[int, Rate | float]]:
        # The tester must carry the shapes' highest rate, not only their load.
        highest = max(shape.highest for _, shape in self.shape)
        return [(self.frame_size, dataclasses.replace(self.load, value=self.load.value * highest))]


RFC2889_TESTS = ("fully-meshed", "partially-meshed", "congestion-control", "forward-pressure")


@dataclass(frozen=True, slots=True)
class Rfc2889Request(ExperimentRequest):
    """The streams come from the profile, one per (TX port, RX port) pair the test
    needs: a `mesh` entry gives them all (config.stream_mesh)."""

    OPTIONS: ClassVar[tuple[Option, ...]] = (
        Option("test", "which RFC 2889 test", str, required=True, choices=RFC2889_TESTS),
        Option("ports", "fully-meshed: the ports (1,2,3,4); congestion-control: A,B,C,D "
               "(A and B into the congested C, A also into D); forward-pressure: A,B (A "
               "into B)", port_list),
        Option("sources", "partially-meshed: the ports that send", port_list),
        Option("destinations", "partially-meshed: the ports they send to", port_list),
        Option("directions", "partially-meshed: one-way, or both-ways (the destinations "
               "send back)", str, choices=("one-way", "both-ways")),
        Option("frame-sizes", "e.g. 64,512,1518", size_list),
        Option("max-load", "the maximum offered load per TX port: 100%, 0.5 (forward-"
               "pressure: the MFR's highest load below its 88-bit-gap trial)", load_fraction),
        Option("mfr-steps", "forward-pressure: the maximum forwarding rate's loads up to the "
               "max-load (10: 10 %, 20 %, ... 100 %), then the 88-bit-gap trial", count),
        Option("method", "search method of the meshed tests' throughput (default: the "
               "profile's)", str, choices=tuple(m.value for m in SearchMethod)),
        _duration(),
    )
    test: str
    ports: tuple[int, ...] | None = None
    sources: tuple[int, ...] | None = None
    destinations: tuple[int, ...] | None = None
    directions: str = "one-way"
    frame_sizes: tuple[int, ...] | None = None
    max_load: float = 1.0
    mfr_steps: int = DEFAULT_MFR_STEPS
    method: str | None = None
    duration_s: float | None = None

    def fixed_loads(self, profile: Profile) -> list[tuple[int, Rate | float]]:
        sizes = self.frame_sizes or profile.frame_sizes
        if self.test == "forward-pressure":  # the tester must carry the 88-bit gap's rate
            return [(size, gap_load(size, FORWARD_PRESSURE_IFG_BITS)) for size in sizes]
        return [(size, self.max_load) for size in sizes]


RFC2889_ADDRESS_TESTS = ("address-caching", "address-learning-rate")


@dataclass(frozen=True, slots=True)
class Rfc2889AddressRequest(ExperimentRequest):
    """The learning and test streams come from the profile's `addresses` entry
    (config.stream_learning), which names the learning and the test port."""

    OPTIONS: ClassVar[tuple[Option, ...]] = (
        Option("test", "which RFC 2889 address test", str, required=True,
               choices=RFC2889_ADDRESS_TESTS),
        Option("ageing", "the DUT's address ageing time, seconds (each probe waits it "
               "first, so the DUT forgets the probe before)", seconds, required=True,
               field_name="ageing_s"),
        Option("frame-size", "frame size (B)", int),
        Option("learning-rate", "frames/s of the learning frames (address-caching); the "
               "search's upper bound (address-learning-rate)", frames_per_second,
               field_name="learning_pps"),
        Option("test-rate", "frames/s of the test frames", frames_per_second,
               field_name="test_pps"),
        Option("addresses", "address-learning-rate: how many addresses it learns (at most "
               "the profile's addresses entry's)", count),
        Option("min-rate", "address-learning-rate: the search's lower bound, frames/s",
               frames_per_second, field_name="min_pps"),
        Option("resolution", "address-learning-rate: the search's step, frames/s",
               frames_per_second,
               field_name="resolution_pps"),
    )
    test: str
    ageing_s: float
    frame_size: int = 64
    learning_pps: float = 1000.0
    test_pps: float = 1000.0
    addresses: int | None = None
    min_pps: float = 10.0
    resolution_pps: float = 10.0

    def fixed_loads(self, profile: Profile) -> list[tuple[int, Rate | float]]:
        return [(self.frame_size, Rate(max(self.learning_pps, self.test_pps), RateUnit.PPS))]


Y1564_TESTS = ("both", "configuration", "performance")


@dataclass(frozen=True, slots=True)
class Y1564Request(ExperimentRequest):
    """The services and their SLAs come from the profile (`services`, config.services)."""

    OPTIONS: ClassVar[tuple[Option, ...]] = (
        Option("frame-size", "frame size (B) of services whose stream has none of its own",
               int),
        Option("steps", "CIR steps, % of CIR (Y.1564: 25,50,75,100)", percent_list,
               field_name="cir_steps_pct"),
        Option("step-duration", "seconds per configuration step (default: the profile's "
               "trial duration)", seconds, field_name="duration_s"),
        Option("performance-duration", "seconds of the performance test (Y.1564: 900, "
               "7200 or 86400)", seconds, field_name="performance_duration_s"),
        Option("tests", "which Y.1564 tests to run", str, choices=Y1564_TESTS),
    )
    frame_size: int = 512
    cir_steps_pct: tuple[float, ...] = (25.0, 50.0, 75.0, 100.0)
    duration_s: float | None = None  # of a configuration step
    performance_duration_s: float = 900.0
    tests: str = "both"
