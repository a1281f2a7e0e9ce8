"""Tofino 1 facts the driver computes with, each with its source or marked ASSUMED.

Sources are files of the Intel SDE as published in open-p4studio
(pkgsrc/bf-drivers/src/...); ASSUMED values could not be checked without hardware and
are the first things to measure on a switch (docs/tofino.md lists them).
"""

from __future__ import annotations

from typing import Final

# dev_port = pipe << 7 | port within the pipe (9-bit ports, 128 per pipe).
PIPE_SHIFT: Final = 7
# Pipes of a 6.4T Tofino 1; 3.2T parts have 2 (their dev ports are below 256).
MAX_PIPES: Final = 4

# Packet generator. Port 68 of each pipe (68, 196, 324, 452): the SDE's tna_pktgen test.
PKTGEN_PORT_IN_PIPE: Final = 68
# 1024 rows of 16 B per pipe; offsets 16-B aligned (pipe_mgr_pktgen_comm.h,
# pipe_mgr_tof_pktgen.c rejects an unaligned offset).
PKTGEN_BUFFER_BYTES: Final = 16 * 1024
PKTGEN_BUFFER_ALIGN: Final = 16
# The generator puts a 6-byte header *in front of* the pkt_len bytes it reads from the
# buffer (pipe_mgr_tof_pktgen.c: "Hardware will add 6 bytes of pgen header"; the SDE's
# tna_pktgen test stores the whole frame and receives it back whole once ingress drops
# the header). So a template is stored as the frame itself, with no padding in front.
PKTGEN_HEADER_BYTES: Final = 6
TEMPLATE_PAD_BYTES: Final = 0
# packets_per_batch_cfg and batch_count_cfg are uint16 and zero-based.
PKTGEN_MAX_PACKETS_PER_BATCH: Final = 1 << 16
PKTGEN_MAX_BATCHES: Final = 1 << 16
# timer_nanosec is a uint32 of nanoseconds.
PKTGEN_MAX_TIMER_NS: Final = (1 << 32) - 1
# The SDE turns timer_nanosec into core clock cycles, truncating
# (pipe_mgr_nsec_to_clock). Tofino 1 runs at 1.25 GHz unless fused down to 1.1 or
# 1.0 GHz (lld_sku.c): give the driver the part's clock if it is not 1.25 GHz.
CORE_CLOCK_HZ: Final = 1_250_000_000
# ASSUMED: the shortest timer period the driver uses. The hardware counts clock cycles
# and may go lower; 100 ns keeps the trigger rate (10 MHz) far from any per-trigger
# overhead while still allowing line rate with bursts of 15 or more packets.
MIN_TIMER_PERIOD_NS: Final = 100
# ASSUMED: one pipe's generator makes at most what a 100 Gbit/s port carries, counting
# the frame + 20 B of preamble and gap and not the 6-byte generator header.
PKTGEN_PORT_BPS: Final = 100e9
PKTGEN_EXTRA_WIRE_BYTES: Final = 0

# ASSUMED: a pipe's ingress (and, separately, its egress) handles one packet per core
# clock cycle. Intel does not publish the figure; this is the clock above.
PIPE_PACKETS_PER_SECOND: Final = float(CORE_CLOCK_HZ)

# Ingress byte counters include the 4-byte FCS on Tofino (the SDE's tna_counter test
# expects pkt_len + 4 bytes per packet). ASSUMED for this program's indirect counters:
# check on hardware.
RX_BYTES_INCLUDE_FCS: Final = True


def pipe_of(dev_port: int) -> int:
    """The pipe a dev port belongs to."""
    if not 0 <= dev_port < MAX_PIPES << PIPE_SHIFT:
        raise ValueError(f"dev port {dev_port} is outside 0..{(MAX_PIPES << PIPE_SHIFT) - 1}")
    return dev_port >> PIPE_SHIFT


def pktgen_dev_port(pipe: int) -> int:
    """The packet generator's dev port in a pipe (68 + 128 x pipe)."""
    if not 0 <= pipe < MAX_PIPES:
        raise ValueError(f"pipe {pipe} is outside 0..{MAX_PIPES - 1}")
    return (pipe << PIPE_SHIFT) | PKTGEN_PORT_IN_PIPE
