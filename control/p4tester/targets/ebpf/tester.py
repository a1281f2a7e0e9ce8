"""The tester program on the eBPF target, in the tester's terms: ports, stream
expectations, per-stream state and counters, histogram bins, the generator's
streams and replication. The same figures the BMv2 and Tofino drivers read, from
BPF maps instead of P4Runtime or BF Runtime."""

from __future__ import annotations

from collections.abc import Sequence

from p4tester.dataplane.constants import (
    HIST_CELLS_PER_STREAM,
    MAX_STREAMS,
    RX_KIND_COUNT,
)
from p4tester.dataplane.headers import StreamRegisters
from p4tester.dataplane.program import bin_ranges
from p4tester.p4rt import CounterValue
from p4tester.targets.ebpf.generator_tag import GENERATOR_TAG_BYTES
from p4tester.targets.ebpf.maps import ProgramMaps

_INGRESS = "TesterIngress"
_EGRESS = "TesterEgress"
_CHECKER = f"{_INGRESS}_checker"
_GENERATOR = f"{_EGRESS}_generator"
# Multicast group of stream s (constants.p4: MCAST_GROUP_BASE).
_MCAST_GROUP_BASE = 1
_LATENCY_BITS = 32
_QDEPTH_BITS = 16
# platform.p4: the ingress port cache's cells and kinds.
PORT_CACHE_CELLS = 1024
PORT_KIND_TESTER = 1
PORT_KIND_GENERATOR = 2
# A stream's multicast group holds up to this many copies of a template: p4c-ebpf's
# inner map of a group has 64 entries, and the list's (0, 0) head takes one (with 64,
# writing the group failed: E2BIG, "Argument list too long").
MAX_COPIES = 63
# gen_state cells: bit 48 set while the stream runs.
_RUNNING = 1 << 48
_STOPPED = 0
# rx_expected cells: bit 40 set while the stream is in a trial, 41 when it is received
# on several ports (its frames' slots are then read from rx_port_slots).
_IN_TRIAL = 1 << 40
_SEVERAL_PORTS = 1 << 41
# rx_port_slots cells (p4src/psa/rx_port_slots.p4): one per (stream, topology port),
# bit 40 set for a port that is one of the stream's several RX ports.
RX_PORT_SLOT_PORTS = 256  # platform.p4: FRONT_PANEL_PORTS
_LISTED = 1 << 40
# Cells of the bin search's edge array after the last edge: above any value.
_EDGE_FILL = (1 << 64) - 1

# Register name -> StreamRegisters field.
_RX_REGISTERS = ("rx_next_expected", "rx_last_seq", "rx_samples", "rx_lost", "latency_min",
                 "latency_max", "latency_sum", "jitter_sum", "last_latency")
# Per-stream counters by the names the other targets' drivers use.
STREAM_COUNTERS = {
    "rx_stream": f"{_CHECKER}_rx_stream",
    "rx_gap_events": f"{_CHECKER}_rx_gap_events",
    "rx_reordered": f"{_CHECKER}_rx_reordered",
    "rx_duplicate": f"{_CHECKER}_rx_duplicate",
    "rx_stale": f"{_INGRESS}_rx_stale",
    "rx_mismatched": f"{_INGRESS}_rx_mismatched",
    "tx_stream": f"{_GENERATOR}_tx_stream",
}


