"""An OTG Config (the JSON snappi posts to /config) mapped onto tester streams.

Ports are tester ports by number (`location` "1" is topology port 1; on a topology of
several testers a port of one reached through an agent may also be named as ixia-c
names a port of a remote tester, "host:port;1": the agent's address, then the port);
each flow
becomes one stream per frame size it sends (otg.sizes: a fixed size is one stream;
increment and weight_pairs one per size; random one stream that BMv2 cuts to a random
size frame by frame), stream ids in the order of the flows,
each with its own rate, frame size and packet budget (a `burst` duration: bursts at
line rate, otg.bursts). What the tester cannot do is refused with a validation error
naming the field: nothing is approximated beyond whole frames (and bursts) per second
and the order of a mix's sizes, said in a warning.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Final

from p4tester.config.errors import ConfigError
from p4tester.config.profile import StreamConfig
from p4tester.config.topology import Topology
from p4tester.dataplane.constants import MAX_STREAMS
from p4tester.streams.frame_sizes import FrameSizeError, check_frame_size
from p4tester.streams.rates import IFG_BYTES, l1_frame_bits, line_rate_pps
from p4tester.streams.variation import MAX_VARY_ENTRIES, VariationError

from .bursts import burst_duration
from .errors import OtgError, validation
from .headers import packet_fields
from .patterns import collect, field_choice, reject_extra
from .sizes import RandomSizes, SizeMix, flow_sizes, split_whole

# OTG defaults (models): a flow without rate / size / duration sends 1000 frames/s
# of 64 B continuously.
DEFAULT_PPS: Final = 1000
MAX_BUDGET: Final = 2**32 - 1  # the generator's packet budget register
TOP_LEVEL: Final = ("ports", "layer1", "captures", "flows", "options")
FLOW_KEYS: Final = ("name", "tx_rx", "packet", "size", "rate", "duration", "metrics")
@dataclass(frozen=True, slots=True)
class MappedPort:
    name: str
    location: str
    number: int  # tester port in the topology


@dataclass(frozen=True, slots=True)
class FlowMember:
    """One frame size of a flow: a tester stream with its own rate and exact budget
    (None: continuous, until stopped)."""

    stream: StreamConfig
    rate_pps: int
    budget: int | None
    burst_frames: int = 1  # duration.burst: frames at line rate (otg.bursts)
    burst_gap_bytes: int = IFG_BYTES  # idle bytes between a burst's frames (12: back to back)

    @property
    def stream_id(self) -> int:
        return self.stream.id

    @property
    def frame_size(self) -> int:
        """Its template's size: the largest of random sizes."""
        assert self.stream.frame_size is not None  # a flow's streams all have one
        return self.stream.frame_size

    @property
    def mean_frame_size(self) -> float:
        return self.frame_size - self.stream.size_cut / 2


@dataclass(frozen=True, slots=True)
class MappedFlow:
    """One OTG flow: its streams, one per frame size (otg.sizes), counted together."""

    name: str
    tx_port: str  # OTG port names
    rx_port: str
    members: tuple[FlowMember, ...]
    latency: bool

    @property
    def rate_pps(self) -> int:
        return sum(m.rate_pps for m in self.members)

    @property
    def budget(self) -> int | None:
        """The flow's frames; None when it runs until stopped."""
        budgets = [m.budget for m in self.members]
        return None if None in budgets else sum(b for b in budgets if b is not None)

    @property
    def stream_ids(self) -> tuple[int, ...]:
        return tuple(m.stream_id for m in self.members)


@dataclass(frozen=True, slots=True)
class MappedConfig:
    ports: tuple[MappedPort, ...]
    flows: tuple[MappedFlow, ...]
    warnings: tuple[str, ...]
    capture_ports: tuple[str, ...] = ()  # port names a `captures` entry names
    # The config as posted: a topology of several testers sends it to the agents, which
    # map it as the controller did (tester.group_flows).
    document: Mapping[str, Any] = field(default_factory=dict)

    def port(self, name: str) -> MappedPort:
        return next(p for p in self.ports if p.name == name)

    def flow(self, name: str) -> MappedFlow:
        return next(f for f in self.flows if f.name == name)


