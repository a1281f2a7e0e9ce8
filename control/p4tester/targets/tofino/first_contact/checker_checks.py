"""The checker's PTF cases through a port's MAC loopback (1), and what the in-order
case shows besides: the template layout (5), counter reads (9) and byte counts (10).

The generator numbers frames contiguously, so each case sets the checker's (or the
sender's) registers once the trial is armed and before its one burst leaves: a
sender ahead of the receiver is a gap, a receiver ahead is reordering, a receiver that
last saw the first frame's number is a duplicate, a gap across 2^32 is the wrap, an
expectation of no trial is stale.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Final

from p4tester.dataplane.constants import HIST_CELLS_PER_STREAM
from p4tester.targets.tofino import bins, names
from p4tester.targets.tofino.bfrt import BfrtClient
from p4tester.targets.tofino.driver import TofinoTarget
from p4tester.targets.tofino.first_contact.bench import Bench, Setup
from p4tester.targets.tofino.first_contact.findings import Finding, refuted, verified
from p4tester.targets.tofino.first_contact.loop import LATENCY_EDGES_US, looped_target, templates
from p4tester.targets.tofino.hardware import pipe_of
from p4tester.targets.tofino.rates import TimerSchedule
from p4tester.targets.tofino.state import U32, read_streams

FRAMES: Final = 8
FRAME: Final = 64
GAP: Final = 5
# One burst of FRAMES, the trigger a whole period after the trial is armed: the
# presets (a few BfRt writes) are in place long before it.
BURST: Final = TimerSchedule(10_000_000, 1, FRAMES, FRAMES * 100.0, 0.0)
WAIT_NS: Final = 15_000_000
STREAM: Final = 0
COUNTERS: Final = (names.RX_STREAM, names.RX_GAP_EVENTS, names.RX_REORDERED,
                   names.RX_DUPLICATE, names.RX_STALE)


@dataclass(frozen=True, slots=True)
class Counts:
    """A case's frames as the checker counted them."""

    rx: int
    rx_bytes: int
    gap_events: int
    reordered: int
    duplicates: int
    stale: int
    lost: int
    hist: Mapping[int, int]  # latency bin -> frames
    latency_ns: tuple[int, int]  # min, max
    pipe_values: int  # values a counter read gave per cell


Preset = Callable[[BfrtClient], None]


def _write(register: str, value: int) -> Preset:
    def preset(client: BfrtClient) -> None:
        client.write_registers(register, {STREAM: {names.register_field(register): value}})
    return preset


def _stale(client: BfrtClient) -> None:
    client.modify_entry(names.RX_EXPECTED, {names.RX_EXPECTED_KEY: STREAM}, {},
                        action=names.RX_NOT_IN_TRIAL)


def _read(client: BfrtClient) -> tuple[dict[str, tuple[int, int]], dict[int, int], int]:
    sums: dict[str, tuple[int, int]] = {}
    width = 0
    for counter in COUNTERS:
        cell = client.read_counters(counter, [STREAM])[STREAM]
        width = max(width, len(cell))
        sums[counter] = (sum(v.packets for v in cell), sum(v.bytes for v in cell))
    first = STREAM * HIST_CELLS_PER_STREAM
    hist = client.read_counters(names.LATENCY_HIST, range(first, first + HIST_CELLS_PER_STREAM))
    return sums, {i - first: sum(v.packets for v in c) for i, c in hist.items()}, width


def run_case(bench: Bench, target: TofinoTarget, presets: tuple[Preset, ...],
             initial_seq: int = 0) -> Counts:
    client = bench.client
    target.set_templates(templates(1, FRAME))
    target.set_stream_rates({STREAM: BURST.achieved_pps}, steps={STREAM: [BURST]})
    before, hist0, _ = _read(client)
    target.start_trial({STREAM: FRAMES}, initial_seq)
    for preset in presets:
        preset(client)
    bench.wait_ns(WAIT_NS)
    target.stop_trial()
    after, hist1, width = _read(client)
    pipe = pipe_of(next(iter(target.dev_ports.values())))
    state = read_streams(client, {STREAM: pipe})[STREAM]

    def diff(counter: str, index: int = 0) -> int:
        return after[counter][index] - before[counter][index]
    return Counts(diff(names.RX_STREAM), diff(names.RX_STREAM, 1), diff(names.RX_GAP_EVENTS),
                  diff(names.RX_REORDERED), diff(names.RX_DUPLICATE), diff(names.RX_STALE),
                  state.rx_lost, {b: hist1[b] - hist0.get(b, 0) for b in hist1
                                  if hist1[b] != hist0.get(b, 0)},
                  (state.latency_min_ns, state.latency_max_ns), width)


def latency_bin(latency_ns: int) -> int:
    """The bin the controller's edges put a latency in (the last is open above)."""
    edges = bins.latency_edges_ns(LATENCY_EDGES_US)
    return max(i for i, edge in enumerate(edges) if edge <= latency_ns)


