"""The largest frame a lab link carries, checked before a trial sends one.

A veth link drops a frame longer than its MTU allows (lab topologies' `link_mtu`), and the
tester would see that as frames it sent that never arrived. So a frame size the link cannot
carry is bad input, said before the trial, with the fix."""

from __future__ import annotations

from pathlib import Path
from typing import Final

from p4tester.config.errors import ConfigError
from p4tester.config.topology import LINK_FRAME_OVERHEAD, MAX_LINK_MTU
from p4tester.tester.port_counters import SYSFS_NET

LINK_MTU_HINT: Final = f"set link_mtu: {MAX_LINK_MTU} in the topology for jumbo frames"


def max_link_frame(interface: str, root: Path = SYSFS_NET) -> int | None:
    """Frame size (incl. FCS) the host interface carries; None: no such interface here
    (not a lab link: an external switch's port)."""
    try:
        mtu = int((root / interface / "mtu").read_text().strip())
    except (OSError, ValueError):
        return None
    return mtu + LINK_FRAME_OVERHEAD


def check_frame_fits(interface: str, frame_size: int, where: str,
                     root: Path = SYSFS_NET) -> None:
    largest = max_link_frame(interface, root)
    if largest is not None and frame_size > largest:
        raise ConfigError(f"{where}: {frame_size}-B frames do not fit lab link {interface} "
                          f"(frames up to {largest} B at its MTU); {LINK_MTU_HINT}")