class EbpfTester:
    def __init__(self, maps: ProgramMaps) -> None:
        self.maps = maps

    # ---- ports -----------------------------------------------------------------
    def set_tester_port(self, ifindex: int, number: int) -> None:
        """Frames on `ifindex` are the checker's, counted as port `number`; frames
        leaving by it are counted as that port's."""
        self.maps.add_exact(f"{_INGRESS}_ports", [ifindex], f"{_INGRESS}_tester_port",
                            {"number": number})
        self.maps.add_exact(f"{_EGRESS}_egress_ports", [ifindex], f"{_EGRESS}_tester_port",
                            {"number": number})
        self._cache_port(ifindex, PORT_KIND_TESTER, number)

    def set_generator_port(self, ifindex: int) -> None:
        """The interface the sender writes tagged templates into."""
        self.maps.add_exact(f"{_INGRESS}_ports", [ifindex], f"{_INGRESS}_generator_port")
        self._cache_port(ifindex, PORT_KIND_GENERATOR, 0)

    def _cache_port(self, ifindex: int, kind: int, number: int) -> None:
        """The port's cell of the program's port cache (tester.p4), unless another
        ifindex holds it: that port's frames are then looked up in `ports`, which
        the table entry above serves (slower, as right)."""
        slot = ifindex % PORT_CACHE_CELLS
        held = self.maps.read_register(f"{_INGRESS}_port_cache", slot)
        if held == 0 or held >> 32 == ifindex:
            self.maps.write_register(f"{_INGRESS}_port_cache", slot,
                                     port_cache_cell(ifindex, kind, number))

    def answer_arp(self, port: int, ipv4: int, mac: int) -> None:
        """ARP requests for `ipv4` arriving on `port` are answered with `mac`."""
        self.maps.add_exact(f"{_INGRESS}_neighbors_arp_reply", [port, ipv4],
                            f"{_INGRESS}_neighbors_answer_arp", {"mac": mac})

    def answer_nd(self, port: int, ipv6: bytes, mac: int) -> None:
        """Neighbor Solicitations for `ipv6` arriving on `port` are answered."""
        self.maps.add_exact(f"{_INGRESS}_neighbors_nd_reply", [port, ipv6],
                            f"{_INGRESS}_neighbors_answer_nd", {"mac": mac})

    # ---- checker ---------------------------------------------------------------
    def expect_stream(self, stream_id: int, *, run: int, epoch_flags: int, rx_port: int,
                      ip_version: int, several_ports: bool = False) -> None:
        self.maps.write_register(f"{_INGRESS}_expectation_rx_expected", stream_id,
                                 expectation_cell(run, epoch_flags, rx_port, ip_version,
                                                  several_ports))

    def receive_on(self, stream_id: int, rx_port: int, seq_slot: int, figure_slot: int) -> None:
        """Frames of the stream arriving on rx_port are its own, their sequence state in
        seq_slot and their counts, latency and histograms in figure_slot (a stream
        received on several ports; tester.receive_slots)."""
        self.maps.write_register(f"{_INGRESS}_port_slots_rx_port_slots",
                                 port_slot_index(stream_id, rx_port),
                                 port_slot_cell(seq_slot, figure_slot))

    def forget_stream(self, stream_id: int) -> None:
        self.maps.write_register(f"{_INGRESS}_expectation_rx_expected", stream_id, 0)

    def clear_stream(self, stream_id: int, initial_seq: int = 0) -> None:
        """What CTRL_OP_CLEAR does on BMv2: the stream's checker and generator
        state back to a trial's start, its counters to zero."""
        registers = {"rx_next_expected": initial_seq,
                     "rx_last_seq": (initial_seq - 1) & 0xFFFFFFFF,
                     "rx_samples": 0, "rx_lost": 0, "latency_min": 0xFFFFFFFF,
                     "latency_max": 0, "latency_sum": 0, "jitter_sum": 0, "last_latency": 0}
        for name, value in registers.items():
            self.maps.write_register(f"{_CHECKER}_{name}", stream_id, value)
        self.maps.write_register(f"{_GENERATOR}_tx_next_seq", stream_id, initial_seq)
        for counter in [*STREAM_COUNTERS.values(), f"{_INGRESS}_generator_templates"]:
            self.maps.reset_counter(counter, stream_id)
        for cell in range(HIST_CELLS_PER_STREAM):
            index = stream_id * HIST_CELLS_PER_STREAM + cell
            self.maps.reset_counter(f"{_CHECKER}_latency_hist", index)
            self.maps.reset_counter(f"{_CHECKER}_qdepth_hist", index)

    def read_stream_registers(self, stream_id: int) -> StreamRegisters:
        values = {name: self.maps.read_register(f"{_CHECKER}_{name}", stream_id)
                  for name in _RX_REGISTERS}
        tx_next_seq = self.maps.read_register(f"{_GENERATOR}_tx_next_seq", stream_id)
        sent = self.maps.read_counter(STREAM_COUNTERS["tx_stream"], stream_id).packets
        return StreamRegisters(stream_id=stream_id, generated=sent, tx_next_seq=tx_next_seq,
                               switch_time=0, **values)

    def stream_counter(self, name: str, stream_id: int) -> CounterValue:
        if not 0 <= stream_id < MAX_STREAMS:
            raise ValueError(f"stream {stream_id} must be in 0..{MAX_STREAMS - 1}")
        cell = self.maps.read_counter(STREAM_COUNTERS[name], stream_id)
        if name == "tx_stream":
            # Egress counts a copy before its deparser removes the generator tag.
            return CounterValue(cell.packets, cell.bytes - GENERATOR_TAG_BYTES * cell.packets)
        return cell

    def rx_kinds(self) -> list[int]:
        return [self.maps.read_counter(f"{_INGRESS}_rx_kind", kind).packets
                for kind in range(RX_KIND_COUNT)]

    def port_counter(self, direction: str, port: int) -> CounterValue:
        """Frames the program saw arrive ("rx") or leave ("tx") by a tester port;
        tx bytes include the generator tag of each generated frame."""
        control = _INGRESS if direction == "rx" else _EGRESS
        return self.maps.read_counter(f"{control}_{direction}_port", port)

    def histogram(self, name: str, stream_id: int) -> list[int]:
        """Frames per cell of one stream's `latency_hist` or `qdepth_hist`; the last
        cell is 'outside all bins'."""
        return [self.maps.read_counter(f"{_CHECKER}_{name}",
                                       stream_id * HIST_CELLS_PER_STREAM + cell).packets
                for cell in range(HIST_CELLS_PER_STREAM)]

    def templates_received(self, stream_id: int) -> int:
        """Templates of the stream the generator's ingress took from the sender."""
        return self.maps.read_counter(f"{_INGRESS}_generator_templates", stream_id).packets

    def set_latency_bins(self, edges: Sequence[int]) -> None:
        """Bins for every stream, in clock units (ns here): bin i is
        [edges[i], edges[i+1] - 1]; the rest lands in the outside bin."""
        self._set_bins(f"{_CHECKER}_bins_latency_bins", edges, _LATENCY_BITS)

    def set_qdepth_bins(self, edges: Sequence[int]) -> None:
        self._set_bins(f"{_CHECKER}_bins_qdepth_bins", edges, _QDEPTH_BITS)

    def _set_bins(self, control: str, edges: Sequence[int], bits: int) -> None:
        """The program's bin search (p4src/psa/histogram_bins.p4) reads the edges and
        the bin count. The count goes to 0 first, so a frame checked while the edges
        change lands outside every bin rather than in a bin of mixed edges."""
        cells = bin_search_cells(edges, bits)
        self.maps.write_register(f"{control}_bin_count", 0, 0)
        for index, cell in enumerate(cells):
            self.maps.write_register(f"{control}_edges", index, cell)
        self.maps.write_register(f"{control}_bin_count", 0, len(edges) - 1)

    # ---- generator ---------------------------------------------------------------
    def set_replication(self, stream_id: int, tx_ifindex: int, copies: int) -> None:
        """Each template of the stream leaves `copies` frames by `tx_ifindex`."""
        if not 1 <= copies <= MAX_COPIES:
            raise ValueError(f"copies per template {copies} must be in 1..{MAX_COPIES}")
        self.maps.set_multicast_group(_MCAST_GROUP_BASE + stream_id,
                                      [(tx_ifindex, instance) for instance in range(1, copies + 1)])

    def start_stream(self, stream_id: int, *, frames: int, initial_seq: int, run: int,
                     epoch_flags: int) -> None:
        """The stream's copies are numbered from initial_seq; after `frames` of them
        the rest are dropped, so the trial sends exactly `frames`."""
        self.maps.write_register(f"{_GENERATOR}_gen_state", stream_id, generator_state(
            (initial_seq + frames) & 0xFFFFFFFF, run, epoch_flags))

    def stop_stream(self, stream_id: int) -> None:
        self.maps.write_register(f"{_GENERATOR}_gen_state", stream_id, _STOPPED)

    def set_tx_clock_correction(self, stream_id: int, correction_ns: int) -> None:
        """Add correction_ns (modulo 2^32) to the stream's TX stamps: the offset of the
        tester that receives it, so its figures there are one-way delays."""
        self.maps.write_register(f"{_GENERATOR}_tx_clock_correction", stream_id,
                                 correction_ns % (1 << 32))

    # ---- clock ---------------------------------------------------------------------
    def set_clock(self, offset_ns: int, drift_shift: int, now_ns: int) -> None:
        """The tester's stamps run offset_ns ahead of the kernel's clock at now_ns
        (CLOCK_MONOTONIC) and gain 2^-drift_shift of the time from then on
        (p4src/psa/tester_clock.p4): a simulated clock for tests on one host."""
        cell = clock_setting_cell(offset_ns, drift_shift, now_ns)
        self.maps.write_register(f"{_INGRESS}_rx_clock_clock_setting", 0, cell)
        self.maps.write_register(f"{_GENERATOR}_tx_clock_clock_setting", 0, cell)


