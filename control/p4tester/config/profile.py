"""Profile: the streams to send and how trials run. A profile file (YAML):

    name: two-streams
    trial: {duration_s: 5, drain_s: 1}
    frame_sizes: [64, 128, 512]          # what experiments sweep (RFC 2544 sizes by default)
    latency_bins_us: [0, 10, 20, 50, 100, 200, 500, 1000]   # or {log_high_us: 100000}
    streams:
      - {id: 0, tx_port: 1, rx_port: 2, share: 0.5}
      - {id: 1, tx_port: 1, rx_port: 2, share: 0.4, udp_src_port: 50000,
         vlan_id: 10, ipv6: false}
      - {id: 2, tx_port: 1, rx_port: 2, share: 0.1, l4: tcp, outer_vlan_id: 100,
         vlan_id: 10, mpls_labels: [16, 17], tunnel: {vxlan: {vni: 42, src_ip: 10.0.0.1,
         dst_ip: 10.0.0.2}}, vary: {src_port: {start: 5000, step: 2, count: 10}}}
    search: {method: mlrsearch, pdr_loss_ratio: 0.005, relative_width: 0.005}
    services: [{name: voice, stream: 0, cir: 2Mbps, eir: 0,     # Y.1564 (config.services)
                sla: {ftd_ms: 10, fdv_ms: 2, flr: 0.001}}]

A stream received on several ports names them all and what the DUT does with its
frames (config/stream_receive.py): `rx_port: [2, 3], receive: replicate` (every port
gets every frame: multicast) or `receive: spread` (each frame once, on any of them:
ECMP, LAG). Its figures are then per (stream, RX port) as well.

Stream header keys: addresses (src_mac, dst_mac, src_ip, dst_ip, src_ip6, dst_ip6,
udp_src_port = the UDP or TCP source port, l4_dst_port, ttl, dscp, flow_label),
vlan_id, outer_vlan_id (QinQ), mpls_labels (1-4), ipv6, l4 (udp | tcp), tunnel and
vary (config/stream_headers.py).

`share` is the part of its TX port's offered load a stream carries: at load L the
stream sends L x share x the port's line rate (in frames/s for the frame size).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from p4tester.config.errors import ConfigError
from p4tester.config.keys import (
    ADDRESSES_STREAM_REQUIRED,
    LATENCY_BINS,
    MESH_STREAM_REQUIRED,
    PLAIN_STREAM_REQUIRED,
    PROFILE,
    SEARCH,
    STREAM,
    TRIAL,
    Section,
)
from p4tester.config.services import ServiceConfig, parse_services
from p4tester.config.stream_headers import parse_tunnel, parse_vary
from p4tester.config.stream_learning import address_stream_entries
from p4tester.config.stream_mesh import mesh_stream_entries
from p4tester.config.stream_receive import Receive, parse_rx_ports
from p4tester.config.topology import Topology
from p4tester.config.yaml_io import load_yaml_mapping, require_keys
from p4tester.dataplane.constants import MAX_FRAMES_PER_PASS, MAX_STREAMS, TESTER_UDP_DST_PORT
from p4tester.dataplane.program import bin_ranges
from p4tester.dataplane.varied_fields import VariedFields
from p4tester.results.latency import log_bin_edges
from p4tester.streams.addresses import (
    ADDRESS_FIELDS,
    StreamAddresses,
    TcpHeaderError,
    check_tcp_header,
)
from p4tester.streams.field_patterns import (
    ADDRESS_FIELDS as PATTERN_ADDRESS_FIELDS,
)
from p4tester.streams.field_patterns import (
    IPV4_FIELDS,
    IPV6_FIELDS,
    TCP_FIELDS,
    Draws,
    FieldPattern,
    check_listed_total,
    drawn_on_seq,
    flows_cycle,
    frame_fields,
)
from p4tester.streams.frame_sizes import (
    RFC2544_FRAME_SIZES,
    Encapsulation,
    EncapsulationError,
    FrameSizeError,
    check_frame_size,
)
from p4tester.streams.imix import SIMPLE_IMIX, ImixError, ImixProfile
from p4tester.streams.rates import l1_frame_bits
from p4tester.streams.tunnels import Tunnel, Vxlan
from p4tester.streams.variation import (
    MAX_VARY_ENTRIES,
    FieldVariation,
    VariationError,
    field_cycle,
    is_mac,
    mac_number,
    port_pairs,
)

SEARCH_METHODS = ("mlrsearch", "binary")
DEFAULT_LOG_HIGH_US = 1_000_000


@dataclass(frozen=True, slots=True)
class StreamConfig:
    id: int
    tx_port: int
    rx_port: int
    share: float = 1.0
    addresses: StreamAddresses = field(default_factory=StreamAddresses)
    vlan_id: int | None = None
    ipv6: bool = False
    # A fixed frame size (IMIX members): the stream ignores the trial's frame size.
    frame_size: int | None = None
    outer_vlan_id: int | None = None
    mpls_labels: tuple[int, ...] = ()
    l4: str = "udp"
    tunnel: Tunnel | None = None
    # Table variations (ports listed, VNIs, MACs) and field patterns (streams.
    # field_patterns: addresses, DSCP, VLAN ids, port ranges and draws).
    vary: tuple[FieldVariation | FieldPattern, ...] = ()
    # Received on several ports (config.stream_receive); None: on rx_port alone.
    receive: Receive | None = None
    # Random frame sizes (an OTG flow's size.random, BMv2 only): frame i is frame_size
    # less a uniform draw of 0..size_cut bytes (v1model/generator.p4, tx_resize).
    size_cut: int = 0

    @property
    def rx_ports(self) -> tuple[int, ...]:
        """Every port the stream's frames come back on, rx_port first."""
        return self.receive.ports if self.receive is not None else (self.rx_port,)

    def size_in(self, trial_frame_size: int) -> int:
        return self.frame_size if self.frame_size is not None else trial_frame_size

    @property
    def encapsulation(self) -> Encapsulation:
        return Encapsulation(ipv6=self.ipv6, vlan_id=self.vlan_id,
                             outer_vlan_id=self.outer_vlan_id, mpls_labels=self.mpls_labels,
                             l4=self.l4, tunnel=self.tunnel)

    @property
    def port_pairs(self) -> tuple[tuple[int, int], ...]:
        """The (source, destination) L4 ports frame 0, 1, ... carry, one cycle; () when
        fixed, or drawn (then each frame's sequence number decides)."""
        dst = self.addresses.l4_dst_port
        listed = port_pairs(tuple(v for v in self._table_variations
                                  if v.field in ("src_port", "dst_port")),
                            self.addresses.udp_src_port,
                            TESTER_UDP_DST_PORT if dst is None else dst)
        patterns = tuple(p for p in self.field_patterns if p.field in ("src_port", "dst_port"))
        if not patterns or any(isinstance(p, Draws) for p in patterns):
            return listed if not patterns else ()
        table = listed or ((self.addresses.udp_src_port,
                            TESTER_UDP_DST_PORT if dst is None else dst),)
        cycle = math.lcm(len(table), flows_cycle(patterns))
        pairs = []
        for index in range(cycle):
            fields = frame_fields(patterns, index, 0)
            src, dst_port = table[index % len(table)]
            pairs.append((fields.get("src_port", src), fields.get("dst_port", dst_port)))
        return tuple(pairs)

    @property
    def _table_variations(self) -> tuple[FieldVariation, ...]:
        return tuple(v for v in self.vary if isinstance(v, FieldVariation))

    @property
    def flows_cycle(self) -> int | None:
        """Frames before the stream's varied fields repeat (1: none vary); None when a
        field is drawn on each frame's sequence number (they never do)."""
        patterns = self.field_patterns
        if drawn_on_seq(patterns):
            return None
        return math.lcm(len(self.field_cycle) or 1, flows_cycle(patterns))

    def frame_fields(self, frame: int) -> dict[str, int]:
        """The varied fields frame `frame` of a trial carries: table variations and
        field patterns (its seq is `frame`: each trial numbers a stream's frames from 0)."""
        values = {v.field: v.values[frame % len(v.values)] for v in self._table_variations}
        values.update(frame_fields(self.field_patterns, frame, frame))
        return values

    @property
    def field_patterns(self) -> tuple[FieldPattern, ...]:
        """The fields the data plane varies by a pattern of their own; raises
        VariationError for a field this stream's headers do not have."""
        patterns = tuple(v for v in self.vary if not isinstance(v, FieldVariation))
        fields = [v.field for v in self.vary]
        for pattern in patterns:
            field_name = pattern.field
            if fields.count(field_name) > 1:
                raise VariationError(f"vary: {field_name} is listed twice")
            if (field_name in PATTERN_ADDRESS_FIELDS or field_name == "dscp") \
                    and self.tunnel is not None:
                raise VariationError(
                    f"vary: {field_name}: the tester varies the addresses and DSCP of "
                    "untunnelled streams; this stream has a tunnel")
            if field_name in IPV4_FIELDS and self.ipv6:
                raise VariationError(f"vary: {field_name} varies IPv4 addresses; this stream "
                                     f"is IPv6: vary {field_name}6")
            if field_name in IPV6_FIELDS and not self.ipv6:
                raise VariationError(f"vary: {field_name} varies IPv6 addresses; this stream "
                                     f"is IPv4: vary {field_name[:-1]}, or give it ipv6: true")
            if field_name == "vlan" and self.vlan_id is None:
                raise VariationError("vary: vlan varies the VLAN id: give the stream a "
                                     "vlan_id")
            if field_name in TCP_FIELDS and (self.l4 != "tcp" or self.tunnel is not None):
                raise VariationError(f"vary: {field_name} varies the TCP header of untunnelled "
                                     "TCP streams: give the stream l4: tcp (and no tunnel)")
            if field_name == "outer_vlan" and self.outer_vlan_id is None:
                raise VariationError("vary: outer_vlan varies the outer VLAN id: give the "
                                     "stream an outer_vlan_id")
        return patterns

    @property
    def field_cycle(self) -> tuple[VariedFields, ...]:
        """The L4 ports, VNI and MACs of frame 0, 1, ...; () when fixed: what the data
        plane's variation table holds (streams.variation)."""
        dst = self.addresses.l4_dst_port
        if any(v.field == "vni" for v in self._table_variations) \
                and not isinstance(self.tunnel, Vxlan):
            raise VariationError("vary: vni varies the VxLAN tunnel's VNI: give the stream "
                                 "a tunnel: {vxlan: {...}}")
        return field_cycle(self._table_variations, self.addresses.udp_src_port,
                           TESTER_UDP_DST_PORT if dst is None else dst,
                           self.tunnel.vni if isinstance(self.tunnel, Vxlan) else 0,
                           _template_mac(self.addresses.src_mac),
                           _template_mac(self.addresses.dst_mac))


