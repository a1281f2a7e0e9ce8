"""Every BfRt name the Tofino driver uses, in one place: the tester program's objects
(p4src/tna, pipeline "pipe") and the SDE's fixed tables (ports, PRE, packet generator).

Sources, so a maintainer knows what to re-check after an SDE or program change:
- program objects, their key fields, action parameters, register data fields
  ("<register without 'pipe.'>.<field>": f1 for a plain register, the struct member
  for a struct register), widths and sizes: the schema bf-p4c writes,
  p4src/build/tna/tofino.bfrt.json (scripts/p4-build-tna.sh keeps it fresh; the unit
  test test_targets_tofino_names.py fails when a name here is not in it);
- fixed tables and their fields: the SDE's bf_rt_port_tf1.json, bf_rt_pre_tf1.json and
  bf_rt_pktgen_tf1.json (open-p4studio, pkgsrc/bf-drivers/src/bf_rt/);
- that a register read returns one value per pipe, in pipe order: the SDE's
  tna_register example. ASSUMED until seen on a switch.
"""

from __future__ import annotations

from typing import Final

# ---- The tester program (p4src/tna) --------------------------------------------------
PIPELINE: Final = "pipe"

# Sizes the program declares (common/constants.p4 under __TARGET_TOFINO__, tna/platform.p4;
# Tofino 1: 8 generator applications per pipe).
MAX_STREAMS: Final = 1024
PKTGEN_APPS: Final = 8
BIN_TABLE_SIZE: Final = 1024
MCAST_GROUP_BASE: Final = 1
HIST_CELLS_LOG2: Final = 5

# Generator (ingress): (pipe, application) -> run(group, budget, draws dropped) |
# stopped(). A packet whose 16-bit draw is below drop_draws_below is dropped uncounted
# (Poisson arrivals: targets.tofino.poisson); 0 keeps all.
GEN_APPS: Final = "pipe.TesterIngress.generator.gen_apps"
GEN_APPS_PIPE_KEY: Final = "pipe_id"
GEN_APPS_KEY: Final = "app_id"
GEN_RUN: Final = "TesterIngress.generator.run"
GEN_RUN_GROUP: Final = "mcast_group"
GEN_RUN_BUDGET: Final = "packet_budget"
GEN_RUN_DROP_BELOW: Final = "drop_draws_below"
GEN_STOPPED: Final = "TesterIngress.generator.stopped"
# Per application (and pipe): packets counted against its budget ("made") and the
# generator tick of the last one ("last_tick": global_tstamp bits 39..8).
GENERATED: Final = "pipe.TesterIngress.generator.generated"
GENERATED_MADE: Final = "made"
GENERATED_LAST_TICK: Final = "last_tick"

# Generator (egress).
TX_NEXT_SEQ: Final = "pipe.TesterEgress.generator.tx_next_seq"
TX_STREAM: Final = "pipe.TesterEgress.generator.tx_stream"
# stream -> stamp_with(correction, ns added to its TX stamps modulo 2^32): a stream
# another tester checks (several testers in one test); none: the clock as it is.
TX_CLOCK_CORRECTION: Final = "pipe.TesterEgress.generator.tx_clock_correction"
TX_CLOCK_CORRECTION_KEY: Final = "stream"
STAMP_WITH: Final = "TesterEgress.generator.stamp_with"
STAMP_WITH_CORRECTION: Final = "correction_ns"

# Field steps (egress, Tofino 2 only: tna/field_steps.p4): stream -> steps(template
# words) when any field varies; per field, stream -> <field>_add | _draw | _redraw, and
# a register of offsets by stream id.
FIELD_STEPS: Final = "pipe.TesterEgress.generator.field_steps"
TX_STEPS: Final = f"{FIELD_STEPS}.tx_steps"
TX_STEPS_KEY: Final = "stream"
STEPS: Final = "TesterEgress.generator.field_steps.steps"
STEPS_TEMPLATE_WORDS: Final = "template_words"


def tx_step_table(field: str) -> str:
    """A varied field's pattern table: tx_step_src_ip, ..."""
    return f"{FIELD_STEPS}.tx_step_{field}"


