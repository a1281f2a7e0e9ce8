"""Field patterns on Tofino 2 (targets.tofino.field_steps, p4src/tna/field_steps.p4):
the entries a stream's patterns become give, run through the program's arithmetic,
exactly the values BMv2 and eBPF send; the checksum word keeps a varied frame's
UDP/TCP checksum right; what the program cannot vary is refused by name; and the
driver writes the patterns, zeroes their offsets and removes them on the fake
Tofino 2, whose tables are the compiled schema's."""

from __future__ import annotations

import ipaddress
import zlib

import pytest
from scapy.layers.inet import IP, TCP, UDP
from scapy.layers.inet6 import IPv6
from scapy.layers.l2 import Ether
from tofino_fake import FakeBfrt, Write
from tofino_scenario import F60, F124, FRONT, STREAMS, prepare, start

from p4tester.config.errors import ConfigError
from p4tester.config.profile import profile_from_dict
from p4tester.streams.field_patterns import Draws, FieldPattern, Listed, Steps
from p4tester.streams.frame_sizes import Encapsulation
from p4tester.streams.template import FrameSpec, build_template, offset_of_tester_header
from p4tester.targets.tofino.chip import TOFINO1, TOFINO2
from p4tester.targets.tofino.driver import TofinoTarget
from p4tester.targets.tofino.field_steps import (
    FieldStepEntry,
    pattern_problem,
    step_entries,
    template_words,
)
from p4tester.targets.tofino.runner import check_stream_features

FIELD_STEPS = "pipe.TesterEgress.generator.field_steps"
U32 = 1 << 32


def program_values(entry: FieldStepEntry, seqs: range) -> list[int]:
    """What field_steps.p4 writes for frames with these seqs, from its entry: the
    register's offset (add: += step, 0 after `last`; redraw: the draw index), the
    hash (CRC-32 over seed and seq or index, 32 bits each, its low W bits) and the
    action's arithmetic modulo the field's width."""
    width = 16 if entry.field.endswith("port") else 32
    field_mask = (1 << width) - 1
    offset = 0
    values = []
    for seq in seqs:
        taken = offset
        if entry.action in ("add", "redraw"):
            step = entry.data["step"] if entry.action == "add" else 1
            offset = 0 if offset == entry.data["last"] else (offset + step) % U32
        if entry.action == "add":
            values.append((entry.data["first"] + taken) & field_mask)
        else:
            drawn_on = taken if entry.action == "redraw" else seq
            crc = zlib.crc32(entry.data["seed"].to_bytes(4, "big") + drawn_on.to_bytes(4, "big"))
            values.append((entry.data["low"] + (crc & field_mask & entry.data["mask"]))
                          & field_mask)
    return values


def sent(pattern: FieldPattern, frames: int) -> list[int]:
    """The values BMv2 and eBPF send (frame i has seq i in a trial)."""
    return [pattern.value(i, i) for i in range(frames)]


@pytest.mark.parametrize("pattern", [
    Steps("src_ip", int(ipaddress.IPv4Address("10.0.1.1")), 1, 256),
    Steps("dst_ip", int(ipaddress.IPv4Address("10.9.0.0")), 256, 40),
    Steps("dst_ip", int(ipaddress.IPv4Address("10.9.0.200")), -3, 7),
    Steps("src_port", 1000, 1, 65536 - 1000),
    Steps("dst_port", 2000, -3, 5),
    Steps("src_port", 0, 7, 9000),
])
def test_a_range_is_sent_as_bmv2_sends_it(pattern: Steps) -> None:
    (entry,) = step_entries([pattern])
    frames = 2 * pattern.count + 3  # past the wrap, twice
    assert program_values(entry, range(frames)) == sent(pattern, frames)


def test_a_range_entrys_parameters() -> None:
    """Increment: the last offset is (count - 1) x step; decrement: both as their two's
    complement in 32 bits, which the register adds."""
    assert step_entries([Steps("src_ip", int(ipaddress.IPv4Address("10.0.1.1")), 1, 256)]) == (
        FieldStepEntry("src_ip", "add", {"first": 0x0A000101, "step": 1, "last": 255}),)
    assert step_entries([Steps("dst_port", 2000, -3, 5)]) == (
        FieldStepEntry("dst_port", "add", {"first": 2000, "step": U32 - 3, "last": U32 - 12}),)


