"""docs/tofino.md's "What runs where" table against the Tofino driver: every row has a
check here, and each Tofino 1 / Tofino 2 cell says what the driver does on that chip
("yes": it accepts the feature and runs it against the fake switch; "no": it refuses
it before writing anything, or, for the reference stream, runs none)."""

from __future__ import annotations

import argparse
import dataclasses
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from tofino_fake import FakeBfrt

from p4tester.cli.capture_cmd import capture
from p4tester.config.errors import ConfigError
from p4tester.config.profile import Profile, profile_from_dict
from p4tester.config.topology import Topology, topology_from_dict
from p4tester.experiments.runner import TrialSpec
from p4tester.runs.flow_engines import flow_engine
from p4tester.targets.tofino.driver import TofinoTarget
from p4tester.targets.tofino.runner import TofinoTrialRunner, stream_template, target_from_config

DOC = Path(__file__).resolve().parents[2] / "docs/tofino.md"
CHIPS = {"Tofino 1": "tofino1", "Tofino 2": "tofino2"}
GEN_APPS = "pipe.TesterIngress.generator.gen_apps"


def feature_table() -> dict[str, dict[str, str]]:
    """feature -> column -> cell, from the section's one table."""
    section = DOC.read_text().split("## What runs where", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("|")]
    header = [c.strip() for c in rows[0].strip("|").split("|")]
    assert header[0] == "feature" and set(CHIPS) <= set(header[1:])
    table = {}
    for row in rows[2:]:
        cells = [c.strip() for c in row.strip("|").split("|")]
        table[cells[0]] = dict(zip(header[1:], cells[1:], strict=True))
    return table


def _topology(chip: str) -> Topology:
    return topology_from_dict({
        "name": "t", "switch": {"grpc": "127.0.0.1:50052", "target": "tofino", "chip": chip},
        "ports": {n: {"line_rate": "100Gbps", "front_panel": f"{n}/0"} for n in (1, 2, 3)},
        "dut": {"kind": "external"}}, "t.yaml")


def _profile(*streams: dict[str, Any]) -> Profile:
    return profile_from_dict({
        "name": "p", "trial": {"duration_s": 0.001, "drain_s": 0.01, "settle_s": 0},
        "frame_sizes": [128], "streams": list(streams)}, "p.yaml")


ONE = {"id": 0, "tx_port": 1, "rx_port": 2}


class Switch:
    """The fake switch whose generators run as the trial's time passes."""

    def __init__(self, chip: str) -> None:
        self.fake = FakeBfrt(chip=chip)
        self.now = 0.0

    def sleep(self, seconds: float) -> None:
        self.now += seconds
        self.fake.advance_to(round(self.now * 1e9))


def _trial(chip: str, profile: Profile, spec: TrialSpec | None = None) -> bool:
    """A whole trial on the fake: True when the driver takes the profile and the trial
    makes every stream's budget; False when it refuses the profile."""
    switch = Switch(chip)
    topology = _topology(chip)
    try:
        target = target_from_config(switch.fake, topology, profile)
    except ConfigError:
        return False
    runner = TofinoTrialRunner(target, topology, profile, sleep=switch.sleep,
                               clock=lambda: switch.now, run_value=0x5A)
    runner.open()
    result = runner.run_trial(spec or TrialSpec("throughput", 0, 128, 0.1, 0.001))
    assert result.valid, result.error
    return True


def _prepared(chip: str, profile: Profile) -> tuple[FakeBfrt, TofinoTarget]:
    fake = FakeBfrt(chip=chip)
    target = target_from_config(fake, _topology(chip), profile)
    target.prepare([0], [1])
    target.set_templates({0: stream_template(profile.streams[0], 128)})
    return fake, target


def ip_versions(chip: str) -> bool:
    return _trial(chip, _profile(ONE, {"id": 1, "tx_port": 2, "rx_port": 1, "ipv6": True}))


def headers(chip: str) -> bool:
    return _trial(chip, _profile(
        {**ONE, "vlan_id": 10},
        {"id": 1, "tx_port": 2, "rx_port": 1, "vlan_id": 20, "outer_vlan_id": 30},
        {"id": 2, "tx_port": 3, "rx_port": 1, "mpls_labels": [100, 200]}))


def tunnels(chip: str) -> bool:
    return _trial(chip, _profile({**ONE, "tunnel": {"vxlan": {
        "vni": 42, "src_ip": "192.0.2.1", "dst_ip": "192.0.2.254"}}}))


def vary(chip: str) -> bool:
    return _trial(chip, _profile({**ONE, "vary": {
        "src_port": {"start": 49152, "count": 4},
        "dst_ip": {"random": "10.0.0.0/24", "seed": 1}}}))


def random_sizes(chip: str) -> bool:
    profile = _profile(ONE)
    cut = dataclasses.replace(profile.streams[0], size_cut=32)
    return _trial(chip, dataclasses.replace(profile, streams=(cut,)))


