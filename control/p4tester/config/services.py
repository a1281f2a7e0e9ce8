"""ITU-T Y.1564 services: a profile's `services`, each one of its streams with a bandwidth
profile and the service acceptance criteria (SAC) the user agreed with the provider.

    services:
      - name: voice
        stream: 0                 # the profile stream that carries the service
        cir: 2Mbps                # committed information rate
        eir: 0                    # excess information rate (0: none)
        sla: {ftd_ms: 10, fdv_ms: 2, flr: 0.001, availability_pct: 99.9}

CIR and EIR are information rates as MEF 10.3 and Y.1564 count them: the bits of the
service frames from the destination MAC through the FCS (L2, no preamble or gap), so
`2Mbps` here is `l2:2Mbps` elsewhere. The service's frame size is its stream's own
(`frame_size`) or the experiment's; its class of service is its stream's DSCP / VLAN.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from p4tester.config.errors import ConfigError
from p4tester.config.keys import SERVICE, SLA
from p4tester.config.yaml_io import require_keys
from p4tester.streams.rates import Rate, RateError, RateUnit

SERVICE_KEYS: Final = SERVICE.names
SLA_KEYS: Final = SLA.names


@dataclass(frozen=True, slots=True)
class ServiceSla:
    """Service acceptance criteria: the most a service may show of each figure.

    ftd_ms: mean frame transfer delay; fdv_ms: frame delay variation (Y.1563's 2-point
    FDV: the 99.9th percentile of the delay less its minimum); flr: frame loss ratio
    (0..1); availability_pct: the least share of the test's time the service must be
    available (MEF 10.3 availability over 1-s intervals)."""

    ftd_ms: float
    fdv_ms: float
    flr: float
    availability_pct: float = 99.9


@dataclass(frozen=True, slots=True)
class ServiceConfig:
    """One Y.1564 service: bit rates at L2 (MEF 10.3's information rate)."""

    name: str
    stream_id: int
    cir_bps: float
    eir_bps: float
    sla: ServiceSla

    @property
    def ceiling_bps(self) -> float:
        """CIR + EIR: the most the DUT's bandwidth profile lets through."""
        return self.cir_bps + self.eir_bps


def parse_services(data: object, where: str, stream_ids: Sequence[int]) -> tuple[
        ServiceConfig, ...]:
    """The profile's `services` list; ConfigError names the entry and the fix."""
    if not isinstance(data, list) or not data:
        raise ConfigError(f"{where}: give a list of services, e.g. [{{name: voice, stream: 0, "
                          "cir: 2Mbps, eir: 0, sla: {ftd_ms: 10, fdv_ms: 2, flr: 0.001}}]")
    services = tuple(_service(entry, f"{where}[{i}]", stream_ids)
                     for i, entry in enumerate(data))
    names = [s.name for s in services]
    streams = [s.stream_id for s in services]
    if len(set(names)) != len(names):
        raise ConfigError(f"{where}: service names must differ, got {names}")
    if len(set(streams)) != len(streams):
        raise ConfigError(f"{where}: each service needs a stream of its own, got streams "
                          f"{streams}")
    return services


def _service(entry: object, where: str, stream_ids: Sequence[int]) -> ServiceConfig:
    if not isinstance(entry, Mapping):
        raise ConfigError(f"{where}: expected a mapping with {list(SERVICE_KEYS)}")
    require_keys(entry, where, required=SERVICE.required, optional=SERVICE.optional)
    stream = entry["stream"]
    if isinstance(stream, bool) or not isinstance(stream, int) or stream not in stream_ids:
        raise ConfigError(f"{where}: stream {stream!r} is not one of the profile's streams "
                          f"{sorted(stream_ids)}")
    cir = _bit_rate(entry["cir"], f"{where}: cir")
    if cir <= 0:
        raise ConfigError(f"{where}: cir must be positive (a service commits some rate)")
    eir = _bit_rate(entry.get("eir", 0), f"{where}: eir")
    return ServiceConfig(name=str(entry["name"]), stream_id=stream, cir_bps=cir, eir_bps=eir,
                         sla=_sla(entry["sla"], f"{where}: sla"))


def _bit_rate(value: object, where: str) -> float:
    """A bit rate at L2: a number (bit/s) or text such as '2Mbps' or 'l2:2Mbps'."""
    if isinstance(value, bool):
        raise ConfigError(f"{where}: {value!r} is no bit rate; write it like 2Mbps")
    if isinstance(value, int | float):
        if value < 0:
            raise ConfigError(f"{where}: {value} must not be negative")
        return float(value)
    text = str(value).strip()
    if text.lower().startswith("l1:"):
        raise ConfigError(f"{where}: {text!r}: Y.1564 rates count L2 bits (MEF 10.3); "
                          "drop the 'l1:' prefix")
    try:
        rate = Rate.parse(text if text.lower().startswith("l2:") else f"l2:{text}")
    except RateError as exc:
        raise ConfigError(f"{where}: {exc}") from exc
    if rate.unit is not RateUnit.L2_BPS:
        raise ConfigError(f"{where}: {text!r}: give a bit rate such as 2Mbps")
    return float(rate.value)


def _sla(data: Any, where: str) -> ServiceSla:
    if not isinstance(data, Mapping):
        raise ConfigError(f"{where}: expected a mapping with {list(SLA_KEYS)}")
    require_keys(data, where, required=SLA.required, optional=SLA.optional)
    values: dict[str, float] = {}
    for key in SLA_KEYS:
        if key not in data:
            continue
        value = data[key]
        if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
            raise ConfigError(f"{where}: {key} {value!r} must be a number >= 0")
        values[key] = float(value)
    if values["flr"] > 1:
        raise ConfigError(f"{where}: flr {values['flr']:g} is a ratio: give 0..1 "
                          "(0.001 for 0.1 %)")
    if values.get("availability_pct", 0.0) > 100:
        raise ConfigError(f"{where}: availability_pct must be at most 100")
    return ServiceSla(**values)
