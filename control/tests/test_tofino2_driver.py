"""TofinoTarget on a Tofino 2 (chip.TOFINO2) against the fake switch built from
tofino2.bfrt.json and the SDE's tf2 fixed tables (fixtures/sde_tf2_fixed_tables.json):
every write the driver makes there, as test_targets_tofino_driver.py checks them on
Tofino 1, and what the fake refuses as the SDE does."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from tofino_fake import FakeBfrt, Write
from tofino_scenario import F60, F124, FRONT, STREAMS, prepare, start

from p4tester.config.errors import ConfigError
from p4tester.config.profile import profile_from_dict
from p4tester.config.topology import TOFINO_CHIPS, topology_from_dict
from p4tester.experiments.runner import TrialSpec
from p4tester.targets.tofino import names, pktgen
from p4tester.targets.tofino.apps import AppPlan
from p4tester.targets.tofino.bfrt import BfrtError
from p4tester.targets.tofino.chip import CHIPS, TOFINO1, TOFINO2, chip_named
from p4tester.targets.tofino.driver import StreamPorts, TofinoTarget
from p4tester.targets.tofino.ports import PortSettings
from p4tester.targets.tofino.rates import cycle_exact_step_ns
from p4tester.targets.tofino.runner import TofinoTrialRunner, target_from_config

# The fake's Tofino 2: cage n is "n/<channel>", cages 1-8 in pipe 0, 9-16 in pipe 1...,
# channel c of cage n at dev port pipe x 128 + 8 + 8 x (cage in pipe) + c.
# The streams (tofino_scenario) on this chip:
# stream 0: 1/0 (dev 8, pipe 0) -> 9/0 (dev 136, pipe 1)
# stream 1: 2/0 (dev 16, pipe 0) -> 17/0 (dev 264, pipe 2)
# stream 5: 9/0 (dev 136, pipe 1) -> 1/0 (dev 8, pipe 0)
GEN_APPS = "pipe.TesterIngress.generator.gen_apps"
GENERATED = "pipe.TesterIngress.generator.generated"
APP_CFG = "tf2.pktgen.app_cfg"
BUFFER = "tf2.pktgen.pkt_buffer"
PORT_CFG = "tf2.pktgen.port_cfg"
P400 = PortSettings(names.SPEED_400G, names.FEC_RS, lanes=8)
UP_400G = {"$SPEED": "BF_SPEED_400G", "$FEC": "BF_FEC_TYP_REED_SOLOMON", "$N_LANES": 8,
           "$AUTO_NEGOTIATION": "PM_AN_DEFAULT", "$PORT_ENABLE": True}


def target(fake: FakeBfrt, streams: list[StreamPorts] = STREAMS,
           front: dict[int, str] = FRONT,
           settings: PortSettings | dict[int, PortSettings] = P400) -> TofinoTarget:
    return TofinoTarget(fake, streams, front, chip=TOFINO2, port_settings=settings)


def prepared(fake: FakeBfrt) -> TofinoTarget:
    return prepare(target(fake))


def running(fake: FakeBfrt) -> TofinoTarget:
    return start(prepared(fake))


def test_the_chips_names_are_the_sdes() -> None:
    assert (TOFINO2.pktgen_port_cfg, TOFINO2.pktgen_app_cfg, TOFINO2.pktgen_buffer) == (
        names.PKTGEN_TF2_PORT_CFG, names.PKTGEN_TF2_APP_CFG, names.PKTGEN_TF2_BUFFER)
    assert (TOFINO1.pktgen_port_cfg, TOFINO1.pktgen_app_cfg, TOFINO1.pktgen_buffer) == (
        names.PKTGEN_PORT_CFG, names.PKTGEN_APP_CFG, names.PKTGEN_BUFFER)
    # The program's Tofino 2 compile has 16 applications per pipe, as the SDE.
    assert TOFINO2.pktgen_apps == 16
    assert [TOFINO2.pktgen_dev_port(p) for p in range(4)] == [6, 134, 262, 390]
    assert cycle_exact_step_ns(TOFINO2.clock_hz) == 2  # 1.5 GHz: 3 cycles every 2 ns


def test_the_tofino2_program_declares_what_the_driver_writes() -> None:
    """p4src/tna/platform.p4's Tofino 2 branch: generator port 6, 16 applications."""
    platform = (Path(__file__).resolve().parents[2] / "p4src/tna/platform.p4").read_text()
    tofino2 = platform.split("#if __TARGET_TOFINO__ == 2", 2)[2].split("#else", 1)[0]
    assert f"const bit<7> PKTGEN_PORT_IN_PIPE = {TOFINO2.pktgen_port_in_pipe};" in tofino2
    assert f"#define PKTGEN_APPS {TOFINO2.pktgen_apps}" in tofino2


