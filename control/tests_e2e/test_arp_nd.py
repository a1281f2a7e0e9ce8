"""Issue 14, item 1: a Linux router with no static neighbours (linux-router-arp.yaml).
The tester answers the router's ARP requests and Neighbor Solicitations for its ports'
addresses in the data plane, resolves the router's MAC for an IPv4 and an IPv6 stream
(`dst_mac: resolve`), and both streams cross the router without loss. The router's
neighbour table holds the tester's MACs as learned entries, the ARP / ND frames are
counted as control and none as foreign, and a gateway nobody has is refused by name."""

from __future__ import annotations

import dataclasses
import json
import time
from pathlib import Path
from typing import Any

import pytest

from p4tester.config.profile import profile_from_dict
from p4tester.config.topology import PortAddresses, Topology, load_topology
from p4tester.dataplane import names
from p4tester.dataplane.constants import RX_KIND_CONTROL, RX_KIND_FOREIGN
from p4tester.experiments.runner import TrialSpec
from p4tester.lab import netdev
from p4tester.lab.linux_dut import NAMESPACE
from p4tester.neighbors.resolve import ResolutionError, prepare, resolve_streams
from p4tester.results.jsonl import ResultLog
from p4tester.targets.bmv2_session import TesterSession
from p4tester.targets.bmv2_trials import SwitchTrialRunner
from p4tester.tester.snapshot import CounterSnapshot

from conftest import p4tester

FRAME_SIZE = 128  # an IPv6 / UDP frame with the tester header needs more than 64 B
DURATION_S = 2.0
LOAD = 0.1  # of the 5 Mbit/s port: 422 frames/s at 128 B, 211 per stream
PER_STREAM = 422  # round(0.1 x 0.5 x 4222.97 frames/s) = 211 frames/s, for 2 s
TESTER_MAC = {1: "02:00:00:00:00:01", 2: "02:00:00:00:00:03"}
LEARNED = {"REACHABLE", "STALE", "DELAY"}
ANNOUNCE_SETTLE_S = 0.5  # for the router to take the announcements in


def router_mac(iface: str) -> str:
    (link,) = json.loads(netdev.run(["ip", "-j", "link", "show", iface], netns=NAMESPACE))
    return str(link["address"])


def router_neighbours(iface: str) -> dict[str, dict[str, Any]]:
    entries = json.loads(netdev.run(["ip", "-j", "neigh", "show", "dev", iface],
                                    netns=NAMESPACE))
    return {str(e["dst"]): e for e in entries}


def with_gateway4(topology: Topology, port: int, gateway: str) -> Topology:
    ports = []
    for config in topology.ports:
        addresses: PortAddresses | None = config.addresses
        if config.number == port and addresses is not None:
            config = dataclasses.replace(
                config, addresses=dataclasses.replace(addresses, gateway4=gateway))
        ports.append(config)
    return dataclasses.replace(topology, ports=tuple(ports))


@pytest.mark.topology("linux-router-arp.yaml")
def test_router_and_tester_resolve_each_other(lab: Path) -> None:
    topology = load_topology(lab)
    profile = profile_from_dict({
        "name": "arp-nd", "trial": {"duration_s": DURATION_S, "drain_s": 0.5, "settle_s": 0.5},
        "frame_sizes": [FRAME_SIZE], "streams": [
            {"id": 0, "tx_port": 1, "rx_port": 2, "share": 0.5, "dst_mac": "resolve"},
            {"id": 1, "tx_port": 1, "rx_port": 2, "share": 0.5, "dst_mac": "resolve",
             "ipv6": True},
        ]}, "arp-nd")
    # Opening the session writes the ports' addresses and resolves the gateways.
    with TesterSession(topology, profile, push_pipeline=True) as session:
        assert prepare(topology, session.profile, session.dataplane) == session.profile
        trial = SwitchTrialRunner(session).run_trial(
            TrialSpec("arp-nd", 0, FRAME_SIZE, LOAD, DURATION_S))
        # Counters since the program was loaded (a pipeline push zeroes them).
        after = CounterSnapshot.take(session.dataplane)
        with pytest.raises(ResolutionError) as caught:
            resolve_streams(profile, with_gateway4(topology, 1, "192.0.2.253"),
                            session.dataplane)

    # The tester learned the router's own (kernel-made) MAC of its ingress port.
    ingress_mac = router_mac("p4ld1")
    assert [s.addresses.dst_mac for s in session.profile.streams] == [ingress_mac] * 2
    # Both streams forwarded, nothing lost.
    assert trial.valid, trial.error
    assert [(s.stream_id, s.tx_frames, s.rx_frames) for s in trial.streams] == [
        (0, PER_STREAM, PER_STREAM), (1, PER_STREAM, PER_STREAM)]
    assert [s.gap_events + s.reordered + s.duplicates for s in trial.streams] == [0, 0]
    # The router learned the tester's addresses by ARP / ND: no PERMANENT entry.
    for iface, port, addresses in (("p4ld1", 1, ("192.0.2.1", "2001:db8::1")),
                                   ("p4ld2", 2, ("198.51.100.1", "2001:db8:1::1"))):
        table = router_neighbours(iface)
        for address in addresses:
            entry = table[address]
            assert entry["lladdr"] == TESTER_MAC[port], (address, entry)
            assert set(entry["state"]) <= LEARNED and entry["state"], (address, entry)
    # ARP / ND counted as control, none as foreign. Resolving: the router's ARP reply
    # and its NA. The trial: its ARP request and NS for port 2's addresses (answered by
    # the switch); and a fifth frame only if the router's 5-s DELAY timer for
    # 2001:db8::1 (set when it sent that NA) ran out first: its unicast NS probe.
    assert after.cell(names.RX_KIND, RX_KIND_CONTROL).packets in (4, 5)
    assert after.cell(names.RX_KIND, RX_KIND_FOREIGN).packets == 0
    assert trial.rx_foreign == 0
    # A gateway nobody on the link has: refused naming port, gateway and the tries.
    assert str(caught.value) == (
        "port 1: no answer from gateway 192.0.2.253 to 3 ARP requests (1 s each); check "
        "that the DUT has 192.0.2.253 on the link cabled to tester port 1 and that it is up")


