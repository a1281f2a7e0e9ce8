"""The packet generator: template buffer layout, generator ports and timer applications,
on either chip (chip.Chip names its tables, port and application count: tf1.pktgen.* on
Tofino 1, tf2.pktgen.* on Tofino 2).

Its tables are fixed tables of the SDE that are only modified, never added to. The
buffer and the applications are per pipe; an application runs in the pipes AppPlan
names (the same app id, timer and template in each) and stays disabled in the others.

A shaped trial changes a running application's timer and burst (retime_app). What the
open SDE shows of that (open-p4studio bf-drivers):
- a BfRt modify of app_cfg with an action rewrites the application's whole
  configuration: fields not given become 0 (bf_rt_pktgen_table_impl.cpp starts from a
  zeroed bf_pktgen_app_cfg_t), and pipe_mgr refuses a packet length of 0. So a retime
  writes every field, only the timer and burst changed. app_enable and the counters
  are separate operations in that modify, and are left out: the application keeps
  running and counting.
- pipe_mgr refuses only a change of trigger type while the application is enabled
  (pipe_mgr_tof_pktgen_cfg_app_conf_check: BF_IN_USE); timer and burst may change.
- it writes the registers one after another: the burst (event_number) before the
  timer (event_timer), so for the microseconds between the two a trigger makes the
  new burst at the old period.
- the write is per pipe: the app's control register holds its enable bit, and
  pipe_mgr refuses one write to several pipes whose copies differ (the application
  is enabled in the trial's pipes only).
Not in the open SDE, and unmeasured (no Tofino here): whether writing the timer
restarts the running period or lets it run out, and whether a batch in flight ends
with its old size. Either way a step begins up to one period (old or new, at most
max(burst) / rate) off its planned start and at most one burst leaves at the wrong
spacing; a trial's frames stay exact, since ingress counts them against the budget
(p4src/tna/generator.p4), not the generator.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from p4tester.targets.tofino import names
from p4tester.targets.tofino.apps import AppPlan
from p4tester.targets.tofino.bfrt import BfrtClient
from p4tester.targets.tofino.chip import TOFINO1, Chip
from p4tester.targets.tofino.hardware import (
    PKTGEN_BUFFER_ALIGN,
    PKTGEN_BUFFER_BYTES,
    TEMPLATE_PAD_BYTES,
)


@dataclass(frozen=True, slots=True)
class BufferSlot:
    """Where one template sits in a pipe's generator buffer, and the bytes stored."""

    offset: int
    data: bytes

    @property
    def end(self) -> int:
        return self.offset + len(self.data)


def buffer_image(template: bytes) -> bytes:
    """What the buffer holds for a template (the generator prepends its own header)."""
    return bytes(TEMPLATE_PAD_BYTES) + template