def map_config(data: object, topology: Topology) -> MappedConfig:
    """The whole config, or an OtgError listing every field refused."""
    if not isinstance(data, Mapping):
        raise validation("config: expected a JSON object")
    errors: list[str] = []
    warnings: list[str] = []
    for key in sorted(k for k in data if k not in TOP_LEVEL):
        errors.append(f"{key}: not supported by the tester (it supports {', '.join(TOP_LEVEL)})")
    ports = _ports(data.get("ports", []), topology, errors)
    _layer1(data.get("layer1", []), ports, topology, errors, warnings)
    capture_ports = _captures(data.get("captures", []), ports, errors)
    flows: list[MappedFlow] = []
    raw_flows = data.get("flows", [])
    if not isinstance(raw_flows, list):
        errors.append("flows: expected a list")
        raw_flows = []
    if len(raw_flows) > MAX_STREAMS:
        errors.append(f"flows: {len(raw_flows)} flows; the tester runs at most {MAX_STREAMS}")
    next_id = 0
    for index, raw in enumerate(raw_flows[:MAX_STREAMS]):
        # Each flow's streams take the next ids; a flow refused takes none.
        left = MAX_STREAMS - next_id - (len(raw_flows) - index - 1)
        try:
            flow, flow_warnings = _flow(raw, index, next_id, max(1, left), ports, topology)
        except OtgError as exc:
            collect(errors, exc)
            continue
        flows.append(flow)
        next_id += len(flow.members)
        warnings.extend(flow_warnings)
    pairs = sum(len(m.stream.field_cycle) for f in flows for m in f.members)
    if pairs > MAX_VARY_ENTRIES:
        errors.append(f"flows: their varying fields take {pairs} entries (each frame size of a "
                      f"flow is a stream that cycles them), more than the data plane's "
                      f"{MAX_VARY_ENTRIES}; vary fewer values or send fewer sizes")
    _unique([f.name for f in flows], "flows", errors)
    if not errors:
        _check_line_rates(flows, ports, topology, errors)
    if errors:
        raise validation(*errors)
    return MappedConfig(tuple(ports), tuple(flows), tuple(warnings), capture_ports,
                        copy.deepcopy(dict(data)))


def _unique(names: list[str], where: str, errors: list[str]) -> None:
    seen: set[str] = set()
    for name in names:
        if name in seen:
            errors.append(f"{where}: name {name!r} is used more than once")
        seen.add(name)


def _ports(data: object, topology: Topology, errors: list[str]) -> list[MappedPort]:
    if not isinstance(data, list):
        errors.append("ports: expected a list")
        return []
    numbers = [p.number for p in topology.ports]
    accepted = ", ".join(f'"{n}"' for n in numbers)
    ports = []
    for index, raw in enumerate(data):
        where = f"ports[{index}]"
        if not isinstance(raw, Mapping) or not isinstance(raw.get("name"), str):
            errors.append(f"{where}: expected {{name, location}}")
            continue
        location = raw.get("location")
        text = str(location) if location is not None else ""
        agent, _, number = text.rpartition(";")
        if not number.isdigit() or int(number) not in numbers:
            errors.append(f"{where}.location {location!r}: give a tester port number as in "
                          f"the topology {topology.name!r} ({accepted})")
            continue
        reached = _agent_of(topology, int(number))
        if agent and agent != reached:
            errors.append(f"{where}.location {location!r}: port {number} is "
                          + (f"tester {_tester_of(topology, int(number))}'s, reached at "
                             f"{reached}: give \"{reached};{number}\" or \"{number}\""
                             if reached else
                             f"on this host (no agent): give \"{number}\""))
            continue
        ports.append(MappedPort(raw["name"], text, int(number)))
    _unique([p.name for p in ports], "ports", errors)
    _unique([str(p.number) for p in ports], "ports location", errors)
    return ports


def _tester_of(topology: Topology, number: int) -> str:
    return topology.port(number).tester


def _agent_of(topology: Topology, number: int) -> str:
    """The agent the port's tester is reached through ('' on this host)."""
    name = _tester_of(topology, number)
    return next((t.reach.agent for t in topology.testers if t.name == name), "")


