"""The shipped Tofino 2 topologies: a 32x400G box and a 32-cage 4x100G box load
(load_topology), name the chip, and every port of each comes up on the Tofino 2 fake
with its speed and lanes (a stream per port pair: a profile holds at most 64 streams)."""

from __future__ import annotations

from pathlib import Path

import pytest
from tofino_fake import FakeBfrt

from p4tester.config.profile import profile_from_dict
from p4tester.config.topology import Topology, load_topology
from p4tester.targets.tofino.chip import TOFINO2
from p4tester.targets.tofino.limits import (
    TOFINO2_32X400G,
    TOFINO2_128X100G,
    limits_markdown,
    limits_table,
)
from p4tester.targets.tofino.runner import target_from_config

TOPOLOGIES = Path(__file__).resolve().parents[2] / "topologies"


def _paired_streams(topology: Topology) -> dict[str, object]:
    """One stream per pair of ports (1 -> 2, 3 -> 4, ...): every port used, 64 streams
    on the 128-port box, as many as a profile holds (config.profile's MAX_STREAMS)."""
    numbers = [p.number for p in topology.ports]
    streams = [{"id": i, "tx_port": numbers[2 * i], "rx_port": numbers[2 * i + 1]}
               for i in range(len(numbers) // 2)]
    return {"name": "p", "frame_sizes": [64], "streams": streams}


@pytest.mark.parametrize(("name", "ports", "rate", "lanes", "channels"), [
    ("tofino2-32x400g.yaml", 32, 400e9, 8, (0,)),
    ("tofino2-128x100g.yaml", 128, 100e9, 2, (0, 2, 4, 6)),
])
def test_the_tofino2_topologies_load_and_come_up(name: str, ports: int, rate: float,
                                                 lanes: int, channels: tuple[int, ...]) -> None:
    topology = load_topology(TOPOLOGIES / name)
    assert (topology.switch.target, topology.switch.chip) == ("tofino", "tofino2")
    assert len(topology.ports) == ports
    assert {p.line_rate_bps for p in topology.ports} == {rate}
    assert [p.front_panel for p in topology.ports] == [
        f"{cage}/{channel}" for cage in range(1, 33) for channel in channels]
    assert all(p.peer == f"dut:{p.number}" for p in topology.ports)
    fake = FakeBfrt(chip="tofino2")
    profile = profile_from_dict(_paired_streams(topology), "p.yaml")
    target = target_from_config(fake, topology, profile)
    assert target.chip is TOFINO2
    target.prepare([s.id for s in profile.streams], [s.tx_port for s in profile.streams])
    added = fake.writes_to("$PORT")
    assert len(added) == ports
    assert {w.data["$N_LANES"] for w in added} == {lanes}
    # Every pipe's generator (port 6 of each) is on: the TX ports span all four pipes.
    enabled = [w.key["dev_port"] for w in fake.writes_to("tf2.pktgen.port_cfg")]
    assert enabled == [6, 134, 262, 390]


def test_the_docs_show_the_limits_of_both_tofino2_layouts() -> None:
    """docs/tofino.md's budget tables for the two Tofino 2 topologies are the model's."""
    doc = (TOPOLOGIES.parent / "docs/tofino.md").read_text()
    for chip in (TOFINO2_32X400G, TOFINO2_128X100G):
        assert limits_markdown(limits_table(chip)) in doc, chip.name
    rows = {r.frame_size: r for r in limits_table(TOFINO2_128X100G)}
    assert [size for size, r in rows.items() if r.fits] == [256, 512, 1024, 1280, 1518, 9216]
    assert rows[64].max_line_rate_fraction == pytest.approx(0.3126, abs=1e-4)
