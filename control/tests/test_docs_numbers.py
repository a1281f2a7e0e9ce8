"""Numbers the README and docs/ state about the code or the build are the code's: each
is found in its document and compared with the constant, pin, file or run it comes
from, so a change to one without the other fails here. (docs/configuration.md is
generated; docs/tofino.md's figures are checked by the Tofino build.)"""

from __future__ import annotations

import ast
import contextlib
import dataclasses
import io
import re
import shlex
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

from p4tester.bench import ebpf_sender
from p4tester.bench import search as bench_search
from p4tester.cli import exit_codes
from p4tester.cli.capture_cmd import DEFAULT_MIN_GAP_US
from p4tester.config.dut_limits import CAPACITY_MARGIN
from p4tester.config.profile import SearchConfig, TrialConfig
from p4tester.dataplane.constants import (
    EPOCHS,
    MAX_STREAMS,
    RUN_VALUES,
    TESTER_HEADER_BYTES,
    TESTER_SIGNATURE,
    TESTER_UDP_DST_PORT,
)
from p4tester.experiments.calibration import GROSS_SHORTFALL
from p4tester.experiments.rfc2889_addresses import PROBE_ATTEMPTS
from p4tester.experiments.y1564 import DEFAULT_IR_TOLERANCE, POLICING_OVERSHOOT
from p4tester.neighbors.resolve import REPLY_WAIT_S, REQUEST_TRIES
from p4tester.runs.flows_record import MAX_ROWS as FLOWS_MAX_ROWS
from p4tester.runs.requests import Y1564Request
from p4tester.runs.simulated_switch import FULL_CAPACITY_SIZE, SMALLEST_CAPACITY
from p4tester.search.trials import NOT_DRAINED_ATTEMPTS, TESTER_LIMITED_ATTEMPTS
from p4tester.server.live import MAX_INTERVAL_S, MIN_INTERVAL_S
from p4tester.streams.field_patterns import MAX_DRAWN, MAX_LISTED
from p4tester.streams.tunnels import TUNNEL_UDP_SRC_PORT
from p4tester.streams.variation import MAX_VARY_ENTRIES
from p4tester.targets.ebpf.flow_templates import MAX_CYCLE as EBPF_MAX_CYCLE
from p4tester.targets.ebpf.flow_templates import MAX_CYCLE_BYTES as EBPF_MAX_CYCLE_BYTES
from p4tester.targets.ebpf.tester import MAX_COPIES, PORT_CACHE_CELLS
from p4tester.targets.ebpf.trials import POLL_S as EBPF_POLL_S
from p4tester.targets.ebpf.trials import TEMPLATE_PPS
from p4tester.targets.tofino.names import MAX_STREAMS as TOFINO_MAX_STREAMS
from p4tester.tester.clock_offset import KEPT_SHARE, MAX_DRIFT_PPM
from p4tester.tester.clock_probes import PROBE_BIAS, PROBE_FRAMES, PROBE_PPS, PROBE_ROUNDS
from p4tester.tester.group_clocks import DRIFT_BASELINE_S, GUARD_SLACK_NS
from p4tester.tester.group_flows import CORRECT_S
from p4tester.tester.settle import SETTLE_READ_S
from p4tester.tester.trial_loop import IDLE_MAX_S, IDLE_READ_S

REPO = Path(__file__).resolve().parents[2]


def shell_pins(path: str) -> dict[str, str]:
    """NAME=value assignments of a shell file (scripts/toolchain/versions.sh)."""
    pins = {}
    for line in (REPO / path).read_text().splitlines():
        match = re.match(r"([A-Z0-9_]+)=(\S+)", line)
        if match and "$" not in match.group(2):
            pins[match.group(1)] = shlex.split(match.group(2))[0]
    return pins


def requirement(path: str, name: str) -> str:
    for line in (REPO / path).read_text().splitlines():
        if line.startswith(f"{name}=="):
            return line.split("==", 1)[1].split()[0]
    raise AssertionError(f"{path} pins no {name}")


def yaml_file(path: str) -> dict[str, object]:
    data = yaml.safe_load((REPO / path).read_text())
    assert isinstance(data, dict)
    return data


