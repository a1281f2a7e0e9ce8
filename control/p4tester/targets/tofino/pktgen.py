"""The packet generator: template buffer layout, generator ports and timer applications.

Its tables are fixed tables of the SDE that are only modified, never added to. The
buffer and the applications are per pipe; an application runs in the pipes AppPlan
names (the same app id, timer and template in each) and stays disabled in the others.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from p4tester.targets.tofino import names
from p4tester.targets.tofino.apps import AppPlan
from p4tester.targets.tofino.bfrt import BfrtClient
from p4tester.targets.tofino.hardware import (
    PKTGEN_BUFFER_ALIGN,
    PKTGEN_BUFFER_BYTES,
    PKTGEN_PORT_IN_PIPE,
    TEMPLATE_PAD_BYTES,
    pktgen_dev_port,
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


def enable_generator_ports(client: BfrtClient, pipes: Iterable[int]) -> None:
    for pipe in sorted(set(pipes)):
        client.modify_entry(names.PKTGEN_PORT_CFG,
                            {names.PKTGEN_PORT_KEY: pktgen_dev_port(pipe)},
                            {names.PKTGEN_ENABLE: True})


def write_templates(client: BfrtClient, pipe: int, slots: Sequence[BufferSlot]) -> None:
    for slot in slots:
        client.modify_entry(names.PKTGEN_BUFFER,
                            {names.BUFFER_OFFSET: slot.offset, names.BUFFER_SIZE: len(slot.data)},
                            {names.BUFFER_DATA: slot.data}, pipe=pipe)


def configure_app(client: BfrtClient, app: AppPlan, slot: BufferSlot, pipe: int) -> None:
    """Timer, burst and template of an application in one pipe, left disabled."""
    schedule = app.schedule
    client.modify_entry(names.PKTGEN_APP_CFG, {names.PKTGEN_APP_KEY: app.app_id}, {
        names.APP_TIMER_NS: schedule.period_ns,
        names.APP_ENABLE: False,
        names.APP_PKT_LEN: len(slot.data),
        names.APP_BUFFER_OFFSET: slot.offset,
        names.APP_SOURCE_PORT: PKTGEN_PORT_IN_PIPE,
        names.APP_INCREMENT_SOURCE_PORT: False,
        names.APP_BATCH_COUNT: schedule.batches - 1,
        names.APP_PACKETS_PER_BATCH: schedule.packets_per_batch - 1,
        # Packets and batches back to back: the timer alone sets the rate.
        names.APP_IBG: 0,
        names.APP_IBG_JITTER: 0,
        names.APP_IPG: 0,
        names.APP_IPG_JITTER: 0,
        names.APP_BATCH_COUNTER: 0,
        names.APP_PKT_COUNTER: 0,
        names.APP_TRIGGER_COUNTER: 0,
    }, action=names.TRIGGER_TIMER_PERIODIC, pipe=pipe)


def set_app_enabled(client: BfrtClient, app_id: int, enabled: bool,
                    pipe: int | None = None) -> None:
    client.modify_entry(names.PKTGEN_APP_CFG, {names.PKTGEN_APP_KEY: app_id},
                        {names.APP_ENABLE: enabled}, pipe=pipe)


def disable_all_apps(client: BfrtClient) -> None:
    """Every application off in every pipe (what an earlier run left may still fire)."""
    for app_id in range(names.PKTGEN_APPS):
        set_app_enabled(client, app_id, False)


def program_apps(client: BfrtClient, apps: Sequence[AppPlan]) -> None:
    """Templates into each pipe's buffer, then the applications (disabled)."""
    for pipe in sorted({p for a in apps for p in a.pipes}):
        in_pipe = [a for a in apps if pipe in a.pipes]
        slots = layout_buffer([a.template for a in in_pipe])
        write_templates(client, pipe, slots)
        for app, slot in zip(in_pipe, slots, strict=True):
            configure_app(client, app, slot, pipe)