def _layer1(data: object, ports: list[MappedPort], topology: Topology, errors: list[str],
            warnings: list[str]) -> None:
    """Speeds are the topology's: a layer1 speed is noted, not applied."""
    if not isinstance(data, list):
        errors.append("layer1: expected a list")
        return
    names = {p.name: p for p in ports}
    for index, raw in enumerate(data):
        where = f"layer1[{index}]"
        if not isinstance(raw, Mapping):
            errors.append(f"{where}: expected an object")
            continue
        for name in raw.get("port_names", []):
            if name not in names:
                errors.append(f"{where}.port_names: no port named {name!r}")
            elif "speed" in raw:
                bps = topology.port(names[name].number).line_rate_bps
                warnings.append(f"{where}.speed {raw['speed']}: port {name!r} runs at the "
                                f"topology's line rate, {bps:g} bit/s")
        for key in ("auto_negotiate", "ieee_media_defaults", "auto_negotiation", "media",
                    "flow_control"):
            if key in raw:
                errors.append(f"{where}.{key}: not supported by the tester")


def _captures(data: object, ports: list[MappedPort], errors: list[str]) -> tuple[str, ...]:
    """Whole received frames in pcap, no filters: the ports they name."""
    if not isinstance(data, list):
        errors.append("captures: expected a list")
        return ()
    known = {p.name for p in ports}
    names: list[str] = []
    for index, raw in enumerate(data):
        where = f"captures[{index}]"
        if not isinstance(raw, Mapping):
            errors.append(f"{where}: expected an object")
            continue
        for key in sorted(raw):
            if key not in ("name", "port_names", "format", "overwrite", "filters"):
                errors.append(f"{where}.{key}: not supported by the tester")
        if raw.get("format", "pcap") != "pcap":
            errors.append(f"{where}.format {raw.get('format')!r}: the tester writes pcap")
        if raw.get("filters"):
            errors.append(f"{where}.filters: capture filters are not supported; the tester "
                          "captures every frame the port receives")
        for name in raw.get("port_names") or []:
            if name not in known:
                errors.append(f"{where}.port_names: no port named {name!r}")
            elif name in names:
                errors.append(f"{where}.port_names: port {name!r} is in two captures")
            else:
                names.append(name)
    return tuple(names)


def _flow(raw: object, index: int, first_id: int, max_sizes: int, ports: list[MappedPort],
          topology: Topology) -> tuple[MappedFlow, list[str]]:
    where = f"flows[{index}]"
    if not isinstance(raw, Mapping) or not isinstance(raw.get("name"), str):
        raise validation(f"{where}: expected a flow with a name")
    errors: list[str] = []
    warnings: list[str] = []
    try:
        reject_extra(raw, FLOW_KEYS, where)
    except OtgError as exc:
        collect(errors, exc)
    tx, rx = _tx_rx(raw.get("tx_rx"), f"{where}.tx_rx", ports, topology, errors)
    headers = packet_fields(raw.get("packet"), f"{where}.packet", errors)
    mix: SizeMix | RandomSizes | None = None
    try:
        mix = flow_sizes(raw.get("size"), f"{where}.size", max_sizes, warnings)
    except OtgError as exc:
        collect(errors, exc)
    latency = _metrics(raw.get("metrics"), f"{where}.metrics", errors)
    if errors or tx is None or rx is None or headers is None or mix is None:
        raise validation(*errors)
    if isinstance(mix, RandomSizes):
        streams = [_random_stream(headers, first_id, tx, rx, mix, where)]
    else:
        size_where = f"{where}.size" + (".fixed" if len(mix.sizes) == 1 else "")
        streams = [_stream(headers, first_id + i, tx, rx, size, where, size_where)
                   for i, size in enumerate(mix.sizes)]
    line_bps = topology.port(tx.number).line_rate_bps
    duration = raw.get("duration")
    if field_choice(duration, f"{where}.duration") == "burst":
        assert isinstance(duration, Mapping)
        if isinstance(mix, RandomSizes) or len(streams) > 1:
            raise validation(f"{where}.duration.burst: a burst is frames of one size back to "
                             "back; give size.fixed, or a rate for a mix of sizes")
        burst_warnings: list[str] = []
        bursts = burst_duration(duration.get("burst"), f"{where}.duration.burst",
                                mix.sizes[0], line_bps, MAX_BUDGET, burst_warnings)
        if raw.get("rate") is not None:
            spacing = ("back to back" if bursts.gap_bytes == IFG_BYTES
                       else f"{bursts.gap_bytes} bytes apart")
            warnings.append(f"{where}.rate: not used by a burst duration: a burst's frames "
                            f"leave {spacing} at line rate, and inter_burst_gap sets how often")
        warnings.extend(burst_warnings)
        member = FlowMember(streams[0], bursts.pps, bursts.budget, bursts.frames,
                            bursts.gap_bytes)
        return MappedFlow(raw["name"], tx.name, rx.name, (member,), latency), warnings
    pps = _rate(raw.get("rate"), f"{where}.rate", mix.average_size, line_bps, warnings)
    budget = _duration(duration, f"{where}.duration", pps)
    if isinstance(mix, RandomSizes):
        member = FlowMember(streams[0], pps, budget)
        return MappedFlow(raw["name"], tx.name, rx.name, (member,), latency), warnings
    rates, budgets = _split(mix, pps, budget, duration, where, warnings)
    members = tuple(FlowMember(stream, rate, part)
                    for stream, rate, part in zip(streams, rates, budgets, strict=True))
    return MappedFlow(raw["name"], tx.name, rx.name, members, latency), warnings


