"""The values a tester agent (otg.agent) and the controller's remote tester
(targets.remote_tester) exchange, as JSON: the trial loop's own types, each by name.

A dataclass is {"type": name, "fields": {...}}; a tuple {"tuple": [...]}; a mapping
{"map": [[key, value], ...]} (its keys may be integers); an enum {"enum": name,
"value": ...}. Only the types in TYPES are made from a message, so an agent builds
nothing a message names beyond the trial loop's plain records."""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Mapping
from typing import Any, Final

from p4tester.experiments.runner import TrialSpec
from p4tester.p4rt import CounterValue
from p4tester.results.clocks import PtpState
from p4tester.results.model import (
    Histogram,
    IntervalCounts,
    LatencyStats,
    RateStep,
    ReceiverStats,
    StreamStats,
)
from p4tester.streams.shapes import ShapeKind, ShapeStep, TrafficShape
from p4tester.tester.flow_engine import FlowLatency
from p4tester.tester.port_counters import InterfaceCounters
from p4tester.tester.rate_schedule import RateSchedule, ScheduledSender
from p4tester.tester.selfcheck import ProgramPortCounts
from p4tester.tester.send_watch import Sender, SentReading
from p4tester.tester.snapshot import CounterSnapshot
from p4tester.tester.trial_course import StreamSample
from p4tester.tester.trial_loop import ArmedTrial, Extras, RxKinds

TYPES: Final[Mapping[str, type]] = {cls.__name__: cls for cls in (
    TrialSpec, TrafficShape, CounterValue, CounterSnapshot, ProgramPortCounts,
    InterfaceCounters, Sender, SentReading, StreamSample, ArmedTrial, RateSchedule,
    ScheduledSender, ShapeStep, RxKinds, Extras, StreamStats, LatencyStats, Histogram,
    IntervalCounts, RateStep, ReceiverStats, FlowLatency, PtpState)}
ENUMS: Final[Mapping[str, type[enum.Enum]]] = {"ShapeKind": ShapeKind}


class CodecError(ValueError):
    """A message naming a type or shape the codec does not make."""


def encode(value: object) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        name = type(value).__name__
        if TYPES.get(name) is not type(value):
            raise CodecError(f"{name} is not a type agents exchange")
        return {"type": name, "fields": {f.name: encode(getattr(value, f.name))
                                         for f in dataclasses.fields(value) if f.init}}
    if isinstance(value, enum.Enum):
        return {"enum": type(value).__name__, "value": value.value}
    if isinstance(value, tuple):
        return {"tuple": [encode(item) for item in value]}
    if isinstance(value, list):
        return [encode(item) for item in value]
    if isinstance(value, Mapping):
        return {"map": [[encode(k), encode(v)] for k, v in value.items()]}
    if value is None or isinstance(value, bool | int | float | str):
        return value
    raise CodecError(f"a {type(value).__name__} is not a value agents exchange")


def decode(value: Any) -> Any:
    if isinstance(value, list):
        return [decode(item) for item in value]
    if not isinstance(value, dict):
        return value
    if set(value) == {"tuple"}:
        return tuple(decode(item) for item in value["tuple"])
    if set(value) == {"map"}:
        return {decode(k): decode(v) for k, v in value["map"]}
    if set(value) == {"enum", "value"}:
        kind = ENUMS.get(value["enum"])
        if kind is None:
            raise CodecError(f"enum {value['enum']!r} is not one agents exchange")
        return kind(value["value"])
    if set(value) == {"type", "fields"}:
        cls = TYPES.get(value["type"])
        if cls is None:
            raise CodecError(f"type {value['type']!r} is not one agents exchange")
        return cls(**{str(k): decode(v) for k, v in value["fields"].items()})
    raise CodecError(f"an object with keys {sorted(value)} is not a value agents exchange")
