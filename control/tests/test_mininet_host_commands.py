"""A Mininet network's own host commands run as p4lang's tutorials runner runs them
(lab.mininet.router.configure_node): one that fails is reported and the next runs; the
lab's own configuration (addresses) still stops the lab when it fails."""

from __future__ import annotations

from pathlib import Path

import pytest

from p4tester.config.network import InterfaceSpec, NodeSpec
from p4tester.lab.mininet.router import RC_MARK, configure_node
from p4tester.lab.netdev import LabError


class FakeHost:
    """A node's shell: each command's exit status and output, as configured."""

    def __init__(self, name: str, answers: dict[str, tuple[int, str]]) -> None:
        self.name = name
        self.answers = answers
        self.ran: list[str] = []

    def cmd(self, line: str) -> str:
        command = line.removesuffix(f"; echo {RC_MARK}$?")
        self.ran.append(command)
        status, output = self.answers.get(command, (0, ""))
        return f"{output}{RC_MARK}{status}\n"


# The `multicast` exercise's h4, as its topology.json configures it.
H4 = NodeSpec("h4", "host", (InterfaceSpec(0, "10.0.0.4/24", "08:00:00:00:04:44"),),
              ("route add default gw 10.0.0.40 dev eth0",
               "ip route add 10.0.0.0/24 dev eth0",
               "arp -i eth0 -s 10.0.0.40 08:00:00:00:04:00"))


def test_a_failing_host_command_is_reported_and_the_next_one_runs(tmp_path: Path) -> None:
    host = FakeHost("h4", {"ip route add 10.0.0.0/24 dev eth0":
                           (2, "RTNETLINK answers: File exists\n")})
    failures = configure_node(host, H4, tmp_path)
    assert failures == ["h4: 'ip route add 10.0.0.0/24 dev eth0' failed (exit 2): "
                        "RTNETLINK answers: File exists"]
    assert host.ran == ["ip link set eth0 address 08:00:00:00:04:44",
                        "ip addr add 10.0.0.4/24 dev eth0", *H4.commands]
    assert (tmp_path / "h4.commands.log").read_text() == (
        "$ route add default gw 10.0.0.40 dev eth0\n"
        "$ ip route add 10.0.0.0/24 dev eth0\nRTNETLINK answers: File exists\n"
        "(failed: h4: 'ip route add 10.0.0.0/24 dev eth0' failed (exit 2): "
        "RTNETLINK answers: File exists)\n"
        "$ arp -i eth0 -s 10.0.0.40 08:00:00:00:04:00\n")


def test_the_labs_own_configuration_still_stops_the_lab(tmp_path: Path) -> None:
    host = FakeHost("h4", {"ip addr add 10.0.0.4/24 dev eth0": (2, "Error: ipv4: Address "
                                                                   "already assigned.\n")})
    with pytest.raises(LabError, match=r"^h4: 'ip addr add 10.0.0.4/24 dev eth0' failed "
                                       r"\(exit 2\): Error: ipv4: Address already assigned\.$"):
        configure_node(host, H4, tmp_path)