@pytest.mark.parametrize("pattern", [
    Draws("src_ip", int(ipaddress.IPv4Address("10.1.0.0")), 256, seed=7),
    Draws("dst_ip", 0, 1 << 32, seed=0xDEADBEEF),
    Draws("dst_port", 4096, 4096, seed=3),
    Draws("src_port", 0, 65536, seed=11, repeat=100),
    Draws("src_ip", int(ipaddress.IPv4Address("192.168.0.0")), 65536, seed=5, repeat=7),
])
def test_random_draws_are_bmv2s_draws(pattern: Draws) -> None:
    (entry,) = step_entries([pattern])
    assert program_values(entry, range(1000)) == sent(pattern, 1000)


def test_a_draw_entrys_parameters() -> None:
    assert step_entries([Draws("src_ip", 0x0A010000, 256, seed=7)]) == (
        FieldStepEntry("src_ip", "draw", {"low": 0x0A010000, "mask": 255, "seed": 7}),)
    assert step_entries([Draws("src_port", 0, 65536, seed=11, repeat=100)]) == (
        FieldStepEntry("src_port", "redraw", {"low": 0, "mask": 65535, "seed": 11,
                                              "last": 99}),)


def test_an_ipv6_address_varies_in_its_low_32_bits() -> None:
    start = int(ipaddress.IPv6Address("2001:db8::1:fff0"))
    pattern = Steps("src_ip6", start, 1, 300)
    (entry,) = step_entries([pattern])
    assert entry == FieldStepEntry("src_ip", "add", {"first": 0x0001FFF0, "step": 1,
                                                     "last": 299})
    high = start >> 32 << 32
    assert [high | v for v in program_values(entry, range(610))] == sent(pattern, 610)


@pytest.mark.parametrize(("pattern", "message"), [
    (Listed("src_ip", (1, 2, 3)),
     "vary: src_ip as a list of values (Tofino 2 takes {start, step, count} or random; "
     "BMv2 and eBPF take lists)"),
    (Draws("src_ip", 0x0A000000, 100, seed=1),
     "vary: src_ip: random over 100 values (Tofino draws over a power of two, a prefix: "
     "give a prefix, or BMv2 or eBPF)"),
    (Steps("dscp", 0, 1, 64),
     "vary: dscp (Tofino 2 varies src_port, dst_port, src_ip, dst_ip, src_ip6, dst_ip6; "
     "BMv2 and eBPF vary it)"),
    (Steps("dst_ip6", int(ipaddress.IPv6Address("2001:db8::ffff:ffff")), 1, 2),
     "vary: dst_ip6: the values span more than one /96 (Tofino 2 varies the low 32 bits "
     "of an IPv6 address; BMv2 and eBPF the low 64)"),
])
def test_what_tofino_cannot_vary_is_named(pattern: FieldPattern, message: str) -> None:
    assert pattern_problem(pattern) == message


def test_a_profile_that_varies_what_tofino_cannot_is_refused() -> None:
    profile = profile_from_dict({"name": "p", "streams": [
        {"id": 0, "tx_port": 1, "rx_port": 2,
         "vary": {"src_ip": {"random": "10.0.0.0/24", "seed": 1}}},
        {"id": 1, "tx_port": 1, "rx_port": 2, "vary": {"dscp": [0, 46]}}]}, "p.yaml")
    with pytest.raises(ConfigError) as refused:
        check_stream_features(profile, TOFINO2)
    assert "stream 1: vary: dscp (Tofino 2 varies src_port" in str(refused.value)
    with pytest.raises(ConfigError) as refused_t1:
        check_stream_features(profile, TOFINO1)
    assert ("stream 0: per-frame variation (vary; Tofino 2 varies addresses and ports) "
            "not supported on Tofino 1") in str(refused_t1.value)
    check_stream_features(profile_from_dict({"name": "p", "streams": [
        {"id": 0, "tx_port": 1, "rx_port": 2,
         "vary": {"src_ip": {"random": "10.0.0.0/24", "seed": 1},
                  "dst_port": {"start": 5000, "count": 100}}}]}, "p.yaml"), TOFINO2)


def _ones_sum(words: list[int]) -> int:
    total = sum(words)
    while total >> 16:
        total = (total & 0xFFFF) + (total >> 16)
    return total


def _words(value: int, nbytes: int) -> list[int]:
    data = value.to_bytes(nbytes, "big")
    return [int.from_bytes(data[i:i + 2], "big") for i in range(0, nbytes, 2)]