def check_checker(bench: Bench, setup: Setup) -> list[Finding]:
    port = setup.ports[0]
    target = looped_target(bench, setup, (port,))
    in_order = run_case(bench, target, ())
    cases: dict[str, tuple[str, str]] = {}  # case -> (what it counted, what it should)

    def expect(case: str, got: str, wanted: str) -> None:
        cases[case] = (got, wanted)

    expect("in order", f"{in_order.rx} in order, {in_order.gap_events} gaps, "
           f"{in_order.reordered} reordered, {in_order.duplicates} duplicates",
           f"{FRAMES} in order, 0 gaps, 0 reordered, 0 duplicates")
    gaps = run_case(bench, target, (_write(names.TX_NEXT_SEQ, GAP),))
    expect("gaps", f"{gaps.gap_events} gap of {gaps.lost} lost", f"1 gap of {GAP} lost")
    ahead = FRAMES + 3
    reordering = run_case(bench, target, (_write(names.RX_NEXT_EXPECTED, ahead),
                                          _write(names.RX_LAST_SEQ, ahead - 1),
                                          _write(names.RX_SEEN, 1)))
    expect("reordering", f"{reordering.reordered} reordered, {reordering.lost} lost",
           f"{FRAMES} reordered, 0 lost")
    duplicates = run_case(bench, target, (_write(names.RX_NEXT_EXPECTED, 1),
                                          _write(names.RX_LAST_SEQ, 0),
                                          _write(names.RX_SEEN, 1)))
    expect("duplicates", f"{duplicates.duplicates} duplicate, {duplicates.rx} received",
           f"1 duplicate, {FRAMES} received")
    # Expected next: 2^32 - 2; the first frame sent is 1: 2^32 - 2, 2^32 - 1 and 0 lost.
    wrap = run_case(bench, target, (_write(names.TX_NEXT_SEQ, 1),), initial_seq=U32 - 2)
    expect("wrap", f"{wrap.gap_events} gap of {wrap.lost} lost across 2^32",
           "1 gap of 3 lost across 2^32")
    stale = run_case(bench, target, (_stale,))
    expect("stale", f"{stale.stale} stale, {stale.rx} received", f"{FRAMES} stale, 0 received")
    low, high = in_order.latency_ns
    wanted_bins = list(range(latency_bin(low), latency_bin(high) + 1))
    wanted = f"{FRAMES} in bins {wanted_bins}"
    binned = sum(in_order.hist.values())
    fits = set(in_order.hist) <= set(wanted_bins) and binned == FRAMES
    expect("latency bins", wanted if fits else f"{binned} in bins {sorted(in_order.hist)}",
           wanted)
    wrong = [f"{case}: {got}, expected {wanted}" for case, (got, wanted) in cases.items()
             if got != wanted]
    findings = []
    shown = (f"{len(cases)} PTF cases ({', '.join(cases)}) through port "
             f"{setup.front_panel[port]}'s loopback")
    if wrong:
        findings.append(refuted(1, "checker and stamping logic",
                                f"{shown}: " + "; ".join(wrong),
                                "the compiled checker's figures are wrong in these cases: "
                                "do not trust them; report with this file"))
    else:
        findings.append(verified(1, "checker and stamping logic", f"{shown}: all as expected "
                                 f"(loop latency {low}-{high} ns)"))
    findings += _in_order_findings(in_order)
    return findings


def _in_order_findings(counts: Counts) -> list[Finding]:
    findings = []
    name = "template layout"
    if counts.rx == FRAMES:
        findings.append(verified(5, name, f"{counts.rx} of {FRAMES} looped frames parsed as "
                                 "the stream's"))
    else:
        findings.append(refuted(5, name, f"{counts.rx} of {FRAMES} looped frames parsed as the "
                                "stream's", "capture one: with 6 stray bytes before the "
                                "Ethernet header set hardware.TEMPLATE_PAD_BYTES = 6"))
    name = "counter reads"
    shown = f"a read gave {counts.pipe_values} values per cell, summing to {counts.rx}"
    findings.append(verified(9, name, shown) if counts.rx == FRAMES else
                    refuted(9, name, f"{shown} of {FRAMES}", "the driver's sums are wrong: "
                            "fix readout.take_snapshot"))
    per_frame = counts.rx_bytes / max(counts.rx, 1)
    name = "byte counts include FCS"
    if per_frame == FRAME:
        findings.append(verified(10, name, f"{per_frame:.0f} B counted per {FRAME}-B frame"))
    else:
        findings.append(refuted(10, name, f"{per_frame:.0f} B counted per {FRAME}-B frame",
                                "set hardware.RX_BYTES_INCLUDE_FCS = False"))
    return findings