def test_prepare_brings_up_400g_ports_and_resets_tofino2s_generators() -> None:
    fake = FakeBfrt(chip="tofino2")
    target(fake).prepare([0, 1, 5], [1, 2, 9])
    assert fake.writes == [
        *[Write("add", "$PORT", {"$DEV_PORT": p}, UP_400G) for p in (8, 16, 136, 264)],
        Write("clear", "pipe.TesterIngress.port_slots.rx_port_slots", {}),
        # All 16 of Tofino 2's applications off.
        *[Write("modify", APP_CFG, {"app_id": a}, {"app_enable": False}) for a in range(16)],
        # The generators of the TX ports' pipes (0 and 1): port 6 of each.
        Write("modify", PORT_CFG, {"dev_port": 6}, {"pktgen_enable": True}),
        Write("modify", PORT_CFG, {"dev_port": 134}, {"pktgen_enable": True}),
        Write("clear", GEN_APPS, {}),
        Write("clear", "pipe.TesterIngress.expectation.rx_expected", {}),
        Write("clear", "pipe.TesterEgress.generator.tx_clock_correction", {}),
        # Tofino 2's program varies fields: no stream varies any until it says so.
        *[Write("clear", f"pipe.TesterEgress.generator.field_steps.{table}", {})
          for table in ("tx_steps", "tx_step_src_port", "tx_step_dst_port", "tx_step_src_ip",
                        "tx_step_dst_ip")],
    ]


def test_rates_write_tofino2s_buffer_applications_and_groups() -> None:
    fake = FakeBfrt(chip="tofino2")
    t = prepared(fake)
    t.set_templates({0: F60, 1: F60, 5: F124})
    fake.writes.clear()
    t.set_stream_rates({0: 1e6, 1: 1e6, 5: 2e6})
    assert [(a.app_id, a.pipes, a.stream_ids, a.schedule.period_ns, a.achieved_pps)
            for a in t.apps] == [(0, (0, 1), (0, 1), 2000, 1e6), (1, (0, 1), (5,), 1000, 2e6)]
    assert [(w.op, w.table, w.key, w.pipe) for w in fake.writes] == [
        *[w for pipe in (0, 1) for w in (
            ("modify", BUFFER, {"pkt_buffer_offset": 0, "pkt_buffer_size": 60}, pipe),
            ("modify", BUFFER, {"pkt_buffer_offset": 64, "pkt_buffer_size": 124}, pipe),
            ("modify", APP_CFG, {"app_id": 0}, pipe),
            ("modify", APP_CFG, {"app_id": 1}, pipe))],
        ("add", "$pre.node", {"$MULTICAST_NODE_ID": 0}, None),
        ("add", "$pre.node", {"$MULTICAST_NODE_ID": 1}, None),
        ("add", "$pre.mgid", {"$MGID": 1}, None),
        ("add", "$pre.node", {"$MULTICAST_NODE_ID": 5}, None),
        ("add", "$pre.mgid", {"$MGID": 2}, None),
    ]
    config = fake.writes_to(APP_CFG)[0]
    assert (config.action, config.data) == ("trigger_timer_periodic", {
        "timer_nanosec": 2000, "pkt_len": 60, "pkt_buffer_offset": 0,
        # Port 6 of the pipe, Tofino 2's generator; its three fields more, 0.
        "pipe_local_source_port": 6, "increment_source_port": False,
        "batch_count_cfg": 0, "packets_per_batch_cfg": 0,
        "ibg": 0, "ibg_jitter": 0, "ipg": 0, "ipg_jitter": 0,
        "offset_len_from_recir_pkt_enable": False, "source_port_wrap_max": 0,
        "assigned_chnl_id": 0,
        "app_enable": False, "batch_counter": 0, "pkt_counter": 0, "trigger_counter": 0})
    stored = fake.entries(BUFFER, pipe=1)
    assert [bytes(e.data["buffer"]) for e in stored] == [F60, F124]  # type: ignore[arg-type]
    ports = {e.key["$MULTICAST_NODE_ID"]: e.data["$DEV_PORT"] for e in fake.entries("$pre.node")}
    assert ports == {0: (8,), 1: (16,), 5: (136,)}


