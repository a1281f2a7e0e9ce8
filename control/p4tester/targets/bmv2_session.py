"""A tester session on one BMv2 switch: the P4Runtime connection with the tester
program loaded, its streams wired and its bins set, and the BMv2 target beside it
(thrift). The trials on it: targets.bmv2_trials."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

from p4tester.config.profile import Profile, StreamConfig
from p4tester.config.topology import Topology
from p4tester.dataplane.program import TesterDataplane
from p4tester.neighbors import resolve as neighbors
from p4tester.p4rt import P4InfoSchema, P4RuntimeClient
from p4tester.streams.template import FrameSpec
from p4tester.streams.tunnels import Vxlan
from p4tester.streams.variation import mac_text
from p4tester.targets.base import TargetDriver
from p4tester.targets.bmv2 import Bmv2Target
from p4tester.targets.bmv2_thrift import Bmv2Thrift
from p4tester.tester.receive_slots import ReceiveSlots, profile_receive_slots, slot_entries
from p4tester.tester.trial_loop import QDEPTH_EDGES


class TesterSession:
    """Connection to the tester switch with the program loaded and streams wired."""

    def __init__(self, topology: Topology, profile: Profile, *, push_pipeline: bool = False,
                 client: P4RuntimeClient | None = None, target: TargetDriver | None = None,
                 ) -> None:
        self.topology = topology
        self.profile = profile
        self.schema = P4InfoSchema.from_text_file(topology.switch.p4info)
        self.client = client or P4RuntimeClient(topology.switch.grpc,
                                                device_id=topology.switch.device_id,
                                                timeout_s=topology.switch.timeout_s)
        self.target: TargetDriver = target or Bmv2Target(Bmv2Thrift(topology.switch.thrift_port))
        self.dataplane = TesterDataplane(self.client, self.schema)
        # The checker slots of the profile's several-port streams (written at open).
        self.receive: Mapping[int, ReceiveSlots] = profile_receive_slots(profile)
        self._push = push_pipeline

    def open(self) -> None:
        """Connect, make sure the switch runs this program, wire streams and bins."""
        self.client.connect()
        if self._push or not self._has_pipeline():
            self.client.set_pipeline(self.schema, self.topology.switch.bmv2_json)
        else:
            self.client.verify_pipeline(self.schema)
        self.profile = neighbors.prepare(self.topology, self.profile, self.dataplane)
        for stream in self.profile.streams:
            self.dataplane.configure_stream(stream.id, stream.tx_port)
        # Frames whole unless the stream has random sizes (whose start arms the cut): an
        # OTG server's random flow on this switch must not cut a trial's frames.
        self.dataplane.clear_resizes()
        self.target.prepare([s.id for s in self.profile.streams],
                            [s.tx_port for s in self.profile.streams])
        self.dataplane.set_latency_bins(self.profile.latency_bins_us)
        self.dataplane.set_qdepth_bins(QDEPTH_EDGES)
        # The checker slots of this profile's several-port streams, and no other: an
        # earlier run's would take this run's frames on a port it listed.
        self.receive = profile_receive_slots(self.profile)
        self.dataplane.set_receive_slots(slot_entries(self.receive))

    def _has_pipeline(self) -> bool:
        try:
            self.client.get_p4info()
        except Exception:
            return False
        return True

    def close(self) -> None:
        self.client.close()

    def __enter__(self) -> TesterSession:
        self.open()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def frame_spec(stream: StreamConfig, frame_size: int, epoch: int, run: int = 0, *,
               stamp_counts_ports: bool = True) -> FrameSpec:
    """The stream's template at this size, epoch and run value; a varying stream's template
    carries its cycle's first fields (the data plane rewrites them frame by frame).
    stamp_counts_ports: the data plane's stamp counts a varying stream's ports (BMv2);
    False where the sender writes each frame whole (eBPF)."""
    addresses = stream.addresses
    encapsulation = stream.encapsulation
    cycle = stream.field_cycle
    if cycle:
        src, dst, vni, src_mac, dst_mac = cycle[0]
        addresses = replace(addresses, udp_src_port=src, l4_dst_port=dst,
                            src_mac=mac_text(src_mac), dst_mac=mac_text(dst_mac))
        if isinstance(encapsulation.tunnel, Vxlan):
            encapsulation = replace(encapsulation, tunnel=replace(encapsulation.tunnel, vni=vni))
    return FrameSpec(
        stream_id=stream.id, frame_size=frame_size, addresses=addresses, epoch=epoch, run=run,
        encapsulation=encapsulation,
        varies_ports=stamp_counts_ports and bool(stream.vary),
    )
