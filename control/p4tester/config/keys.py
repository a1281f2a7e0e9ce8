"""The keys of the files users write, one table per section: what the loaders accept
(their `require_keys` calls take the required and optional keys from here) and what
docs/configuration.md lists (`python -m p4tester.config.reference` writes it from
these tables).

A key's `default` is REQUIRED, a text as users would write it, or FROM_LOADER: the
default of the loader's own dataclass field of that name (config.reference looks it
up, so the reference shows what the loader really does). This module imports none of
the loaders: they import it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

REQUIRED: Final = "required"
FROM_LOADER: Final = ""


@dataclass(frozen=True, slots=True)
class Key:
    """One key: its name as written, its type as users write it, its default
    (REQUIRED, FROM_LOADER or a text), its unit, what it does, and an example value."""

    name: str
    type: str
    description: str
    example: str
    default: str = FROM_LOADER
    unit: str = ""

    @property
    def required(self) -> bool:
        return self.default == REQUIRED


@dataclass(frozen=True, slots=True)
class Section:
    """A mapping of a file: `path` is where it sits, as users write it (e.g.
    `ports.<N>`); its keys in the order the loader checks the required ones."""

    id: str
    file: str
    path: str
    intro: str
    keys: tuple[Key, ...]

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(key.name for key in self.keys)

    @property
    def required(self) -> tuple[str, ...]:
        return tuple(key.name for key in self.keys if key.required)

    @property
    def optional(self) -> tuple[str, ...]:
        return tuple(key.name for key in self.keys if not key.required)

    def key(self, name: str) -> Key:
        return next(key for key in self.keys if key.name == name)


TOPOLOGY_FILE: Final = "topology"
PROFILE_FILE: Final = "profile"
TUTORIALS_FILE: Final = "tutorials"
P4APP_FILE: Final = "p4app"
# The file types, in the order the reference describes them: (id, title, what it is).
FILES: Final = (
    (TOPOLOGY_FILE, "Topology files",
     "A topology (YAML) describes what is cabled: the tester switch, its ports and their "
     "line rates, the device under test (DUT) and, for a Mininet lab, the network. Give "
     "it with `-t` / `--topology`."),
    (PROFILE_FILE, "Profile files",
     "A profile (YAML) says what to send and how trials run: the streams, the trial "
     "timing, the frame sizes, the latency bins, the search and the Y.1564 services. "
     "Give it with `-p` / `--profile`."),
    (TUTORIALS_FILE, "p4lang/tutorials topology.json",
     "A Mininet lab reads an exercise's `topology.json` of the p4lang/tutorials "
     "repository (`network: {tutorials: <file>}` in the topology). Only the keys below "
     "are read; others are ignored."),
    (P4APP_FILE, "p4-utils p4app.json",
     "A Mininet lab reads a p4-utils `p4app.json` (`network: {p4app: <file>}` in the "
     "topology). Only the keys below are read; other keys of the file and of its "
     "`topology` object are ignored."),
)

# --- topology ---------------------------------------------------------------------

TOPOLOGY: Final = Section("topology", TOPOLOGY_FILE, "(top level)", "", (
    Key("name", "text", "The topology's name, shown in results.", "loopback",
        default=REQUIRED),
    Key("switch", "mapping", "The tester switch: how to reach it and its program "
        "(see `switch`).", "{target: bmv2, grpc: 127.0.0.1:9559}",
        default="all defaults"),
    Key("ports", "mapping", "The tester's ports: port number (0..255) -> its settings "
        "(see `ports.<N>`).", "{1: {line_rate: 10Mbps, peer: \"dut:1\"}}",
        default=REQUIRED),
    Key("dut", "mapping", "The device under test (see `dut`).", "{kind: linux}",
        default="{kind: loopback}"),
    Key("lab", "veth | mininet", "How a lab is built: veth pairs between the tester "
        "and a DUT in a namespace, or a Mininet network (`network`).", "mininet"),
    Key("network", "mapping", "lab: mininet only: the network's nodes and links, or "
        "another project's network file (see `network`).",
        "{tutorials: tutorials/basic/topology.json}", default="none"),
    Key("link_mtu", "integer", "lab: veth only: the MTU of every link the lab makes, "
        "1280..9500. The links carry frames up to the MTU + 22 bytes (header, one VLAN "
        "tag, FCS); a larger MTU shrinks BMv2's receive ring.", "9500", unit="bytes"),
    Key("testers", "mapping", "Several tester switches instead of one `switch`: name -> "
        "its switch settings (see `testers.<name>`); each port says which it belongs to "
        "(`tester`). A stream may leave one tester and be received on another.",
        "{west: {target: ebpf}, east: {target: ebpf}}", default="none (one `switch`)"),
    Key("asymmetry_us", "number", "With `testers`: how much the forward and reverse "
        "delays between two testers may differ, at most. A one-way delay is off by up "
        "to half of it (the clocks' offset is measured over both directions).", "20",
        default="0", unit="microseconds"),
))

_BESIDE: Final = (" A relative path is taken from the topology file's directory when "
                  "the file is there, else from the working directory.")

SWITCH: Final = Section("topology.switch", TOPOLOGY_FILE, "switch",
                        "The tester switch and the program it runs.", (
    Key("grpc", "host:port", "The switch's P4Runtime (BMv2, eBPF) or BfRt (Tofino: "
        "bf_switchd's port 50052) server.", "127.0.0.1:9559"),
    Key("thrift_port", "integer", "BMv2's thrift port (queue rates and other settings "
        "P4Runtime does not reach).", "9090"),
    Key("device_id", "integer", "The P4Runtime device id.", "0"),
    Key("target", "bmv2 | tofino | ebpf", "The tester's target.", "tofino"),
    Key("chip", "tofino1 | tofino2", "target tofino only: the switch's chip, which "
        "decides the packet generator's tables (tf1.pktgen / tf2.pktgen), its ports and "
        "clock, and the port speeds (Tofino 2: 400G cages, also as 2x200G, 4x100G or "
        "8x50G channels).", "tofino2", default="tofino1"),
    Key("p4info", "path", "The tester program's P4Info." + _BESIDE,
        "build/tester.p4info.txt",
        default="the shipped program's (p4src/build/tester.p4info.txt in a checkout)"),
    Key("bmv2_json", "path", "The tester program compiled for BMv2." + _BESIDE,
        "build/tester.json",
        default="the shipped program's (p4src/build/tester.json in a checkout)"),
    Key("ebpf_object", "path", "target ebpf: the object `make build-ebpf` compiles."
        + _BESIDE, "build/ebpf/tester.o"),
    Key("timeout_s", "number", "How long connecting to the switch, and each call to it, "
        "may take.", "30", unit="seconds"),
))

PORT: Final = Section("topology.port", TOPOLOGY_FILE, "ports.<N>",
                      "A tester port, under its port number N (0..255).", (
    Key("line_rate", "bit rate", "The port's nominal line rate: what 100 % load means "
        "for it (L1 bits: preamble and gap included).", "10Gbps", default=REQUIRED,
        unit="bit/s"),
    Key("peer", "text", "What the port is cabled to: `dut:N` (port N of the DUT), "
        "another tester port's number, or in a Mininet lab a network node as `node:port` "
        "(or a host with one link, whose place the port takes).", "\"dut:1\""),
    Key("front_panel", "text", "target tofino only, and required there: the switch's "
        "name of the port, `<connector>/<channel>`, each once.", "\"1/0\""),
    Key("interface", "text", "target ebpf only: the host interface the port is "
        "(1-15 characters); default: the lab's interface for the port.", "enp1s0f0"),
    Key("tester", "text", "With `testers`, and required there: the tester the port "
        "belongs to.", "west", default="none"),
))

TESTER: Final = Section(
    "topology.tester", TOPOLOGY_FILE, "testers.<name>",
    "One tester of several: the keys of `switch`, where its agent is, and a simulated "
    "clock for tests on one host.", (
        Key("agent", "host:port", "Targets ebpf and bmv2: the tester's host runs "
            "`p4tester otg` there, its agent; the controller drives the tester through it "
            "(a BMv2 tester's grpc and thrift_port are then as that host reaches them). "
            "Without it the tester runs on the controller's host.", "192.0.2.20:8443",
            default="none (this host)"),
        Key("token_file", "path", "With `agent` off loopback: a file whose first line is "
            "the token the agent was given (its `--token-file`).",
            "/etc/p4tester/east.token", default="none"),
        Key("tls_ca", "path", "With `agent`: speak HTTPS to it, checking its certificate "
            "(its `--tls-cert`) against this one or its CA (PEM); the agent's "
            "address must be a name or address the certificate holds.",
            "/etc/p4tester/agents-ca.pem", default="none (plain HTTP)"),
        Key("ptp_uds", "path", "Where ptp4l on the tester's host answers management "
            "requests (its `uds_address`): each trial reads its port state, grandmaster "
            "and offset from master there and records them beside the offset the probes "
            "measured. A host without ptp4l is recorded as such.", "/var/run/ptp4l",
            default="/var/run/ptp4l"),
        Key("simulated_clock", "mapping", "targets ebpf and bmv2 (whole us), for tests: the "
            "tester's timestamps run this far ahead of the host's clock and gain on it, as a "
            "second host's clock would (see `testers.<name>.simulated_clock`).",
            "{offset_us: 1500, drift_ppm: 15.2587890625}", default="none"),
    ))

SIMULATED_CLOCK: Final = Section(
    "topology.tester.simulated_clock", TOPOLOGY_FILE, "testers.<name>.simulated_clock",
    "A tester's clock made to differ from the host's, so that a test on one host checks "
    "the offset the testers measure against the one it set.", (
        Key("offset_us", "number", "How far the tester's clock is ahead of the host's "
            "(negative: behind), when the run starts.", "1500", default="0",
            unit="microseconds"),
        Key("drift_ppm", "number", "How fast it gains on the host's clock: 0, or "
            "1 000 000 / 2^k for k in 1..31 (the program adds the clock shifted right by "
            "k), e.g. 15.2587890625 (k = 16) or 30.517578125 (k = 15).", "15.2587890625",
            default="0", unit="ppm"),
    ))

PORT_ADDRESSES: Final = Section(
    "topology.port.addresses", TOPOLOGY_FILE, "ports.<N> (addresses)",
    "A port facing a router may carry its own addresses and its gateway's, in the "
    "same mapping as `line_rate`: the tester answers ARP and Neighbor Solicitations "
    "for them, and a stream with `dst_mac: resolve` asks the gateway for its MAC "
    "before its trials. Any of these keys needs `mac` and `ipv4` or `ipv6`.", (
        Key("mac", "MAC", "The port's own unicast MAC, the one the tester answers with.",
            "\"02:00:00:00:00:01\"", default="none (required with any address key)"),
        Key("ipv4", "address/prefix", "The port's IPv4 address with its prefix length.",
            "192.0.2.1/24"),
        Key("ipv6", "address/prefix", "The port's IPv6 address with its prefix length.",
            "\"2001:db8::1/64\""),
        Key("gateway4", "IPv4 address", "The DUT's IPv4 address on this link (inside "
            "`ipv4`'s subnet): the next hop `dst_mac: resolve` asks for.",
            "192.0.2.254"),
        Key("gateway6", "IPv6 address", "The DUT's IPv6 address on this link (inside "
            "`ipv6`'s subnet).", "\"2001:db8::254\""),
        Key("vlan", "integer", "The 802.1Q VLAN id (1..4094) the port's ARP / ND frames "
            "carry; none: untagged.", "10"),
        Key("announce", "true | false", "Send a gratuitous ARP / unsolicited Neighbor "
            "Advertisement for the port's addresses when a session opens.", "true"),
    ))

DUT: Final = Section(
    "topology.dut", TOPOLOGY_FILE, "dut",
    "The device under test. `kind` says what it is; the other keys are settings of "
    "that kind (below), written as plain values; the loader keeps them as text.", (
        Key("kind", "loopback | bmv2 | linux | bridge | external", "loopback: tester "
            "ports cabled to each other; bmv2: the reference P4 DUT on its own BMv2; "
            "linux: a Linux router in a namespace; bridge: a Linux bridge (a learning "
            "switch); external: a device the lab does not build (in a Mininet lab: the "
            "network itself).", "linux", default=REQUIRED),
    ))

DUT_BMV2: Final = Section(
    "topology.dut.bmv2", TOPOLOGY_FILE, "dut (kind: bmv2)",
    "The reference P4 DUT (p4src/dut) on its own BMv2 switch. The impairment settings "
    "take one value for every ingress port, or one per port as `\"port:value,...\"` "
    "(ports not named: 0).", (
        Key("forward", "text", "Its forwarding, as `in:out,...` DUT port pairs.",
            "\"1:2,2:1\"", default=REQUIRED),
        Key("grpc", "host:port", "The DUT switch's P4Runtime server.",
            "127.0.0.1:9560", default="127.0.0.1:9560"),
        Key("thrift_port", "integer", "The DUT switch's thrift port.", "9091",
            default="9091"),
        Key("queue_rate_pps", "integer", "The egress queue rate of every port it "
            "forwards to: a known bottleneck.", "2000", default="none (unpaced)",
            unit="frames/s"),
        Key("queue_rates_pps", "text", "Egress queue rates per port, `port:rate,...`, "
            "over `queue_rate_pps`.", "\"2:222,4:88\"", default="none", unit="frames/s"),
        Key("queue_depth", "integer", "The egress queue depth of every port it forwards "
            "to: a known buffer.", "64", default="BMv2's default", unit="frames"),
        Key("drop_every", "integer or per-port text", "Drop every Nth tester frame "
            "(0: never).", "50", default="0", unit="frames"),
        Key("reorder_every", "integer or per-port text", "Hold every Nth tester frame "
            "back behind the next one (0: never; 2 or more).", "10", default="0",
            unit="frames"),
        Key("duplicate_every", "integer or per-port text", "Send every Nth tester frame "
            "twice (0: never).", "\"1:10,2:0\"", default="0", unit="frames"),
        Key("delay_us", "integer or per-port text", "Delay the tester frames it "
            "forwards by this fixed time (0: none).", "500", default="0", unit="microseconds"),
        Key("mpls_push", "text", "MPLS edge: `port:label,...`: IP frames arriving on "
            "the port get that label (0..1048575).", "\"1:1000\"", default="none"),
        Key("mpls_pop", "text", "MPLS edge: `port,...`: frames arriving on the port "
            "lose their one label.", "\"3\"", default="none"),
    ))

DUT_LINUX: Final = Section(
    "topology.dut.linux", TOPOLOGY_FILE, "dut (kind: linux)",
    "A Linux router in a network namespace (in a Mininet lab: Mininet host `dut`). It "
    "routes 192.0.2.0/24 <-> 198.51.100.0/24, the streams' default addresses, and "
    "decrements TTL.", (
        Key("ingress", "integer", "The DUT port the test traffic enters by (cabled to a "
            "tester TX port).", "1", default="1"),
        Key("egress", "integer", "The DUT port it leaves by (cabled to a tester RX "
            "port); the one `qdisc` shapes.", "2", default="2"),
        Key("qdisc", "text", "A tc qdisc on the egress port (a rate in it is the DUT's "
            "known limit).", "\"tbf rate 1mbit burst 1600 limit 600\"", default="none"),
        Key("neighbours", "static | dynamic", "static: static neighbour entries for "
            "the tester, IPv4 only, the router's ingress port at 02:00:00:00:00:02 and "
            "its egress port at 02:00:00:00:00:04 (the streams' next hops each way); "
            "dynamic (lab: veth only): the router resolves the "
            "tester by ARP and ND, IPv4 and IPv6, its port addresses being the tester "
            "ports' gateway4 / gateway6.", "dynamic", default="static"),
        Key("ecmp", "text", "lab: veth, static neighbours only: route the streams "
            "over several egress ports, `port[:weight],...` (two or more; weights "
            "1..256), by an L4 hash. The ports must be cabled to tester ports.",
            "\"2:1,3:3\"", default="none"),
        Key("ecmp_hash", "l4 | l3", "What the `ecmp` route hashes: l4 the addresses, "
            "protocol and L4 ports; l3 the source and destination addresses only (a "
            "stream spreads only if its addresses vary).", "l3", default="l4"),
        Key("vxlan_vni", "integer", "Static neighbours only: also a VxLAN end point on "
            "the ingress port; frames of this VNI to its address (UDP 4789) are "
            "decapsulated and routed like the rest.", "42", default="none"),
    ))

DUT_BRIDGE: Final = Section(
    "topology.dut.bridge", TOPOLOGY_FILE, "dut (kind: bridge)",
    "A Linux bridge (a learning switch) in a namespace, lab: veth only; every DUT port "
    "a tester port is cabled to (two or more) is one of its ports.", (
        Key("egress", "integer", "The bridge port `qdisc` shapes (a cabled port).", "2",
            default="2"),
        Key("qdisc", "text", "A tc qdisc on the `egress` port.",
            "\"tbf rate 10mbit burst 3000 limit 6000\"", default="none"),
        Key("qdisc_<N>", "text", "A tc qdisc on bridge port N's egress (any number of "
            "ports).", "\"tbf rate 2mbit burst 3000 limit 6000\"", default="none"),
        Key("input_queue_<N>", "text", "One input FIFO (a tc qdisc) every frame "
            "arriving on bridge port N waits in before the bridge sees it: head-of-line "
            "blocking.", "\"tbf rate 2mbit burst 3000 limit 6000\"", default="none"),
        Key("fdb_max_learned", "integer", "The most addresses the bridge learns (its "
            "address cache; Linux 6.8 or later); frames to addresses it did not learn are "
            "flooded.", "100",
            default="no limit", unit="addresses"),
        Key("ageing_s", "number", "How long an address not seen stays learnt.", "3",
            default="300", unit="seconds"),
    ))

# --- network (lab: mininet) ---------------------------------------------------------

NETWORK: Final = Section(
    "topology.network", TOPOLOGY_FILE, "network",
    "lab: mininet: the network, given in the topology as nodes and links. Instead, "
    "`network` may name another project's file (the next two tables). Relative paths "
    "start at the topology file's directory.", (
        Key("nodes", "mapping", "Node name (1-8 lower-case letters or digits, starting "
            "with a letter; not `tester` or `dut`) -> the node (see `network.nodes.<name>`).",
            "{h1: {kind: host}}", default=REQUIRED),
        Key("links", "list", "The links (see `network.links[]`).",
            "[{a: \"h1:0\", b: \"s1:1\"}]", default="none"),
    ))

NETWORK_TUTORIALS: Final = Section(
    "topology.network.tutorials", TOPOLOGY_FILE, "network (tutorials file)",
    "The network of a p4lang/tutorials exercise: the only key.", (
        Key("tutorials", "path", "Its `topology.json` (see the p4lang/tutorials "
            "section).", "tutorials/basic/topology.json", default=REQUIRED),
    ))

NETWORK_P4APP: Final = Section(
    "topology.network.p4app", TOPOLOGY_FILE, "network (p4app file)",
    "The network of a p4-utils project: the only key.", (
        Key("p4app", "path", "Its `p4app.json` (see the p4-utils section).",
            "tutorials/p4utils-line/p4app.json", default=REQUIRED),
    ))


def _node_kind(example: str) -> Key:
    return Key("kind", "host | router | bridge | bmv2", "What the node is.", example,
               default=REQUIRED)

NODE_HOST: Final = Section(
    "topology.network.node.host", TOPOLOGY_FILE, "network.nodes.<name> (kind: host, router)",
    "A host or a router: a Linux namespace; its port N is interface <name>-eth<N>.", (
        _node_kind("router"),
        Key("interfaces", "mapping", "Port number (0..255) -> its addresses (see "
            "`interfaces.<N>`).", "{0: {ip: 10.0.1.1/24}}", default="none"),
        Key("commands", "list of text", "Shell commands run in the node once the links "
            "are up.", "[\"ip route add default via 10.0.1.254\"]", default="none"),
    ))

NODE_BRIDGE: Final = Section(
    "topology.network.node.bridge", TOPOLOGY_FILE, "network.nodes.<name> (kind: bridge)",
    "A Linux bridge: `kind` is its only key.", (_node_kind("bridge"),))

NODE_BMV2: Final = Section(
    "topology.network.node.bmv2", TOPOLOGY_FILE, "network.nodes.<name> (kind: bmv2)",
    "A BMv2 switch running a P4 program: give `runtime`, or `p4info` and `bmv2_json`. "
    "Its port N is BMv2 port N.", (
        _node_kind("bmv2"),
        Key("p4info", "path", "The program's P4Info.", "build/basic.p4info.txt"),
        Key("bmv2_json", "path", "The program compiled for BMv2.", "build/basic.json"),
        Key("runtime", "path", "A p4lang/tutorials runtime JSON: the program it names "
            "and the table entries written over P4Runtime.", "s1-runtime.json"),
        Key("cli", "path", "simple_switch_CLI commands run over thrift after the "
            "entries.", "s1-commands.txt"),
        Key("grpc_port", "integer", "Its P4Runtime port; 0: picked by the lab.", "59601"),
        Key("thrift_port", "integer", "Its thrift port; 0: picked by the lab.", "9092"),
        Key("device_id", "integer", "Its P4Runtime device id.", "1"),
    ))

# A node's keys by its kind.
NODE_SECTIONS: Final = {"host": NODE_HOST, "router": NODE_HOST, "bridge": NODE_BRIDGE,
                        "bmv2": NODE_BMV2}

INTERFACE: Final = Section(
    "topology.network.node.interface", TOPOLOGY_FILE,
    "network.nodes.<name>.interfaces.<N>", "A host's or router's port N.", (
        Key("ip", "address/prefix", "Its IPv4 address with the prefix length.",
            "10.0.1.1/24"),
        Key("mac", "MAC", "Its MAC; default: the kernel's.", "\"08:00:00:00:01:11\""),
    ))

LINK: Final = Section(
    "topology.network.link", TOPOLOGY_FILE, "network.links[]", "A link between two "
    "node ports.", (
        Key("a", "node:port", "One end.", "\"h1:0\"", default=REQUIRED),
        Key("b", "node:port", "The other end.", "\"s1:1\"", default=REQUIRED),
        Key("bw_mbps", "number", "Its bandwidth; 0: no limit.", "10", unit="Mbit/s"),
    ))

# --- profile ------------------------------------------------------------------------

PROFILE: Final = Section("profile", PROFILE_FILE, "(top level)", "", (
    Key("name", "text", "The profile's name, shown in results.", "two-streams",
        default=REQUIRED),
    Key("streams", "list", "The streams (see `streams[]`); at least one.",
        "[{id: 0, tx_port: 1, rx_port: 2}]", default=REQUIRED),
    Key("trial", "mapping", "How trials run (see `trial`).", "{duration_s: 5}",
        default="all defaults"),
    Key("frame_sizes", "list of integers", "The frame sizes (FCS included) "
        "experiments sweep.", "[64, 512, 1518]", unit="bytes"),
    Key("latency_bins_us", "list of integers, or {log_high_us: N}", "The latency "
        "histogram's bin edges, increasing; or log-spaced edges up to `log_high_us`.",
        "[0, 10, 20, 50, 100, 200, 500, 1000]",
        default="log-spaced edges up to 1 s", unit="microseconds"),
    Key("search", "mapping", "How throughput is searched for (see `search`).",
        "{method: binary}", default="all defaults"),
    Key("services", "list", "ITU-T Y.1564 services (see `services[]`).",
        "[{name: voice, stream: 0, cir: 2Mbps, sla: {ftd_ms: 10, fdv_ms: 2, flr: 0.001}}]",
        default="none"),
))

LATENCY_BINS: Final = Section(
    "profile.latency_bins_us", PROFILE_FILE, "latency_bins_us (mapping)",
    "Log-spaced bin edges instead of a list: the only key.", (
        Key("log_high_us", "integer", "The highest edge.", "100000", default=REQUIRED,
            unit="microseconds"),
    ))

TRIAL: Final = Section("profile.trial", PROFILE_FILE, "trial", "How each trial runs.", (
    Key("duration_s", "number", "How long a trial sends (> 0).", "5", unit="seconds"),
    Key("drain_s", "number", "How long to wait after sending for the last frames "
        "(>= 0).", "1", unit="seconds"),
    Key("initial_duration_s", "number", "MLRsearch's short early trials (> 0).", "0.5",
        unit="seconds"),
    Key("settle_s", "number", "Before each trial, how long no frame of an earlier trial "
        "may have arrived (RFC 2544: 2 s); 0..settle_max_s.", "1", unit="seconds"),
    Key("settle_max_s", "number", "The longest wait for `settle_s`.", "60",
        unit="seconds"),
    Key("reference_pps", "integer", "BMv2: the rate of the stream looped inside the "
        "tester during latency trials, to measure the tester's own latency; 0..1000, "
        "0: none.", "0", unit="frames/s"),
    Key("frames_per_pass", "integer", "BMv2: the TX frames one pass of a stream's "
        "generator loop makes at 1000 frames/s or more; 1..64.", "1", unit="frames"),
))

SEARCH: Final = Section("profile.search", PROFILE_FILE, "search",
                        "How a throughput search runs.", (
    Key("method", "mlrsearch | binary", "MLRsearch, or RFC 2544's binary search.",
        "binary"),
    Key("pdr_loss_ratio", "number", "The loss ratio the partial drop rate (PDR) allows, "
        "in [0, 1).", "0.001", unit="ratio"),
    Key("relative_width", "number", "How close the search's bounds must come, as a "
        "share of the upper bound, in (0, 1).", "0.01", unit="ratio"),
))

STREAM: Final = Section(
    "profile.stream", PROFILE_FILE, "streams[]",
    "A stream. A plain entry needs `id`, `tx_port` and `rx_port`; a `mesh` entry needs "
    "`mesh` and `id`; an `addresses` entry needs `addresses`, `between` and `id`. A mesh "
    "or addresses entry sets the ports, addresses and L4 source port of the streams it "
    "stands for; its other keys apply to each of them.", (
        Key("id", "integer", "The stream's id, 0..63, each once (a mesh, imix or "
            "addresses entry: the first of its streams' ids).", "0",
            default="required"),
        Key("tx_port", "integer", "The tester port it is sent from.", "1",
            default="required (plain entry)"),
        Key("rx_port", "integer or list", "The tester port it comes back on, or several "
            "(then give `receive`).", "[2, 3]", default="required (plain entry)"),
        Key("receive", "replicate | spread", "With several RX ports: replicate (every "
            "port gets every frame: multicast) or spread (each frame once, on any of "
            "them: ECMP, LAG).", "spread", default="none"),
        Key("share", "number", "The part of its TX port's load it carries, in (0, 1]: at "
            "load L it sends L x share x the port's line rate. The shares of a port "
            "sum to at most 1.", "0.5", unit="ratio"),
        Key("src_mac", "MAC", "Its source MAC.", "\"02:00:00:00:00:01\""),
        Key("dst_mac", "MAC or resolve", "Its destination MAC; `resolve`: the TX port's "
            "gateway's, asked by ARP (IPv4) or ND (IPv6) before the trials.", "resolve"),
        Key("src_ip", "IPv4 address", "Its IPv4 source.", "192.0.2.1"),
        Key("dst_ip", "IPv4 address", "Its IPv4 destination.", "198.51.100.1"),
        Key("src_ip6", "IPv6 address", "Its IPv6 source (`ipv6: true`).", "\"2001:db8::1\""),
        Key("dst_ip6", "IPv6 address", "Its IPv6 destination (`ipv6: true`).",
            "\"2001:db8:1::1\""),
        Key("udp_src_port", "integer", "Its L4 (UDP or TCP) source port.", "50000"),
        Key("l4_dst_port", "integer", "Its L4 destination port.", "4791",
            default="the tester's port 20564 (0x5054)"),
        Key("ttl", "integer", "IPv4 TTL / IPv6 hop limit.", "1"),
        Key("dscp", "integer", "DSCP (0..63): the upper 6 bits of the IPv4 TOS / IPv6 "
            "traffic class.", "46"),
        Key("flow_label", "integer", "IPv6 flow label.", "12345"),
        Key("tcp_flags", "text", "A TCP stream's flags as letters of FSRPAUECN (A: ACK, "
            "S: SYN, PA: PSH+ACK).", "S", default="A"),
        Key("tcp_seq", "integer", "A TCP stream's sequence number (0..4294967295; "
            "`vary: {tcp_seq: ...}` steps it).", "1000", default="0"),
        Key("tcp_ack", "integer", "A TCP stream's acknowledgment number.", "1",
            default="0"),
        Key("vlan_id", "integer", "An 802.1Q tag with this VLAN id (0..4095); none: "
            "untagged.", "10"),
        Key("outer_vlan_id", "integer", "An outer tag (QinQ) with this VLAN id; needs "
            "`vlan_id`, the inner tag.", "100"),
        Key("mpls_labels", "list of integers", "MPLS labels (up to 4, each "
            "0..1048575), outermost first.", "[16, 17]"),
        Key("ipv6", "true | false", "IPv6 instead of IPv4.", "true"),
        Key("l4", "udp | tcp", "The L4 header.", "tcp"),
        Key("tunnel", "mapping", "An outer tunnel (see `tunnel`).",
            "{vxlan: {vni: 42, src_ip: 10.0.0.1, dst_ip: 10.0.0.2}}", default="none"),
        Key("vary", "mapping", "Fields that change from frame to frame (see `vary`).",
            "{src_port: {start: 5000, count: 10}}", default="none"),
        Key("frame_size", "integer", "A size of its own, which it keeps whatever the "
            "trial's frame size.", "256", default="the trial's", unit="bytes"),
        Key("imix", "simple or {size: weight}", "A mix of frame sizes: one stream per "
            "size, ids from `id` up, sharing the entry's `share` by wire bandwidth so "
            "that the frame counts keep the weights; no `frame_size`, no `mesh`.",
            "{64: 7, 576: 4, 1518: 1}", default="none"),
        Key("mesh", "list of integers", "One stream for every ordered pair of these "
            "ports (two or more, 1..254), ids from `id` up; each port's streams split "
            "the entry's `share` evenly. Each port sends from its own MAC and IPv4 "
            "address.", "[1, 2, 3, 4]", default="none"),
        Key("addresses", "integer", "RFC 2889 address learning: two streams between "
            "the `between` ports, the first from N source MACs, the second back to them "
            "(ids `id` and `id`+1); at most 2048.", "1000", default="none",
            unit="addresses"),
        Key("between", "[port, port]", "With `addresses`: the learning port and the "
            "test port, two different ports.", "[1, 2]", default="none"),
    ))

# The keys each form of a stream entry needs, in the order their absence is reported.
PLAIN_STREAM_REQUIRED: Final = ("id", "tx_port", "rx_port")
MESH_STREAM_REQUIRED: Final = ("mesh", "id")
ADDRESSES_STREAM_REQUIRED: Final = ("addresses", "between", "id")

TUNNEL: Final = Section(
    "profile.stream.tunnel", PROFILE_FILE, "streams[].tunnel",
    "One of these keys: the tunnel the stream's frames are carried in.", (
        Key("vxlan", "mapping", "A VxLAN tunnel (see `tunnel.vxlan`).",
            "{vni: 42, src_ip: 10.0.0.1, dst_ip: 10.0.0.2}", default="none"),
        Key("gtpu", "mapping", "A GTP-U tunnel (see `tunnel.gtpu`).",
            "{teid: 0x1234, src_ip: 10.0.0.1, dst_ip: 10.0.0.2}", default="none"),
        Key("srv6", "mapping", "An SRv6 segment routing header (see `tunnel.srv6`).",
            "{src_ip: \"2001:db8::a\", segments: [\"2001:db8::b\"]}", default="none"),
    ))

_OUTER_SRC: Final = Key("src_ip", "IP address", "The outer source address (IPv4 or "
                        "IPv6, as `dst_ip`).", "10.0.0.1", default=REQUIRED)
_OUTER_DST: Final = Key("dst_ip", "IP address", "The outer destination address.",
                        "10.0.0.2", default=REQUIRED)
_TUNNEL_UDP_SRC: Final = Key("udp_src_port", "integer", "The outer UDP source port.",
                             "49153")

VXLAN: Final = Section("profile.stream.tunnel.vxlan", PROFILE_FILE, "streams[].tunnel.vxlan",
                       "A VxLAN tunnel (UDP port 4789).", (
    Key("vni", "integer", "The VxLAN network identifier, 0..16777215.", "42",
        default=REQUIRED),
    _OUTER_SRC, _OUTER_DST,
    Key("inner_src_mac", "MAC", "The inner frame's source MAC.", "\"02:00:00:00:01:01\""),
    Key("inner_dst_mac", "MAC", "The inner frame's destination MAC.",
        "\"02:00:00:00:01:02\""),
    _TUNNEL_UDP_SRC,
))

GTPU: Final = Section("profile.stream.tunnel.gtpu", PROFILE_FILE, "streams[].tunnel.gtpu",
                      "A GTP-U tunnel (UDP port 2152).", (
    Key("teid", "integer", "The tunnel endpoint identifier, 32 bits.", "0x1234",
        default=REQUIRED),
    _OUTER_SRC, _OUTER_DST,
    Key("qfi", "integer", "A QoS flow identifier (0..63) in a PDU session container "
        "extension; none: no extension.", "9"),
    _TUNNEL_UDP_SRC,
))

SRV6: Final = Section("profile.stream.tunnel.srv6", PROFILE_FILE, "streams[].tunnel.srv6",
                      "An IPv6 segment routing header.", (
    Key("src_ip", "IPv6 address", "The outer IPv6 source.", "\"2001:db8::a\"",
        default=REQUIRED),
    Key("segments", "list of IPv6 addresses", "The segments (1 to 4), in the order "
        "they are visited.", "[\"2001:db8::b\", \"2001:db8::c\"]", default=REQUIRED),
))

# A tunnel's keys by its kind (TUNNEL's keys).
TUNNEL_SECTIONS: Final = {"vxlan": VXLAN, "gtpu": GTPU, "srv6": SRV6}

VARY: Final = Section(
    "profile.stream.vary", PROFILE_FILE, "streams[].vary",
    "The fields that change from frame to frame: each a list of values, a range "
    "(`{start, step, count}`) or random draws (`{random: ..., seed}`). Fields of "
    "different counts combine: the whole repeats after the least common multiple of "
    "their counts. Lists of ports, VNIs and MACs share the data plane's 4096 "
    "whole-frame entries (all streams together); the other fields and the ranges of "
    "ports keep their own pattern, up to 65 536 values and more. BMv2 only for now.", (
        Key("src_port", "list, range or random", "L4 source ports (0..65535).",
            "[5000, 5050, 5100]", default="none"),
        Key("dst_port", "list, range or random", "L4 destination ports (0..65535).",
            "{start: 6000, step: -2, count: 10}", default="none"),
        Key("src_ip", "list, range or random of IPv4 addresses", "IPv4 source addresses "
            "(untunnelled IPv4 streams); random: a prefix or [lowest, highest].",
            "{start: 10.0.0.1, count: 65536}", default="none"),
        Key("dst_ip", "list, range or random of IPv4 addresses", "IPv4 destination "
            "addresses.", "{random: 10.2.0.0/16, seed: 7}", default="none"),
        Key("src_ip6", "list, range or random of IPv6 addresses", "IPv6 source addresses "
            "(untunnelled IPv6 streams): their low 64 bits vary, all values in one /64.",
            "{start: \"2001:db8::1\", count: 1000}", default="none"),
        Key("dst_ip6", "list, range or random of IPv6 addresses", "IPv6 destination "
            "addresses.", "{random: \"2001:db8:1::/112\"}", default="none"),
        Key("dscp", "list, range or random", "DSCP (0..63) of the IPv4 or IPv6 header; "
            "ECN stays.", "[0, 10, 46]", default="none"),
        Key("vlan", "list, range or random", "The VLAN id (needs `vlan_id`).",
            "{start: 100, count: 10}", default="none"),
        Key("outer_vlan", "list, range or random", "The outer (QinQ) VLAN id (needs "
            "`outer_vlan_id`).", "[10, 20]", default="none"),
        Key("tcp_seq", "list, range or random", "TCP sequence numbers (TCP streams); a "
            "range wraps at 2^32 as TCP's does.", "{start: 1000, step: 46, count: 4294967296}",
            default="none"),
        Key("tcp_ack", "list, range or random", "TCP acknowledgment numbers.",
            "{start: 1, count: 1000}", default="none"),
        Key("vni", "list or range", "VxLAN VNIs (needs a `vxlan` tunnel).",
            "{start: 100, count: 4}", default="none"),
        Key("src_mac", "list or range of MACs", "Source MACs; a range's step is added "
            "to the 48-bit address.", "{start: \"02:89:01:00:00:00\", count: 1000}",
            default="none"),
        Key("dst_mac", "list or range of MACs", "Destination MACs.",
            "[\"02:00:00:00:00:02\", \"02:00:00:00:00:04\"]", default="none"),
    ))

VARY_RANGE: Final = Section(
    "profile.stream.vary.range", PROFILE_FILE, "streams[].vary.<field> (range)",
    "A range of values.", (
        Key("start", "integer, address or MAC", "The first value.", "5000",
            default=REQUIRED),
        Key("count", "integer", "How many values.", "10", default=REQUIRED),
        Key("step", "integer", "What is added from one value to the next (may be "
            "negative).", "2", default="1"),
    ))

VARY_RANDOM: Final = Section(
    "profile.stream.vary.random", PROFILE_FILE, "streams[].vary.<field> (random)",
    "A value drawn for each frame: the lowest value plus CRC-32 of the seed and the "
    "frame's sequence number, modulo the range's size. Each field draws on its own, "
    "and the draws can be recomputed from the frames' sequence numbers.", (
        Key("random", "prefix or [lowest, highest]", "The range: a prefix for "
            "addresses, or the lowest and highest value (at most 2^32 values).",
            "10.1.0.0/16", default=REQUIRED),
        Key("seed", "integer", "The draws' seed (0..4294967295); give streams different "
            "seeds for different draws.", "7", default="1"),
        Key("repeat", "integer", "The same draws again every this many frames (OTG's "
            "random `count`); never by default: each frame's sequence number is drawn on.",
            "1000", default="never"),
    ))

SERVICE: Final = Section(
    "profile.service", PROFILE_FILE, "services[]",
    "An ITU-T Y.1564 service: one of the profile's streams, received on one port, with "
    "a bandwidth profile and its acceptance criteria. Rates are information rates as "
    "MEF 10.3 counts them: L2 bits, from the destination MAC through the FCS (`l1:` "
    "rates are refused). Names and streams differ between services.", (
        Key("name", "text", "The service's name.", "voice", default=REQUIRED),
        Key("stream", "integer", "The id of the stream that carries it (its class of "
            "service: the stream's DSCP, VLAN).", "0", default=REQUIRED),
        Key("cir", "bit rate", "The committed information rate (> 0).", "2Mbps",
            default=REQUIRED, unit="bit/s (L2)"),
        Key("eir", "bit rate", "The excess information rate (0: none).", "1Mbps",
            default="0", unit="bit/s (L2)"),
        Key("sla", "mapping", "The service acceptance criteria (see `services[].sla`).",
            "{ftd_ms: 10, fdv_ms: 2, flr: 0.001}", default=REQUIRED),
    ))

SLA: Final = Section("profile.service.sla", PROFILE_FILE, "services[].sla",
                     "The most a service may show of each figure.", (
    Key("ftd_ms", "number", "Mean frame transfer delay.", "10", default=REQUIRED,
        unit="milliseconds"),
    Key("fdv_ms", "number", "Frame delay variation (the 99.9th percentile of the delay "
        "less its minimum).", "2", default=REQUIRED, unit="milliseconds"),
    Key("flr", "number", "Frame loss ratio, 0..1.", "0.001", default=REQUIRED,
        unit="ratio"),
    Key("availability_pct", "number", "The least share of the test's time the service "
        "must be available (over 1-s intervals), at most 100.", "99.99", unit="percent"),
))

# --- p4lang/tutorials topology.json ---------------------------------------------------

TUTORIALS: Final = Section("tutorials", TUTORIALS_FILE, "(top level)", "", (
    Key("hosts", "object", "Host name -> the host (see `hosts.<name>`); its one "
        "interface is eth0, port 0.", "{\"h1\": {\"ip\": \"10.0.1.1/24\"}}",
        default="none"),
    Key("switches", "object", "Switch name -> the BMv2 switch (see `switches.<name>`).",
        "{\"s1\": {\"runtime_json\": \"s1-runtime.json\"}}", default="none"),
    Key("links", "list", "Links: `[a, b]` or `[a, b, latency, bandwidth]`; an end is a "
        "host name or a switch port `s1-p3`; the latency must be 0 (e.g. \"0ms\"); the "
        "bandwidth in Mbit/s.", "[[\"h1\", \"s1-p1\"], [\"s1-p2\", \"s2-p2\", \"0ms\", 10]]",
        default="none"),
))

TUTORIALS_HOST: Final = Section("tutorials.host", TUTORIALS_FILE, "hosts.<name>",
                                "A host.", (
    Key("ip", "address/prefix", "Its IPv4 address with the prefix length.",
        "\"10.0.1.1/24\"", default="none"),
    Key("mac", "MAC", "Its MAC.", "\"08:00:00:00:01:11\"", default="the kernel's"),
    Key("commands", "list of text", "Shell commands run in the host once the links are "
        "up.", "[\"route add default gw 10.0.1.10 dev eth0\"]", default="none"),
))

TUTORIALS_SWITCH: Final = Section(
    "tutorials.switch", TUTORIALS_FILE, "switches.<name>",
    "A BMv2 switch: `runtime_json`, or `cli_input` and `program`. Paths start at the "
    "exercise directory (the file's directory or the one above it).", (
        Key("runtime_json", "path", "A runtime JSON naming the program (p4info, "
            "bmv2_json) and its table entries.", "\"pod-topo/s1-runtime.json\"",
            default="none"),
        Key("cli_input", "path", "simple_switch_CLI commands (after the runtime "
            "entries, if any).", "\"s1-commands.txt\"", default="none"),
        Key("program", "path", "With `cli_input` alone: the compiled BMv2 JSON.",
            "\"build/basic.json\"", default="none"),
    ))

# --- p4-utils p4app.json --------------------------------------------------------------

P4APP: Final = Section("p4app", P4APP_FILE, "(top level)", "", (
    Key("p4_src", "path", "Every switch's program: a .p4 (compiled when the lab comes "
        "up) or a compiled BMv2 .json.", "\"p4src/router.p4\"", default="none"),
    Key("topology", "object", "The network (see `topology`).",
        "{\"assignment_strategy\": \"manual\", ...}", default=REQUIRED),
))

P4APP_TOPOLOGY: Final = Section("p4app.topology", P4APP_FILE, "topology",
                                "The network.", (
    Key("assignment_strategy", "manual", "Only `manual` is read: each host's addresses "
        "as written.", "\"manual\"", default=REQUIRED),
    Key("default", "object", "Link defaults (see `topology.default`).", "{\"bw\": 10}",
        default="none"),
    Key("hosts", "object", "Host name -> the host (see `topology.hosts.<name>`).",
        "{\"h1\": {\"ip\": \"10.0.1.1/24\", \"gw\": \"10.0.1.254\"}}", default="none"),
    Key("switches", "object", "Switch name -> the BMv2 switch (see "
        "`topology.switches.<name>`).", "{\"s1\": {\"cli_input\": \"s1-commands.txt\"}}",
        default="none"),
    Key("links", "list", "Links: `[a, b]` or `[a, b, {options}]` (see "
        "`topology.links[] options`). A switch's ports are numbered from 1 in link order "
        "unless the link gives port1 / port2; a host's one interface is port 0.",
        "[[\"h1\", \"s1\"], [\"s1\", \"s2\", {\"bw\": 5}]]", default="none"),
))

P4APP_DEFAULT: Final = Section("p4app.topology.default", P4APP_FILE, "topology.default",
                               "Defaults of every link.", (
    Key("bw", "number", "Every link's bandwidth, unless its own; 0: no limit.", "10",
        default="0", unit="Mbit/s"),
))

P4APP_HOST: Final = Section("p4app.topology.host", P4APP_FILE, "topology.hosts.<name>",
                            "A host; other keys are refused.", (
    Key("ip", "address/prefix", "Its IPv4 address with the prefix length.",
        "\"10.0.1.1/24\"", default=REQUIRED),
    Key("gw", "IPv4 address", "Its default route's gateway.", "\"10.0.1.254\"",
        default="none"),
    Key("mac", "MAC", "Its MAC.", "\"00:00:0a:00:01:01\"", default="the kernel's"),
))

P4APP_SWITCH: Final = Section(
    "p4app.topology.switch", P4APP_FILE, "topology.switches.<name>",
    "A BMv2 switch; paths start at the file's directory.", (
        Key("cli_input", "path", "simple_switch_CLI commands: its table entries.",
            "\"s1-commands.txt\"", default="none"),
        Key("program", "path", "Its own program instead of `p4_src`.",
            "\"p4src/other.p4\"", default="p4_src"),
    ))

P4APP_LINK: Final = Section(
    "p4app.topology.link", P4APP_FILE, "topology.links[] options",
    "A link's options; other options (delay, loss) are refused.", (
        Key("bw", "number", "Its bandwidth; 0: no limit.", "5", default="topology.default.bw",
            unit="Mbit/s"),
        Key("port1", "integer", "The first end's port.", "3", default="the next free"),
        Key("port2", "integer", "The second end's port.", "3", default="the next free"),
    ))

SECTIONS: Final = (
    TOPOLOGY, SWITCH, TESTER, SIMULATED_CLOCK, PORT, PORT_ADDRESSES, DUT, DUT_BMV2, DUT_LINUX,
    DUT_BRIDGE,
    NETWORK, NETWORK_TUTORIALS, NETWORK_P4APP, NODE_HOST, NODE_BRIDGE, NODE_BMV2, INTERFACE,
    LINK,
    PROFILE, LATENCY_BINS, TRIAL, SEARCH, STREAM, TUNNEL, VXLAN, GTPU, SRV6, VARY, VARY_RANGE,
    VARY_RANDOM,
    SERVICE, SLA,
    TUTORIALS, TUTORIALS_HOST, TUTORIALS_SWITCH,
    P4APP, P4APP_TOPOLOGY, P4APP_DEFAULT, P4APP_HOST, P4APP_SWITCH, P4APP_LINK,
)
