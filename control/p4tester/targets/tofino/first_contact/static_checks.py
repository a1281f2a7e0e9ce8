"""What needs no traffic (18: deleting a whole table, 14: the SDE's Python) and what
the checks cannot see through a MAC loopback: each such finding says what the user
must do instead (6, 7, 13)."""

from __future__ import annotations

from p4tester.targets.tofino import names
from p4tester.targets.tofino.bfrt import BfrtNotFoundError
from p4tester.targets.tofino.first_contact.bench import Bench
from p4tester.targets.tofino.first_contact.findings import (
    Finding,
    not_checked,
    refuted,
    verified,
)


def check_tables(bench: Bench) -> list[Finding]:
    """18: an entry added, the table cleared by a delete without keys, the entry then
    read back as NOT_FOUND."""
    client = bench.client
    key = {names.GEN_APPS_PIPE_KEY: 0, names.GEN_APPS_KEY: 0}
    client.clear_table(names.GEN_APPS)
    client.add_entry(names.GEN_APPS, key, {}, action=names.GEN_STOPPED)
    client.clear_table(names.GEN_APPS)
    left = len(client.read_entries(names.GEN_APPS))
    try:
        client.read_entry(names.GEN_APPS, key)
        found = "still read back"
    except BfrtNotFoundError:
        found = "NOT_FOUND"
    name = "deleting a whole table"
    if left == 0 and found == "NOT_FOUND":
        return [verified(18, name, "gen_apps cleared by one delete without keys; its entry "
                         "then read as NOT_FOUND")]
    return [refuted(18, name, f"after the delete gen_apps held {left} entries and its entry "
                    f"was {found}", "the driver must delete gen_apps entry by entry")]


def check_environment(bench: Bench) -> list[Finding]:
    name = "Python environment"
    if bench.sde_python is None:
        return [not_checked(14, name, "no SDE client here (a fake switch)",
                            "run tofino-check on the switch with the SDE's bfrt_grpc")]
    return [verified(14, name, f"the checks ran over the SDE's bfrt_grpc with "
                     f"{bench.sde_python}")]


def unobservable() -> list[Finding]:
    """Assumptions a MAC loopback cannot show."""
    return [
        not_checked(6, "timestamps on one clock", "a MAC loopback has no cable delay to "
                    "compare with", "cable two ports (known length, ~5 ns/m), run `p4tester "
                    "latency` between them and compare the minimum with the cable's delay"),
        not_checked(7, "IPv6 UDP checksum", "needs a captured frame", "run `p4tester "
                    "capture` of an IPv6 stream through a cable to a host and check the UDP "
                    "checksum (0 must be sent as 0xFFFF)"),
        not_checked(13, "ports: speed changes and autonegotiation", "needs cables and "
                    "their media", "bring each cabled port up at its speed (pm show: UP); "
                    "force autonegotiation on for DACs, off for optics if it is not"),
    ]
