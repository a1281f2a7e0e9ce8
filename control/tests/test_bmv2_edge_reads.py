"""The order a BMv2 trial edge reads its counters in (targets.bmv2_trials): a starved
switch goes on taking in and sending frames while an edge is read, one counter after
another, so the port counts the self-check compares must bound the stream figures
read beside them."""

from __future__ import annotations

from types import SimpleNamespace
from typing import cast

from p4tester.dataplane import names
from p4tester.p4rt import CounterValue
from p4tester.targets.bmv2_session import TesterSession
from p4tester.targets.bmv2_trials import Bmv2Trials
from p4tester.tester.port_counters import PortCounterSource


class MovingDataplane:
    """Stream 0 from port 1 to port 2: between any two counter reads the switch
    takes in one frame at port 2 and sends one out of port 1."""

    def __init__(self) -> None:
        self.moves = 0
        self.reads: list[str] = []

    def read_counter(self, name: str) -> dict[int, CounterValue]:
        self.reads.append(name)
        self.moves += 1
        frames = {names.RX_PORT: (2, self.moves), names.RX_STREAM: (0, self.moves),
                  names.TX_PORT: (1, self.moves), names.TX_STREAM: (0, self.moves)}
        if name not in frames:
            return {}
        index, count = frames[name]
        return {index: CounterValue(count, 64 * count)}


def test_port_counts_bound_the_stream_figures_read_beside_them() -> None:
    dataplane = MovingDataplane()
    session = SimpleNamespace(dataplane=dataplane,
                              topology=SimpleNamespace(ports=(SimpleNamespace(number=1),
                                                              SimpleNamespace(number=2))),
                              profile=SimpleNamespace(streams=(SimpleNamespace(id=0),)))
    trials = Bmv2Trials(cast(TesterSession, session), cast(PortCounterSource, None), 1)
    snapshot, program = trials.read_program()
    received = snapshot.cell(names.RX_STREAM, 0).packets
    sent = snapshot.cell(names.TX_STREAM, 0).packets
    # Every frame the port count took in is in the stream's RX read after it; every
    # frame in the stream's TX is in the port count read after it.
    assert program.rx[2] < received and program.tx[1] > sent
    # The port counts read again at the end: the switch took in frames meanwhile.
    assert program.rx_at_end == {2: len(dataplane.reads)}
    assert (dataplane.reads[0], dataplane.reads[-2:]) == (
        names.RX_PORT, [names.TX_PORT, names.RX_PORT])
    assert sorted(dataplane.reads[:-1]) == sorted(names.ALL_COUNTERS)