def test_sixteen_applications_on_tofino2_where_tofino1_has_eight() -> None:
    """Ten streams at ten rates: ten applications, which Tofino 1 refuses with the fix;
    the multicast groups are Tofino 2's 16 (1-16), all removed before writing."""
    streams = [StreamPorts(s, 1 + s, 9 + s) for s in range(8)] + [
        StreamPorts(8, 17, 25), StreamPorts(9, 18, 26)]
    rates = {s: 1e5 * (s + 1) for s in range(10)}
    fake = FakeBfrt(chip="tofino2")
    t = target(fake, streams)
    t.prepare(range(10), [s.tx_port for s in streams])
    t.set_templates(dict.fromkeys(range(10), F60))
    fake.writes.clear()
    t.set_stream_rates(rates)
    assert [a.app_id for a in t.apps] == list(range(10))
    assert {w.key["$MGID"] for w in fake.writes_to("$pre.mgid")} == set(range(1, 11))
    one = TofinoTarget(FakeBfrt(), streams, FRONT)
    one.prepare(range(10), [s.tx_port for s in streams])
    one.set_templates(dict.fromkeys(range(10), F60))
    with pytest.raises(ValueError, match=r"need 10 generator applications .* Tofino 1 has 8"):
        one.set_stream_rates(rates)
    # A stale group 16 (Tofino 2's last) of an earlier run goes.
    fake.add_entry("$pre.mgid", {"$MGID": 16}, {"$MULTICAST_NODE_ID": (),
                                                "$MULTICAST_NODE_L1_XID_VALID": (),
                                                "$MULTICAST_NODE_L1_XID": ()})
    t.prepare(range(10), [s.tx_port for s in streams])
    assert 16 not in {e.key["$MGID"] for e in fake.entries("$pre.mgid")}


def test_start_arms_budgets_and_enables_tofino2s_applications_that_then_generate() -> None:
    fake = FakeBfrt(chip="tofino2")
    t = running(fake)
    fake.writes.clear()
    t.start_trial({0: 1000, 1: 1000, 5: 500})
    generated = [w for w in fake.writes if w.table == GENERATED]
    assert [w.key["$REGISTER_INDEX"] for w in generated] == [0, 1]
    assert [(w.key, w.data["packet_budget"]) for w in fake.writes_to(GEN_APPS)] == [
        ({"pipe_id": 0, "app_id": 0}, 500), ({"pipe_id": 1, "app_id": 0}, 500),
        ({"pipe_id": 0, "app_id": 1}, 250), ({"pipe_id": 1, "app_id": 1}, 250)]
    assert [(w.table, w.key, w.data, w.pipe) for w in fake.writes if w.table == APP_CFG] == [
        (APP_CFG, {"app_id": a}, {"app_enable": True}, p) for a in (0, 1) for p in (0, 1)]
    fake.advance_to(1_000_000)  # 1 ms: 500 packets of app 0 per pipe, 1000 of app 1 (capped)
    counts = t.generated()
    assert (counts[0].made, counts[1].made) == (1000, 500)
    t.stop_trial()
    assert all(not e.data["app_enable"] for p in (0, 1) for e in fake.entries(APP_CFG, pipe=p)
               if "app_enable" in e.data)


def test_a_retime_on_tofino2_rewrites_the_whole_configuration_and_keeps_counting() -> None:
    fake = FakeBfrt(chip="tofino2")
    t = running(fake)
    app = t.apps[0]
    slot = pktgen.buffer_slots(t.apps)[0][0]
    faster = AppPlan(app.app_id, app.pipes, app.stream_ids, app.template, 2e6,
                     t.pipe_timer(2e6, 64, 2))
    fake.writes.clear()
    pktgen.retime_app(fake, faster, slot, 0, TOFINO2)
    (write,) = fake.writes
    assert write.table == APP_CFG and "app_enable" not in write.data
    assert write.data["timer_nanosec"] == 1000
    assert write.data["assigned_chnl_id"] == 0 and write.data["pipe_local_source_port"] == 6
    # A retime that left fields out would zero them, as the SDE does (pkt_len 0 refused).
    with pytest.raises(BfrtError, match="packet length 0 is too small, must be at least 59"):
        fake.modify_entry(APP_CFG, {"app_id": 0}, {"timer_nanosec": 500},
                          action="trigger_timer_periodic", pipe=0)


