"""The per-trial self-check on Tofino (issue 10): the ports' MAC counters next to what
the tester program counted per port.

- MacPortCounters is the tester.port_counters.PortCounterSource of a Tofino switch:
  each tester port's MAC counters from the SDE's $PORT_STAT table ($FramesReceivedOK:
  good frames the MAC took from the wire; $FramesTransmittedOK: frames it put on the
  wire), read from hardware;
- program_port_counts reads the program's rx_port (ingress, every frame from a
  front-panel port, before classification) and tx_port (egress, every frame leaving
  one) cells of the same dev ports, summed over pipes.

A frame the MAC received that rx_port never counted was dropped inside the tester
(ingress buffer or parser overrun); one tx_port counted that the MAC did not send was
lost after egress. tester.selfcheck turns both into a trial's SelfCheck. Both
counters are 64 bits wide (bfrt.json; the MAC's are 64-bit in the SDE), which is
what tester.port_counters.counter_delta assumes for a wrap.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from p4tester.targets.tofino import names
from p4tester.targets.tofino.bfrt import BfrtClient, BfrtError
from p4tester.tester.port_counters import InterfaceCounters
from p4tester.tester.selfcheck import ProgramPortCounts


class MacPortCounters:
    """PortCounterSource over BfRt: topology port -> dev port (known once the ports
    are up, hence a callable) and its front-panel name ("1/0", the 'interface' a
    PortCheck names)."""

    __slots__ = ("_client", "_dev_ports", "_front_panel")

    def __init__(self, client: BfrtClient, dev_ports: Callable[[], Mapping[int, int]],
                 front_panel: Mapping[int, str]) -> None:
        self._client = client
        self._dev_ports = dev_ports
        self._front_panel = dict(front_panel)

    def interface(self, port: int) -> str:
        return self._front_panel.get(port, f"port {port}")

    def read(self, ports: tuple[int, ...]) -> Mapping[int, InterfaceCounters] | None:
        """None when a port has no dev port yet or the SDE has no statistics for it:
        then the trial has no self-check (never a guess)."""
        dev = self._dev_ports()
        readings = {}
        for port in ports:
            if port not in dev:
                return None
            try:
                entry = self._client.read_entry(names.PORT_STAT, {names.DEV_PORT: dev[port]},
                                                from_hw=True)
            except BfrtError:
                return None
            rx, tx = entry.data.get(names.PORT_STAT_RX_OK), entry.data.get(names.PORT_STAT_TX_OK)
            if not isinstance(rx, int) or not isinstance(tx, int):
                return None
            # The MAC drops nothing it counts as OK; what the pipeline did not take is
            # the difference with rx_port, so the kernel's dropped fields stay 0.
            readings[port] = InterfaceCounters(rx_packets=rx, tx_packets=tx, rx_dropped=0,
                                               tx_dropped=0)
        return readings


def program_port_counts(client: BfrtClient, dev_ports: Mapping[int, int]) -> ProgramPortCounts:
    """rx_port / tx_port of these ports (topology port -> dev port), summed over pipes,
    keyed by topology port."""
    counts = []
    for counter in (names.RX_PORT, names.TX_PORT):
        cells = client.read_counters(counter, sorted(set(dev_ports.values())))
        counts.append({port: sum(v.packets for v in cells.get(dev, ()))
                       for port, dev in dev_ports.items()})
    return ProgramPortCounts(rx=counts[0], tx=counts[1])