def conformance_suite_size() -> int:
    """The count the end-to-end test asserts of the OTG conformance run (read, not
    imported: that suite needs a lab)."""
    text = (REPO / "control/tests_e2e/test_otg_conformance.py").read_text()
    match = re.search(r"^SUITE_TESTS = (\d+)", text, re.MULTILINE)
    assert match, "test_otg_conformance.py no longer states SUITE_TESTS"
    return int(match.group(1))


def bench_search_totals() -> tuple[str, ...]:
    """MLRsearch's and the binary search's trial-seconds, as `make bench-search` prints
    them (a deterministic simulation, well under a second)."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        bench_search.main([])
    match = re.search(r"overall: trial seconds MLRsearch ([\d.]+) / binary ([\d.]+)",
                      out.getvalue())
    assert match, out.getvalue()
    return match.groups()


def y1564_default(name: str) -> Any:
    """The default of a `p4tester y1564` option, as its request declares it."""
    [field] = [field for field in dataclasses.fields(Y1564Request) if field.name == name]
    return field.default


def g(value: float) -> str:
    return f"{value:g}"


@dataclass(frozen=True)
class Fact:
    """`pattern`'s groups, wherever it matches `document` (whitespace folded), are
    `expected()`; it must match at least once."""

    document: str
    pattern: str
    expected: Callable[[], tuple[str, ...]]

    def __str__(self) -> str:
        return f"{self.document}: {self.pattern}"


TOPOLOGY_BMV2_DUT = "topologies/bmv2-dut.yaml"


def _bmv2_dut(key: str) -> str:
    dut = yaml_file(TOPOLOGY_BMV2_DUT)["dut"]
    assert isinstance(dut, dict)
    return str(dut[key])


def _port_rate(path: str) -> str:
    ports = yaml_file(path)["ports"]
    assert isinstance(ports, dict)
    rates = {str(port["line_rate"]) for port in ports.values()}
    assert len(rates) == 1
    return rates.pop().removesuffix("Mbps")


def _profile_pdr(path: str) -> str:
    search = yaml_file(path)["search"]
    assert isinstance(search, dict)
    return g(float(search["pdr_loss_ratio"]) * 100)


def _lab_constant(path: str, name: str) -> object:
    """A module-level constant of a lab test, read without importing the lab's module."""
    for node in ast.parse((REPO / path).read_text()).body:
        if isinstance(node, ast.Assign) and [getattr(t, "id", None) for t in node.targets] \
                == [name]:
            return ast.literal_eval(node.value)
    raise AssertionError(f"{path} has no constant {name}")


def _fdb_max_learned(path: str) -> str:
    dut = yaml_file(path)["dut"]
    assert isinstance(dut, dict)
    return str(dut["fdb_max_learned"])