def layout_buffer(templates: Sequence[bytes]) -> tuple[BufferSlot, ...]:
    """Templates one after another at aligned offsets; all must fit one pipe's buffer."""
    slots = []
    offset = 0
    for template in templates:
        data = buffer_image(template)
        slots.append(BufferSlot(offset, data))
        offset += -(-len(data) // PKTGEN_BUFFER_ALIGN) * PKTGEN_BUFFER_ALIGN
    if slots and slots[-1].end > PKTGEN_BUFFER_BYTES:
        sizes = ", ".join(str(len(t)) for t in templates)
        raise ValueError(
            f"templates of {sizes} B need {slots[-1].end} B of a pipe's "
            f"{PKTGEN_BUFFER_BYTES} B packet-generator buffer ({PKTGEN_BUFFER_ALIGN}-B "
            "aligned): use fewer distinct templates in this pipe or smaller frames")
    return tuple(slots)


def enable_generator_ports(client: BfrtClient, pipes: Iterable[int], chip: Chip = TOFINO1,
                           ) -> None:
    for pipe in sorted(set(pipes)):
        client.modify_entry(chip.pktgen_port_cfg,
                            {names.PKTGEN_PORT_KEY: chip.pktgen_dev_port(pipe)},
                            {names.PKTGEN_ENABLE: True})


def write_templates(client: BfrtClient, pipe: int, slots: Sequence[BufferSlot],
                    chip: Chip = TOFINO1) -> None:
    for slot in slots:
        client.modify_entry(chip.pktgen_buffer,
                            {names.BUFFER_OFFSET: slot.offset, names.BUFFER_SIZE: len(slot.data)},
                            {names.BUFFER_DATA: slot.data}, pipe=pipe)


def _app_config(app: AppPlan, slot: BufferSlot, chip: Chip) -> dict[str, int | bool]:
    """Every configuration field of a timer application (what a modify with its action
    rewrites): timer, burst and template; on Tofino 2 its three fields more (no length
    from a recirculated packet, no source-port wrap, channel 0 of the port)."""
    schedule = app.schedule
    if len(slot.data) < chip.min_pkt_len:
        raise ValueError(f"a template of {len(slot.data)} B is below the {chip.min_pkt_len} B "
                         f"{chip.label}'s packet generator takes: use larger frames")
    return {
        names.APP_TIMER_NS: schedule.period_ns,
        names.APP_PKT_LEN: len(slot.data),
        names.APP_BUFFER_OFFSET: slot.offset,
        names.APP_SOURCE_PORT: chip.pktgen_port_in_pipe,
        names.APP_INCREMENT_SOURCE_PORT: False,
        names.APP_BATCH_COUNT: schedule.batches - 1,
        names.APP_PACKETS_PER_BATCH: schedule.packets_per_batch - 1,
        # Packets and batches back to back: the timer alone sets the rate. A bursts
        # stream's burst is its one batch: back to back at the generator's 100 Gbit/s,
        # and its TX port's queue lets it out at the port's line rate (no faster port
        # takes bursts: shaping.py), so no gap is wanted there either.
        names.APP_IBG: 0,
        names.APP_IBG_JITTER: 0,
        names.APP_IPG: 0,
        names.APP_IPG_JITTER: 0,
        **chip.extra_app_fields,
    }


def configure_app(client: BfrtClient, app: AppPlan, slot: BufferSlot, pipe: int,
                  chip: Chip = TOFINO1) -> None:
    """Timer, burst and template of an application in one pipe, left disabled."""
    client.modify_entry(chip.pktgen_app_cfg, {names.PKTGEN_APP_KEY: app.app_id}, {
        **_app_config(app, slot, chip),
        names.APP_ENABLE: False,
        names.APP_BATCH_COUNTER: 0,
        names.APP_PKT_COUNTER: 0,
        names.APP_TRIGGER_COUNTER: 0,
    }, action=names.TRIGGER_TIMER_PERIODIC, pipe=pipe)


def retime_app(client: BfrtClient, app: AppPlan, slot: BufferSlot, pipe: int,
               chip: Chip = TOFINO1) -> None:
    """A running application's new timer and burst (app.schedule) in one pipe: its
    whole configuration again (the module's docstring says why), neither its enable
    bit nor its counters."""
    client.modify_entry(chip.pktgen_app_cfg, {names.PKTGEN_APP_KEY: app.app_id},
                        _app_config(app, slot, chip), action=names.TRIGGER_TIMER_PERIODIC,
                        pipe=pipe)


def set_app_enabled(client: BfrtClient, app_id: int, enabled: bool,
                    pipe: int | None = None, chip: Chip = TOFINO1) -> None:
    client.modify_entry(chip.pktgen_app_cfg, {names.PKTGEN_APP_KEY: app_id},
                        {names.APP_ENABLE: enabled}, pipe=pipe)


def disable_all_apps(client: BfrtClient, chip: Chip = TOFINO1) -> None:
    """Every application off in every pipe (what an earlier run left may still fire)."""
    for app_id in range(chip.pktgen_apps):
        set_app_enabled(client, app_id, False, chip=chip)


def buffer_slots(apps: Sequence[AppPlan]) -> dict[int, dict[int, BufferSlot]]:
    """pipe -> app id -> its template's slot: each pipe's buffer holds the templates of
    the applications that run there, in their order."""
    slots = {}
    for pipe in sorted({p for a in apps for p in a.pipes}):
        in_pipe = [a for a in apps if pipe in a.pipes]
        laid = layout_buffer([a.template for a in in_pipe])
        slots[pipe] = {app.app_id: slot for app, slot in zip(in_pipe, laid, strict=True)}
    return slots


def program_apps(client: BfrtClient, apps: Sequence[AppPlan], chip: Chip = TOFINO1) -> None:
    """Templates into each pipe's buffer, then the applications (disabled)."""
    by_id = {a.app_id: a for a in apps}
    for pipe, slots in buffer_slots(apps).items():
        write_templates(client, pipe, list(slots.values()), chip)
        for app_id, slot in slots.items():
            configure_app(client, by_id[app_id], slot, pipe, chip)
