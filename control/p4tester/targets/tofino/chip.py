"""Which Tofino the tester runs on: what the driver writes differently on each chip.

The topology names the chip (switch: {target: tofino, chip: tofino2}; tofino1 by
default). Everything else the driver does (program tables, registers, counters,
multicast, the trial) is the same on both: the program's names are the same in both
compiles (p4src/build/tna/tofino.bfrt.json, tofino2.bfrt.json), only its sizes differ.

Sources (open-p4studio, pkgsrc/bf-drivers/src/...):
- the generator's fixed tables and fields: bf_rt/bf_rt_pktgen/bf_rt_pktgen_tf1.json and
  bf_rt_pktgen_tf2.json (tables tf1.pktgen.* / tf2.pktgen.*: port_cfg, app_cfg,
  pkt_buffer; Tofino 2's app_cfg has 16 applications and three more fields);
- the generator's port: Tofino 1's port 68 of each pipe, Tofino 2's port 6 of each
  pipe (p4-examples/p4_16_programs/tna_pktgen/test.py, "pgen_port = 68 if
  g_is_tofino else 6"); pipe_mgr_tof2_pktgen.c (pipe_mgr_tof2_pktgen_en) enables a
  generator only on pipe-local ports 0-7;
- Tofino 2's generator: 16 applications (pipe_mgr_tof2_pktgen.h,
  PIPE_MGR_TOF2_PKTGEN_APP_CNT), a packet of at least 69 B with its 6-B header and
  4-B CRC (PIPE_MGR_TOF2_PKTGEN_PKT_LEN_MIN; so pkt_len >= 59), buffer offsets 16-B
  aligned, assigned_chnl_id <= 7 (pipe_mgr_tof2_pktgen_cfg_app_conf_check); the
  buffer is 1024 rows of 16 B per pipe as on Tofino 1 (pipe_mgr_pktgen_comm.h);
- clocks: lld/lld_sku.c (lld_tof2_sku_get_core_clk_freq: a Tofino 2's packet clock is
  1.5 GHz unless fused down to 1.3 or 1.1 GHz; Tofino 1's 1.25 GHz, lld_tof_sku_...);
- port lanes: dvm/dvm.c (bf_port_get_default_lane_numb: 100G defaults to 4 lanes,
  50G to 2) and bf_rt/bf_rt_port/bf_rt_port_table_impl.cpp (a $PORT add takes
  $N_LANES when given): a channel of a Tofino 2 400G cage (8 lanes of 50G PAM4) needs
  its lanes said, 100G on 2, 50G on 1.
ASSUMED (not in the open SDE; docs/tofino.md, "Assumed and unverified"): a Tofino 2
generator's 400 Gbit/s per pipe, and the front-panel MACs from pipe-local port 8.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Final

from p4tester.config.errors import ConfigError
from p4tester.streams.rates import format_bitrate
from p4tester.targets.tofino import names
from p4tester.targets.tofino.hardware import (
    CORE_CLOCK_HZ,
    MAX_PIPES,
    PIPE_SHIFT,
    PKTGEN_PORT_BPS,
    PKTGEN_PORT_IN_PIPE,
)

CHANNELS_PER_CAGE: Final = 8  # Tofino 2: a 400G cage's 8 serdes lanes, channels 0-7


@dataclass(frozen=True, slots=True)
class PortSpeed:
    """How a port of one line rate is brought up: the SDE's $SPEED and $FEC, and its
    serdes lanes ($N_LANES; None: the SDE's default for the speed, not written)."""

    speed: str
    fec: str
    lanes: int | None = None


@dataclass(frozen=True, slots=True)
class Chip:
    """What the driver writes differently on one Tofino."""

    name: str  # as the topology says it: tofino1 | tofino2
    label: str  # as messages say it
    pktgen_prefix: str  # the generator's fixed tables: <prefix>.port_cfg, ...
    pktgen_apps: int  # applications per pipe (the program's gen_apps app_id too)
    pktgen_port_in_pipe: int
    clock_hz: int
    min_pkt_len: int  # the shortest pkt_len the SDE takes (bytes without header, CRC)
    pktgen_bps: float  # ASSUMED: what one pipe's generator makes (frame + 20 B)
    port_speeds: Mapping[float, PortSpeed] = field(default_factory=dict)
    # Tofino 2's app_cfg fields beyond Tofino 1's and the value every configuration
    # writes them (a bool field as a bool: the SDE's client sets a bool by bool_val).
    extra_app_fields: Mapping[str, int | bool] = field(default_factory=dict)
    # A front-panel cage's serdes lanes, which its channels share (None: the driver
    # brings every port up alike, at 100G: Tofino 1).
    lanes_per_cage: int | None = None
    # The program varies addresses and ports frame by frame (tna/field_steps.p4):
    # Tofino 2's build only.
    varies_fields: bool = False

    @property
    def pktgen_port_cfg(self) -> str:
        return f"{self.pktgen_prefix}.port_cfg"

    @property
    def pktgen_app_cfg(self) -> str:
        return f"{self.pktgen_prefix}.app_cfg"

    @property
    def pktgen_buffer(self) -> str:
        return f"{self.pktgen_prefix}.pkt_buffer"

    def pktgen_dev_port(self, pipe: int) -> int:
        """The packet generator's dev port in a pipe."""
        if not 0 <= pipe < MAX_PIPES:
            raise ValueError(f"pipe {pipe} is outside 0..{MAX_PIPES - 1}")
        return (pipe << PIPE_SHIFT) | self.pktgen_port_in_pipe

    def port_speed(self, line_rate_bps: float, front_panel: str) -> PortSpeed:
        """How a front-panel port of this line rate comes up; refused when the chip
        has no such speed or (Tofino 2) the channel cannot start one."""
        speed = self.port_speeds.get(line_rate_bps)
        if speed is None:
            rates = ", ".join(format_bitrate(r) for r in sorted(self.port_speeds))
            raise ConfigError(
                f"front-panel port {front_panel}: line_rate {format_bitrate(line_rate_bps)} "
                f"is not a port speed the driver brings up on {self.label}; use one of "
                f"{rates}")
        if speed.lanes is not None and self.lanes_per_cage is not None:
            channel = int(front_panel.split("/")[1])
            if channel >= self.lanes_per_cage or channel % speed.lanes:
                starts = " ".join(f"/{c}" for c in range(0, self.lanes_per_cage, speed.lanes))
                raise ConfigError(
                    f"front-panel port {front_panel}: a {format_bitrate(line_rate_bps)} "
                    f"port of a {self.label} 400G cage takes {speed.lanes} of its 8 lanes "
                    f"and starts on channel {starts}; name it so (4x100G: /0 /2 /4 /6)")
        return speed


_RS = names.FEC_RS

TOFINO1: Final = Chip(
    "tofino1", "Tofino 1", "tf1.pktgen", 8, PKTGEN_PORT_IN_PIPE, CORE_CLOCK_HZ,
    min_pkt_len=11, pktgen_bps=PKTGEN_PORT_BPS,
    port_speeds={100e9: PortSpeed(names.SPEED_100G, _RS)})

TOFINO2: Final = Chip(
    "tofino2", "Tofino 2", "tf2.pktgen", 16, 6, 1_500_000_000,
    min_pkt_len=59, pktgen_bps=400e9,
    port_speeds={400e9: PortSpeed(names.SPEED_400G, _RS, 8),
                 200e9: PortSpeed(names.SPEED_200G, _RS, 4),
                 100e9: PortSpeed(names.SPEED_100G, _RS, 2),
                 50e9: PortSpeed(names.SPEED_50G, _RS, 1)},
    extra_app_fields={names.APP_OFFSET_LEN_FROM_RECIRC: False,
                      names.APP_SOURCE_PORT_WRAP_MAX: 0, names.APP_ASSIGNED_CHANNEL: 0},
    lanes_per_cage=CHANNELS_PER_CAGE, varies_fields=True)

CHIPS: Final = {chip.name: chip for chip in (TOFINO1, TOFINO2)}


def chip_named(name: object, where: str = "switch") -> Chip:
    """The chip a topology names; anything else is refused with the names to use."""
    chip = CHIPS.get(str(name)) if isinstance(name, str) else None
    if chip is None:
        raise ConfigError(f"{where}: chip {name!r} unknown; use one of {sorted(CHIPS)} "
                          "(tofino1 by default; Tofino 2 boxes with the open SDE: tofino2)")
    return chip
