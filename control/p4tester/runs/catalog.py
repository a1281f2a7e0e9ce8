"""The experiments a run can be: name, one-line summary, request type and body, and
the one way a request is built from option values, whichever front end read them."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Final

from p4tester.config.profile import Profile
from p4tester.config.topology import Topology

from .bodies import (
    Outcome,
    RunContext,
    back_to_back_body,
    frame_loss_body,
    frame_size_scan_body,
    latency_body,
    queue_sweep_body,
    ramp_body,
    shape_body,
    soak_body,
    throughput_body,
)
from .option_parsers import OptionValueError
from .requests import (
    BackToBackRequest,
    ExperimentRequest,
    FrameLossRequest,
    FrameSizeScanRequest,
    LatencyRequest,
    Option,
    QueueSweepRequest,
    RampRequest,
    Rfc2889AddressRequest,
    Rfc2889Request,
    ShapeRequest,
    SoakRequest,
    ThroughputRequest,
    Y1564Request,
)
from .rfc2889_addresses_body import require_addresses, rfc2889_addresses_body
from .rfc2889_body import rfc2889_body, rfc2889_check
from .y1564_body import require_services, y1564_body


class RequestError(ValueError):
    """Bad experiment options; the message names the experiment, the option and the fix.
    `option`: the one option it is about (its name without dashes), so the dashboard
    can say it next to that field; None when it is about no one option."""

    def __init__(self, message: str, option: str | None = None) -> None:
        super().__init__(message)
        self.option = option


@dataclass(frozen=True, slots=True)
class Experiment:
    name: str
    summary: str
    request_type: type[ExperimentRequest]
    body: Callable[[Any, RunContext], Outcome]
    # What the body would refuse about the request on a topology and profile
    # (ConfigError), checked before a run starts (runs.execute.plan_run).
    check: Callable[[Any, Topology, Profile], None] | None = None
    # Every trial sends the profile's varying streams whole (runs.flows_record): not so
    # where the experiment chooses how many of a stream's addresses a trial sends.
    sends_profile_flows: bool = True

    @property
    def options(self) -> tuple[Option, ...]:
        return self.request_type.OPTIONS

    def default_text(self, option: Option) -> str | None:
        """An option's default as a user would type it (None: no default)."""
        value = self.request_type.defaults().get(option.field)
        if value is None:
            return None
        if isinstance(value, tuple):
            return ",".join(f"{v:g}" if isinstance(v, float) else str(v) for v in value)
        return str(value)


EXPERIMENTS: Final[Mapping[str, Experiment]] = {e.name: e for e in (
    Experiment("throughput", "RFC 2544 26.1: NDR and PDR per frame size (MLRsearch or binary)",
               ThroughputRequest, throughput_body),
    Experiment("latency", "RFC 2544 26.2 latency at a load, RFC 8219 figures",
               LatencyRequest, latency_body),
    Experiment("frame-loss", "RFC 2544 26.3 frame loss rate curve",
               FrameLossRequest, frame_loss_body),
    Experiment("back-to-back", "RFC 2544 26.4 back-to-back frames, RFC 9004 buffer time",
               BackToBackRequest, back_to_back_body),
    Experiment("frame-size-scan", "loss vs frame size at a fixed load",
               FrameSizeScanRequest, frame_size_scan_body),
    Experiment("ramp", "step the load every trial", RampRequest, ramp_body),
    Experiment("soak", "long run in interval statistics", SoakRequest, soak_body),
    Experiment("shape", "a stream's rate shaped over time (sine, triangle, sawtooth, "
               "square, flash crowd): intended, sent and received rate per step",
               ShapeRequest, shape_body),
    Experiment("queue-sweep", "latency vs DUT buffer threshold (seed 004)",
               QueueSweepRequest, queue_sweep_body),
    Experiment("rfc2889", "RFC 2889 LAN switch tests: fully and partially meshed throughput "
               "and forwarding rate, congestion control (head-of-line blocking, back "
               "pressure)", Rfc2889Request, rfc2889_body, rfc2889_check),
    Experiment("rfc2889-addresses", "RFC 2889 address caching capacity and address "
               "learning rate of a learning switch", Rfc2889AddressRequest,
               rfc2889_addresses_body, require_addresses, sends_profile_flows=False),
    Experiment("y1564", "ITU-T Y.1564 service activation: per-service steps, then all "
               "services at CIR, against each one's SLA", Y1564Request, y1564_body,
               require_services),
)}


def experiment_named(name: str) -> Experiment:
    if name not in EXPERIMENTS:
        raise RequestError(f"no experiment named {name!r}; known: {sorted(EXPERIMENTS)}")
    return EXPERIMENTS[name]


def parse_option(option: Option, text: str) -> object:
    """One option's value from its text, or the error a user can act on."""
    if option.choices is not None and text not in option.choices:
        listed = ", ".join(repr(c) for c in option.choices)
        raise OptionValueError(f"invalid choice: {text!r} (choose from {listed})")
    try:
        return option.parse(text)
    except OptionValueError:
        raise
    except ValueError as exc:  # int, float: their own messages name no option
        kind = getattr(option.parse, "__name__", "value")
        raise OptionValueError(f"invalid {kind} value: {text!r}") from exc


def build_request(name: str, values: Mapping[str, object]) -> ExperimentRequest:
    """A request from option values by option name ("frame-sizes"): texts are parsed,
    values a front end parsed already (ints, floats from JSON) are parsed from their
    text the same way. RequestError for an unknown experiment or option, a missing
    required one or a value that does not parse."""
    experiment = experiment_named(name)
    prog = f"p4tester {name}"
    by_name = {o.name: o for o in experiment.options}
    unknown = [key for key in values if key not in by_name]
    if unknown:
        given = " ".join(f"--{key} {values[key]}" for key in unknown)
        raise RequestError(f"{prog}: unrecognized arguments: {given}")
    missing = [f"--{o.name}" for o in experiment.options if o.required and values.get(o.name)
               is None]
    if missing:
        raise RequestError(f"{prog}: the following arguments are required: "
                           f"{', '.join(missing)}")
    fields: dict[str, object] = {}
    for key, value in values.items():
        if value is None:
            continue
        option = by_name[key]
        try:
            fields[option.field] = parse_option(option, str(value))
        except OptionValueError as exc:
            raise RequestError(f"{prog}: argument --{option.name}: {exc}",
                               option.name) from exc
    return experiment.request_type(**fields)
