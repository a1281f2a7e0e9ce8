"""RFC 2889 address caching capacity on a learning switch whose cache size is known
(topologies/bmv2-bridge-addresses.yaml: a Linux bridge that learns at most 50
addresses, one of them the test port's): the search must find 49, and each probe
above it must see exactly its unlearnt addresses' frames flooded to the monitoring
port."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from conftest import p4tester

PROFILE = "topologies/profiles/addresses-64.yaml"
BRIDGE_CACHE = 50  # fdb_max_learned
CAPACITY = BRIDGE_CACHE - 1  # the test port's own address takes one entry
AGEING_S = "3"  # the lab bridge's ageing_s
RATE_PPS = "500"  # learning and test frames: well within BMv2's capacity on a busy host


@pytest.mark.topology("bmv2-bridge-addresses.yaml")
def test_address_caching_capacity_is_the_bridges_cache(lab: Path, tmp_path: Path) -> None:
    done = p4tester("rfc2889-addresses", "-t", str(lab), "-p", PROFILE, "-o",
                    str(tmp_path / "out"), "--json", "--test", "address-caching",
                    "--ageing", AGEING_S, "--learning-rate", RATE_PPS, "--test-rate", RATE_PPS)
    assert done.returncode == 0, done.stderr + done.stdout
    result: dict[str, Any] = json.loads(done.stdout)["result"]
    assert (result["capacity"], result["at_limit"]) == (CAPACITY, False)
    # A probe slower than the ageing time (a busy host) is run again: only the probes
    # the search used carry the DUT's figures.
    probes = [p for p in result["probes"] if not p["repeated"]]
    assert all(p["held_s"] >= float(AGEING_S) for p in result["probes"] if p["repeated"])
    # Every probe: one test frame per address, each reaching the learning port (learnt,
    # or flooded there too); copies on the monitoring port are exactly the frames to
    # the addresses beyond the cache.
    for probe in probes:
        count = probe["count"]
        assert (probe["sent"], probe["received"], probe["lost"]) == (count, count, 0), probe
        assert probe["flooded"] == max(0, count - CAPACITY), probe
    assert {p["count"] for p in probes} >= {CAPACITY, CAPACITY + 1}
    assert result["notes"] == []
