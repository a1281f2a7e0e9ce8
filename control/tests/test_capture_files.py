"""pcap writing and the scapy layer of the tester header."""

from __future__ import annotations

from pathlib import Path

from scapy.layers.l2 import Ether
from scapy.utils import rdpcap

from p4tester.capture.pcap_writer import write_pcap
from p4tester.capture.scapy_layer import find_tester_header
from p4tester.dataplane.headers import TesterHeader, epoch_flags
from p4tester.streams.addresses import StreamAddresses
from p4tester.streams.frame_sizes import Encapsulation
from p4tester.streams.template import FrameSpec, build_template
from p4tester.streams.tunnels import Vxlan


def stamped(spec: FrameSpec, seq: int) -> bytes:
    frame = bytearray(build_template(spec))
    at = spec.encapsulation.header_bytes
    frame[at + 6:at + 10] = seq.to_bytes(4, "big")
    return bytes(frame)


def test_pcap_reads_back_with_times_and_bytes(tmp_path: Path) -> None:
    frames = [stamped(FrameSpec(stream_id=3, frame_size=128, epoch=5), seq) for seq in range(3)]
    path = tmp_path / "x.pcap"
    assert write_pcap(path, [(1700000000.25 + i, f) for i, f in enumerate(frames)]) == 3
    read = rdpcap(str(path))
    assert [bytes(p) for p in read] == frames
    assert [float(p.time) for p in read] == [1700000000.25, 1700000001.25, 1700000002.25]
    data = path.read_bytes()
    assert data[:4] == bytes.fromhex("d4c3b2a1") and int.from_bytes(data[20:24], "little") == 1


def test_tester_header_on_the_default_port_behind_tcp_and_in_vxlan() -> None:
    specs = [
        FrameSpec(stream_id=3, frame_size=128, epoch=5),
        FrameSpec(stream_id=4, frame_size=128, encapsulation=Encapsulation(l4="tcp"),
                  addresses=StreamAddresses(l4_dst_port=80)),
        FrameSpec(stream_id=5, frame_size=160,
                  encapsulation=Encapsulation(tunnel=Vxlan(9, "10.0.0.1", "10.0.0.2"))),
    ]
    for spec in specs:
        header = find_tester_header(Ether(stamped(spec, 77)))
        assert header is not None, spec
        assert (header.stream_id, header.seq, header.flags, header.dut_qdelay) == (
            spec.stream_id, 77, epoch_flags(spec.epoch), 0xFFFF)
        assert bytes(header)[:18] == TesterHeader(
            stream_id=spec.stream_id, seq=77, flags=epoch_flags(spec.epoch),
            dut_qdelay=0xFFFF).pack()
    assert find_tester_header(Ether() / b"no tester here") is None
