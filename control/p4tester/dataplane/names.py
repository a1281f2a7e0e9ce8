"""Names of the tester program's P4Runtime objects, in one place.

Aliases (the short names P4Info carries) are used where they are unique.
"""

from typing import Final

# Tables
GEN_STREAMS: Final = "TesterIngress.generator.gen_streams"
TESTER_CLOCK: Final = "TesterIngress.clock_setting.tester_clock"
LATENCY_BINS: Final = "TesterIngress.checker.bins.latency_bins"
QDEPTH_BINS: Final = "TesterIngress.checker.bins.qdepth_bins"
FOREIGN_TRAFFIC: Final = "TesterIngress.foreign.foreign_traffic"
RX_EXPECTED: Final = "TesterIngress.expectation.rx_expected"
RX_PORT_SLOTS: Final = "TesterIngress.port_slots.rx_port_slots"
ARP_REPLY: Final = "TesterIngress.neighbors.arp_reply"
ND_REPLY: Final = "TesterIngress.neighbors.nd_reply"
CAPTURE_RULES: Final = "TesterIngress.capture.capture_rules"
TX_VARY: Final = "TesterEgress.generator.tx_vary"
TX_VARY_FIELDS: Final = "TesterEgress.generator.tx_vary_fields"
TX_RESIZE: Final = "TesterEgress.generator.tx_resize"
# Field patterns (p4src/v1model/field_steps.p4): one gate per stream, then per field
# a pattern table and a list table.
FIELD_STEPS: Final = "TesterEgress.generator.field_steps"
TX_STEPS: Final = f"{FIELD_STEPS}.tx_steps"


def tx_step(field: str) -> str:
    """The field's pattern table: stream -> step, draw or cycle."""
    return f"{FIELD_STEPS}.tx_step_{field}"


def tx_listed(field: str) -> str:
    """The field's list: (stream, index) -> pick(value)."""
    return f"{FIELD_STEPS}.tx_{field}_values"


def field_action(field: str, kind: str) -> str:
    """kind: step, draw, redraw, cycle or pick."""
    return f"{FIELD_STEPS}.{field}_{kind}"


# Actions
GEN_RUN: Final = "TesterIngress.generator.run"
GEN_STOPPED: Final = "TesterIngress.generator.stopped"
SIMULATE_CLOCK: Final = "TesterIngress.clock_setting.simulate"
SET_LATENCY_BIN: Final = "TesterIngress.checker.bins.set_latency_bin"
SET_QDEPTH_BIN: Final = "TesterIngress.checker.bins.set_qdepth_bin"
DROP_FOREIGN: Final = "TesterIngress.foreign.drop_foreign"
PUNT_FOREIGN: Final = "TesterIngress.foreign.punt_foreign"
FORWARD_FOREIGN: Final = "TesterIngress.foreign.forward_foreign"
RX_EXPECT: Final = "TesterIngress.expectation.expect"
RX_NOT_IN_TRIAL: Final = "TesterIngress.expectation.not_in_trial"
RECEIVE_AS: Final = "TesterIngress.port_slots.receive_as"
ANSWER_ARP: Final = "TesterIngress.neighbors.answer_arp"
ANSWER_ND: Final = "TesterIngress.neighbors.answer_nd"
CAPTURE_COPY: Final = "TesterIngress.capture.copy"
VARY: Final = "TesterEgress.generator.vary"
SET_FIELDS: Final = "TesterEgress.generator.set_fields"
RESIZE: Final = "TesterEgress.generator.resize"
STEPS: Final = f"{FIELD_STEPS}.steps"

# Counters
RX_KIND: Final = "TesterIngress.rx_kind"
# Per capture rule: frames copied to the controller / skipped by its rate limit.
CAPTURE_COPIED: Final = "TesterIngress.capture.capture_copied"
CAPTURE_SKIPPED: Final = "TesterIngress.capture.capture_skipped"
RX_STREAM: Final = "TesterIngress.checker.rx_stream"
RX_GAP_EVENTS: Final = "TesterIngress.checker.rx_gap_events"
RX_REORDERED: Final = "TesterIngress.checker.rx_reordered"
RX_DUPLICATE: Final = "TesterIngress.checker.rx_duplicate"
LATENCY_HIST: Final = "TesterIngress.checker.latency_hist"
QDEPTH_HIST: Final = "TesterIngress.checker.qdepth_hist"
TX_STREAM: Final = "TesterEgress.generator.tx_stream"
# Bytes random-size frames lost of their templates, bit by bit (dataplane.cut_bytes).
TX_CUT_BITS: Final = "TesterEgress.generator.tx_cut_bits"
# Per front-panel port (index: port number): what the program received / sent there,
# for the per-trial self-check against the interfaces' own counters.
RX_PORT: Final = "TesterIngress.rx_port"
TX_PORT: Final = "TesterEgress.tx_port"
# Per stream (index: stream id): frames of the stream that were not its
# (RX_KIND_STALE, RX_KIND_MISMATCHED); they never reach the stream's figures.
RX_STALE: Final = "TesterIngress.rx_stale"
RX_MISMATCHED: Final = "TesterIngress.rx_mismatched"

ALL_COUNTERS: Final = (
    RX_KIND,
    RX_STREAM,
    RX_GAP_EVENTS,
    RX_REORDERED,
    RX_DUPLICATE,
    LATENCY_HIST,
    QDEPTH_HIST,
    TX_STREAM,
    TX_CUT_BITS,
    RX_PORT,
    TX_PORT,
    RX_STALE,
    RX_MISMATCHED,
)

# Reference DUT program
DUT_PORT_FORWARD: Final = "DutIngress.port_forward"
DUT_FORWARD: Final = "DutIngress.forward"
DUT_MPLS_EDGE: Final = "DutIngress.mpls_edge"
DUT_PUSH_LABEL: Final = "DutIngress.push_label"
DUT_POP_LABEL: Final = "DutIngress.pop_label"
DUT_IMPAIRMENTS: Final = "DutIngress.impairments.impairments"
DUT_IMPAIR: Final = "DutIngress.impairments.impair"
DUT_IMPAIRED: Final = "DutIngress.impairments.dut_impaired"
DUT_RX_PORT: Final = "DutIngress.dut_rx_port"
DUT_TX_PORT: Final = "DutEgress.dut_tx_port"
