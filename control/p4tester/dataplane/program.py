"""The tester program's operations, over P4Runtime and in-band controller packets.

This is the one place that knows how a stream is started, stopped, cleared and
read on the data plane; experiments and the PTF suite both go through it.
"""

from __future__ import annotations

import ipaddress
import math
import time
from collections import deque
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import Final

from p4tester.dataplane import names
from p4tester.dataplane.constants import (
    CAPTURE_CLONE_SESSION,
    CAPTURE_RULES,
    CPU_PORT,
    CTRL_OP_CLEAR,
    CTRL_OP_READ,
    CTRL_OP_SEED,
    CTRL_OP_SEND,
    CUT_BITS,
    EMIT_DRAWS,
    HIST_CELLS_PER_STREAM,
    IP_VERSION_4,
    IP_VERSION_6,
    MAX_FRAMES_PER_PASS,
    MAX_HIST_BINS,
    MAX_PASSES_PER_EMIT,
    MAX_STREAMS,
    MCAST_GROUP_BASE,
    PACER_PORT_BASE,
    PUNT_REASON_CAPTURE,
    PUNT_REASON_CONTROL,
    REPLICA_TOKEN,
    REPLICA_TX,
)
from p4tester.dataplane.field_entries import (
    STEPPED_FIELDS,
    CycleEntry,
    DrawEntry,
    FieldEntry,
    StepEntry,
)
from p4tester.dataplane.headers import StreamRegisters, check_run_value, epoch_flags
from p4tester.dataplane.varied_fields import VariedFields
from p4tester.p4rt import (
    CounterValue,
    Exact,
    P4InfoSchema,
    P4RuntimeClient,
    Range,
    ReceivedPacket,
    Ternary,
    WriteError,
    build_clone_session,
    build_default_action,
    build_multicast_group,
    build_packet_out,
    build_table_entry,
    decode_packet_in,
    decode_value,
)

STREAM_KEY_MASK = 0xFFFF
# Per-stream bin entries override the wildcard ones.
PRIORITY_WILDCARD_STREAM = 1
PRIORITY_ONE_STREAM = 2


# Control frames kept between control_frames() calls (a DUT's ARP chatter is a
# few frames a second; more than this means nobody is reading).
CONTROL_BACKLOG = 1024


class DataplaneError(RuntimeError):
    """The data plane did not answer as the program promises."""


class SwitchUnansweredError(DataplaneError):
    """An in-band request (a PacketOut the program answers with a PacketIn) got no answer
    in time. Once a session has loaded and checked the program, this is a fact about the
    switch's load, not its configuration: on BMv2 a request waits behind every frame in
    the switch's input queue, and recirculated frames (the generator's) are served first,
    so a generator offered more than the switch processes, or a host that starves the
    switch, delays it for seconds."""

    def __init__(self, operation: str, stream_id: int, timeout_s: float) -> None:
        super().__init__(
            f"the switch did not answer the in-band {operation} of stream {stream_id} within "
            f"{timeout_s:g} s: it is busy (a load above what it processes, or a host that "
            "starves it), or, before a session checked it, the tester program is not loaded "
            "or --cpu-port is not set")
        self.operation = operation
        self.timeout_s = timeout_s


# The largest drift shift the program takes (2^-31 of the time: 0.0005 ppm).
MAX_DRIFT_SHIFT: Final = 31
_OPERATION_NAMES: Final = {CTRL_OP_CLEAR: "clear", CTRL_OP_READ: "register read"}


@dataclass(frozen=True, slots=True)
class ForeignPolicy:
    """What the tester does with foreign frames arriving on a port (None = all ports)."""

    action: str  # "drop" | "punt" | "forward"
    ingress_port: int | None = None
    forward_port: int | None = None


