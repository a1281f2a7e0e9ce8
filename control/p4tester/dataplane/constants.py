"""Mirror of p4src/common/constants.p4 and p4src/v1model/platform.p4.

control/tests/test_dataplane_constants.py parses the P4 sources and fails when a
value here drifts from the program.
"""

from typing import Final

MAX_STREAMS: Final = 64
HIST_CELLS_LOG2: Final = 5
HIST_CELLS_PER_STREAM: Final = 1 << HIST_CELLS_LOG2
HIST_OUTSIDE_BIN: Final = HIST_CELLS_PER_STREAM - 1
MAX_HIST_BINS: Final = HIST_OUTSIDE_BIN  # bins 0..30; cell 31 counts values outside them

TESTER_UDP_DST_PORT: Final = 0x5054
TESTER_SIGNATURE: Final = 0x5034  # "P4"
TESTER_HEADER_BYTES: Final = 18
TESTER_FLAG_DUT_STAMPED: Final = 0x01
TESTER_FLAG_EPOCH_MASK: Final = 0xFE  # flags bits 1-7; bit 0 is the DUT's
EPOCH_SHIFT: Final = 1  # epoch e is carried as flags bits (e << 1)
EPOCHS: Final = 128
RUN_VALUES: Final = 256  # the header's run byte: one value per run, drawn at random
IP_VERSION_4: Final = 4
IP_VERSION_6: Final = 6

CTRL_OP_SEED: Final = 1
CTRL_OP_CLEAR: Final = 2
CTRL_OP_READ: Final = 3
PUNT_REASON_FOREIGN: Final = 4
CTRL_OP_SEND: Final = 5  # packet_out stream_id = the port the frame leaves by
PUNT_REASON_CONTROL: Final = 6  # ARP / IPv6 ND the switch did not answer
PUNT_REASON_CAPTURE: Final = 7  # a capture rule's copy of a received frame
CAPTURE_CLONE_SESSION: Final = 250  # p4src/v1model/platform.p4
CAPTURE_RULES: Final = 16
# Random frame sizes: a frame's cut is at most 2^CUT_BITS - 1 bytes, counted bit by bit.
CUT_BITS: Final = 14
CUT_PORTS: Final = 64  # random-size frames leave by ports 0..CUT_PORTS - 1

RX_KIND_STREAM: Final = 0
RX_KIND_FOREIGN: Final = 1
RX_KIND_TRUNCATED: Final = 2
RX_KIND_BAD_SIGNATURE: Final = 3
RX_KIND_BAD_STREAM: Final = 4
RX_KIND_STALE: Final = 5  # a stream's frame of another trial (epoch), or of no trial
RX_KIND_MISMATCHED: Final = 6  # this trial's epoch, wrong RX port or IP version
RX_KIND_CONTROL: Final = 7  # ARP and IPv6 ND: answered, or handed to the controller
RX_KIND_COUNT: Final = 8

MCAST_GROUP_BASE: Final = 1
REPLICA_TX: Final = 1  # TX replica i of a loop pass: REPLICA_TX + i
REPLICA_TOKEN: Final = 0xFFFF
MAX_FRAMES_PER_PASS: Final = 64  # also the largest burst (streams.shapes)
# A Poisson stream's pass makes its frames when a 16-bit draw is below a threshold
# (v1model/generator.p4): 1 / k of the passes, k up to MAX_PASSES_PER_EMIT.
EMIT_DRAWS: Final = 1 << 16
MAX_PASSES_PER_EMIT: Final = 64

# BMv2 (v1model) platform
CPU_PORT: Final = 510
PACER_PORT_BASE: Final = 256
# A reference stream's TX (and RX) port: its frames loop inside the switch.
REFERENCE_LOOP_PORT: Final = 320