@pytest.mark.parametrize(("rate", "channels", "lanes", "speed"), [
    ("400Gbps", (0,), 8, "BF_SPEED_400G"),
    ("200Gbps", (0, 4), 4, "BF_SPEED_200G"),
    ("100Gbps", (0, 2, 4, 6), 2, "BF_SPEED_100G"),
    ("50Gbps", tuple(range(8)), 1, "BF_SPEED_50G"),
])
def test_a_400g_cage_as_channels_from_the_topologys_line_rates(
        rate: str, channels: tuple[int, ...], lanes: int, speed: str) -> None:
    """The runner brings each port up at its line rate with its lanes ($N_LANES), so
    the channels of one cage share its 8 lanes (the fake refuses an overlap)."""
    ports = {c + 1: {"line_rate": rate, "front_panel": f"3/{c}"} for c in channels}
    topology = topology_from_dict({
        "name": "t", "switch": {"grpc": "127.0.0.1:50052", "target": "tofino",
                                "chip": "tofino2"},
        "ports": ports, "dut": {"kind": "external"}}, "t.yaml")
    profile = profile_from_dict({"name": "p", "streams": [
        {"id": c, "tx_port": c + 1, "rx_port": c + 1} for c in channels]}, "p.yaml")
    fake = FakeBfrt(chip="tofino2")
    t = target_from_config(fake, topology, profile)
    assert t.chip is TOFINO2
    t.prepare(list(channels), [c + 1 for c in channels])
    added = [(w.key["$DEV_PORT"], w.data["$SPEED"], w.data["$N_LANES"])
             for w in fake.writes_to("$PORT")]
    assert added == [(24 + c, speed, lanes) for c in channels]


def test_the_fake_refuses_tofino2_ports_whose_lanes_do_not_fit_as_the_sde() -> None:
    fake = FakeBfrt(chip="tofino2")
    up = {"$SPEED": "BF_SPEED_100G", "$FEC": "BF_FEC_TYP_REED_SOLOMON",
          "$AUTO_NEGOTIATION": "PM_AN_DEFAULT", "$PORT_ENABLE": True}
    # Without $N_LANES, 100G takes the SDE's default 4 lanes: channel 2 cannot start it.
    with pytest.raises(BfrtError, match="channel 2"):
        fake.add_entry("$PORT", {"$DEV_PORT": 10}, up)
    fake.add_entry("$PORT", {"$DEV_PORT": 8}, up)  # lanes 0-3
    with pytest.raises(BfrtError, match="overlap"):
        fake.add_entry("$PORT", {"$DEV_PORT": 10}, {**up, "$N_LANES": 2})
    # The driver's own check comes first, with the fix.
    with pytest.raises(ConfigError, match=r"starts on channel /0 /2 /4 /6"):
        TOFINO2.port_speed(100e9, "3/1")
    with pytest.raises(ConfigError, match="use one of 50 Gbit/s, 100 Gbit/s, 200 Gbit/s, "
                                          "400 Gbit/s"):
        TOFINO2.port_speed(25e9, "3/0")


def test_the_fake_refuses_what_tofino2s_sde_refuses() -> None:
    fake = FakeBfrt(chip="tofino2")
    with pytest.raises(BfrtError, match=r"no table named 'tf1\.pktgen\.app_cfg'"):
        fake.modify_entry("tf1.pktgen.app_cfg", {"app_id": 0}, {"app_enable": False})
    with pytest.raises(BfrtError, match=r"app_id 16 outside 0\.\.15"):
        fake.modify_entry(APP_CFG, {"app_id": 16}, {"app_enable": False})
    with pytest.raises(BfrtError, match="dev port 68 is not a generator port"):
        fake.modify_entry(PORT_CFG, {"dev_port": 68}, {"pktgen_enable": True})
    with pytest.raises(BfrtError, match="not 16-B aligned"):
        fake.modify_entry(BUFFER, {"pkt_buffer_offset": 8, "pkt_buffer_size": 4},
                          {"buffer": b"abcd"}, pipe=0)
    with pytest.raises(BfrtError, match="pkt_len = 65536 does not fit 16 bits"):
        fake.modify_entry(APP_CFG, {"app_id": 0}, {"pkt_len": 65536},
                          action="trigger_timer_periodic", pipe=0)
    with pytest.raises(BfrtError, match="assigned_chnl_id 8 is above 7"):
        fake.modify_entry(APP_CFG, {"app_id": 0}, {"pkt_len": 60, "assigned_chnl_id": 8},
                          action="trigger_timer_periodic", pipe=0)
    with pytest.raises(BfrtError, match="pipe_local_source_port 128 is above 127"):
        fake.modify_entry(APP_CFG, {"app_id": 0}, {"pkt_len": 60,
                                                   "pipe_local_source_port": 128},
                          action="trigger_timer_periodic", pipe=0)
    # Tofino 1's fake keeps Tofino 1's generator ports (68-71).
    with pytest.raises(BfrtError, match="dev port 6 is not a generator port"):
        FakeBfrt().modify_entry("tf1.pktgen.port_cfg", {"dev_port": 6}, {"pktgen_enable": True})