# The target deepens each pacing queue to hold this many seeds (targets.bmv2).
MAX_SEEDS = 256
MIN_SEEDS = 8
# The pacing queue must never run dry: a loop pass that comes back late (the
# switch or the machine busy elsewhere) delays that frame, and a rate limiter
# never makes up for lost time. Seeds cover this much of such a hiccup.
SEED_SLACK_S = 0.025


def seeds_for_rate(rate_pps: float) -> int:
    """How many seeds keep a stream's pacing queue backlogged at rate_pps."""
    return max(MIN_SEEDS, min(MAX_SEEDS, math.ceil(rate_pps * SEED_SLACK_S)))


def pacer_port(stream_id: int) -> int:
    """The BMv2 port whose egress queue rate paces stream_id's generator loop."""
    check_stream_id(stream_id)
    return PACER_PORT_BASE + stream_id


def check_frames_per_pass(frames_per_pass: int) -> None:
    if not 1 <= frames_per_pass <= MAX_FRAMES_PER_PASS:
        raise ValueError(
            f"frames per pass {frames_per_pass} is out of range: a generator loop pass "
            f"makes 1..{MAX_FRAMES_PER_PASS} TX frames (MAX_FRAMES_PER_PASS)")


def emit_threshold(passes_per_emit: int) -> int:
    """The generator's emit threshold for a pass to make its frames with probability
    1 / passes_per_emit: a 16-bit draw below it (0: every pass, no draw)."""
    return 0 if passes_per_emit == 1 else EMIT_DRAWS // passes_per_emit


def check_stream_id(stream_id: int) -> None:
    if not 0 <= stream_id < MAX_STREAMS:
        raise ValueError(
            f"stream id {stream_id} is out of range: the data plane has streams "
            f"0..{MAX_STREAMS - 1} (MAX_STREAMS in p4src/common/constants.p4)"
        )


def bin_ranges(edges: Sequence[int], value_bits: int | None = None) -> list[tuple[int, int]]:
    """Bin i covers [edges[i], edges[i+1] - 1]; n+1 increasing edges make n bins.
    With value_bits, the bins must hold only values of that width (the last edge
    may be 2^value_bits: the last bin then ends at the largest value)."""
    if len(edges) < 2:
        raise ValueError("histogram edges: give at least two edges (one bin)")
    if len(edges) - 1 > MAX_HIST_BINS:
        raise ValueError(
            f"histogram edges: {len(edges) - 1} bins asked, the data plane has {MAX_HIST_BINS}"
        )
    if any(b <= a for a, b in pairwise(edges)):
        raise ValueError(f"histogram edges must increase strictly: {list(edges)}")
    if edges[0] < 0:
        raise ValueError("histogram edges must not be negative")
    if value_bits is not None and edges[-1] > 1 << value_bits:
        raise ValueError(f"bin edge {edges[-1]} does not fit a {value_bits}-bit value "
                         f"(at most {1 << value_bits})")
    return [(low, high - 1) for low, high in pairwise(edges)]


