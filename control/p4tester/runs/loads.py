"""What a run's loads mean on its topology: a load -> a share of line rate at a frame
size; frame sizes no stream can carry and loads above line rate refused, and loads
above the tester's calibrated capacity warned of, before the switch is touched."""

from __future__ import annotations

from pathlib import Path

from p4tester.config.errors import ConfigError
from p4tester.config.profile import Profile, check_streams_carry
from p4tester.config.stream_rates import busiest_stream_pps
from p4tester.config.topology import Topology
from p4tester.streams.rates import Rate, RateError

from .capacity_warnings import capacity_warnings
from .requests import ExperimentRequest


def line_rate_of(topology: Topology, profile: Profile) -> float:
    """Line rate the absolute figures refer to: the first stream's TX port."""
    return topology.port(profile.streams[0].tx_port).line_rate_bps


def fraction_at(rate: Rate, frame_size: int, topology: Topology, profile: Profile) -> float:
    """The share of the first stream's port line rate that `rate` is at frame_size."""
    try:
        return rate.resolve(frame_size, line_rate_of(topology, profile)).fraction
    except RateError as exc:
        raise ConfigError(f"load {rate}: {exc}") from exc


class OptionConfigError(ConfigError):
    """A value one option was given that the profile or topology cannot take; `option`
    (its name without dashes) lets the dashboard say so next to that field."""

    def __init__(self, message: str, option: str) -> None:
        super().__init__(message)
        self.option = option


def check_frame_sizes(request: ExperimentRequest, profile: Profile) -> None:
    """Refuse a frame size asked for that a stream's headers do not fit in, or beyond
    Ethernet's (ConfigError, the same words in the CLI, the REST API and the page)."""
    for option, sizes in request.frame_sizes_asked():
        try:
            check_streams_carry(profile.streams, sizes)
        except ConfigError as exc:
            raise OptionConfigError(str(exc), option) from exc


def check_loads(request: ExperimentRequest, topology: Topology, profile: Profile) -> None:
    """Refuse a load above line rate before touching the switch (ConfigError)."""
    frame_size, rates = request.rates_at_one_size()
    for name, rate in rates.items():
        try:
            fraction = fraction_at(rate, frame_size, topology, profile)
        except ConfigError as exc:
            raise OptionConfigError(str(exc), name) from exc
        if not 0 < fraction <= 1:
            raise OptionConfigError(f"--{name} {rate} is {fraction:.2%} of line rate at "
                                    f"{frame_size} B: it must be in (0, 100] %", name)


def load_warnings(request: ExperimentRequest, topology: Topology, profile: Profile,
                  calibration: Path | None = None) -> list[str]:
    """Fixed loads above the tester's calibrated capacity on this host (p4tester
    calibrate): their trials would measure the tester, not the DUT."""
    warnings: list[str] = []
    for size, load in request.fixed_loads(profile):
        fraction = fraction_at(load, size, topology, profile) if isinstance(load, Rate) else load
        warnings += capacity_warnings(
            size, busiest_stream_pps(topology, profile, size, fraction), calibration)
    return warnings
