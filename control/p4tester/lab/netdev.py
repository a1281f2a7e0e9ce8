"""veth pairs and network namespaces, through iproute2. Only names with the lab
prefix are ever created or deleted."""

from __future__ import annotations

import subprocess
import time
from collections.abc import Sequence
from pathlib import Path

LINK_PREFIX = "p4l"
NETNS_PREFIX = "p4t-"
# The namespace of a veth lab's kernel DUT (a router or a bridge): one per lab.
DUT_NETNS = f"{NETNS_PREFIX}dut"
LINK_UP_TIMEOUT_S = 5.0
# Offloads that make libpcap size each slot of a capture ring for a 64 KiB super-frame.
PCAP_SLOT_OFFLOADS = ("tso", "gso", "gro")


class LabError(RuntimeError):
    """The lab could not be brought up (or cleaned)."""


def run(args: Sequence[str], *, check: bool = True, netns: str | None = None) -> str:
    command = (["ip", "netns", "exec", netns] if netns else []) + list(args)
    done = subprocess.run(command, capture_output=True, text=True, timeout=20, check=False)
    if check and done.returncode != 0:
        raise LabError(f"{' '.join(command)} failed: {done.stderr.strip()}")
    return done.stdout


def add_veth(a: str, b: str, mtu: int) -> None:
    for name in (a, b):
        if not name.startswith(LINK_PREFIX) or len(name) > 15:
            raise LabError(f"lab link name {name!r} must start with {LINK_PREFIX} (<= 15 chars)")
    delete_link(a)
    run(["ip", "link", "add", a, "type", "veth", "peer", "name", b])
    for name in (a, b):
        # IPv6 off while the link is still down: brought up first, the kernel sends its
        # DAD and MLD frames into the tester at once, and a test sees frames nobody sent.
        run(["sysctl", "-qw", f"net.ipv6.conf.{name}.disable_ipv6=1"], check=False)
        run(["ip", "link", "set", name, "mtu", str(mtu), "up"])
    wait_up((a, b))


def ring_slots_by_mtu(name: str) -> None:
    """Segmentation and receive offloads off, so that a switch reading the link through
    libpcap gets a capture ring of MTU-sized slots. BMv2 opens its ports in immediate mode
    (TPACKET_V2, fixed slots, libpcap's 2 MiB default ring); on a link with any of these
    offloads on, libpcap makes each slot 64 KiB, so the ring holds 31 frames: 4 ms at
    7440 frames/s, and a switch thread that is not scheduled for longer loses frames the
    kernel delivered. With MTU-sized slots (1500: about 1200 of them) such a stall costs
    latency instead. Measured: the tester's loopback loss-free rate at 64 B rose from
    6757 to 12498 frames/s with this alone (README, 'Capacity').

    For the tester's own ports only: in front of a lab DUT, a deep ring is a buffer the
    DUT was not configured with (a 64-frame DUT queue behind 1200 frames of ring, while
    the host holds the DUT's switch up, looked like a 240-frame buffer)."""
    features = [arg for feature in PCAP_SLOT_OFFLOADS for arg in (feature, "off")]
    command = ["ethtool", "-K", name, *features]
    try:
        run(command)
    except FileNotFoundError:
        raise LabError("ethtool is not installed: run 'make setup' (or apt-get install "
                       "ethtool); the lab needs it to size the switch's capture rings") from None


def arp_off(name: str) -> None:
    """The kernel neither answers nor sends ARP on the link. A tester port's
    interface sits in the host's namespace: with ARP on, the kernel answers a DUT's
    requests for any of the host's own addresses, in the tester's place (the
    tester answers for its ports' addresses itself, in the data plane)."""
    run(["ip", "link", "set", "dev", name, "arp", "off"])


def wait_up(names: Sequence[str], timeout_s: float = LINK_UP_TIMEOUT_S) -> None:
    """Until every link is operationally up: a switch or PTF opening a link that is not
    up yet fails, or misses the first frames."""
    deadline = time.monotonic() + timeout_s
    pending = list(names)
    while pending:
        pending = [name for name in pending if _operstate(name) != "up"]
        if not pending:
            return
        if time.monotonic() > deadline:
            raise LabError(f"links {', '.join(pending)} not up after {timeout_s:.0f} s "
                           f"(operstate {', '.join(_operstate(n) for n in pending)})")
        time.sleep(0.05)


def _operstate(name: str) -> str:
    try:
        return Path(f"/sys/class/net/{name}/operstate").read_text().strip()
    except OSError:
        return "absent"


def delete_link(name: str) -> None:
    run(["ip", "link", "del", name], check=False)


def lab_links() -> list[str]:
    names = []
    for line in run(["ip", "-o", "link", "show"]).splitlines():
        name = line.split(":")[1].strip().split("@")[0]
        if name.startswith(LINK_PREFIX):
            names.append(name)
    return names


def add_netns(name: str) -> None:
    if not name.startswith(NETNS_PREFIX):
        raise LabError(f"lab namespace {name!r} must start with {NETNS_PREFIX}")
    delete_netns(name)
    run(["ip", "netns", "add", name])
    run(["ip", "link", "set", "lo", "up"], netns=name)


def delete_netns(name: str) -> None:
    run(["ip", "netns", "del", name], check=False)


def lab_netns() -> list[str]:
    return [line.split()[0] for line in run(["ip", "netns", "list"]).splitlines()
            if line.startswith(NETNS_PREFIX)]