def varied_frame(template: bytes, encapsulation: Encapsulation, src: str, dst: str,
                 sport: int, dport: int, stream_id: int, seq: int, tx_ts: int) -> bytes:
    """What the Tofino 2 egress and deparser make of a template: new addresses and
    ports, the stamps, the stamp word ~(stamps + new words + template_words) in
    dut_qdelay, and the IPv4 header checksum recomputed."""
    frame = Ether(template)
    ip_layer = IP if frame.haslayer(IP) else IPv6
    frame[ip_layer].src, frame[ip_layer].dst = src, dst
    l4 = TCP if frame.haslayer(TCP) else UDP
    frame[l4].sport, frame[l4].dport = sport, dport
    if ip_layer is IP:
        del frame[IP].chksum
    raw = bytearray(bytes(frame))
    at = offset_of_tester_header(encapsulation)
    raw[at + 4:at + 6] = stream_id.to_bytes(2, "big")
    raw[at + 6:at + 10] = seq.to_bytes(4, "big")
    raw[at + 10:at + 14] = tx_ts.to_bytes(4, "big")
    address_bytes = 4 if ip_layer is IP else 16
    words = (_words(stream_id, 2) + _words(seq, 4) + _words(tx_ts, 4)
             + _words(int(ipaddress.ip_address(src)), address_bytes)
             + _words(int(ipaddress.ip_address(dst)), address_bytes)
             + [sport, dport, template_words(template)])
    raw[at + 16:at + 18] = (~_ones_sum(words) & 0xFFFF).to_bytes(2, "big")
    return bytes(raw)


def checksums_hold(frame_bytes: bytes) -> bool:
    """The frame's L4 (and IPv4 header) checksum equals scapy's own for its bytes."""
    frame = Ether(frame_bytes)
    l4 = TCP if frame.haslayer(TCP) else UDP
    fresh = frame.copy()
    del fresh[l4].chksum
    ok = Ether(bytes(fresh))[l4].chksum == frame[l4].chksum
    if frame.haslayer(IP):
        del fresh[IP].chksum
        ok = ok and Ether(bytes(fresh))[IP].chksum == frame[IP].chksum
    return ok


@pytest.mark.parametrize("encapsulation", [
    Encapsulation(), Encapsulation(l4="tcp"), Encapsulation(ipv6=True),
    Encapsulation(ipv6=True, l4="tcp", vlan_id=10),
    Encapsulation(mpls_labels=(16, 17)), Encapsulation(vlan_id=5, outer_vlan_id=7)])
def test_the_stamp_word_keeps_a_varied_frames_checksums(encapsulation: Encapsulation) -> None:
    template = build_template(FrameSpec(stream_id=0, frame_size=128,
                                        encapsulation=encapsulation))
    assert checksums_hold(template)
    src, dst = ("10.7.3.200", "172.16.9.1") if not encapsulation.ipv6 else (
        "2001:db8::1:abcd", "2001:db8:0:7::ffff:1")
    for stream_id, seq, sport, dport in ((0, 0, 1, 2), (3, 123456, 40000, 53),
                                         (1023, U32 - 1, 65535, 65535)):
        frame = varied_frame(template, encapsulation, src, dst, sport, dport, stream_id, seq,
                             tx_ts=0x89ABCDEF)
        assert checksums_hold(frame), (stream_id, seq, sport, dport)
    # Without the template's words the sum is off: the word is what keeps it.
    frame = Ether(varied_frame(template, encapsulation, src, dst, 9, 9, 1, 1, 1))
    stamp_at = offset_of_tester_header(encapsulation) + 16
    raw = bytearray(bytes(frame))
    raw[stamp_at:stamp_at + 2] = (int.from_bytes(raw[stamp_at:stamp_at + 2], "big") ^ 0x00F0
                                  ).to_bytes(2, "big")
    assert not checksums_hold(bytes(raw))


def test_template_words_of_a_udp_template() -> None:
    frame = Ether(F60)
    words = (_words(int(ipaddress.IPv4Address(frame[IP].src)), 4)
             + _words(int(ipaddress.IPv4Address(frame[IP].dst)), 4)
             + [frame[UDP].sport, frame[UDP].dport])
    assert template_words(F60) == ~_ones_sum(words) & 0xFFFF