def several_ports(chip: str) -> bool:
    return _trial(chip, _profile({**ONE, "rx_port": [2, 3], "receive": "replicate"}))


def steps(chip: str) -> bool:
    fake, target = _prepared(chip, _profile(ONE))
    course = (target.pipe_timer(1e6, 132, 1), target.pipe_timer(2e6, 132, 1))
    target.set_stream_rates({0: 1e6}, steps={0: course})
    target.start_trial({0: 100})
    target.retime_streams({0: course[1]})
    return fake.entries("tf2.pktgen.app_cfg" if chip == "tofino2" else "tf1.pktgen.app_cfg",
                        pipe=0)[0].data["timer_nanosec"] == course[1].period_ns


def bursts(chip: str) -> bool:
    fake, target = _prepared(chip, _profile(ONE))
    timer = target.burst_timer(1e5, 132, 10, 1e7)
    target.set_stream_rates({0: 1e5}, steps={0: (timer,)}, bursts={0: 10})
    target.start_trial({0: 100})
    fake.advance_to(10 * timer.period_ns)
    return target.generated()[0].made == 100


def poisson(chip: str) -> bool:
    fake, target = _prepared(chip, _profile(ONE))
    grid = target.poisson_timer(1e5, 132, 8, 1)
    target.set_stream_rates({0: 1e5}, steps={0: (grid.timer,)}, thinning={0: grid.drop_below})
    target.start_trial({0: 50})
    fake.advance_to(10_000_000)
    return target.generated()[0].made == 50 and sum(fake.dropped.values()) > 0


def reference_stream(chip: str) -> bool:
    """A latency trial asks for the reference stream; the Tofino runner runs none."""
    switch = Switch(chip)
    topology = _topology(chip)
    profile = _profile(ONE)
    runner = TofinoTrialRunner(target_from_config(switch.fake, topology, profile), topology,
                               profile, sleep=switch.sleep, clock=lambda: switch.now,
                               run_value=0x5A)
    runner.open()
    result = runner.run_trial(TrialSpec("latency", 0, 128, 0.1, 0.001, reference_loop=True))
    return result.reference is not None


def capture_frames(chip: str) -> bool:
    args = argparse.Namespace(count=1, min_gap_us=0, duration=1.0, stream=None)
    try:
        capture(args, _topology(chip), _profile(ONE))
    except ConfigError:
        return False
    return True


def otg_flows(chip: str) -> bool:
    try:
        flow_engine(_topology(chip), _profile(ONE), push_pipeline=False, otg_config={})
    except ConfigError:
        return False
    return True


CHECKS: dict[str, Callable[[str], bool]] = {
    "IPv4 and IPv6 streams": ip_versions,
    "VLAN, QinQ and MPLS headers": headers,
    "tunnels (VxLAN, GTP-U, SRv6)": tunnels,
    "per-frame variation (vary)": vary,
    "random frame sizes (size.random)": random_sizes,
    "receive on several ports": several_ports,
    "shaped rates (steps)": steps,
    "bursts": bursts,
    "Poisson arrivals": poisson,
    "reference stream (the tester's own latency)": reference_stream,
    "capture": capture_frames,
    "OTG flows": otg_flows,
}


def test_every_row_of_the_table_has_a_check_and_every_check_a_row() -> None:
    table = feature_table()
    assert sorted(table) == sorted(CHECKS)
    for feature, cells in table.items():
        for column, cell in cells.items():
            assert re.fullmatch(r"yes|no", cell), (feature, column, cell)


@pytest.mark.parametrize("column", sorted(CHIPS))
@pytest.mark.parametrize("feature", sorted(CHECKS))
def test_the_tofino_columns_say_what_the_driver_does(feature: str, column: str) -> None:
    claimed = feature_table()[feature][column] == "yes"
    assert CHECKS[feature](CHIPS[column]) is claimed, (
        f"docs/tofino.md says {feature!r} is {'' if claimed else 'not '}on {column}; "
        "the driver does otherwise")


def test_the_refusals_name_the_chip_and_the_way_out() -> None:
    with pytest.raises(ConfigError, match="stream 0: a tunnel not supported on Tofino 2 "
                                          r"\(BMv2 supports it\); drop it from the stream"):
        target_from_config(FakeBfrt(chip="tofino2"), _topology("tofino2"), _profile(
            {**ONE, "tunnel": {"vxlan": {"vni": 1, "src_ip": "192.0.2.1",
                                         "dst_ip": "192.0.2.2"}}}))
    profile = _profile(ONE)
    cut = dataclasses.replace(profile.streams[0], size_cut=8)
    with pytest.raises(ConfigError, match=r"random frame sizes \(size.random\) not supported "
                                          "on Tofino 1"):
        target_from_config(FakeBfrt(), _topology("tofino1"),
                           dataclasses.replace(profile, streams=(cut,)))
    assert GEN_APPS  # the trials above armed their applications through gen_apps