def clock_setting_cell(offset_ns: int, drift_shift: int, now_ns: int) -> int:
    """The program's clock setting (p4src/psa/tester_clock.p4): bits 0-31 the offset,
    less the drift the shift adds by now_ns, so the stamps are offset_ns ahead then;
    bits 32-36 the shift."""
    if not 0 <= drift_shift < 32:
        raise ValueError(f"drift shift {drift_shift} must be in 0..31")
    gained = (now_ns >> drift_shift) if drift_shift else 0
    return (offset_ns - gained) % (1 << 32) | drift_shift << 32


def simulated_stamp(kernel_ns: int, cell: int) -> int:
    """What the program stamps at kernel time kernel_ns under a clock setting cell:
    the model tests check the setting against."""
    shift = cell >> 32 & 0x1F
    gained = (kernel_ns >> shift) if shift else 0
    return (kernel_ns + (cell & 0xFFFFFFFF) + gained) % (1 << 32)


def port_cache_cell(ifindex: int, kind: int, number: int) -> int:
    """A port's cell of the ingress port cache (p4src/psa/tester.p4)."""
    _check_fits(("ifindex", ifindex, 32), ("port number", number, 16))
    return ifindex << 32 | kind << 16 | number


def expectation_cell(run: int, epoch_flags: int, rx_port: int, ip_version: int,
                     several_ports: bool = False) -> int:
    """A stream's cell of `rx_expected` (p4src/psa/rx_expectation.p4)."""
    _check_fits(("run value", run, 8), ("epoch flags", epoch_flags, 8),
                ("rx port", rx_port, 16), ("ip version", ip_version, 8))
    return (run | epoch_flags << 8 | rx_port << 16 | ip_version << 32 | _IN_TRIAL
            | (_SEVERAL_PORTS if several_ports else 0))