def _template_mac(text: str) -> int:
    """A MAC not known yet (dst_mac `resolve`: a session puts the gateway's in before
    any trial, neighbors.resolve) checks as 0."""
    return mac_number(text) if is_mac(text) else 0


@dataclass(frozen=True, slots=True)
class TrialConfig:
    duration_s: float = 10.0
    drain_s: float = 1.0
    initial_duration_s: float = 1.0  # MLRsearch's short early trials
    # Before each trial, frames of earlier trials and runs must have stopped arriving
    # for settle_s (RFC 2544, section 23: 2 s), waiting at most settle_max_s
    # (results.settle). A DUT that holds less may say so with a shorter settle_s.
    settle_s: float = 2.0
    settle_max_s: float = 60.0
    # Latency trials on BMv2 run a stream looped inside the tester switch at this rate,
    # frames/s (results.reference: the tester's own latency); 0: none.
    reference_pps: int = 100
    # BMv2: TX frames one pass of a stream's generator loop makes at 1000 frames/s or
    # more (tester.stream_plan); 1 runs the generator as before issue 20 (3 pipeline
    # passes per frame, ports unshaped).
    frames_per_pass: int = 4


# A reference stream is a probe, not load: above this it would eat the capacity the
# streams it watches over need.
MAX_REFERENCE_PPS = 1000