def test_tofino2_registers_and_counters_are_the_tofino2_compiles() -> None:
    """The generated register has 16 cells on Tofino 2 (8 on Tofino 1)."""
    fake = FakeBfrt(chip="tofino2")
    fake.set_register(GENERATED, 15, "TesterIngress.generator.generated.made", [1, 2, 3, 4])
    cell = fake.read_registers(GENERATED, [15])[15]
    assert cell["TesterIngress.generator.generated.made"] == (1, 2, 3, 4)
    with pytest.raises(BfrtError, match=r"index 8 outside 0\.\.7"):
        FakeBfrt().read_registers(GENERATED, [8])


def test_the_topology_names_the_chip_and_anything_else_is_refused_with_the_fix() -> None:
    base: dict[str, Any] = {
        "name": "t", "switch": {"grpc": "127.0.0.1:50052", "target": "tofino"},
        "ports": {1: {"line_rate": "100Gbps", "front_panel": "1/0"}},
        "dut": {"kind": "external"}}
    profile = profile_from_dict({"name": "p", "streams": [
        {"id": 0, "tx_port": 1, "rx_port": 1}]}, "p.yaml")
    assert topology_from_dict(base, "t.yaml").switch.chip == "tofino1"
    assert target_from_config(FakeBfrt(), topology_from_dict(base, "t.yaml"),
                              profile).chip is TOFINO1
    wrong = {**base, "switch": {**base["switch"], "chip": "tofino3"}}
    # Refused where the topology is loaded (validate, every front end), before any run.
    with pytest.raises(ConfigError, match=r"t.yaml: switch: chip 'tofino3' unknown; use one "
                                          r"of \('tofino1', 'tofino2'\)"):
        topology_from_dict(wrong, "t.yaml")
    with pytest.raises(ConfigError, match="chip 2 unknown"):
        chip_named(2)
    # The loader's names are the driver's chips.
    assert sorted(CHIPS) == sorted(TOFINO_CHIPS)


class Switch:
    """A Tofino 2 trial's generators make their budgets when time passes."""

    def __init__(self) -> None:
        self.fake = FakeBfrt(chip="tofino2")
        self.now = 0.0

    def sleep(self, seconds: float) -> None:
        self.now += seconds
        self.fake.advance_to(round(self.now * 1e9))


def test_a_whole_trial_on_tofino2_at_a_quarter_of_400g() -> None:
    switch = Switch()
    topology = topology_from_dict({
        "name": "t", "switch": {"grpc": "127.0.0.1:50052", "target": "tofino",
                                "chip": "tofino2"},
        "ports": {1: {"line_rate": "400Gbps", "front_panel": "1/0"},
                  2: {"line_rate": "400Gbps", "front_panel": "9/0"}},
        "dut": {"kind": "external"}}, "t.yaml")
    profile = profile_from_dict({
        "name": "p", "trial": {"duration_s": 0.001, "drain_s": 0.01, "settle_s": 0},
        "frame_sizes": [1518],
        "streams": [{"id": 0, "tx_port": 1, "rx_port": 2}]}, "p.yaml")
    runner = TofinoTrialRunner(target_from_config(switch.fake, topology, profile), topology,
                               profile, sleep=switch.sleep, clock=lambda: switch.now,
                               run_value=0xC4)
    runner.open()
    result = runner.run_trial(TrialSpec("throughput", 0, 1518, 0.5, 0.001))
    app = switch.fake.entries(APP_CFG, pipe=0)
    configured = [e.data for e in app if "pkt_len" in e.data]
    assert configured[0]["pkt_len"] == 1514 and configured[0]["pipe_local_source_port"] == 6
    # Half of 400G at 1518 B, 16.25 Mpps, from one pipe's generator: twice what Tofino 1's
    # 100 Gbit/s generator makes (that one refuses it), within Tofino 2's 400 Gbit/s.
    assert result.offered_pps == pytest.approx(0.5 * 400e9 / (1538 * 8), rel=1e-3)
    budget = next(w.data["packet_budget"] for w in switch.fake.writes_to(GEN_APPS)
                  if w.action == "TesterIngress.generator.run")
    made = switch.fake.registers[GENERATED][0]["TesterIngress.generator.generated.made"]
    assert made == [budget, 0, 0, 0]
    assert result.valid, result.error
    with pytest.raises(ValueError, match="more than one packet generator makes"):
        TofinoTarget(FakeBfrt(), [StreamPorts(0, 1, 9)], FRONT).pipe_timer(16.25e6, 1518, 1)