FACTS = [
    # Several testers: the clock probes and the drift they follow.
    Fact("docs/several-testers.md", r"the controller sends (\d+) rounds of probes. Each round "
         r"is (\d+) frames each way at (\d+) frames/s",
         lambda: (str(PROBE_ROUNDS), str(PROBE_FRAMES), g(PROBE_PPS))),
    Fact("docs/several-testers.md", r"adds 2\^(\d+) ns to their stamps",
         lambda: (str(PROBE_BIAS.bit_length() - 1),)),
    Fact("docs/several-testers.md", r"measures the offset twice, (\w+) seconds? apart",
         lambda: ({1.0: "one"}[DRIFT_BASELINE_S],)),
    Fact("docs/several-testers.md", r"at every poll of the trial \(every ([\d.]+) s\)",
         lambda: (g(EBPF_POLL_S),)),
    Fact("docs/several-testers.md", r"their stamps follow the drift every ([\d.]+) s",
         lambda: (g(CORRECT_S),)),
    Fact("docs/several-testers.md", r"stated\s+uncertainty and (\d+) µs more",
         lambda: (g(GUARD_SLACK_NS / 1000),)),
    Fact("docs/several-testers.md", r"sends (\d+) frames each way at (\d+) frames/s",
         lambda: tuple(str(_lab_constant("control/tests_ebpf/test_several_testers.py", name))
                       for name in ("OTG_FLOW_FRAMES", "OTG_FLOW_PPS"))),
    Fact("docs/several-testers.md", r"moved more than (\d+) ppm of\s+drift",
         lambda: (g(MAX_DRIFT_PPM),)),
    Fact("docs/several-testers.md", r"keeps the (\w+) of the rounds with the shortest",
         lambda: ({1 / 3: "third"}[KEPT_SHARE],)),
    # Pinned versions: scripts/toolchain/versions.sh and the requirements files.
    Fact("docs/install.md", r"p4c (\d+(?:\.\d+)+) with",
         lambda: (shell_pins("scripts/toolchain/versions.sh")["P4C_VERSION"],)),
    Fact("docs/install.md", r"BMv2 (\d+(?:\.\d+)+) with",
         lambda: (shell_pins("scripts/toolchain/versions.sh")["BMV2_VERSION"],)),
    Fact("docs/install.md", r"`(p4lang-bmv2-[\w.-]+?)\.tar\.xz`",
         lambda: ("p4lang-bmv2-{BMV2_VERSION}-p4c-{P4C_VERSION}-debian12-amd64".format(
             **shell_pins("scripts/toolchain/versions.sh")),)),
    Fact("docs/install.md", r"Z3 (\d+(?:\.\d+)+)",
         lambda: (shell_pins("scripts/toolchain/versions.sh")["Z3_REF"].removeprefix("z3-"),)),
    Fact("docs/install.md", r"p4c (\d+(?:\.\d+)+)'s eBPF backend",
         lambda: (shell_pins("scripts/toolchain/versions.sh")["P4C_VERSION"],)),
    Fact("docs/ebpf.md", r"p4c-ebpf (\d+(?:\.\d+)+)",
         lambda: (shell_pins("scripts/toolchain/versions.sh")["P4C_VERSION"],)),
    Fact("docs/otg.md", r"snappi(?:==| )(\d+\.\d+\.\d+)",
         lambda: (requirement("scripts/otg-requirements.txt", "snappi"),)),
    Fact("docs/otg.md", r"OTG models \*\*(\d+\.\d+\.\d+)\*\*",
         lambda: (requirement("scripts/otg-requirements.txt", "snappi"),)),
    Fact("docs/otg.md", r"api_spec_version: (\d+\.\d+\.\d+)",
         lambda: (requirement("scripts/otg-requirements.txt", "snappi"),)),
    Fact("docs/otg.md", r"p4runtime protobuf (\d+\.\d+\.\d+)",
         lambda: (requirement("requirements.txt", "protobuf"),)),
    # Limits and defaults of the code.
    Fact("docs/ebpf.md", r"k = ceil\(rate x streams / (\d[\d ]*)\), at most (\d+)",
         lambda: (f"{TEMPLATE_PPS:,}".replace(",", " "), str(MAX_COPIES))),
    Fact("docs/ebpf.md", r"a back-to-back trial takes (\d+)", lambda: (str(MAX_COPIES),)),
    Fact("docs/ebpf.md", r"at (\d[\d ]*) templates/s or fewer; a back-to-back burst takes the "
         r"most, (\d+): the multicast group's (\d+) entries less its list head",
         lambda: (f"{TEMPLATE_PPS:,}".replace(",", " "), str(MAX_COPIES), str(MAX_COPIES + 1))),
    Fact("docs/otg.md", r"at most (\d+) streams in all", lambda: (str(MAX_STREAMS),)),
    Fact("docs/otg.md", r"at most (\d+) entries", lambda: (str(MAX_VARY_ENTRIES),)),
    Fact("docs/flows.md", r"up to one cycle or (\d[\d ]*) rows",
         lambda: (f"{FLOWS_MAX_ROWS:,}".replace(",", " "),)),
    Fact("docs/flows.md", r"lists: (\d+) values of a field for all streams together; MAC and "
         r"VNI lists share the (\d+)-entry", lambda: (str(MAX_LISTED), str(MAX_VARY_ENTRIES))),
    Fact("docs/flows.md", r"a cycle of at most (\d[\d ]*) frames and (\d+) MiB per stream; "
         r"random draws need `repeat` \(at most (\d[\d ]*)\)",
         lambda: (f"{EBPF_MAX_CYCLE:,}".replace(",", " "), str(EBPF_MAX_CYCLE_BYTES >> 20),
                  f"{EBPF_MAX_CYCLE:,}".replace(",", " "))),
    Fact("docs/flows.md", r"\(at most 2\^(\d+) values\)",
         lambda: (str(MAX_DRAWN.bit_length() - 1),)),
    Fact("docs/experiments.md", r"MAX_STREAMS of them: (\d+) on BMv2, (\d+) on Tofino",
         lambda: (str(MAX_STREAMS), str(TOFINO_MAX_STREAMS))),
    Fact("README.md", r"one frame per `--min-gap-us` \((\d+) by default\)",
         lambda: (str(DEFAULT_MIN_GAP_US),)),
    Fact("docs/capture.md", r"\(default (\d+) us: at most (\d+) copies/s\)",
         lambda: (str(DEFAULT_MIN_GAP_US), g(1e6 / DEFAULT_MIN_GAP_US))),
    Fact("docs/dataplane.md", r"The first (\d+) bytes of the innermost",
         lambda: (str(TESTER_HEADER_BYTES),)),
    Fact("docs/dataplane.md", r"UDP destination port `(0x[0-9a-f]+)`",
         lambda: (f"{TESTER_UDP_DST_PORT:#06x}",)),
    Fact("docs/dataplane.md", r"\| signature \| `(0x[0-9a-f]+)` \(\"P4\"\)",
         lambda: (f"{TESTER_SIGNATURE:#06x}",)),
    Fact("docs/dataplane.md", r"the trial epoch \(trial index mod (\d+)\)",
         lambda: (str(EPOCHS),)),
    Fact("docs/dataplane.md", r"\| 0\.\.(\d+) on BMv2 \(`MAX_STREAMS`\)",
         lambda: (str(MAX_STREAMS - 1),)),
    Fact("docs/dataplane.md", r"Run and epoch together \((\d+) bits\)",
         lambda: (str((RUN_VALUES * EPOCHS).bit_length() - 1),)),
    Fact("docs/dataplane.md", r"64 - 4 FCS - 14 Ethernet - 20 IPv4 - 8 UDP = (\d+)",
         lambda: (str(TESTER_HEADER_BYTES),)),
    Fact("docs/encapsulations.md", r"the (\d+)-byte tester header",
         lambda: (str(TESTER_HEADER_BYTES),)),
    Fact("docs/capture.md", r"the (\d+)-byte tester header", lambda: (str(TESTER_HEADER_BYTES),)),
    Fact("docs/otg.md", r"tester's (\d+)-byte header", lambda: (str(TESTER_HEADER_BYTES),)),
    Fact("docs/capacity.md", r"times ([\d.]+) is more than", lambda: (g(CAPACITY_MARGIN),)),
    Fact("docs/capacity.md", r"gets up to (\d+) trials, .{0,100}? less than (\d+) % of it",
         lambda: (str(TESTER_LIMITED_ATTEMPTS), g(100 * GROSS_SHORTFALL))),
    Fact("docs/concepts.md", r"re-read every ([\d.]+) s, for at most ([\d.]+) s",
         lambda: (g(IDLE_READ_S), g(IDLE_MAX_S))),
    Fact("docs/concepts.md", r"still catching up after ([\d.]+) s", lambda: (g(IDLE_MAX_S),)),
    Fact("docs/concepts.md", r"`trial:`, ([\d.]+) s by default; .{0,120}? re-reading every "
         r"([\d.]+) s for at most `settle_max_s` \(([\d.]+) s by default\)",
         lambda: (g(TrialConfig().settle_s), g(SETTLE_READ_S), g(TrialConfig().settle_max_s))),
    Fact("docs/concepts.md", r"within `relative_width` of each other \(([\d.]+) by default\)",
         lambda: (g(SearchConfig().relative_width),)),
    Fact("docs/y1564.md", r"the run's `--frame-size` \((\d+) by default\)",
         lambda: (str(y1564_default('frame_size')),)),
    Fact("docs/y1564.md", r"\(`--performance-duration`, (\d+) s by default\)",
         lambda: (g(float(y1564_default('performance_duration_s'))),)),
    Fact("docs/y1564.md", r"`--steps ([\d,]+)`",
         lambda: (",".join(g(step) for step in y1564_default('cir_steps_pct')),)),
    Fact("docs/y1564.md", r"M = (\d+) % \(`DEFAULT_IR_TOLERANCE`\)",
         lambda: (g(DEFAULT_IR_TOLERANCE * 100),)),
    Fact("docs/y1564.md", r"CIR \+ ([\d.]+) x EIR \(([\d.]+) x CIR \+ EIR",
         lambda: (g(POLICING_OVERSHOOT),) * 2),
    Fact("docs/ebpf.md", r"`port_cache`, (\d+) cells by ifindex mod (\d+)",
         lambda: (str(PORT_CACHE_CELLS),) * 2),
    Fact("docs/encapsulations.md", r"`udp_src_port` of the `vxlan` / `gtpu` mapping "
         r"\(default (\d+)\)", lambda: (str(TUNNEL_UDP_SRC_PORT),)),
    Fact("docs/encapsulations.md", r"UDP to the tester's port (0x[0-9a-f]+) by default",
         lambda: (f"{TESTER_UDP_DST_PORT:#06x}",)),
    Fact("README.md", r"after (\d+) tries that frame size is not measured",
         lambda: (str(NOT_DRAINED_ATTEMPTS),)),
    Fact("docs/concepts.md", r"of its frames \(([\d.]+), that is ([\d.]+) %, by default\)",
         lambda: (g(SearchConfig().pdr_loss_ratio), g(SearchConfig().pdr_loss_ratio * 100))),
    Fact("README.md", r"at most ([\d.]+) % lost \(the profile's `pdr_loss_ratio`\)",
         lambda: (_profile_pdr("topologies/profiles/one-stream.yaml"),)),
    Fact("README.md", r"the profile's loss ratio \(([\d.]+) %\)",
         lambda: (_profile_pdr("topologies/profiles/one-stream.yaml"),)),
    Fact("docs/neighbors.md", r"to (\d+) ARP requests \(([\d.]+) s each\)",
         lambda: (str(REQUEST_TRIES), g(REPLY_WAIT_S))),
    Fact("docs/server.md", r"interval clamped to ([\d.]+)\.\.([\d.]+) s",
         lambda: (g(MIN_INTERVAL_S), g(MAX_INTERVAL_S))),
    Fact("docs/experiments.md", r"is run again, up to (\d+) times",
         lambda: (str(PROBE_ATTEMPTS),)),
    Fact("docs/experiments.md", r"at most (\d+) addresses \(`fdb_max_learned: (\d+)`\)",
         lambda: (_fdb_max_learned("topologies/bmv2-bridge-addresses.yaml"),) * 2),
    Fact("README.md", r"Exit codes: (\d+) ok, (\d+) some trials invalid, (\d+) bad input, "
         r"(\d+) switch unavailable, (\d+) interrupted",
         lambda: tuple(str(code) for code in (
             exit_codes.OK, exit_codes.INVALID_TRIALS, exit_codes.BAD_INPUT,
             exit_codes.SWITCH_UNAVAILABLE, exit_codes.INTERRUPTED))),
    Fact("README.md", r"\*\*Exit code (\d+)\*\*: the switch is unreachable",
         lambda: (str(exit_codes.SWITCH_UNAVAILABLE),)),
    # The labs the samples come from, as their topology files say.
    Fact("README.md", r"BMv2 DUT with a (\d+) frames/s bottleneck",
         lambda: (_bmv2_dut("queue_rate_pps"),)),
    Fact("docs/architecture.md", r"BMv2 DUT with a (\d+) frames/s bottleneck",
         lambda: (_bmv2_dut("queue_rate_pps"),)),
    Fact("README.md", r"a BMv2 DUT whose (\d+)-frame queue drains at (\d+) frames/s; "
         r"tester ports of (\d+) Mbit/s",
         lambda: (_bmv2_dut("queue_depth"), _bmv2_dut("queue_rate_pps"),
                  _port_rate(TOPOLOGY_BMV2_DUT))),
    Fact("docs/experiments.md", r"egress queue of (\d+) frames drained at (\d+) frames/s; "
         r"tester ports nominally (\d+) Mbit/s",
         lambda: (_bmv2_dut("queue_depth"), _bmv2_dut("queue_rate_pps"),
                  _port_rate(TOPOLOGY_BMV2_DUT))),
    Fact("docs/experiments.md", r"Exit codes: (\d+) ok, (\d+) some trials invalid, (\d+) bad "
         r"input, (\d+) switch unavailable, (\d+) interrupted",
         lambda: tuple(str(code) for code in (
             exit_codes.OK, exit_codes.INVALID_TRIALS, exit_codes.BAD_INPUT,
             exit_codes.SWITCH_UNAVAILABLE, exit_codes.INTERRUPTED))),
    Fact("docs/ebpf.md", r"ports at (\d+) Gbit/s, (\d+) trials of (\d+) s at each of "
         r"([\d ]+) and ([\d ]+) frames/s, (\d+) B\. The target is (\d+) of (\d+) trials "
         r"vouched for and within (\d+) %",
         lambda: (g(ebpf_sender.PORT_RATE_BPS / 1e9), str(ebpf_sender.TRIALS),
                  g(ebpf_sender.TRIAL_S),
                  *(f"{rate:,}".replace(",", " ") for rate in ebpf_sender.RATES_PPS),
                  str(ebpf_sender.FRAME_SIZE), str(ebpf_sender.TARGET_TRIALS),
                  str(ebpf_sender.TRIALS), g(ebpf_sender.WITHIN * 100))),
    # The simulation behind `serve --simulate` and `make bench-search`.
    Fact("README.md", r"the DUT forwards (\d+) % of line rate at 64 B, rising to line rate "
         r"from (\d+) B", lambda: (g(SMALLEST_CAPACITY * 100), str(FULL_CAPACITY_SIZE))),
    Fact("docs/capacity.md", r"MLRsearch needs ([\d.]+) trial-seconds .{0,60}? the RFC 2544 "
         r"binary search ([\d.]+)", bench_search_totals),
    Fact("docs/concepts.md", r"([\d.]+) trial-seconds for NDR \+ PDR .{0,40}? the binary "
         r"search ([\d.]+)", bench_search_totals),
    # The OTG conformance run: the count the end-to-end test asserts.
    Fact("README.md", r"udp, tcp and vxlan tests \(all (\d+) pass",
         lambda: (str(conformance_suite_size()),)),
    Fact("docs/otg.md", r"asserts all (\d+) tests pass", lambda: (str(conformance_suite_size()),)),
]