def port_slot_index(stream_id: int, rx_port: int) -> int:
    """A (stream, RX port)'s cell of `rx_port_slots` (p4src/psa/rx_port_slots.p4)."""
    if not 0 <= stream_id < MAX_STREAMS or not 0 <= rx_port < RX_PORT_SLOT_PORTS:
        raise ValueError(f"stream {stream_id}, port {rx_port}: the slots have cells for "
                         f"streams 0..{MAX_STREAMS - 1}, ports 0..{RX_PORT_SLOT_PORTS - 1}")
    return stream_id * RX_PORT_SLOT_PORTS + rx_port


def port_slot_cell(seq_slot: int, figure_slot: int) -> int:
    """The cell's value: bits 0-15 the seq slot, 16-31 the figure slot, bit 40 set."""
    _check_fits(("seq slot", seq_slot, 16), ("figure slot", figure_slot, 16))
    return seq_slot | figure_slot << 16 | _LISTED


def generator_state(end_seq: int, run: int, epoch_flags: int) -> int:
    """A running stream's cell of `gen_state` (p4src/psa/generator.p4): copies are
    stamped while their seq differs from end_seq and their tester header carries
    this run value and epoch."""
    _check_fits(("end seq", end_seq, 32), ("run value", run, 8),
                ("epoch flags", epoch_flags, 8))
    return end_seq | run << 32 | epoch_flags << 40 | _RUNNING


def _check_fits(*fields: tuple[str, int, int]) -> None:
    for name, value, bits in fields:
        if not 0 <= value < 1 << bits:
            raise ValueError(f"{name} {value} does not fit {bits} bits")

def bin_search_cells(edges: Sequence[int], value_bits: int) -> list[int]:
    """The edge array of the program's bin search: the edges, then cells above any
    value (HIST_CELLS_PER_STREAM in all). The last edge may be 2^value_bits (the
    last bin ends at the largest value)."""
    bin_ranges(edges, value_bits)  # at least one bin, increasing, not too many, fits
    return list(edges) + [_EDGE_FILL] * (HIST_CELLS_PER_STREAM - len(edges))