# ---- The driver on the fake Tofino 2 ---------------------------------------------------
RANGE = Steps("src_ip", 0x0A000101, 1, 256)
DRAWS = Draws("dst_port", 0, 65536, seed=9)


def tofino2() -> tuple[FakeBfrt, TofinoTarget]:
    fake = FakeBfrt(chip="tofino2")
    target = start(prepare(TofinoTarget(fake, STREAMS, FRONT, chip=TOFINO2)))
    return fake, target


def test_the_driver_writes_a_streams_patterns_and_its_checksum_word() -> None:
    fake, target = tofino2()
    fake.writes.clear()
    target.set_field_steps({0: (RANGE, DRAWS), 1: (), 5: ()})
    assert fake.writes == [
        Write("add", f"{FIELD_STEPS}.tx_step_src_ip", {"stream": 0},
              {"first": 0x0A000101, "step": 1, "last": 255},
              "TesterEgress.generator.field_steps.src_ip_add"),
        Write("add", f"{FIELD_STEPS}.tx_step_dst_port", {"stream": 0},
              {"low": 0, "mask": 65535, "seed": 9},
              "TesterEgress.generator.field_steps.dst_port_draw"),
        Write("add", f"{FIELD_STEPS}.tx_steps", {"stream": 0},
              {"template_words": template_words(F60)},
              "TesterEgress.generator.field_steps.steps"),
    ]


def test_each_trial_starts_a_streams_fields_at_their_first_value() -> None:
    fake, target = tofino2()
    target.set_field_steps({0: (RANGE, DRAWS)})
    fake.writes.clear()
    target.start_trial({0: 100, 1: 100, 5: 100})
    zeroed = [(w.table, w.key, w.data) for w in fake.writes
              if w.table.startswith(FIELD_STEPS)]
    assert zeroed == [
        (f"{FIELD_STEPS}.dst_port_offset", {"$REGISTER_INDEX": 0},
         {"TesterEgress.generator.field_steps.dst_port_offset.f1": 0}),
        (f"{FIELD_STEPS}.src_ip_offset", {"$REGISTER_INDEX": 0},
         {"TesterEgress.generator.field_steps.src_ip_offset.f1": 0}),
    ]


def test_a_stream_that_stops_varying_loses_its_patterns_gate_first() -> None:
    fake, target = tofino2()
    target.set_field_steps({0: (RANGE, DRAWS)})
    fake.writes.clear()
    target.set_field_steps({0: ()})
    assert [(w.op, w.table, w.key) for w in fake.writes] == [
        ("delete", f"{FIELD_STEPS}.tx_steps", {"stream": 0}),
        ("delete", f"{FIELD_STEPS}.tx_step_src_ip", {"stream": 0}),
        ("delete", f"{FIELD_STEPS}.tx_step_dst_port", {"stream": 0}),
    ]
    # And again, with other patterns: the old entries go before the new are added.
    target.set_field_steps({0: (RANGE,)})
    target.set_field_steps({0: (DRAWS,)})
    assert [(w.op, w.table) for w in fake.writes[3:]] == [
        ("add", f"{FIELD_STEPS}.tx_step_src_ip"), ("add", f"{FIELD_STEPS}.tx_steps"),
        ("delete", f"{FIELD_STEPS}.tx_steps"), ("delete", f"{FIELD_STEPS}.tx_step_src_ip"),
        ("add", f"{FIELD_STEPS}.tx_step_dst_port"), ("add", f"{FIELD_STEPS}.tx_steps")]


def test_tofino1s_program_varies_nothing() -> None:
    fake = FakeBfrt()
    target = start(prepare(TofinoTarget(fake, STREAMS, FRONT, chip=TOFINO1)))
    with pytest.raises(ValueError, match=r"streams \[0\] vary fields; Tofino 1's program "
                                         r"varies none \(Tofino 2's does\)"):
        target.set_field_steps({0: (RANGE,)})
    target.set_field_steps({0: ()})  # varying nothing is fine


def test_an_ipv6_template_gives_its_own_word() -> None:
    frame = Ether(F124)
    words = (_words(int(ipaddress.IPv6Address(frame[IPv6].src)), 16)
             + _words(int(ipaddress.IPv6Address(frame[IPv6].dst)), 16)
             + [frame[UDP].sport, frame[UDP].dport])
    assert template_words(F124) == ~_ones_sum(words) & 0xFFFF
