"""The generator's replication and stamping on the eBPF target, and a loop
through a Linux bridge back into the checker."""

from __future__ import annotations

import pytest
from scapy.layers.inet import UDP
from scapy.layers.l2 import Ether

from p4tester.dataplane.constants import IP_VERSION_4
from p4tester.dataplane.headers import TesterHeader, epoch_flags
from p4tester.streams.frame_sizes import Encapsulation
from p4tester.streams.template import FrameSpec, build_template, offset_of_tester_header
from p4tester.targets.ebpf.generator_tag import tag_template
from p4tester.targets.ebpf.pipeline import EbpfPipeline
from p4tester.targets.ebpf.tester import EbpfTester

from .checker_helpers import Figures, figures, settle, wait_until
from .frames import Capture, send

RUN = 5
EPOCH = 3


def template(stream_id: int, ipv6: bool = False, epoch: int = EPOCH) -> bytes:
    """A stream template as the controller builds it (seq and tx_ts 0, dut_qdelay their
    stamp compensation, a valid UDP checksum)."""
    return build_template(FrameSpec(stream_id=stream_id, frame_size=84 if ipv6 else 64,
                                    run=RUN, epoch=epoch,
                                    encapsulation=Encapsulation(ipv6=ipv6)))


def tagged(frame: bytes, stream_id: int, ipv6: bool = False) -> bytes:
    return tag_template(frame, stream_id, offset_of_tester_header(Encapsulation(ipv6=ipv6)),
                        tx_port=1)


def start(tester: EbpfTester, pipeline: EbpfPipeline, stream_id: int, frames: int,
          copies: int, initial_seq: int = 0) -> None:
    tester.clear_stream(stream_id, initial_seq)
    tester.set_replication(stream_id, pipeline.ifindex("p4eb1a"), copies)
    tester.start_stream(stream_id, frames=frames, initial_seq=initial_seq, run=RUN,
                        epoch_flags=epoch_flags(EPOCH))


def udp_checksum_holds(frame: bytes) -> bool:
    packet = Ether(frame)
    received = packet[UDP].chksum
    del packet[UDP].chksum
    return bool(int(Ether(bytes(packet))[UDP].chksum) == received)


@pytest.mark.parametrize("ipv6", [False, True])
def test_copies_are_numbered_stamped_and_exactly_the_budget(
        tester: EbpfTester, pipeline: EbpfPipeline, ipv6: bool) -> None:
    """3 templates x 3 copies, a budget of 7: 7 frames, seq 0..6, each the template
    with its tag removed and seq, tx_ts, dut_qdelay stamped, its checksum intact."""
    start(tester, pipeline, 0, frames=7, copies=3)
    original = template(0, ipv6)
    capture = Capture("p4eb1b")
    try:
        send("p4ebgb", [tagged(original, 0, ipv6)] * 3)
        received = capture.frames(8, timeout_s=1.5)
    finally:
        capture.close()
    offset = offset_of_tester_header(Encapsulation(ipv6=ipv6))
    headers = [TesterHeader.unpack(frame[offset:]) for frame in received]
    assert [header.seq for header in headers] == list(range(7))
    for frame, header in zip(received, headers, strict=True):
        assert len(frame) == len(original)
        assert frame[:offset + 6] == original[:offset + 6]  # up to the stream id
        assert frame[offset + 18:] == original[offset + 18:]
        assert header.tx_ts != 0
        assert udp_checksum_holds(frame)
    assert tester.stream_counter("tx_stream", 0).packets == 7
    assert tester.stream_counter("tx_stream", 0).bytes == 7 * len(original)
    assert tester.port_counter("tx", 1).packets == 7
    assert pipeline.maps.read_counter("TesterIngress_generator_templates", 0).packets == 3


def test_a_template_of_another_trial_sends_nothing(tester: EbpfTester,
                                                   pipeline: EbpfPipeline) -> None:
    start(tester, pipeline, 1, frames=10, copies=2)
    capture = Capture("p4eb1b")
    try:
        send("p4ebgb", [tagged(template(1, epoch=EPOCH - 1), 1)] * 2)
        received = capture.frames(1, timeout_s=0.5)
    finally:
        capture.close()
    assert received == []
    assert tester.stream_counter("tx_stream", 1).packets == 0


def test_a_tagged_frame_from_a_tester_port_is_not_generated(
        tester: EbpfTester, pipeline: EbpfPipeline) -> None:
    start(tester, pipeline, 0, frames=10, copies=2)
    send("p4eb2b", [tagged(template(0), 0)])
    wait_until(lambda: tester.port_counter("rx", 2).packets == 1)
    assert tester.rx_kinds() == [0] * 8
    assert tester.stream_counter("tx_stream", 0).packets == 0


@pytest.mark.usefixtures("loop")
def test_loop_through_a_bridge_is_loss_free_and_in_order(tester: EbpfTester,
                                                         pipeline: EbpfPipeline) -> None:
    tester.expect_stream(2, run=RUN, epoch_flags=epoch_flags(EPOCH), rx_port=2,
                         ip_version=IP_VERSION_4)
    start(tester, pipeline, 2, frames=200, copies=4, initial_seq=1000)
    send("p4ebgb", [tagged(template(2), 2)] * 50)
    settle(tester, 200)
    assert figures(tester, 2) == Figures(received=200, next_expected=1200, lost=0,
                                         gap_events=0, reordered=0, duplicates=0)
    state = tester.read_stream_registers(2)
    assert state.tx_next_seq == 1200
    assert 0 < state.latency_min <= state.latency_max < 1_000_000_000
