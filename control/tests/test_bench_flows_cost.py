"""The flows benchmark's two profiles (bench.flows_cost): the same stream at 64 B, one
varying nothing and one varying 65 536 source addresses and a drawn port."""

from __future__ import annotations

import ipaddress

import yaml

from p4tester.bench.flows_cost import PROFILES, _profile
from p4tester.config.profile import profile_from_dict
from p4tester.streams.field_patterns import Draws, Steps


def test_the_benchmarks_streams_differ_only_in_what_they_vary() -> None:
    profiles = [profile_from_dict(yaml.safe_load(_profile(name, PROFILES[name])),
                                  f"{name}.yaml") for name in PROFILES]
    assert [p.frame_sizes for p in profiles] == [(64,), (64,)]
    fixed, varying = (p.streams[0] for p in profiles)
    assert fixed.vary == ()
    (src, dst) = varying.field_patterns
    assert src == Steps("src_ip", int(ipaddress.IPv4Address("10.64.0.0")), 1, 65536)
    assert isinstance(dst, Draws) and (dst.field, dst.low, dst.count, dst.repeat) == (
        "dst_port", 1024, 64512, 0)
    assert (fixed.tx_port, fixed.rx_port) == (varying.tx_port, varying.rx_port) == (1, 2)
