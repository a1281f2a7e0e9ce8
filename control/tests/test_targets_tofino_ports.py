"""Port bring-up: front-panel names through $PORT_STR_INFO, 100G RS-FEC, idempotent."""

from __future__ import annotations

import pytest
from tofino_fake import FakeBfrt, Write

from p4tester.targets.tofino.ports import PortError, PortSettings, bring_up_ports

UP = {"$SPEED": "BF_SPEED_100G", "$FEC": "BF_FEC_TYP_REED_SOLOMON",
      "$AUTO_NEGOTIATION": "PM_AN_DEFAULT", "$PORT_ENABLE": True}
ENABLE = {"$AUTO_NEGOTIATION": "PM_AN_DEFAULT", "$PORT_ENABLE": True}


def test_new_ports_are_added_at_100g_with_rs_fec() -> None:
    fake = FakeBfrt()
    assert bring_up_ports(fake, ["1/0", "9/0", "1/0"]) == {"1/0": 0, "9/0": 128}
    assert fake.writes == [Write("add", "$PORT", {"$DEV_PORT": 0}, UP),
                           Write("add", "$PORT", {"$DEV_PORT": 128}, UP)]


def test_bringing_up_twice_modifies_instead_of_adding() -> None:
    fake = FakeBfrt()
    bring_up_ports(fake, ["1/0"])
    fake.writes.clear()
    bring_up_ports(fake, ["1/0"])
    assert fake.writes == [Write("modify", "$PORT", {"$DEV_PORT": 0}, ENABLE)]
    assert len(fake.entries("$PORT")) == 1


def test_a_port_at_another_speed_is_recreated() -> None:
    fake = FakeBfrt()
    bring_up_ports(fake, ["2/0"], PortSettings(speed="BF_SPEED_40G", fec="BF_FEC_TYP_NONE"))
    fake.writes.clear()
    bring_up_ports(fake, ["2/0"])
    assert fake.writes == [Write("delete", "$PORT", {"$DEV_PORT": 8}),
                           Write("add", "$PORT", {"$DEV_PORT": 8}, UP)]


def test_unknown_and_misnamed_ports() -> None:
    fake = FakeBfrt(connectors=range(1, 33))
    with pytest.raises(PortError, match=r"front-panel port '33/0' is not on this switch"):
        bring_up_ports(fake, ["33/0"])
    with pytest.raises(PortError, match=r"'Ethernet1' must be written connector/channel"):
        bring_up_ports(fake, ["Ethernet1"])
    assert fake.writes == []
