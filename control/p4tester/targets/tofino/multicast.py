"""Multicast groups that fan a generator application out to its streams' TX ports.

Group MCAST_GROUP_BASE + app holds one node per stream: node id = rid = stream id,
one dev port (the stream's TX port). Egress stamps the rid as the stream id. The
tester owns these groups and node ids: before writing, every such group and node is
deleted, since a stale group left by an earlier trial would send its streams twice
(what the BMv2 side learnt).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from p4tester.targets.tofino import names
from p4tester.targets.tofino.apps import AppPlan
from p4tester.targets.tofino.bfrt import BfrtClient

TESTER_GROUPS = range(names.MCAST_GROUP_BASE, names.MCAST_GROUP_BASE + names.PKTGEN_APPS)
TESTER_NODES = range(names.MAX_STREAMS)


def tester_groups(apps_per_pipe: int = names.PKTGEN_APPS) -> range:
    """The groups the tester owns on a chip with this many generator applications
    (Tofino 1: 8, groups 1-8; Tofino 2: 16, groups 1-16)."""
    return range(names.MCAST_GROUP_BASE, names.MCAST_GROUP_BASE + apps_per_pipe)


def remove_groups(client: BfrtClient, groups: Iterable[int] = TESTER_GROUPS,
                  nodes: Iterable[int] = TESTER_NODES) -> None:
    """Delete these groups, then these nodes (a node in a group cannot go first)."""
    group_ids, node_ids = set(groups), set(nodes)
    for entry in client.read_entries(names.PRE_MGID):
        if entry.key[names.MGID] in group_ids:
            client.delete_entry(names.PRE_MGID, {names.MGID: entry.key[names.MGID]})
    for entry in client.read_entries(names.PRE_NODE):
        if entry.key[names.NODE_ID] in node_ids:
            client.delete_entry(names.PRE_NODE, {names.NODE_ID: entry.key[names.NODE_ID]})


def write_groups(client: BfrtClient, apps: Sequence[AppPlan],
                 tx_dev_ports: Mapping[int, int], groups: Iterable[int] = TESTER_GROUPS,
                 ) -> None:
    """Replace every tester group (`groups`: the chip's, tester_groups) by one per
    application (tx_dev_ports: stream -> port)."""
    remove_groups(client, groups)
    for app in apps:
        add_app_group(client, app, tx_dev_ports)


def add_app_group(client: BfrtClient, app: AppPlan, tx_dev_ports: Mapping[int, int]) -> None:
    """The application's group: a node per stream (rid = stream id) on its TX port."""
    for stream in app.stream_ids:
        client.add_entry(names.PRE_NODE, {names.NODE_ID: stream}, {
            names.NODE_RID: stream,
            names.NODE_LAG_IDS: (),
            names.NODE_DEV_PORTS: (tx_dev_ports[stream],),
        })
    count = len(app.stream_ids)
    client.add_entry(names.PRE_MGID, {names.MGID: app.mcast_group}, {
        names.MGID_NODE_IDS: app.stream_ids,
        names.MGID_L1_XID_VALID: (False,) * count,
        names.MGID_L1_XIDS: (0,) * count,
    })


def remove_app_groups(client: BfrtClient, apps: Sequence[AppPlan]) -> None:
    remove_groups(client, [a.mcast_group for a in apps],
                  [s for a in apps for s in a.stream_ids])