def _stream(headers: Mapping[str, Any], stream_id: int, tx: MappedPort, rx: MappedPort,
            size: int, where: str, size_where: str) -> StreamConfig:
    """The stream of one frame size of the flow, checked against the data plane."""
    fields = dict(headers)
    fields.update(id=stream_id, tx_port=tx.number, rx_port=rx.number, frame_size=size)
    try:
        stream = StreamConfig(**fields)
        check_frame_size(size, stream.encapsulation)
    except FrameSizeError as exc:
        raise validation(f"{size_where}: {exc}") from exc
    except (TypeError, ValueError, ConfigError) as exc:
        raise validation(f"{where}.packet: {exc}") from exc
    try:
        stream.field_cycle  # noqa: B018 - checks the pairs fit the data plane's table
        stream.field_patterns  # noqa: B018 - checks the headers have the varied fields
    except VariationError as exc:
        raise validation(f"{where}.packet: {exc}") from exc
    return stream


def _random_stream(headers: Mapping[str, Any], stream_id: int, tx: MappedPort, rx: MappedPort,
                   sizes: RandomSizes, where: str) -> StreamConfig:
    """One stream whose frames the data plane cuts to random sizes: a template of the
    largest size, cut by up to max - min bytes; both ends fit the headers."""
    if headers.get("tunnel") is not None:
        raise validation(f"{where}.size.random: random sizes cut a frame's lengths in its "
                         "outer headers only; a tunnelled flow takes size.fixed, increment "
                         "or weight_pairs")
    stream = _stream(headers, stream_id, tx, rx, sizes.maximum, where,
                     f"{where}.size.random.max")
    try:
        check_frame_size(sizes.minimum, stream.encapsulation)
    except FrameSizeError as exc:
        raise validation(f"{where}.size.random.min: {exc}") from exc
    return replace(stream, size_cut=sizes.maximum - sizes.minimum)