@dataclass(frozen=True, slots=True)
class SearchConfig:
    method: str = "mlrsearch"
    pdr_loss_ratio: float = 0.005
    relative_width: float = 0.005


@dataclass(frozen=True, slots=True)
class Profile:
    name: str
    streams: tuple[StreamConfig, ...]
    trial: TrialConfig = field(default_factory=TrialConfig)
    frame_sizes: tuple[int, ...] = RFC2544_FRAME_SIZES
    latency_bins_us: tuple[int, ...] = field(default_factory=lambda: log_bin_edges(
        DEFAULT_LOG_HIGH_US))
    search: SearchConfig = field(default_factory=SearchConfig)
    source: str = ""
    services: tuple[ServiceConfig, ...] = ()

    def min_frame_size(self) -> int:
        return max(s.encapsulation.min_frame_size for s in self.streams)


def load_profile(path: str | Path, topology: Topology | None = None) -> Profile:
    data = load_yaml_mapping(path)
    profile = profile_from_dict(data, str(path))
    if topology is not None:
        check_profile_fits(profile, topology)
    return profile


def profile_from_dict(data: Mapping[str, Any], source: str) -> Profile:
    require_keys(data, source, required=PROFILE.required, optional=PROFILE.optional)
    streams = _streams(data["streams"], f"{source}: streams")
    trial = _dataclass(TrialConfig, TRIAL, data.get("trial", {}), f"{source}: trial")
    if trial.duration_s <= 0 or trial.drain_s < 0 or trial.initial_duration_s <= 0:
        raise ConfigError(f"{source}: trial: durations must be positive (drain_s may be 0)")
    if not 0 <= trial.settle_s <= trial.settle_max_s:
        raise ConfigError(f"{source}: trial: settle_s {trial.settle_s:g} and settle_max_s "
                          f"{trial.settle_max_s:g}: give 0 <= settle_s <= settle_max_s (how "
                          "long no frame of an earlier trial may arrive before a trial, and "
                          "the longest wait for that)")
    if isinstance(trial.frames_per_pass, bool) or not isinstance(trial.frames_per_pass, int) \
            or not 1 <= trial.frames_per_pass <= MAX_FRAMES_PER_PASS:
        raise ConfigError(f"{source}: trial: frames_per_pass {trial.frames_per_pass!r}: give "
                          f"1..{MAX_FRAMES_PER_PASS} (TX frames per generator loop pass)")
    if isinstance(trial.reference_pps, bool) or not isinstance(trial.reference_pps, int) or not \
            0 <= trial.reference_pps <= MAX_REFERENCE_PPS:
        raise ConfigError(f"{source}: trial: reference_pps {trial.reference_pps!r}: give whole "
                          f"frames/s in 0..{MAX_REFERENCE_PPS} (0: no reference stream)")
    search = _dataclass(SearchConfig, SEARCH, data.get("search", {}), f"{source}: search")
    if search.method not in SEARCH_METHODS:
        raise ConfigError(f"{source}: search: method {search.method!r}; use one of "
                          f"{SEARCH_METHODS}")
    if not 0 <= search.pdr_loss_ratio < 1 or not 0 < search.relative_width < 1:
        raise ConfigError(f"{source}: search: pdr_loss_ratio must be in [0, 1) and "
                          "relative_width in (0, 1)")
    profile = Profile(
        name=str(data["name"]),
        streams=streams,
        trial=trial,
        frame_sizes=_frame_sizes(data.get("frame_sizes", RFC2544_FRAME_SIZES), source),
        latency_bins_us=_bins(data.get("latency_bins_us"), f"{source}: latency_bins_us"),
        search=search,
        source=source,
        services=(parse_services(data["services"], f"{source}: services",
                                 [stream.id for stream in streams])
                  if "services" in data else ()),
    )
    # A Y.1564 service is received on one port: its information rate counts each frame
    # delivered once.
    several = {stream.id for stream in streams if stream.receive is not None}
    for service in profile.services:
        if service.stream_id in several:
            raise ConfigError(f"{source}: services: {service.name}: stream {service.stream_id} "
                              "is received on several ports; a Y.1564 service is measured "
                              "on one RX port: give it a stream with one rx_port")
    check_streams_carry(profile.streams, profile.frame_sizes, f"{source}: ")
    return profile


