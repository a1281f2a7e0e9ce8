"""A tester session on the eBPF target: the compiled program loaded onto the
topology's tester ports and a generator link of the session's own, its ports,
neighbours and bins written; everything it loaded and made is removed on close.

Tester port N is the topology's `interface` of the port, or in a veth lab p4lt<N>.
The generator link is a veth pair the session makes (p4lg<pid>-<n>a / b): the sender
writes tagged templates into the b end, the program replicates them from the a
end's ingress. One session per port set: the program's maps are pinned in a BPF
file system the session mounts for itself, so two sessions never share a map, but
two cannot both be on one interface (tc refuses the second clsact qdisc)."""

from __future__ import annotations

import ipaddress
import itertools
import os
import shutil
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from p4tester.config.errors import ConfigError
from p4tester.config.profile import Profile
from p4tester.config.testers import SimulatedClock
from p4tester.config.topology import Topology
from p4tester.lab import netdev
from p4tester.lab.ifaces import port_iface
from p4tester.neighbors.resolve import RESOLVE
from p4tester.targets.ebpf.flow_templates import ebpf_vary_problem
from p4tester.targets.ebpf.generator_tag import GENERATOR_TAG_BYTES
from p4tester.targets.ebpf.pipeline import EbpfPipeline
from p4tester.targets.ebpf.tc_objects import TcLoadError
from p4tester.targets.ebpf.tester import EbpfTester
from p4tester.tester.receive_slots import checker_cells, profile_receive_slots, slot_entries
from p4tester.tester.trial_loop import QDEPTH_EDGES

NS_PER_US = 1000


def set_profile_bins(tester: EbpfTester, latency_bins_us: Sequence[int]) -> None:
    """A profile's latency bins and the DUT queue-depth bins, as a session sets them."""
    # The program's clock counts nanoseconds; the profile's bins are microseconds.
    tester.set_latency_bins([edge * NS_PER_US for edge in latency_bins_us])
    tester.set_qdepth_bins(QDEPTH_EDGES)


def check_profile(topology: Topology, profile: Profile) -> None:
    """What the eBPF program cannot do, refused before anything is loaded, each with
    the way out (docs/ebpf.md: why)."""
    for stream in profile.streams:
        largest = max(stream.size_in(size) for size in profile.frame_sizes)
        vary_problem = ebpf_vary_problem(stream, largest)
        unsupported = [what for what, used in (
            ("a tunnel (VxLAN, GTP-U, SRv6: beyond the kernel verifier's bound)",
             stream.tunnel is not None),
            (vary_problem or "", vary_problem is not None),
            # One sequence over several interfaces: frames of two interfaces are checked
            # on two CPUs at once, and the register updates are not atomic across CPUs.
            ("receive: spread (one sequence over several interfaces; replicate works)",
             stream.receive is not None and not stream.receive.replicates),
            ("dst_mac: resolve (write the gateway's MAC into the stream)",
             stream.addresses.dst_mac == RESOLVE)) if used]
        if unsupported:
            raise ConfigError(f"{profile.source}: stream {stream.id}: "
                              f"{'; '.join(unsupported)} not supported on target ebpf "
                              "(BMv2 supports it); drop it from the stream")
        for port in (stream.tx_port, *stream.rx_ports):
            if topology.testers == () and port not in {p.number for p in topology.ports} \
                    and any(p.tester for p in topology.ports):
                continue  # another tester's port (one of several: Topology.tester)
            interface = port_iface(topology, port)
            if not Path(f"/sys/class/net/{interface}").exists():
                raise ConfigError(
                    f"{topology.source}: port {port} is interface {interface}, which this "
                    "host does not have: bring the lab up (python -m p4tester.lab up "
                    f"{topology.source}) or give the port its interface")


_SESSIONS = itertools.count()


def _generator_link() -> tuple[str, str]:
    """A link of its own for each session (several testers run in one process)."""
    tag = f"{netdev.LINK_PREFIX}g{os.getpid() % 1_000_000}-{next(_SESSIONS) % 100}"
    return f"{tag}a", f"{tag}b"