def field_step_action(field: str, action: str) -> str:
    """A field's pattern action: src_ip + add -> ...field_steps.src_ip_add."""
    return f"{FIELD_STEPS[len(PIPELINE) + 1:]}.{field}_{action}"


def field_offset_register(field: str) -> str:
    """A varied field's offsets (the next frame's), by stream id."""
    return f"{FIELD_STEPS}.{field}_offset"

# Checker registers, index = stream id.
RX_NEXT_EXPECTED: Final = "pipe.TesterIngress.checker.rx_next_expected"
RX_LAST_SEQ: Final = "pipe.TesterIngress.checker.rx_last_seq"
RX_SEEN: Final = "pipe.TesterIngress.checker.rx_seen"
RX_LOST: Final = "pipe.TesterIngress.checker.rx_lost"
LATENCY_MIN: Final = "pipe.TesterIngress.checker.latency_min"
LATENCY_MAX: Final = "pipe.TesterIngress.checker.latency_max"
LAST_LATENCY: Final = "pipe.TesterIngress.checker.last_latency"
# 64-bit sums: a Sum64 control instance whose register is called `cells`.
LATENCY_SUM: Final = "pipe.TesterIngress.checker.latency_sum.cells"
JITTER_SUM: Final = "pipe.TesterIngress.checker.jitter_sum.cells"
SUM_LO: Final = "lo"
SUM_HI: Final = "hi"
PLAIN_FIELD: Final = "f1"

# Counters.
RX_KIND: Final = "pipe.TesterIngress.rx_kind"
RX_STREAM: Final = "pipe.TesterIngress.checker.rx_stream"
RX_GAP_EVENTS: Final = "pipe.TesterIngress.checker.rx_gap_events"
RX_REORDERED: Final = "pipe.TesterIngress.checker.rx_reordered"
RX_DUPLICATE: Final = "pipe.TesterIngress.checker.rx_duplicate"
LATENCY_HIST: Final = "pipe.TesterIngress.checker.latency_hist"
QDEPTH_HIST: Final = "pipe.TesterIngress.checker.qdepth_hist"
PER_STREAM_COUNTERS: Final = (TX_STREAM, RX_STREAM, RX_GAP_EVENTS, RX_REORDERED, RX_DUPLICATE)
# Frames of a stream that were not its (RX_KIND_STALE / RX_KIND_MISMATCHED), per stream.
RX_STALE: Final = "pipe.TesterIngress.rx_stale"
RX_MISMATCHED: Final = "pipe.TesterIngress.rx_mismatched"
NOT_THE_STREAMS_COUNTERS: Final = (RX_STALE, RX_MISMATCHED)
HISTOGRAM_COUNTERS: Final = (LATENCY_HIST, QDEPTH_HIST)
# Frames per front-panel dev port (index: dev port, 9 bits): from the port, before
# classification (ingress), and out of it (egress); the self-check's program side.
RX_PORT: Final = "pipe.TesterIngress.rx_port"
TX_PORT: Final = "pipe.TesterEgress.tx_port"
PORT_COUNTERS: Final = (RX_PORT, TX_PORT)
DEV_PORTS: Final = 512

# Histogram bins: (stream ternary, value ternary) -> set_*_bin(bin).
LATENCY_BINS: Final = "pipe.TesterIngress.checker.bins.latency_bins"
SET_LATENCY_BIN: Final = "TesterIngress.checker.bins.set_latency_bin"
QDEPTH_BINS: Final = "pipe.TesterIngress.checker.bins.qdepth_bins"
SET_QDEPTH_BIN: Final = "TesterIngress.checker.bins.set_qdepth_bin"
BIN_STREAM_KEY: Final = "stream"
LATENCY_KEY: Final = "latency"
QDEPTH_KEY: Final = "qdepth"
BIN_PARAM: Final = "bin"

# What each stream's frames must be this trial: stream (exact) -> expect(run value,
# epoch flags, RX dev port, IP version) | not_in_trial() (the default: its frames are stale).
RX_EXPECTED: Final = "pipe.TesterIngress.expectation.rx_expected"
RX_EXPECTED_KEY: Final = "stream"
RX_EXPECT: Final = "TesterIngress.expectation.expect"
RX_EXPECT_RUN: Final = "trial_run"
RX_EXPECT_EPOCH: Final = "trial_epoch"
RX_EXPECT_PORT: Final = "rx_port"
RX_EXPECT_IP_VERSION: Final = "ip_version"
RX_NOT_IN_TRIAL: Final = "TesterIngress.expectation.not_in_trial"

