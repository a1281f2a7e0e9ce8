"""Receive steering for the eBPF labs: the kernel's receive work for the DUT's and the
tester's ports runs off the CPU the eBPF sender is pinned to.

The sender's every send() carries its frames' whole way through the kernel on its own
CPU: a veth hands a frame to its peer's backlog on the CPU that sent it, so the
generator program, the lab DUT (a Linux router or bridge, its token bucket) and the
checker all ran in softirq time taken from the sender. On a quiet 2-core VM the sender
then offered 21 177 of the 26 042 frames/s a trial asked, settling just above the DUT's
own 20 833, while the other CPU idled. RPS (receive packet steering,
`queues/rx-0/rps_cpus`) moves a port's receive work to the CPUs its mask names; one
flow always goes to one CPU of them, so no frame overtakes another.

Only for DUTs the kernel is (a Linux router or bridge): a BMv2 DUT is a process that
reads its ports itself, and the receive work steered onto its CPU crowded it there (on a
quiet host its 31-frame capture ring overflowed at 5000 of its 6000 frames/s, the
eBPF lab's NDR 18 % low), where with the work on the sender's CPU it kept its rate.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Final

from p4tester.lab import netdev

# The lab DUT kinds whose forwarding is the kernel's own.
KERNEL_DUTS: Final = ("linux", "bridge")


def sender_cpu() -> int:
    """The CPU the eBPF sender runs on: the first this process may use."""
    return min(os.sched_getaffinity(os.getpid()))


def receive_mask() -> str | None:
    """The rps_cpus mask of every CPU but the sender's, in hex; None on a 1-CPU host."""
    others = sorted(os.sched_getaffinity(os.getpid()) - {sender_cpu()})
    if not others:
        return None
    return format(sum(1 << cpu for cpu in others), "x")


def steer_receive_off_the_sender(ifaces: Sequence[tuple[str, str | None]]) -> None:
    """Sets (interface, netns or None for the root namespace) to receive on every CPU
    but the sender's."""
    mask = receive_mask()
    if mask is None:
        return
    for iface, netns in ifaces:
        netdev.run(["sh", "-c", f"echo {mask} > /sys/class/net/{iface}/queues/rx-0/rps_cpus"],
                   netns=netns)
