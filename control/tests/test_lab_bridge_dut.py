"""The `bridge` DUT kind (lab.bridge_dut): what a topology may ask of it, the limit its
qdisc sets, and the ports its counters are read on. The lab itself runs in the eBPF
suite (tests_ebpf/test_kernel_dut_labs.py)."""

from __future__ import annotations

import struct
from typing import Any

import pytest

from p4tester.config.dut_limits import dut_limit
from p4tester.config.errors import ConfigError
from p4tester.config.topology import BRIDGE_EGRESS_QDISC, BRIDGE_INPUT_QUEUE, topology_from_dict
from p4tester.lab import kinds
from p4tester.lab.bridge_dut import input_queue_iface, port_settings
from p4tester.lab.bridge_fdb_limit import limit_request
from p4tester.lab.dut_counters import LinuxDutCounters, dut_counters_for


def bridge(ports: dict[int, str], **dut: Any) -> dict[str, Any]:
    return {"name": "b", "ports": {n: {"line_rate": "25Mbps", "peer": peer}
                                   for n, peer in ports.items()},
            "dut": {"kind": "bridge", **dut}}


def test_the_bridge_joins_every_dut_port_a_tester_port_is_cabled_to() -> None:
    topology = topology_from_dict(bridge({1: "dut:1", 2: "dut:3", 3: "dut:2", 4: "5", 5: "4"}),
                                  "b.yaml")
    assert topology.cabled_dut_ports == (1, 2, 3)
    counters = dut_counters_for(topology)
    assert isinstance(counters, LinuxDutCounters)
    assert counters.interfaces() == {1: "p4ld1", 2: "p4ld2", 3: "p4ld3"}
    assert "bridge" in kinds.DUT_KINDS


def test_a_bridge_needs_two_cabled_ports_an_egress_among_them_and_a_veth_lab() -> None:
    with pytest.raises(ConfigError, match=r"b.yaml: dut: kind bridge needs two tester ports "
                                          r"cabled to it \(peer dut:N\), not 1"):
        topology_from_dict(bridge({1: "dut:1", 2: "host"}), "b.yaml")
    with pytest.raises(ConfigError, match=r"b.yaml: dut: egress 3 is not a port of the bridge "
                                          r"\(DUT ports cabled: \[1, 2\]\)"):
        topology_from_dict(bridge({1: "dut:1", 2: "dut:2"}, egress=3), "b.yaml")
    data = bridge({1: "dut:1", 2: "dut:2"})
    data["lab"] = "mininet"
    with pytest.raises(ConfigError, match="kind bridge runs on lab: veth"):
        topology_from_dict(data, "b.yaml")


def test_the_qdisc_on_the_bridge_is_the_dut_limit() -> None:
    # tbf rate 10mbit: 10^7 / (60 B x 8) frames/s of 64 B (tc counts no FCS).
    topology = topology_from_dict(bridge({1: "dut:1", 2: "dut:2"},
                                         qdisc="tbf rate 10mbit burst 3000 limit 6000"), "b.yaml")
    limit = dut_limit(topology)
    assert limit is not None and round(limit.frames_per_s, 1) == 20833.3
    assert limit.source == "b.yaml: dut: qdisc 'tbf rate 10mbit burst 3000 limit 6000'"
    assert dut_limit(topology_from_dict(bridge({1: "dut:1", 2: "dut:2"}), "b.yaml")) is None


def test_per_port_qdiscs_and_input_queues_name_bridge_ports() -> None:
    topology = topology_from_dict(bridge({1: "dut:1", 2: "dut:2", 3: "dut:3"},
                                         qdisc_3="tbf rate 4286kbit burst 3000 limit 6000",
                                         input_queue_1="tbf rate 3571kbit burst 3000 limit 6000"),
                                  "b.yaml")
    settings = dict(topology.dut.settings)
    assert port_settings(settings, BRIDGE_EGRESS_QDISC) == [
        (3, "tbf rate 4286kbit burst 3000 limit 6000")]
    assert port_settings(settings, BRIDGE_INPUT_QUEUE) == [
        (1, "tbf rate 3571kbit burst 3000 limit 6000")]
    assert input_queue_iface(1) == "p4lq1"
    with pytest.raises(ConfigError, match=r"b.yaml: dut: qdisc_5: '5' is not a port of the "
                                          r"bridge \(DUT ports cabled: \[1, 2\]\); name one, "
                                          r"e.g. qdisc_1"):
        topology_from_dict(bridge({1: "dut:1", 2: "dut:2"}, qdisc_5="tbf rate 1mbit"), "b.yaml")
    with pytest.raises(ConfigError, match=r"b.yaml: dut: input_queue_2 is empty; give a tc "
                                          r"qdisc"):
        topology_from_dict(bridge({1: "dut:1", 2: "dut:2"}, input_queue_2=" "), "b.yaml")


def test_the_address_cache_size_and_ageing_are_checked() -> None:
    topology = topology_from_dict(bridge({1: "dut:1", 2: "dut:2"}, fdb_max_learned=100,
                                         ageing_s=3), "b.yaml")
    assert dict(topology.dut.settings)["fdb_max_learned"] == "100"
    with pytest.raises(ConfigError, match=r"^b.yaml: dut: fdb_max_learned '1e3' is not a whole "
                                          r"number of addresses, e.g. 100$"):
        topology_from_dict(bridge({1: "dut:1", 2: "dut:2"}, fdb_max_learned="1e3"), "b.yaml")
    with pytest.raises(ConfigError, match=r"^b.yaml: dut: ageing_s '0' is not seconds"):
        topology_from_dict(bridge({1: "dut:1", 2: "dut:2"}, ageing_s=0), "b.yaml")


def test_the_cache_limit_request_is_rtnetlink_newlink_with_the_bridge_attribute() -> None:
    message = limit_request(ifindex=7, limit=100, sequence=3)
    # nlmsghdr (16 B), ifinfomsg (16 B), linkinfo {kind "bridge", data {attr 49: 100}}.
    assert len(message) == struct.unpack_from("=I", message)[0] == 60
    assert struct.unpack_from("=HHII", message, 4) == (16, 0x5, 3, 0)
    assert struct.unpack_from("=i", message, 20)[0] == 7
    assert message[32:] == (struct.pack("=HH", 28, 18 | 0x8000)
                            + struct.pack("=HH", 11, 1) + b"bridge\0" + b"\0"
                            + struct.pack("=HH", 12, 2 | 0x8000)
                            + struct.pack("=HHI", 8, 49, 100))