# Streams received on several ports (common/rx_port_slots.p4): (stream, RX dev port)
# (exact) -> receive_as(seq slot, figure slot) | one_port() (the default: the stream's id).
RX_PORT_SLOTS: Final = "pipe.TesterIngress.port_slots.rx_port_slots"
RX_PORT_SLOTS_STREAM: Final = "stream"
RX_PORT_SLOTS_PORT: Final = "rx_port"
RECEIVE_AS: Final = "TesterIngress.port_slots.receive_as"
RECEIVE_AS_SEQ: Final = "seq"
RECEIVE_AS_FIGURES: Final = "figures"

# Foreign traffic: ingress_port (ternary) -> drop / punt / forward(port).
FOREIGN_TRAFFIC: Final = "pipe.TesterIngress.foreign.foreign_traffic"
FOREIGN_PORT_KEY: Final = "ingress_port"
DROP_FOREIGN: Final = "TesterIngress.foreign.drop_foreign"
PUNT_FOREIGN: Final = "TesterIngress.foreign.punt_foreign"
FORWARD_FOREIGN: Final = "TesterIngress.foreign.forward_foreign"
FORWARD_PORT_PARAM: Final = "port"

# ---- BfRt conventions ------------------------------------------------------------------
MATCH_PRIORITY: Final = "$MATCH_PRIORITY"  # lower value = higher priority (unlike P4Runtime)
REGISTER_INDEX: Final = "$REGISTER_INDEX"
COUNTER_INDEX: Final = "$COUNTER_INDEX"
COUNTER_PACKETS: Final = "$COUNTER_SPEC_PKTS"
COUNTER_BYTES: Final = "$COUNTER_SPEC_BYTES"

# ---- Ports (bf_rt_port_tf1.json) ---------------------------------------------------
PORT: Final = "$PORT"
PORT_STR_INFO: Final = "$PORT_STR_INFO"
PORT_NAME: Final = "$PORT_NAME"
DEV_PORT: Final = "$DEV_PORT"
PORT_SPEED: Final = "$SPEED"
PORT_FEC: Final = "$FEC"
PORT_ENABLE: Final = "$PORT_ENABLE"
PORT_AUTONEG: Final = "$AUTO_NEGOTIATION"
SPEED_100G: Final = "BF_SPEED_100G"
# Tofino 2 (bf_rt_port_tf2.json: the same fields and choices as tf1): 400G cages, and
# their channels; $N_LANES says how many of a cage's 8 lanes a port takes.
SPEED_400G: Final = "BF_SPEED_400G"
SPEED_200G: Final = "BF_SPEED_200G"
SPEED_50G: Final = "BF_SPEED_50G"
PORT_LANES: Final = "$N_LANES"
FEC_RS: Final = "BF_FEC_TYP_REED_SOLOMON"
AUTONEG_DEFAULT: Final = "PM_AN_DEFAULT"  # the SDE picks by media type
# MAC counters: $DEV_PORT -> 64-bit frame counts (read from hardware). ASSUMED from the
# SDE's BfRt C++ port-table wrappers and BfRt Python clients that read them (the
# bf_rt_port_tf1.json itself was not found with the search tools); check on a switch.
PORT_STAT: Final = "$PORT_STAT"
PORT_STAT_RX_OK: Final = "$FramesReceivedOK"
PORT_STAT_TX_OK: Final = "$FramesTransmittedOK"

# ---- Multicast, packet replication engine (bf_rt_pre_tf1.json) ----------------------
PRE_NODE: Final = "$pre.node"
PRE_MGID: Final = "$pre.mgid"
NODE_ID: Final = "$MULTICAST_NODE_ID"
NODE_RID: Final = "$MULTICAST_RID"
NODE_LAG_IDS: Final = "$MULTICAST_LAG_ID"
NODE_DEV_PORTS: Final = "$DEV_PORT"
MGID: Final = "$MGID"
MGID_NODE_IDS: Final = "$MULTICAST_NODE_ID"
MGID_L1_XID_VALID: Final = "$MULTICAST_NODE_L1_XID_VALID"
MGID_L1_XIDS: Final = "$MULTICAST_NODE_L1_XID"

