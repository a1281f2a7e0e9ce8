"""What a run across several testers needs before any tester is touched, whatever
their target (tester.tester_group): the probes between every two testers that
exchange streams, and what one stream cannot do across testers yet, refused with the
way out."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass

from p4tester.config.errors import ConfigError
from p4tester.config.profile import Profile, StreamConfig
from p4tester.config.topology import Topology
from p4tester.dataplane.constants import MAX_STREAMS
from p4tester.tester.clock_probes import ProbePath
from p4tester.tester.group_clocks import GroupPath
from p4tester.tester.tester_group import ProbeOwner


@dataclass(frozen=True, slots=True)
class ProbePair:
    """Two testers that exchange streams, and the probes' streams each way (copies of
    the first stream each way, under ids the profile does not use)."""

    a: str
    b: str
    forward: StreamConfig
    reverse: StreamConfig


def probe_pairs(topology: Topology, profile: Profile) -> tuple[ProbePair, ...]:
    """A pair for every two testers a stream runs between (refused, with the way out,
    where no stream runs back or no ids are free), before anything is loaded."""
    owner = {p.number: p.tester for p in topology.ports}
    free = iter(sorted(set(range(MAX_STREAMS)) - {s.id for s in profile.streams},
                       reverse=True))
    first: dict[tuple[str, str], StreamConfig] = {}
    for stream in profile.streams:
        pair = (owner[stream.tx_port], owner[stream.rx_port])
        if pair[0] != pair[1]:
            first.setdefault(pair, stream)
    pairs = []
    made: set[frozenset[str]] = set()
    for (a, b), forward in first.items():
        if frozenset((a, b)) in made:
            continue  # made once, from the side of the pair's first stream
        made.add(frozenset((a, b)))
        reverse = first.get((b, a))
        if reverse is None:
            raise ConfigError(
                f"{profile.source}: stream {forward.id} runs from tester {a} to {b}, and no "
                f"stream runs back from {b} to {a}: the clocks' offset is measured with "
                "probes both ways, copies of a stream each way. Add a stream from port "
                f"{forward.rx_port} to port {forward.tx_port} (in OTG, a flow; any rate; its "
                "addresses the other way round)")
        try:
            ids = next(free), next(free)
        except StopIteration:
            raise ConfigError(f"{profile.source}: the probes between testers {a} and {b} "
                              f"need two stream ids the profile does not use (0.."
                              f"{MAX_STREAMS - 1}); drop two streams") from None
        pairs.append(ProbePair(a, b, dataclasses.replace(forward, id=ids[0]),
                               dataclasses.replace(reverse, id=ids[1])))
    return tuple(pairs)


def probe_paths(pairs: Sequence[ProbePair],
                members: Sequence[ProbeOwner]) -> tuple[GroupPath, ...]:
    """The pairs' probes between the members' probe sides."""
    by_name = {m.name: m for m in members}
    return tuple(GroupPath(p.a, p.b, ProbePath(by_name[p.a].probes, by_name[p.b].probes,
                                               p.forward, p.reverse)) for p in pairs)


def check_group_profile(topology: Topology, profile: Profile) -> None:
    """What one stream cannot do across testers yet, refused with the way out."""
    owner = {p.number: p.tester for p in topology.ports}
    for stream in profile.streams:
        testers = {owner.get(port, "") for port in stream.rx_ports}
        if stream.receive is not None and len(testers) > 1:
            raise ConfigError(f"{profile.source}: stream {stream.id}: received on ports of "
                              f"testers {', '.join(sorted(testers))}; a stream received on "
                              "several ports is checked by one tester: give it ports of one")