@pytest.mark.topology("linux-router-arp.yaml")
def test_cli_latency_with_resolved_gateways(lab: Path, tmp_path: Path) -> None:
    """The same through the CLI (topologies/profiles/resolve-v4-v6.yaml): two 1-s
    trials at 10 % of the port, 211 frames per stream each, all of them received."""
    out = tmp_path / "latency"
    done = p4tester("latency", "-t", str(lab), "-p", "topologies/profiles/resolve-v4-v6.yaml",
                    "-o", str(out), "--json", "--frame-size", str(FRAME_SIZE), "--load", "10%",
                    "--trials", "2", "--duration", "1")
    assert done.returncode == 0, done.stderr + done.stdout
    trials = ResultLog(out / "trials.jsonl").load()
    assert [t.valid for t in trials] == [True, True], [t.error for t in trials]
    for trial in trials:
        assert [(s.stream_id, s.tx_frames, s.rx_frames) for s in trial.streams] == [
            (0, PER_STREAM // 2, PER_STREAM // 2), (1, PER_STREAM // 2, PER_STREAM // 2)]
        assert trial.rx_foreign == 0


@pytest.mark.topology("linux-router-arp.yaml")
def test_cli_refuses_a_gateway_nobody_has(lab: Path, tmp_path: Path) -> None:
    """The topology names a gateway the router does not have: exit code 2 (bad input)
    and the error, no trial."""
    wrong = tmp_path / "wrong-gateway.yaml"
    wrong.write_text(lab.read_text().replace("gateway4: 192.0.2.254", "gateway4: 192.0.2.253"))
    out = tmp_path / "latency"
    done = p4tester("latency", "-t", str(wrong), "-p", "topologies/profiles/resolve-v4-v6.yaml",
                    "-o", str(out), "--frame-size", str(FRAME_SIZE), "--load", "10%",
                    "--trials", "1", "--duration", "1")
    assert done.returncode == 2, done.stderr + done.stdout
    assert done.stderr.strip() == (
        "p4tester: port 1: no answer from gateway 192.0.2.253 to 3 ARP requests (1 s each); "
        "check that the DUT has 192.0.2.253 on the link cabled to tester port 1 and that it "
        "is up")
    assert not (out / "trials.jsonl").exists() or ResultLog(out / "trials.jsonl").load() == []


@pytest.mark.topology("linux-router-arp.yaml")
def test_announcements_make_the_router_learn_without_asking(lab: Path) -> None:
    """Ports with announce: true: opening a session sends a gratuitous ARP and an
    unsolicited NA per address, and the router holds all four of the tester's
    addresses (STALE) before any stream or request; no frame comes back."""
    topology = load_topology(lab)
    announcing = dataclasses.replace(topology, ports=tuple(
        dataclasses.replace(p, addresses=dataclasses.replace(p.addresses, announce=True))
        if p.addresses is not None else p for p in topology.ports))
    profile = profile_from_dict({"name": "plain", "frame_sizes": [FRAME_SIZE], "streams": [
        {"id": 0, "tx_port": 1, "rx_port": 2}]}, "plain")
    assert router_neighbours("p4ld1") == router_neighbours("p4ld2") == {}
    with TesterSession(announcing, profile, push_pipeline=True) as session:
        time.sleep(ANNOUNCE_SETTLE_S)
        counters = CounterSnapshot.take(session.dataplane)
    for iface, port, addresses in (("p4ld1", 1, ("192.0.2.1", "2001:db8::1")),
                                   ("p4ld2", 2, ("198.51.100.1", "2001:db8:1::1"))):
        table = router_neighbours(iface)
        assert {a: (table[a]["lladdr"], table[a]["state"]) for a in addresses} == {
            a: (TESTER_MAC[port], ["STALE"]) for a in addresses}, table
    assert counters.cell(names.RX_KIND, RX_KIND_CONTROL).packets == 0
    assert counters.cell(names.RX_KIND, RX_KIND_FOREIGN).packets == 0
