"""Multicast fan-out: one group per application, one node per stream (rid = stream id,
its TX port); every old tester group and node is deleted before writing."""

from __future__ import annotations

from tofino_fake import FakeBfrt, Write

from p4tester.targets.tofino import multicast
from p4tester.targets.tofino.apps import AppPlan
from p4tester.targets.tofino.rates import TimerSchedule

SCHEDULE = TimerSchedule(1000, 1, 1, 1e6, 0.0)
APPS = [AppPlan(0, 0, (0, 1), bytes(60), 1e6, SCHEDULE),
        AppPlan(1, 1, (7,), bytes(60), 2e6, SCHEDULE)]
TX = {0: 0, 1: 8, 7: 136}


def ids(fake: FakeBfrt, table: str, field: str) -> list[int]:
    values = [e.key[field] for e in fake.entries(table)]
    assert all(isinstance(v, int) for v in values)
    return sorted(v for v in values if isinstance(v, int))


def node(stream: int, port: int) -> Write:
    return Write("add", "$pre.node", {"$MULTICAST_NODE_ID": stream},
                 {"$MULTICAST_RID": stream, "$MULTICAST_LAG_ID": (), "$DEV_PORT": (port,)})


def test_groups_and_nodes_written_per_application() -> None:
    fake = FakeBfrt()
    multicast.write_groups(fake, APPS, TX)
    assert fake.writes == [
        node(0, 0), node(1, 8),
        Write("add", "$pre.mgid", {"$MGID": 1}, {
            "$MULTICAST_NODE_ID": (0, 1), "$MULTICAST_NODE_L1_XID_VALID": (False, False),
            "$MULTICAST_NODE_L1_XID": (0, 0)}),
        node(7, 136),
        Write("add", "$pre.mgid", {"$MGID": 2}, {
            "$MULTICAST_NODE_ID": (7,), "$MULTICAST_NODE_L1_XID_VALID": (False,),
            "$MULTICAST_NODE_L1_XID": (0,)}),
    ]


def test_rewriting_deletes_stale_groups_first_and_keeps_foreign_ones() -> None:
    fake = FakeBfrt()
    multicast.write_groups(fake, APPS, TX)
    # Someone else's group and node, outside the tester's ranges, must survive.
    fake.add_entry("$pre.node", {"$MULTICAST_NODE_ID": 5000},
                   {"$MULTICAST_RID": 0, "$MULTICAST_LAG_ID": (), "$DEV_PORT": (4,)})
    fake.add_entry("$pre.mgid", {"$MGID": 100}, {"$MULTICAST_NODE_ID": (5000,)})
    fake.writes.clear()
    multicast.write_groups(fake, APPS[:1], TX)
    deletes = [(w.table, w.key) for w in fake.writes if w.op == "delete"]
    assert deletes == [("$pre.mgid", {"$MGID": 1}), ("$pre.mgid", {"$MGID": 2}),
                       ("$pre.node", {"$MULTICAST_NODE_ID": 0}),
                       ("$pre.node", {"$MULTICAST_NODE_ID": 1}),
                       ("$pre.node", {"$MULTICAST_NODE_ID": 7})]
    assert ids(fake, "$pre.mgid", "$MGID") == [1, 100]
    assert ids(fake, "$pre.node", "$MULTICAST_NODE_ID") == [0, 1, 5000]


def test_removing_one_applications_groups() -> None:
    fake = FakeBfrt()
    multicast.write_groups(fake, APPS, TX)
    multicast.remove_app_groups(fake, APPS[1:])
    assert ids(fake, "$pre.mgid", "$MGID") == [1]
    assert ids(fake, "$pre.node", "$MULTICAST_NODE_ID") == [0, 1]