def check_streams_carry(streams: Sequence[StreamConfig], sizes: Sequence[int],
                        where: str = "") -> None:
    """ConfigError (prefixed by `where`) for a frame size a stream's headers do not fit
    in, or beyond Ethernet's. A stream with a frame size of its own keeps it."""
    for stream in streams:
        for size in sizes if stream.frame_size is None else ():
            try:
                check_frame_size(size, stream.encapsulation)
            except FrameSizeError as exc:
                raise ConfigError(f"{where}stream {stream.id}: {exc}") from exc


def check_profile_fits(profile: Profile, topology: Topology) -> None:
    """Every stream's ports exist, and no TX port is offered more than its line rate."""
    shares: dict[int, float] = {}
    for stream in profile.streams:
        for port in (stream.tx_port, *stream.rx_ports):
            try:
                topology.port(port)
            except ConfigError as exc:
                raise ConfigError(f"{profile.source}: stream {stream.id}: {exc}") from exc
        shares[stream.tx_port] = shares.get(stream.tx_port, 0.0) + stream.share
    for port, total in shares.items():
        if total > 1.0 + 1e-9:
            raise ConfigError(
                f"{profile.source}: streams on TX port {port} have shares summing to "
                f"{total:g}: above the port's line rate at 100 % load; make them sum to <= 1"
            )


