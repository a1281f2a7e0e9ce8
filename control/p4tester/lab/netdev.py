"""veth pairs and network namespaces, through iproute2. Only names with the lab
prefix are ever created or deleted."""

from __future__ import annotations

import subprocess
from collections.abc import Sequence

LINK_PREFIX = "p4l"
NETNS_PREFIX = "p4t-"
LINK_MTU = 9500


class LabError(RuntimeError):
    """The lab could not be brought up (or cleaned)."""


def run(args: Sequence[str], *, check: bool = True, netns: str | None = None) -> str:
    command = (["ip", "netns", "exec", netns] if netns else []) + list(args)
    done = subprocess.run(command, capture_output=True, text=True, timeout=20, check=False)
    if check and done.returncode != 0:
        raise LabError(f"{' '.join(command)} failed: {done.stderr.strip()}")
    return done.stdout


def add_veth(a: str, b: str) -> None:
    for name in (a, b):
        if not name.startswith(LINK_PREFIX) or len(name) > 15:
            raise LabError(f"lab link name {name!r} must start with {LINK_PREFIX} (<= 15 chars)")
    delete_link(a)
    run(["ip", "link", "add", a, "type", "veth", "peer", "name", b])
    for name in (a, b):
        run(["ip", "link", "set", name, "mtu", str(LINK_MTU), "up"])
        # No router solicitations or other kernel chatter on the test wires.
        run(["sysctl", "-qw", f"net.ipv6.conf.{name}.disable_ipv6=1"], check=False)


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
