"""The OTG server's state: the applied config, and what each request does to it.
No HTTP here: app.py parses requests and answers; this module is unit-tested with a
fake TrafficDriver."""

from __future__ import annotations

import copy
import threading
from collections.abc import Mapping
from typing import Any

from p4tester.config.topology import Topology

from .errors import internal, validation
from .mapping import MappedConfig, map_config
from .metrics import flow_metrics, port_metrics
from .patterns import field_choice
from .readings import TrafficDriver


class OtgState:
    def __init__(self, topology: Topology, driver: TrafficDriver) -> None:
        self.topology = topology
        self.driver = driver
        self._lock = threading.Lock()  # one state change at a time
        self._config: MappedConfig | None = None
        self._document: dict[str, Any] = {}

    def set_config(self, document: object) -> list[str]:
        """Map (every refused field listed), then apply on the switch."""
        config = map_config(document, self.topology)
        assert isinstance(document, Mapping)
        with self._lock:
            self.driver.apply(config)
            self._config = config
            self._document = copy.deepcopy(dict(document))
        return list(config.warnings)

    def get_config(self) -> dict[str, Any]:
        return copy.deepcopy(self._document)

    def _applied(self) -> MappedConfig:
        if self._config is None:
            raise validation("no config: POST /config first")
        return self._config

    def set_control_state(self, document: object) -> list[str]:
        if not isinstance(document, Mapping):
            raise validation("control state: expected a JSON object")
        choice = field_choice(document, "control_state")
        if choice == "traffic":
            return self._traffic(document.get("traffic"))
        if choice == "port":
            port = document.get("port")
            what = field_choice(port, "port") if isinstance(port, Mapping) else None
            if what == "capture" and isinstance(port, Mapping):
                return self._capture(port.get("capture"))
            raise validation(f"port.{what}: link state is the lab's; the tester does not "
                             "set it")
        raise validation(f"control_state.choice {choice!r}: the tester controls traffic only "
                         "(no protocol emulation)")

    def _traffic(self, traffic: object) -> list[str]:
        where = "traffic.flow_transmit"
        if not isinstance(traffic, Mapping) or field_choice(traffic, "traffic") != "flow_transmit" \
                or not isinstance(traffic.get("flow_transmit"), Mapping):
            raise validation(f"{where}: expected {{state, flow_names}}")
        body = traffic["flow_transmit"]
        state = body.get("state")
        with self._lock:
            config = self._applied()
            names = self._flow_names(config, body.get("flow_names"), f"{where}.flow_names")
            if state == "start":
                flows = tuple(f for f in config.flows if not names or f.name in names)
                if not flows:
                    raise validation(f"{where}: the config has no flows to start")
                return self.driver.start(flows)
            if state in ("stop", "pause", "resume"):
                if names and set(names) != {f.name for f in config.flows}:
                    raise validation(f"{where}.flow_names: the tester stops, pauses and "
                                     "resumes all flows together; leave flow_names empty")
                {"stop": self.driver.stop, "pause": self.driver.pause,
                 "resume": self.driver.resume}[state]()
                if state == "stop":
                    # The flows' figures are final now, and so is the self-check.
                    unvouched = self.driver.read().unvouched
                    return [unvouched] if unvouched else []
                return []
        raise validation(f"{where}.state {state!r}: use start, stop, pause or resume")

    def _capture(self, capture: object) -> list[str]:
        where = "port.capture"
        if not isinstance(capture, Mapping):
            raise validation(f"{where}: expected {{state, port_names}}")
        state = capture.get("state")
        if state not in ("start", "stop"):
            raise validation(f"{where}.state {state!r}: use start or stop")
        with self._lock:
            config = self._applied()
            names = capture.get("port_names") or list(config.capture_ports)
            if not isinstance(names, list):
                raise validation(f"{where}.port_names: expected a list of port names")
            outside = [n for n in names if n not in config.capture_ports]
            if outside:
                raise validation(f"{where}.port_names: {outside} are in no capture of the "
                                 "config (add them to captures[].port_names)")
            if not names:
                raise validation(f"{where}: the config has no captures")
            for name in names:
                port = config.port(str(name))
                if state == "start":
                    self.driver.start_capture(port)
                else:
                    self.driver.stop_capture(port)
        return []

    def capture(self, document: object) -> bytes:
        if not isinstance(document, Mapping) or not isinstance(document.get("port_name"), str):
            raise validation("capture request: expected {port_name}")
        config = self._applied()
        name = document["port_name"]
        if name not in config.capture_ports:
            raise validation(f"port_name {name!r} is in no capture of the config")
        return self.driver.read_capture(config.port(name))

    @staticmethod
    def _flow_names(config: MappedConfig, names: object, where: str) -> list[str]:
        if names is None:
            return []
        if not isinstance(names, list):
            raise validation(f"{where}: expected a list of flow names")
        known = {f.name for f in config.flows}
        unknown = [n for n in names if n not in known]
        if unknown:
            raise validation(f"{where}: no flows named {unknown}")
        return [str(n) for n in names]

    def metrics(self, document: object) -> dict[str, Any]:
        if not isinstance(document, Mapping):
            raise validation("metrics request: expected a JSON object")
        choice = field_choice(document, "metrics_request") or "port"
        config = self._applied()
        body = document.get(choice) or {}
        if not isinstance(body, Mapping):
            raise validation(f"{choice}: expected an object")
        if choice == "flow":
            names = self._flow_names(config, body.get("flow_names"), "flow.flow_names")
            reading = self.driver.read()
            if reading.error is not None:
                raise internal(reading.error)
            return {"choice": "flow_metrics", "flow_metrics": flow_metrics(config, reading, names)}
        if choice == "port":
            names = body.get("port_names") or []
            known = {p.name for p in config.ports}
            unknown = [n for n in names if n not in known]
            if unknown:
                raise validation(f"port.port_names: no ports named {unknown}")
            reading = self.driver.read()
            capturing = {p.name for p in config.ports if self.driver.capturing(p)}
            return {"choice": "port_metrics",
                    "port_metrics": port_metrics(config, reading, list(names), capturing)}
        raise validation(f"metrics_request.choice {choice!r}: the tester has port and flow "
                         "metrics only")

    def close(self) -> None:
        self.driver.close()