def _streams(data: object, where: str) -> tuple[StreamConfig, ...]:
    if not isinstance(data, list) or not data:
        raise ConfigError(f"{where}: expected a list of streams")
    streams = []
    for position, item in enumerate(data):
        here = f"{where}[{position}]"
        if not isinstance(item, Mapping):
            raise ConfigError(f"{here}: expected a mapping")
        if "mesh" in item:
            require_keys(item, here, required=MESH_STREAM_REQUIRED, optional=STREAM.names)
            streams.extend(_plain_streams(mesh_stream_entries(item, here), here))
            continue
        if "addresses" in item:
            require_keys(item, here, required=ADDRESSES_STREAM_REQUIRED,
                         optional=STREAM.names)
            streams.extend(_plain_streams(address_stream_entries(item, here), here))
            continue
        require_keys(item, here, required=PLAIN_STREAM_REQUIRED, optional=STREAM.names)
        streams.extend(_plain_streams([item], here))
    pairs = sum(len(s.field_cycle) for s in streams)
    if pairs > MAX_VARY_ENTRIES:
        raise ConfigError(f"{where}: the streams' port variations take {pairs} entries, more "
                          f"than the data plane's {MAX_VARY_ENTRIES} for all streams together; "
                          "vary fewer values")
    try:
        check_listed_total([s.field_patterns for s in streams])
    except VariationError as exc:
        raise ConfigError(f"{where}: {exc}") from exc
    ids = [s.id for s in streams]
    duplicated = sorted({i for i in ids if ids.count(i) > 1})
    if duplicated:
        raise ConfigError(f"{where}: stream ids {duplicated} are used more than once")
    return tuple(streams)


