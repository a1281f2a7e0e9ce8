"""Foreign-frame policy entries on Tofino: per port above the all-ports entry."""

from __future__ import annotations

import pytest
from tofino_fake import FakeBfrt, Write

from p4tester.dataplane.ternary import Ternary
from p4tester.targets.tofino.foreign import set_foreign_policy

TABLE = "pipe.TesterIngress.foreign.foreign_traffic"


def test_policies_for_all_ports_and_one_port() -> None:
    fake = FakeBfrt()
    set_foreign_policy(fake, "punt")
    set_foreign_policy(fake, "forward", ingress_dev_port=136, forward_dev_port=8)
    set_foreign_policy(fake, "drop", ingress_dev_port=136)  # replaces the forward
    all_ports = {"ingress_port": Ternary(0, 0), "$MATCH_PRIORITY": 2}
    port_136 = {"ingress_port": Ternary(136, 0x1FF), "$MATCH_PRIORITY": 1}
    assert fake.writes == [
        Write("add", TABLE, all_ports, {}, "TesterIngress.foreign.punt_foreign"),
        Write("add", TABLE, port_136, {"port": 8}, "TesterIngress.foreign.forward_foreign"),
        Write("delete", TABLE, port_136),
        Write("add", TABLE, port_136, {}, "TesterIngress.foreign.drop_foreign"),
    ]


def test_bad_policies() -> None:
    with pytest.raises(ValueError, match=r"foreign policy 'mirror': choose one of"):
        set_foreign_policy(FakeBfrt(), "mirror")
    with pytest.raises(ValueError, match=r"'forward' needs the port to forward to"):
        set_foreign_policy(FakeBfrt(), "forward")
