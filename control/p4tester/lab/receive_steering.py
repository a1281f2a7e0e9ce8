"""Receive steering for the eBPF labs: the kernel's receive work for the DUT's ports
runs off the CPU the eBPF sender is pinned to; in a lab of one tester, the tester's own
receive work (its checker) runs on that CPU, apart from the DUT's.

The sender's every send() carries its frames' whole way through the kernel on its own
CPU: a veth hands a frame to its peer's backlog on the CPU that sent it, so the
generator program, the lab DUT (a Linux router or bridge, its token bucket) and the
checker all ran in softirq time taken from the sender. On a quiet 2-core VM the sender
then offered 21 177 of the 26 042 frames/s a trial asked, settling just above the DUT's
own 20 833, while the other CPU idled. RPS (receive packet steering,
`queues/rx-0/rps_cpus`) moves a port's receive work to the CPUs its mask names; one
flow always goes to one CPU of them, so no frame overtakes another.

The tester's own ports receive on the sender's CPU, not beside the DUT: a CPU's
receive queue (its backlog, net.core.netdev_max_backlog frames) is shared by every port
steered to it. On the bridge-fast lab (a token bucket of 104 167 frames/s, issue 41)
the bucket, once it throttles, costs this VM's CPU about 17 us a frame (1.79 s of
softirq time over a 2-s trial and its drain, against 0.02 s just below its rate).
With the checker on that CPU too, the shared queue overflowed both ways at 105 758
frames/s: 435 frames into the DUT and 672 back into the tester, the tester's loss in
a trial the bucket dropped nothing of. With the checker on the sender's CPU: none at
105 774 frames/s, and at 111 591 all 9 578 drops were at the DUT's input, on the
DUT's CPU, in its own counters (lab.dut_counters: fed_ports).

Not in a lab of several testers: their senders share one CPU, and with their checkers
there too the clock probes between them met each other's sending (their offsets spread
25-31 us where they spread 1, and one-way averages missed the captures by 23 us). There
every receive runs off the senders' CPU, as before.

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


def sender_mask() -> str:
    """The rps_cpus mask of the sender's CPU, in hex."""
    return format(1 << sender_cpu(), "x")


def steer_receive(tester_ifaces: Sequence[str],
                  dut_ifaces: Sequence[tuple[str, str | None]], apart: bool) -> None:
    """The DUT's interfaces ((interface, netns or None for the root namespace)) receive
    on every CPU but the sender's; the tester's (root namespace) on the sender's when
    `apart` (tester_apart), else beside the DUT's; no change on a 1-CPU host."""
    mask = receive_mask()
    if mask is None:
        return
    for iface in tester_ifaces:
        _receive_on(iface, None, sender_mask() if apart else mask)
    for iface, netns in dut_ifaces:
        _receive_on(iface, netns, mask)


def _receive_on(iface: str, netns: str | None, cpus: str) -> None:
    netdev.run(["sh", "-c", f"echo {cpus} > /sys/class/net/{iface}/queues/rx-0/rps_cpus"],
               netns=netns)


def steered(target: str, dut_kind: str, lab: str) -> bool:
    """Whether a lab's receive is steered (lab.runner): an eBPF tester's veth lab with a
    kernel DUT, on a host with more than one CPU."""
    return (target == "ebpf" and dut_kind in KERNEL_DUTS and lab == "veth"
            and receive_mask() is not None)


def tester_apart(target: str, dut_kind: str, lab: str, testers: int) -> bool:
    """Whether a steered lab's tester receives on its sender's CPU, apart from the DUT
    (module docstring): a lab of one tester."""
    return steered(target, dut_kind, lab) and testers <= 1