def _plain_streams(items: Sequence[Mapping[str, Any]], here: str) -> list[StreamConfig]:
    """The streams of plain entries (id, tx_port, rx_port, ...): an imix entry gives
    one per frame size of its mix."""
    streams: list[StreamConfig] = []
    for item in items:
        fields = dict(item)
        imix = fields.pop("imix", None)
        fields["rx_port"], fields["receive"] = parse_rx_ports(
            fields["rx_port"], fields.get("receive"), here)
        fields["addresses"] = StreamAddresses(**{k: fields.pop(k) for k in ADDRESS_FIELDS
                                                 if k in fields})
        if "tunnel" in fields:
            fields["tunnel"] = parse_tunnel(fields["tunnel"], f"{here}: tunnel")
        if "vary" in fields:
            fields["vary"] = parse_vary(fields["vary"], here)
        if "mpls_labels" in fields:
            labels = fields["mpls_labels"]
            if not isinstance(labels, list) or not all(isinstance(v, int) for v in labels):
                raise ConfigError(f"{here}: mpls_labels: expected a list of labels")
            fields["mpls_labels"] = tuple(labels)
        try:
            members = ([StreamConfig(**fields)] if imix is None
                       else _imix_streams(fields, imix, here))
            for stream in members:
                stream.encapsulation  # noqa: B018 (validates the headers)
                stream.field_cycle  # noqa: B018 (validates the variation)
                stream.field_patterns  # noqa: B018 (validates the patterns)
                check_tcp_header(stream.addresses, stream.l4)
        except (EncapsulationError, VariationError, TcpHeaderError) as exc:
            raise ConfigError(f"{here}: {exc}") from exc
        for stream in members:
            if not 0 <= stream.id < MAX_STREAMS:
                raise ConfigError(f"{here}: stream id {stream.id} is out of range "
                                  f"0..{MAX_STREAMS - 1} (MAX_STREAMS of the data plane)")
            if not 0 < stream.share <= 1:
                raise ConfigError(f"{here}: share {stream.share} must be in (0, 1]")
            if stream.frame_size is not None:
                try:
                    check_frame_size(stream.frame_size, stream.encapsulation)
                except FrameSizeError as exc:
                    raise ConfigError(f"{here}: stream {stream.id}: {exc}") from exc
        streams.extend(members)
    return streams


def _imix_streams(fields: dict[str, Any], imix: object, where: str) -> list[StreamConfig]:
    """One stream per IMIX frame size, ids from the entry's id up. The members share
    the entry's part of the port's load by wire bandwidth (frames x (size + 20 B)),
    so their frame counts keep the mix's weights at every load."""
    if imix == "simple":
        profile = SIMPLE_IMIX
    elif isinstance(imix, Mapping):
        try:
            profile = ImixProfile.from_weights("custom-imix", {int(k): int(v)
                                                               for k, v in imix.items()})
        except (ImixError, ValueError) as exc:
            raise ConfigError(f"{where}: imix: {exc}") from exc
    else:
        raise ConfigError(f"{where}: imix must be 'simple' or {{frame size: weight, ...}}")
    if "frame_size" in fields:
        raise ConfigError(f"{where}: an imix stream takes its sizes from the mix: drop frame_size")
    share = float(fields.pop("share", 1.0))
    first_id = int(fields.pop("id"))
    bandwidth = {e.frame_size: e.weight * l1_frame_bits(e.frame_size) for e in profile.entries}
    total = sum(bandwidth.values())
    return [
        StreamConfig(id=first_id + i, share=share * bandwidth[entry.frame_size] / total,
                     frame_size=entry.frame_size, **fields)
        for i, entry in enumerate(profile.entries)
    ]


def _frame_sizes(data: object, source: str) -> tuple[int, ...]:
    if not isinstance(data, list | tuple) or not data or not all(isinstance(s, int) for s in data):
        raise ConfigError(f"{source}: frame_sizes: expected a list of sizes in bytes")
    return tuple(data)


def _bins(data: object, where: str) -> tuple[int, ...]:
    if data is None:
        return log_bin_edges(DEFAULT_LOG_HIGH_US)
    if isinstance(data, Mapping) and set(data) == set(LATENCY_BINS.names):
        return log_bin_edges(int(data["log_high_us"]))
    if not isinstance(data, list) or not all(isinstance(e, int) for e in data):
        raise ConfigError(f"{where}: expected a list of increasing edges in us, or "
                          "{log_high_us: N}")
    try:
        bin_ranges(data)
    except ValueError as exc:
        raise ConfigError(f"{where}: {exc}") from exc
    return tuple(data)


def _dataclass(cls: Any, keys: Section, data: object, where: str) -> Any:
    """`cls` from a mapping of `keys` (the dataclass's fields)."""
    if not isinstance(data, Mapping):
        raise ConfigError(f"{where}: expected a mapping")
    require_keys(data, where, required=keys.required, optional=keys.optional)
    try:
        return cls(**dict(data))
    except TypeError as exc:
        raise ConfigError(f"{where}: {exc}") from exc