class TesterDataplane:
    """Operations of the tester program on one switch."""

    def __init__(self, client: P4RuntimeClient, schema: P4InfoSchema) -> None:
        self.client = client
        self.schema = schema
        # Control frames (PUNT_REASON_CONTROL) that arrived while a request waited
        # for its reply: kept for control_frames(), not lost.
        self._control: deque[tuple[int, bytes]] = deque(maxlen=CONTROL_BACKLOG)
        # Capture copies as (time the controller took them, port, frame).
        self._captured: deque[tuple[float, int, bytes]] = deque(maxlen=CONTROL_BACKLOG)
        self._clone_ready = False
        self._capture_rules: dict[int, dict[str, Ternary]] = {}
        # Field patterns written per stream: a trial that keeps them writes nothing.
        self._field_entries: dict[int, tuple[FieldEntry, ...]] = {}

    # ---- generator -------------------------------------------------------
    def configure_stream(self, stream_id: int, tx_port: int, frames_per_pass: int = 1) -> None:
        """Create (or re-create) the stream's replication: the pacing loop, and
        `frames_per_pass` TX frames to the TX port from each pass (start_stream must
        be given the same number)."""
        check_stream_id(stream_id)
        check_frames_per_pass(frames_per_pass)
        group = build_multicast_group(
            MCAST_GROUP_BASE + stream_id,
            [(pacer_port(stream_id), REPLICA_TOKEN),
             *((tx_port, REPLICA_TX + i) for i in range(frames_per_pass))],
        )
        self._upsert(group)

    def remove_stream(self, stream_id: int) -> None:
        check_stream_id(stream_id)
        self.client.delete(build_multicast_group(MCAST_GROUP_BASE + stream_id, []))

    def start_stream(self, stream_id: int, packet_budget: int, epoch: int = 0,
                     run: int = 0, frames_per_pass: int = 1, passes_per_emit: int = 1,
                     tx_clock_correction_us: int = 0) -> None:
        """Arm the stream: seeds of this run value and epoch (FrameSpec.run, .epoch)
        generate up to packet_budget TX frames, `frames_per_pass` from each pass of a
        seed (as configure_stream wired); seeds of any other run or epoch die. With
        `passes_per_emit` k > 1, each pass makes its frames with probability 1/k (a
        random draw in the data plane): a loop paced k times faster than the frames
        gives Poisson-like arrivals (streams.shapes, poisson). The frames' TX stamps
        add `tx_clock_correction_us` (modulo 2^32): the receiving tester's clock, when
        another tester checks the stream (tester.tester_group)."""
        check_stream_id(stream_id)
        check_frames_per_pass(frames_per_pass)
        if not 0 < packet_budget < 2**32:
            raise ValueError(f"packet budget {packet_budget} must be in 1..{2**32 - 1}")
        if not 1 <= passes_per_emit <= MAX_PASSES_PER_EMIT:
            raise ValueError(f"passes per emitted frame {passes_per_emit} must be in "
                             f"1..{MAX_PASSES_PER_EMIT}")
        entry = build_table_entry(
            self.schema, names.GEN_STREAMS, {"stream": Exact(stream_id)},
            names.GEN_RUN, {"packet_budget": packet_budget, "trial_run": check_run_value(run),
                            "trial_epoch": epoch_flags(epoch),
                            "frames_per_pass": frames_per_pass,
                            "emit_threshold": emit_threshold(passes_per_emit),
                            "tx_clock_correction": tx_clock_correction_us % 2**32},
        )
        self._upsert(entry)

    def tester_clock(self) -> tuple[int, int]:
        """The tester clock's setting as the switch holds it: (offset us modulo 2^32,
        drift shift)."""
        params = self.client.read_default_params(self.schema, names.TESTER_CLOCK)
        return params["offset"], params["drift_shift"]

    def set_tester_clock(self, offset_us: int, drift_shift: int = 0) -> None:
        """The tester's stamps (TX and RX) run `offset_us` (modulo 2^32) ahead of the
        switch's clock and gain (clock >> drift_shift) on it (0: no drift): a test's
        simulated clock (v1model/tester_clock.p4); (0, 0) is the switch's clock."""
        if not 0 <= drift_shift <= MAX_DRIFT_SHIFT:
            raise ValueError(f"drift shift {drift_shift} must be in 0..{MAX_DRIFT_SHIFT}")
        self.client.modify(build_default_action(
            self.schema, names.TESTER_CLOCK, names.SIMULATE_CLOCK,
            {"offset": offset_us % 2**32, "drift_shift": drift_shift}))

    def stop_stream(self, stream_id: int) -> None:
        """Seeds of the stream die at their next pass through ingress."""
        check_stream_id(stream_id)
        entry = build_table_entry(
            self.schema, names.GEN_STREAMS, {"stream": Exact(stream_id)}, names.GEN_STOPPED, {}
        )
        try:
            self.client.modify(entry)
        except WriteError as exc:
            if not _only_code(exc, "NOT_FOUND"):
                raise  # a stream never started has no entry: nothing to stop

    def expect_stream(self, stream_id: int, rx_port: int, *, ipv6: bool = False,
                      epoch: int = 0, run: int = 0) -> None:
        """Write what the stream's frames must be in this trial: the checker takes a
        frame as the stream's only with this run value and epoch (as start_stream's), on rx_port,
        with the template's IP version; others are counted as stale / mismatched."""
        check_stream_id(stream_id)
        entry = build_table_entry(
            self.schema, names.RX_EXPECTED, {"stream": Exact(stream_id)}, names.RX_EXPECT,
            {"trial_run": check_run_value(run), "trial_epoch": epoch_flags(epoch),
             "rx_port": rx_port,
             "ip_version": IP_VERSION_6 if ipv6 else IP_VERSION_4},
        )
        self._upsert(entry)

    def set_receive_slots(self, slots: Mapping[tuple[int, int], tuple[int, int]]) -> None:
        """The checker slots of the streams received on several ports (p4src/v1model/
        rx_port_slots.p4): (stream, RX port) -> (seq slot, figure slot). Every other
        entry goes, so a port another run's stream was received on is no longer one
        this run's is (its frames there count as mismatched)."""
        for (stream_id, _), cells in slots.items():
            check_stream_id(stream_id)
            for cell in cells:
                check_stream_id(cell)
        stream_field = self.schema.match_field(names.RX_PORT_SLOTS, "stream").id
        port_field = self.schema.match_field(names.RX_PORT_SLOTS, "rx_port").id
        for entry in self.client.read_table(self.schema, names.RX_PORT_SLOTS):
            key = {m.field_id: decode_value(m.exact.value) for m in entry.match}
            if (key.get(stream_field), key.get(port_field)) not in slots:
                self._delete_if_present(entry)
        for (stream_id, port), (seq_slot, figure_slot) in slots.items():
            self._upsert(build_table_entry(
                self.schema, names.RX_PORT_SLOTS,
                {"stream": Exact(stream_id), "rx_port": Exact(port)},
                names.RECEIVE_AS, {"seq": seq_slot, "figures": figure_slot}))

    def run_values_in_use(self) -> frozenset[int]:
        """The run values the switch's rx_expected entries hold: those of the run
        before this one (its frames may still be queued in a DUT)."""
        param = self.schema.param(names.RX_EXPECT, "trial_run")
        action_id = self.schema.action(names.RX_EXPECT).id
        values = set()
        for entry in self.client.read_table(self.schema, names.RX_EXPECTED):
            action = entry.action.action
            if action.action_id != action_id:
                continue
            for given in action.params:
                if given.param_id == param.id:
                    values.add(decode_value(given.value))
        return frozenset(values)

    def forget_stream(self, stream_id: int) -> None:
        """The stream is in no trial: every frame of it is counted as stale."""
        check_stream_id(stream_id)
        entry = build_table_entry(
            self.schema, names.RX_EXPECTED, {"stream": Exact(stream_id)},
            names.RX_NOT_IN_TRIAL, {})
        try:
            self.client.delete(entry)
        except WriteError as exc:
            if not _only_code(exc, "NOT_FOUND"):
                raise

    def set_variation(self, stream_id: int, cycle: Sequence[VariedFields]) -> None:
        """Frame i of the stream leaves with the L4 ports, VxLAN VNI and MACs of
        cycle[i mod len(cycle)] (StreamConfig.field_cycle); () for the template's.
        The cycle restarts at clear_stream."""
        check_stream_id(stream_id)
        count_entry = build_table_entry(self.schema, names.TX_VARY,
                                        {"stream": Exact(stream_id)}, names.VARY,
                                        {"count": len(cycle)})
        if not cycle:
            self._delete_if_present(count_entry)
            return
        # The cycle's entries first, the count last: the data plane never indexes an
        # entry that is not there. Entries beyond a shorter new cycle stay, unused.
        for index, fields in enumerate(cycle):
            self._upsert(build_table_entry(
                self.schema, names.TX_VARY_FIELDS,
                {"stream": Exact(stream_id), "index": Exact(index)},
                names.SET_FIELDS, fields._asdict()))
        self._upsert(count_entry)

    def set_field_patterns(self, stream_id: int, entries: Sequence[FieldEntry]) -> None:
        """Each field in `entries` follows its pattern frame by frame (field_steps.p4);
        the other fields of STEPPED_FIELDS keep the template's. () for none. Offsets
        and list indexes restart at clear_stream."""
        check_stream_id(stream_id)
        wanted = tuple(entries)
        if self._field_entries.get(stream_id) == wanted:
            return
        by_field = {entry.field: entry for entry in wanted}
        if len(by_field) != len(wanted) or not set(by_field) <= set(STEPPED_FIELDS):
            raise ValueError(f"stream {stream_id}: one pattern per field of "
                             f"{', '.join(STEPPED_FIELDS)}, got {[e.field for e in wanted]}")
        stream_key = {"stream": Exact(stream_id)}
        gate = build_table_entry(self.schema, names.TX_STEPS, stream_key, names.STEPS, {})
        # Off first, on last: the data plane never applies half a set of patterns.
        self._delete_if_present(gate)
        for field in STEPPED_FIELDS:
            entry = by_field.get(field)
            if entry is None:
                self._delete_if_present(build_table_entry(
                    self.schema, names.tx_step(field), stream_key,
                    names.field_action(field, "step"),
                    {"first": 0, "step": 0, "span": 0}))
                continue
            self._upsert(self._pattern_entry(stream_id, entry))
        if wanted:
            self._upsert(gate)
        self._field_entries[stream_id] = wanted

    def _pattern_entry(self, stream_id: int, entry: FieldEntry) -> object:
        """The field's pattern table entry; a list's values are written first."""
        field = entry.field
        stream_key = {"stream": Exact(stream_id)}
        if isinstance(entry, StepEntry):
            return build_table_entry(self.schema, names.tx_step(field), stream_key,
                                     names.field_action(field, "step"),
                                     {"first": entry.first, "step": entry.step,
                                      "span": entry.span})
        if isinstance(entry, DrawEntry) and entry.repeat:
            return build_table_entry(self.schema, names.tx_step(field), stream_key,
                                     names.field_action(field, "redraw"),
                                     {"low": entry.low, "count": entry.outcomes,
                                      "seed": entry.seed, "last": entry.repeat - 1})
        if isinstance(entry, DrawEntry):
            return build_table_entry(self.schema, names.tx_step(field), stream_key,
                                     names.field_action(field, "draw"),
                                     {"low": entry.low, "count": entry.outcomes,
                                      "seed": entry.seed})
        assert isinstance(entry, CycleEntry)
        for index, value in enumerate(entry.values):
            self._upsert(build_table_entry(
                self.schema, names.tx_listed(field),
                {"stream": Exact(stream_id), "index": Exact(index)},
                names.field_action(field, "pick"), {"value": value}))
        return build_table_entry(self.schema, names.tx_step(field), stream_key,
                                 names.field_action(field, "cycle"),
                                 {"last": len(entry.values) - 1})

    def set_resize(self, stream_id: int, max_cut: int, template_bytes: int) -> None:
        """Frames of the stream leave `template_bytes` (its template, no FCS) long less
        a uniform draw of 0..max_cut bytes, lengths and checksums made to match
        (random sizes); until clear_resizes."""
        check_stream_id(stream_id)
        if not 0 < max_cut < min(template_bytes, 1 << CUT_BITS):
            raise ValueError(f"stream {stream_id}: a cut of up to {max_cut} B from "
                             f"{template_bytes}-B frames: the data plane cuts 1 to "
                             f"{(1 << CUT_BITS) - 1} B and never the whole frame")
        self._upsert(build_table_entry(self.schema, names.TX_RESIZE,
                                       {"stream": Exact(stream_id)}, names.RESIZE,
                                       {"cut_limit": max_cut, "frame_bytes": template_bytes}))

    def clear_resizes(self) -> None:
        """Every stream's frames leave whole: the tx_resize entries a run before this
        one left (an OTG server's random sizes) go."""
        for entry in self.client.read_table(self.schema, names.TX_RESIZE):
            self._delete_if_present(entry)

    def _delete_if_present(self, entry: object) -> None:
        try:
            self.client.delete(entry)
        except WriteError as exc:
            if not _only_code(exc, "NOT_FOUND"):
                raise

    # ---- ARP and IPv6 neighbour discovery -----------------------------------
    def set_neighbor_addresses(self, port: int, mac: str, ipv4: Sequence[str],
                               ipv6: Sequence[str]) -> None:
        """The switch answers ARP requests for `ipv4` and Neighbor Solicitations
        for `ipv6` that arrive on `port`, with `mac`."""
        mac_value = int(mac.replace(":", ""), 16)
        for address in ipv4:
            self._upsert(build_table_entry(
                self.schema, names.ARP_REPLY,
                {"port": Exact(port), "target_ip": Exact(int(ipaddress.IPv4Address(address)))},
                names.ANSWER_ARP, {"mac": mac_value}))
        for address in ipv6:
            self._upsert(build_table_entry(
                self.schema, names.ND_REPLY,
                {"port": Exact(port), "target_ip6": Exact(int(ipaddress.IPv6Address(address)))},
                names.ANSWER_ND, {"mac": mac_value}))

    def send_frame(self, port: int, frame: bytes) -> None:
        """Send one frame out of a tester port (an ARP request, a solicitation)."""
        self.client.packet_out(build_packet_out(
            self.schema, frame, {"opcode": CTRL_OP_SEND, "stream_id": port, "initial_seq": 0}))

    def control_frames(self, timeout_s: float) -> list[tuple[int, bytes]]:
        """(port, frame) of the ARP / ND frames the switch handed up, waiting up
        to timeout_s for the first when none is buffered."""
        deadline = time.monotonic() + timeout_s
        while not self._control and (left := deadline - time.monotonic()) > 0:
            raw = self.client.packet_in(left)
            if raw is None:
                break
            self._keep(decode_packet_in(self.schema, raw))
        frames = list(self._control)
        self._control.clear()
        return frames

    def _keep(self, received: ReceivedPacket) -> bool:
        """Buffer a control frame or a capture copy (True); anything else is not kept."""
        reason = received.metadata.get("reason")
        port = received.metadata.get("ingress_port", 0)
        if reason == PUNT_REASON_CONTROL:
            self._control.append((port, received.payload))
        elif reason == PUNT_REASON_CAPTURE:
            self._captured.append((time.time(), port, received.payload))
        else:
            return False
        return True

    # ---- capture -----------------------------------------------------------
    def set_capture_rule(self, rule: int, *, port: int | None = None,
                         stream_id: int | None = None, rx_kind: int | None = None,
                         min_gap_us: int = 0) -> None:
        """Copy received frames that match (None: any) to the controller, at most
        one per min_gap_us of switch time for this rule."""
        if not 0 <= rule < CAPTURE_RULES:
            raise DataplaneError(f"capture rule {rule} is outside 0..{CAPTURE_RULES - 1}")
        if not self._clone_ready:
            self._clone_session()
        match = {name: Ternary(value, mask) for name, value, mask in (
            ("port", port or 0, 0x1FF if port is not None else 0),
            ("stream", stream_id or 0, 0xFFFF if stream_id is not None else 0),
            ("rx_kind", rx_kind or 0, 0xFF if rx_kind is not None else 0)) if mask}
        self._upsert(build_table_entry(self.schema, names.CAPTURE_RULES, match,
                                       names.CAPTURE_COPY,
                                       {"rule_index": rule, "min_gap_us": min_gap_us},
                                       priority=CAPTURE_RULES - rule))
        self._capture_rules[rule] = match

    def clear_capture_rule(self, rule: int) -> None:
        match = self._capture_rules.pop(rule, None)
        if match is not None:
            self._delete_if_present(build_table_entry(
                self.schema, names.CAPTURE_RULES, match, names.CAPTURE_COPY,
                {"rule_index": rule, "min_gap_us": 0}, priority=CAPTURE_RULES - rule))

    def _clone_session(self) -> None:
        entry = build_clone_session(CAPTURE_CLONE_SESSION, CPU_PORT)
        try:
            self.client.insert(entry)
        except WriteError as exc:
            if not _only_code(exc, "ALREADY_EXISTS"):
                raise
        self._clone_ready = True

    def captured_frames(self, timeout_s: float,
                        wanted: int) -> list[tuple[float, int, bytes]]:
        """(time taken, port, frame) of capture copies, waiting up to timeout_s for
        `wanted`."""
        deadline = time.monotonic() + timeout_s
        while len(self._captured) < wanted and (left := deadline - time.monotonic()) > 0:
            raw = self.client.packet_in(left)
            if raw is None:
                break
            self._keep(decode_packet_in(self.schema, raw))
        frames = list(self._captured)
        self._captured.clear()
        return frames

    def seed_stream(self, stream_id: int, template: bytes, seeds: int) -> None:
        """Put `seeds` copies of the template into the stream's pacing loop."""
        check_stream_id(stream_id)
        msg = build_packet_out(
            self.schema, template,
            {"opcode": CTRL_OP_SEED, "stream_id": stream_id, "initial_seq": 0},
        )
        for _ in range(seeds):
            self.client.packet_out(msg)

    def _upsert(self, entity: object) -> None:
        """Insert, or modify what an earlier trial left."""
        try:
            self.client.insert(entity)
        except WriteError as exc:
            if not _only_code(exc, "ALREADY_EXISTS"):
                raise
            self.client.modify(entity)

    # ---- in-band state ---------------------------------------------------
    def clear_stream(self, stream_id: int, initial_seq: int = 0, timeout_s: float = 2.0) -> None:
        """Reset the stream's generator and checker registers; waits for the ack."""
        check_stream_id(stream_id)
        self._request(CTRL_OP_CLEAR, stream_id, initial_seq, timeout_s)

    def read_stream_registers(self, stream_id: int, timeout_s: float = 2.0) -> StreamRegisters:
        check_stream_id(stream_id)
        payload = self._request(CTRL_OP_READ, stream_id, 0, timeout_s)
        state = StreamRegisters.unpack(payload)
        if state.stream_id != stream_id:
            raise DataplaneError(f"asked for stream {stream_id}, the reply is of {state.stream_id}")
        return state

    def _request(self, opcode: int, stream_id: int, initial_seq: int, timeout_s: float) -> bytes:
        msg = build_packet_out(
            self.schema, b"",
            {"opcode": opcode, "stream_id": stream_id, "initial_seq": initial_seq},
        )
        self.client.packet_out(msg)
        deadline = time.monotonic() + timeout_s
        while (left := deadline - time.monotonic()) > 0:
            raw = self.client.packet_in(left)
            if raw is None:
                break
            received = decode_packet_in(self.schema, raw)
            if self._keep(received):
                continue
            if received.metadata.get("reason") != opcode:
                continue  # a punted foreign frame, not our reply
            if opcode == CTRL_OP_READ and int.from_bytes(received.payload[:2], "big") != stream_id:
                continue  # a late reply to an earlier read
            return received.payload
        raise SwitchUnansweredError(_OPERATION_NAMES.get(opcode, f"opcode {opcode}"), stream_id,
                                    timeout_s)

    # ---- histograms ------------------------------------------------------
    def set_latency_bins(self, edges: Sequence[int], stream_id: int | None = None) -> None:
        self._set_bins(names.LATENCY_BINS, names.SET_LATENCY_BIN, "latency", edges, stream_id)

    def set_qdepth_bins(self, edges: Sequence[int], stream_id: int | None = None) -> None:
        self._set_bins(names.QDEPTH_BINS, names.SET_QDEPTH_BIN, "qdepth", edges, stream_id)

    def _set_bins(
        self, table: str, action: str, field: str, edges: Sequence[int], stream_id: int | None
    ) -> None:
        """Replace the bins of one stream (or of the wildcard) with these edges."""
        ranges = bin_ranges(edges)
        if stream_id is None:
            stream_match = Ternary(0, 0)
            priority = PRIORITY_WILDCARD_STREAM
        else:
            check_stream_id(stream_id)
            stream_match = Ternary(stream_id, STREAM_KEY_MASK)
            priority = PRIORITY_ONE_STREAM
        for entry in self.client.read_table(self.schema, table):
            if entry.priority == priority and _entry_stream(entry) == (
                None if stream_id is None else stream_id
            ):
                self.client.delete(entry)
        for index, (low, high) in enumerate(ranges):
            self.client.insert(
                build_table_entry(
                    self.schema, table,
                    {"stream": stream_match, field: Range(low, high)},
                    action, {"bin": index}, priority=priority,
                )
            )

    # ---- foreign traffic -------------------------------------------------
    def set_foreign_policy(self, policy: ForeignPolicy) -> None:
        params: dict[str, int]
        if policy.action == "drop":
            action, params = names.DROP_FOREIGN, {}
        elif policy.action == "punt":
            action, params = names.PUNT_FOREIGN, {}
        elif policy.action == "forward":
            if policy.forward_port is None:
                raise ValueError("foreign policy 'forward' needs forward_port")
            action, params = names.FORWARD_FOREIGN, {"port": policy.forward_port}
        else:
            raise ValueError(
                f"foreign policy {policy.action!r}: choose 'drop', 'punt' or 'forward'"
            )
        if policy.ingress_port is None:
            default = build_default_action(self.schema, names.FOREIGN_TRAFFIC, action, params)
            self.client.modify(default)
            return
        entry = build_table_entry(
            self.schema, names.FOREIGN_TRAFFIC,
            {"ingress_port": Ternary(policy.ingress_port, 0x1FF)}, action, params, priority=1,
        )
        self._upsert(entry)

    # ---- counters --------------------------------------------------------
    def read_counter(self, name: str) -> dict[int, CounterValue]:
        return self.client.read_counter(self.schema, name)

    def reset_counters(self) -> None:
        for name in names.ALL_COUNTERS:
            self.client.reset_counter(self.schema, name)

    def stream_histogram(self, counter: str, stream_id: int) -> list[int]:
        """Packets per cell of one stream; the last cell counts values outside all bins."""
        check_stream_id(stream_id)
        cells = self.read_counter(counter)
        base = stream_id * HIST_CELLS_PER_STREAM
        return [
            cells[base + i].packets if base + i in cells else 0
            for i in range(HIST_CELLS_PER_STREAM)
        ]


def _only_code(error: WriteError, code: str) -> bool:
    """True when the switch rejected every update of the write with this code."""
    return bool(error.failures) and all(f.code == code for f in error.failures)


def _entry_stream(entry: object) -> int | None:
    """Stream of a bin entry read back (None = wildcard): its ternary 'stream' key."""
    for match in getattr(entry, "match", []):
        if match.HasField("ternary"):
            return int.from_bytes(match.ternary.value, "big")
    return None