class EbpfSession:
    """The loaded program and its driver (`tester`), for one run."""

    def __init__(self, topology: Topology, profile: Profile) -> None:
        """topology: the tester's; one of several testers has its own ports only
        (Topology.tester), and loads for the profile's streams on those."""
        self.topology = topology
        self.profile = profile
        object_file = Path(topology.switch.ebpf_object)
        if not object_file.is_file() or not object_file.with_suffix(".c").is_file():
            # Not package data: the object is compiled on the lab host, by the toolchain
            # of a checkout (an installed p4tester has none of it).
            raise ConfigError(f"{topology.source}: switch: the eBPF tester {object_file} "
                              "(and its .c beside it) is not built: run `make build-ebpf` "
                              "in a checkout of p4tester and run from there, or set "
                              "switch: ebpf_object: to the built tester.o (a relative path "
                              "is read beside the topology file, else from the working "
                              "directory)")
        check_profile(topology, profile)
        self.generator, self.sender_interface = _generator_link()
        self._pin_root = Path(tempfile.mkdtemp(prefix="p4tester-bpf-"))
        self.pipeline = EbpfPipeline(object_file, object_file.with_suffix(".c"), self._pin_root)
        self.tester = EbpfTester(self.pipeline.maps)
        # The checker slots of the streams received on several ports (replicated).
        self.receive = profile_receive_slots(profile)
        self._linked = False

    @property
    def port_numbers(self) -> tuple[int, ...]:
        return tuple(p.number for p in self.topology.ports)

    def interface(self, number: int) -> str:
        return port_iface(self.topology, number)

    def open(self) -> None:
        try:
            self._open()
        except BaseException:
            self.close()
            raise

    def _open(self) -> None:
        # The link carries the lab's largest frame (one VLAN tag beyond the MTU) and its tag.
        netdev.add_veth(self.generator, self.sender_interface,
                        self.topology.link_mtu + 4 + GENERATOR_TAG_BYTES)
        self._linked = True
        self.pipeline.mount()
        try:
            for number in self.port_numbers:
                self.pipeline.attach(self.interface(number))
            self.pipeline.attach(self.generator)
        except TcLoadError as failed:
            raise TcLoadError(f"{failed}\n(a tester still loaded there? `tc qdisc del dev "
                              "IFACE clsact` removes what a killed run left)") from None
        self.pipeline.initialize()
        tester = self.tester
        for number in self.port_numbers:
            tester.set_tester_port(EbpfPipeline.ifindex(self.interface(number)), number)
        tester.set_generator_port(EbpfPipeline.ifindex(self.generator))
        for port in self.topology.ports:
            addresses = port.addresses
            if addresses is None:
                continue
            mac = int(addresses.mac.replace(":", ""), 16)
            if addresses.ipv4:
                tester.answer_arp(port.number, int(ipaddress.IPv4Address(addresses.ipv4_address)),
                                  mac)
            if addresses.ipv6:
                tester.answer_nd(port.number,
                                 ipaddress.IPv6Address(addresses.ipv6_address).packed, mac)
        for stream in self.profile.streams:
            tester.forget_stream(stream.id)
            tester.stop_stream(stream.id)
            tester.clear_stream(stream.id)
        for (stream_id, rx_port), (seq, figures) in slot_entries(self.receive).items():
            tester.receive_on(stream_id, rx_port, seq, figures)
        set_profile_bins(tester, self.profile.latency_bins_us)

    def set_simulated_clock(self, clock: SimulatedClock) -> None:
        """A test's tester of several on one host: its stamps off the host's clock by
        the offset and drift the topology gives (config.testers)."""
        if clock.offset_ns or clock.drift_shift:
            self.tester.set_clock(clock.offset_ns, clock.drift_shift, time.monotonic_ns())

    def checker_cells(self, stream_id: int) -> tuple[int, ...]:
        """The checker cells a stream's figures are in: its id, and a several-port
        stream's slots."""
        return checker_cells(self.receive, stream_id)

    def close(self) -> None:
        self.pipeline.close()
        shutil.rmtree(self._pin_root, ignore_errors=True)
        if self._linked:
            netdev.delete_link(self.generator)
            self._linked = False

    def __enter__(self) -> EbpfSession:
        self.open()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