def folded(document: str) -> str:
    return " ".join((REPO / document).read_text().split())


@pytest.mark.parametrize("fact", FACTS, ids=str)
def test_a_stated_number_is_the_codes(fact: Fact) -> None:
    found = [match.groups() for match in re.finditer(fact.pattern, folded(fact.document))]
    assert found, f"{fact}: no longer stated; update or remove this check"
    expected = fact.expected()
    for groups in found:
        assert groups == expected, f"{fact.document} says {groups}, the code {expected}"


def test_the_otg_breakdown_adds_up_to_the_suite() -> None:
    match = re.search(r"\(udp (\d+), tcp (\d+), vxlan (\d+):", folded("docs/otg.md"))
    assert match
    assert sum(int(count) for count in match.groups()) == conformance_suite_size()


def test_documents_state_no_suite_sizes() -> None:
    """Suite sizes drift with every test added: the documents give none (`make test`
    prints them)."""
    size = re.compile(r"\b\d+ (?:unit |PTF |eBPF |e2e |end-to-end )?(?:tests|test cases)\b")
    found = []
    for path in [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]:
        if path.name in ("tofino.md", "configuration.md"):
            continue
        text = " ".join(path.read_text().split())
        found += [f"{path.name}: {match.group(0)}" for match in size.finditer(text)
                  if not text[match.end():match.end() + 5].startswith(" pass")]
    assert found == []
