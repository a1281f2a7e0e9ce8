"""Byte layouts of the tester header and of the in-band stream-state reply.

Both mirror p4src/common/headers.p4 (tester_h, stream_stats_h).
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

from p4tester.dataplane.constants import (
    EPOCH_SHIFT,
    EPOCHS,
    RUN_VALUES,
    TESTER_HEADER_BYTES,
    TESTER_SIGNATURE,
)

# signature(2) run(1) flags(1) stream(2) seq(4) tx_ts(4) dut_qdepth(2) dut_qdelay(2)
_TESTER = struct.Struct("!HBBHIIHH")
# stream(2) next_expected(4) last_seq(4) samples(8) lost(8) lat_min(4) lat_max(4)
# lat_sum(8) jitter_sum(8) last_latency(4) generated(4) tx_next_seq(4) switch_time(4)
_STATS = struct.Struct("!HIIQQIIQQIIII")
assert _TESTER.size == TESTER_HEADER_BYTES

STREAM_STATS_BYTES = _STATS.size


def epoch_flags(epoch: int) -> int:
    """The tester-header flag bits that carry a generator epoch (0..EPOCHS-1)."""
    if not 0 <= epoch < EPOCHS:
        raise ValueError(f"generator epoch {epoch} must be in 0..{EPOCHS - 1}")
    return epoch << EPOCH_SHIFT


def check_run_value(run: int) -> int:
    """A run value as the tester header's run byte carries it (0..RUN_VALUES-1)."""
    if not 0 <= run < RUN_VALUES:
        raise ValueError(f"run value {run} must be in 0..{RUN_VALUES - 1}")
    return run


@dataclass(frozen=True, slots=True)
class TesterHeader:
    """The 18 bytes at the start of a test frame's UDP payload."""

    stream_id: int
    seq: int = 0
    tx_ts: int = 0
    flags: int = 0
    dut_qdepth: int = 0
    dut_qdelay: int = 0
    signature: int = TESTER_SIGNATURE
    run: int = 0  # the run's value (with the epoch in flags: which run and trial)

    def pack(self) -> bytes:
        return _TESTER.pack(
            self.signature,
            self.run,
            self.flags,
            self.stream_id,
            self.seq,
            self.tx_ts,
            self.dut_qdepth,
            self.dut_qdelay,
        )

    @classmethod
    def unpack(cls, data: bytes) -> TesterHeader:
        if len(data) < TESTER_HEADER_BYTES:
            raise ValueError(
                f"tester header needs {TESTER_HEADER_BYTES} bytes, got {len(data)}"
            )
        sig, run, flags, stream, seq, tx_ts, qdepth, qdelay = _TESTER.unpack_from(data)
        return cls(
            stream_id=stream,
            seq=seq,
            tx_ts=tx_ts,
            flags=flags,
            dut_qdepth=qdepth,
            dut_qdelay=qdelay,
            signature=sig,
            run=run,
        )


@dataclass(frozen=True, slots=True)
class StreamRegisters:
    """One stream's register state, as the CTRL_OP_READ reply carries it.

    Times are in switch clock units (BMv2: microseconds).
    """

    stream_id: int
    rx_next_expected: int
    rx_last_seq: int
    rx_samples: int
    rx_lost: int
    latency_min: int
    latency_max: int
    latency_sum: int
    jitter_sum: int
    last_latency: int
    generated: int
    tx_next_seq: int
    switch_time: int

    @classmethod
    def unpack(cls, data: bytes) -> StreamRegisters:
        if len(data) < STREAM_STATS_BYTES:
            raise ValueError(
                f"stream state reply needs {STREAM_STATS_BYTES} bytes, got {len(data)}"
            )
        return cls(*_STATS.unpack_from(data))