def _split(mix: SizeMix, pps: int, budget: int | None, duration: object, where: str,
           warnings: list[str]) -> tuple[list[int], list[int | None]]:
    """The flow's rate and budget over its sizes, in whole frames by weight (otg.sizes).
    One size takes them whole."""
    if len(mix.sizes) == 1:
        return [pps], [budget]
    rates = split_whole(pps, mix.weights)
    if 0 in rates:
        raise validation(f"{where}.rate: {pps} frames/s cannot carry the flow's "
                         f"{len(mix.sizes)} frame sizes at their weights in whole frames/s "
                         "(each size is a stream of its own); raise the rate")
    budgets: list[int | None] = [None] * len(rates)
    if budget is not None:
        if field_choice(duration, f"{where}.duration") == "fixed_seconds":
            # Every size runs the same seconds: seconds x its rate frames.
            budgets = [budget * rate // pps for rate in rates]
            if sum(b for b in budgets if b is not None) != budget:
                raise validation(f"{where}.duration.fixed_seconds: the seconds at each size's "
                                 f"rate ({mix.describe(rates, '/s')}) are not whole frames; "
                                 "choose seconds x rate whole for every size")
        else:
            parts = split_whole(budget, mix.weights)
            if 0 in parts:
                raise validation(f"{where}.duration.fixed_packets.packets: {budget} frames "
                                 f"cannot carry the flow's {len(mix.sizes)} frame sizes at "
                                 "their weights; send more")
            budgets = list(parts)
    sent = mix.describe(rates, "/s")
    warnings.append(f"{where}.size: sent as {len(rates)} streams, one per size ({sent}); "
                    "the counts of each size keep the mix, but sizes interleave by their "
                    "rates rather than in OTG's order")
    return rates, budgets


def _tx_rx(data: object, where: str, ports: list[MappedPort], topology: Topology,
           errors: list[str]) -> tuple[MappedPort | None, MappedPort | None]:
    if not isinstance(data, Mapping) or field_choice(data, where) != "port" \
            or not isinstance(data.get("port"), Mapping):
        errors.append(f"{where}: give tx_rx.port (device flows need protocol emulation, "
                      "which the tester does not have)")
        return None, None
    port = data["port"]
    names = {p.name: p for p in ports}
    tx = names.get(str(port.get("tx_name")))
    if tx is None:
        errors.append(f"{where}.port.tx_name: no port named {port.get('tx_name')!r}")
        return None, None
    rx_names = port.get("rx_names") or []
    if not isinstance(rx_names, list):
        errors.append(f"{where}.port.rx_names: expected a list of port names")
        return tx, None
    if not rx_names:
        peer = topology.port(tx.number).peer
        found = next((p for p in ports if str(p.number) == str(peer)), None)
        if found is None:
            errors.append(f"{where}.port.rx_names: empty, and port {tx.name!r} has no peer "
                          "among the config's ports: name the receiving port")
        return tx, found
    if len(rx_names) != 1:
        # OTG does not say whether the DUT replicates the flow to these ports or spreads
        # it over them, and the two are judged differently (config.stream_receive).
        errors.append(f"{where}.port.rx_names: {rx_names}: an OTG flow is checked on one "
                      "receiving port (OTG does not say whether the DUT replicates or "
                      "spreads it); give exactly one, or run a p4tester profile with "
                      "rx_port: [..] and receive: replicate or spread")
        return tx, None
    rx = names.get(str(rx_names[0]))
    if rx is None:
        errors.append(f"{where}.port.rx_names[0]: no port named {rx_names[0]!r}")
    return tx, rx


def _metrics(data: object, where: str, errors: list[str]) -> bool:
    """Whether latency is asked for; loss and counters are always measured."""
    if data is None:
        return False
    if not isinstance(data, Mapping):
        errors.append(f"{where}: expected an object")
        return False
    for key in sorted(data):
        if key not in ("enable", "loss", "latency", "timestamps", "predefined_metric_tags"):
            errors.append(f"{where}.{key}: not supported by the tester")
    if data.get("timestamps"):
        errors.append(f"{where}.timestamps: first/last frame timestamps are not measured "
                      "by the tester yet; set it false")
    tags = data.get("predefined_metric_tags")
    if isinstance(tags, Mapping) and any(tags.values()):
        errors.append(f"{where}.predefined_metric_tags: tagged metrics are not supported")
    latency = data.get("latency")
    return isinstance(latency, Mapping) and bool(latency.get("enable"))


def _number(value: object, where: str) -> float:
    try:
        number = float(str(value))
    except ValueError as exc:
        raise validation(f"{where}: expected a number, got {value!r}") from exc
    if not math.isfinite(number) or number <= 0:
        raise validation(f"{where}: {value!r} must be positive")
    return number


_BPS_SCALE: Final = {"bps": 1.0, "kbps": 1e3, "mbps": 1e6, "gbps": 1e9}


def _rate(data: object, where: str, size: float, line_bps: float, warnings: list[str]) -> int:
    """Whole frames per second (what BMv2's pacer sets). pps as given; bps and
    percentage of the topology's line rate are L1 (frame + 20 B preamble and gap),
    as line rate is, rounded to whole frames/s with a warning when not whole. `size`:
    the flow's (mean) frame size."""
    choice = field_choice(data, where)
    if choice is None:
        return DEFAULT_PPS
    assert isinstance(data, Mapping)
    if choice == "pps":
        value = _number(data.get("pps", DEFAULT_PPS), f"{where}.pps")
        if value != int(value):
            raise validation(f"{where}.pps: {value} is not a whole number of frames/s")
        return int(value)
    if choice in _BPS_SCALE:
        pps = _number(data.get(choice), f"{where}.{choice}") * _BPS_SCALE[choice] \
            / l1_frame_bits(size)
    elif choice == "percentage":
        percent = _number(data.get("percentage"), f"{where}.percentage")
        if percent > 100:
            raise validation(f"{where}.percentage: {percent} is above 100")
        pps = percent / 100 * line_rate_pps(line_bps, size)
    else:
        raise validation(f"{where}: rate choice {choice!r} is not supported")
    whole = max(1, round(pps))
    if whole > line_rate_pps(line_bps, size) + 1e-9:
        whole = max(1, math.floor(pps))  # rounded, never above line rate (100 % stays legal)
    if abs(whole - pps) > 1e-9:
        warnings.append(f"{where}: {pps:.3f} frames/s is sent as {whole} frames/s (the "
                        "tester paces whole frames per second)")
    return whole


def _duration(data: object, where: str, pps: int) -> int | None:
    """fixed_packets -> that budget; fixed_seconds -> rate x seconds frames;
    continuous -> None (runs until stopped)."""
    choice = field_choice(data, where)
    if choice is None or choice == "continuous":
        if isinstance(data, Mapping):
            _no_delay(data.get("continuous"), f"{where}.continuous")
        return None
    assert isinstance(data, Mapping)
    body = data.get(choice)
    if not isinstance(body, Mapping):
        body = {}
    if choice == "fixed_packets":
        _no_delay(body, f"{where}.fixed_packets")
        packets = body.get("packets", 1)
        if isinstance(packets, bool) or not isinstance(packets, int) \
                or not 0 < packets <= MAX_BUDGET:
            raise validation(f"{where}.fixed_packets.packets: {packets!r} must be in "
                             f"1..{MAX_BUDGET}")
        return packets
    if choice == "fixed_seconds":
        _no_delay(body, f"{where}.fixed_seconds")
        seconds = _number(body.get("seconds", 1), f"{where}.fixed_seconds.seconds")
        frames = round(seconds * pps)
        if not 0 < frames <= MAX_BUDGET or abs(frames - seconds * pps) > 1e-6:
            raise validation(f"{where}.fixed_seconds.seconds: {seconds:g} s at {pps} frames/s "
                             "is not a whole number of frames (the tester sends an exact "
                             "budget); choose seconds x rate whole")
        return frames
    raise validation(f"{where}: {choice!r} durations are not supported (use fixed_packets, "
                     "fixed_seconds, burst or continuous)")


def _no_delay(body: object, where: str) -> None:
    """A start delay is refused; the inter-frame gap follows from the rate."""
    if not isinstance(body, Mapping):
        return
    delay = body.get("delay")
    if isinstance(delay, Mapping):
        choice = field_choice(delay, f"{where}.delay")
        if choice is not None and float(delay.get(choice, 0) or 0) != 0:
            raise validation(f"{where}.delay: a start delay is not supported; leave it 0")


def _check_line_rates(flows: list[MappedFlow], ports: list[MappedPort], topology: Topology,
                      errors: list[str]) -> None:
    """The flows of one TX port must fit its line rate together."""
    load: dict[str, float] = {}
    for flow in flows:
        bps = topology.port(next(p for p in ports if p.name == flow.tx_port).number).line_rate_bps
        load[flow.tx_port] = load.get(flow.tx_port, 0.0) + sum(
            m.rate_pps / line_rate_pps(bps, m.mean_frame_size) for m in flow.members)
    for name, fraction in load.items():
        if fraction > 1 + 1e-9:
            errors.append(f"flows: the flows from port {name!r} offer {fraction:.1%} of its "
                          "line rate; lower their rates")