# ---- Packet generator, Tofino 1 (bf_rt_pktgen_tf1.json): modify-only fixed tables ----
PKTGEN_PORT_CFG: Final = "tf1.pktgen.port_cfg"
PKTGEN_PORT_KEY: Final = "dev_port"
PKTGEN_ENABLE: Final = "pktgen_enable"
PKTGEN_APP_CFG: Final = "tf1.pktgen.app_cfg"
PKTGEN_APP_KEY: Final = "app_id"
TRIGGER_TIMER_PERIODIC: Final = "trigger_timer_periodic"
APP_TIMER_NS: Final = "timer_nanosec"
APP_ENABLE: Final = "app_enable"
APP_PKT_LEN: Final = "pkt_len"
APP_BUFFER_OFFSET: Final = "pkt_buffer_offset"
APP_SOURCE_PORT: Final = "pipe_local_source_port"
APP_INCREMENT_SOURCE_PORT: Final = "increment_source_port"
APP_BATCH_COUNT: Final = "batch_count_cfg"  # zero-based: 0 = one batch
APP_PACKETS_PER_BATCH: Final = "packets_per_batch_cfg"  # zero-based: 0 = one packet
APP_IBG: Final = "ibg"
APP_IBG_JITTER: Final = "ibg_jitter"
APP_IPG: Final = "ipg"
APP_IPG_JITTER: Final = "ipg_jitter"
APP_BATCH_COUNTER: Final = "batch_counter"
APP_PKT_COUNTER: Final = "pkt_counter"
APP_TRIGGER_COUNTER: Final = "trigger_counter"
PKTGEN_BUFFER: Final = "tf1.pktgen.pkt_buffer"
# ---- Packet generator, Tofino 2 (bf_rt_pktgen_tf2.json): tf2.pktgen.port_cfg, app_cfg
# and pkt_buffer with Tofino 1's fields (pkt_len, pkt_buffer_offset, batch_count_cfg and
# packets_per_batch_cfg are 16-bit "bytes" fields there, set as numbers), 16
# applications, and these three app_cfg fields more (chip.TOFINO2 writes them 0).
PKTGEN_TF2_PORT_CFG: Final = "tf2.pktgen.port_cfg"
PKTGEN_TF2_APP_CFG: Final = "tf2.pktgen.app_cfg"
PKTGEN_TF2_BUFFER: Final = "tf2.pktgen.pkt_buffer"
APP_OFFSET_LEN_FROM_RECIRC: Final = "offset_len_from_recir_pkt_enable"
APP_SOURCE_PORT_WRAP_MAX: Final = "source_port_wrap_max"
APP_ASSIGNED_CHANNEL: Final = "assigned_chnl_id"
BUFFER_OFFSET: Final = "pkt_buffer_offset"
BUFFER_SIZE: Final = "pkt_buffer_size"
BUFFER_DATA: Final = "buffer"


def register_field(register: str, field: str = PLAIN_FIELD) -> str:
    """BfRt data field of a register: 'pipe.A.b' + 'f1' -> 'A.b.f1'."""
    prefix = PIPELINE + "."
    if not register.startswith(prefix):
        raise ValueError(f"register {register!r} must be a full name starting with {prefix!r}")
    return f"{register[len(prefix):]}.{field}"

# ARP and IPv6 ND (p4src/common/neighbors.p4): (dev port, address) -> answer(MAC).
ARP_REPLY: Final = "pipe.TesterIngress.neighbors.arp_reply"
ND_REPLY: Final = "pipe.TesterIngress.neighbors.nd_reply"
NEIGHBOR_PORT_KEY: Final = "port"
ARP_TARGET_KEY: Final = "target_ip"
ND_TARGET_KEY: Final = "target_ip6"
ANSWER_ARP: Final = "TesterIngress.neighbors.answer_arp"
ANSWER_ND: Final = "TesterIngress.neighbors.answer_nd"
ANSWER_MAC_PARAM: Final = "mac"
# Const entries (the unspecified address): the program's own, never written.
SOLICITATION_SOURCE: Final = "pipe.TesterIngress.neighbors.solicitation_source"
