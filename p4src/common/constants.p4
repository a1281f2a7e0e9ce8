/* Target-neutral constants of the tester. Every size the data plane is built
 * with is set here, so that the BMv2 and Tofino programs agree. */
#ifndef TESTER_COMMON_CONSTANTS_P4
#define TESTER_COMMON_CONSTANTS_P4

/* ---- Sizes (change here only) ------------------------------------------ */
/* Streams the generator and the checker keep state for: BMv2 keeps its state
 * in software and runs slower with more; Tofino has SRAM for many more. */
#ifdef __TARGET_TOFINO__
#define MAX_STREAMS 1024
#else
#define MAX_STREAMS 64
#endif
/* Histogram cells per stream = 2^HIST_CELLS_LOG2: HIST_OUTSIDE_BIN is the last
 * cell (a sample outside every bin the controller set); the cells below it are
 * bins whose edges the controller writes into the *_bins tables. */
#define HIST_CELLS_LOG2 5
#define HIST_CELLS_PER_STREAM 32
#define HIST_CELLS_TOTAL (MAX_STREAMS * HIST_CELLS_PER_STREAM)
/* Entries of each bin table: one set of bins for all streams (wildcard stream)
 * plus per-stream overrides. */
#define BIN_TABLE_SIZE 1024

typedef bit<16> stream_id_t;
typedef bit<32> seq_t;
/* Timestamps are the low 32 bits of the switch clock (BMv2: us, Tofino: ns);
 * latency is computed modulo 2^32, exact for latencies below the wrap time. */
typedef bit<32> timestamp_t;
typedef bit<8>  hist_bin_t;

const bit<32> MAX_STREAMS_32 = MAX_STREAMS;
const hist_bin_t HIST_OUTSIDE_BIN = 31;

/* ---- Protocol numbers ---------------------------------------------------- */
const bit<16> ETHERTYPE_IPV4 = 0x0800;
const bit<16> ETHERTYPE_IPV6 = 0x86DD;
const bit<16> ETHERTYPE_VLAN = 0x8100;
const bit<16> ETHERTYPE_QINQ = 0x88A8;   /* 802.1ad service tag */
const bit<16> ETHERTYPE_MPLS = 0x8847;
const bit<16> ETHERTYPE_ARP  = 0x0806;
const bit<8>  IP_PROTO_ICMPV6 = 58;
const bit<16> ARP_OP_REQUEST = 1;
const bit<16> ARP_OP_REPLY   = 2;
const bit<8>  ICMPV6_RS = 133;   /* router solicitation; 134 RA, 135 NS, 136 NA, 137 redirect */
const bit<8>  ICMPV6_RA = 134;
const bit<8>  ICMPV6_REDIRECT = 137;
const bit<8>  ICMPV6_NS = 135;
const bit<8>  ICMPV6_NA = 136;
const bit<8>  ND_OPT_SOURCE_LLA = 1;
const bit<8>  ND_OPT_TARGET_LLA = 2;
const bit<32> ND_NA_FLAGS_SOLICITED_OVERRIDE = 0x60000000;
const bit<8>  IP_PROTO_TCP   = 6;
const bit<8>  IP_PROTO_IPV4  = 4;        /* IPv4 in IPv6 (SRv6 encapsulation) */
const bit<8>  IP_PROTO_IPV6  = 41;
const bit<8>  IP_PROTO_ROUTING = 43;     /* IPv6 routing header: SRv6's SRH */
const bit<8>  SRH_ROUTING_TYPE = 4;
const bit<4>  TCP_DATA_OFFSET_NO_OPTIONS = 5;
const bit<16> UDP_PORT_VXLAN = 4789;
const bit<16> UDP_PORT_GTPU  = 2152;
const bit<8>  GTPU_MSG_GPDU  = 0xFF;
const bit<8>  IP_PROTO_UDP   = 17;
const bit<4>  IPV4_IHL_NO_OPTIONS = 5;
/* IP version of a frame as the checker compares it with its stream's (rx_expected). */
const bit<8>  IP_VERSION_4 = 4;
const bit<8>  IP_VERSION_6 = 6;

/* ---- Tester header --------------------------------------------------------
 * Test frames are UDP datagrams or TCP segments whose payload starts with the
 * 18-byte tester header (headers.p4), found by its signature whatever the ports
 * (TESTER_UDP_DST_PORT is only the default destination port, and the one port
 * where a frame too short for the header still counts as a truncated tester
 * frame). The L4 may sit inside VxLAN, GTP-U or SRv6 (frame_parser.p4).
 * Stamping is checksum-neutral: the TX side writes dut_qdelay so that the
 * ones'-complement sum of the fields it stamps plus dut_qdelay is constant, and
 * every UDP/TCP checksum of the template (inner and outer) stays valid. */
#define SRH_MAX_SEGMENTS 4
/* Tunnels over an outer IPv6 (SRv6, VxLAN/GTP-U over IPv6): deeper than Tofino's
 * 160-byte parse depth allows (frame_parser.p4). */
#if !defined(__TARGET_TOFINO__) && !defined(TESTER_NO_IPV6_TUNNELS)
#define TESTER_IPV6_TUNNELS
#endif
/* VxLAN and GTP-U: beyond Tofino 1's parse depth with its egress metadata. */
#if (!defined(__TARGET_TOFINO__) || __TARGET_TOFINO__ >= 2) && !defined(TESTER_NO_TUNNELS)
#define TESTER_TUNNELS
#endif
#define MPLS_MAX_LABELS 4
/* rx_port_slots entries (rx_port_slots.p4): (stream, RX port) pairs of the streams
 * received on several ports, all streams together. */
#ifdef __TARGET_TOFINO__
#define RX_PORT_SLOT_ENTRIES 1024
#else
#define RX_PORT_SLOT_ENTRIES 256
#endif
/* tx_vary_fields entries, all streams together (per-field variation). */
#define MAX_VARY_ENTRIES 4096
const bit<16> TESTER_UDP_DST_PORT = 0x5054;
const bit<16> TESTER_SIGNATURE    = 0x5034;     /* "P4" */
const bit<16> UDP_HEADER_BYTES    = 8;
const bit<16> TESTER_HEADER_BYTES = 18;
/* A UDP length below this cannot hold a tester header: the frame was cut. */
const bit<16> MIN_TESTER_UDP_LENGTH = UDP_HEADER_BYTES + TESTER_HEADER_BYTES;
/* flags: set by a cooperating DUT once it wrote dut_qdepth / dut_qdelay. */
const bit<8>  TESTER_FLAG_DUT_STAMPED = 0x01;
/* flags bits 1-7 (all but the DUT's bit 0): the trial epoch of the trial the
 * frame belongs to, 128 values, counted within a run; the header's run byte
 * tells runs apart (a value the controller draws at random for each run, never
 * the one the switch's previous run used). Together 15 bits: the header has
 * no room for more, since a 64-byte IPv4 frame holds exactly its 18 bytes.
 * A template still circulating from an earlier trial (another frame size, say)
 * has another run or epoch and dies at its next pass instead of joining this
 * trial; a frame of an earlier trial or run still queued in a DUT arrives with
 * another run or epoch and is RX_KIND_STALE, not the stream's. */
const bit<8>  TESTER_FLAG_EPOCH_MASK = 0xFE;
const bit<16> SATURATED_16 = 0xFFFF;

/* ---- Controller packets (PacketOut opcode, PacketIn reason) --------------- */
const bit<8> CTRL_OP_NONE  = 0;
/* The payload is a stream template: put it into the stream's pacing loop. */
const bit<8> CTRL_OP_SEED  = 1;
/* Reset the stream's generator and checker state; the reply is a PacketIn. */
const bit<8> CTRL_OP_CLEAR = 2;
/* Read the stream's register state into a stats header; reply is a PacketIn. */
const bit<8> CTRL_OP_READ  = 3;
/* PacketIn reason of foreign traffic that the controller asked to receive. */
const bit<8> PUNT_REASON_FOREIGN = 4;
/* The frame after the packet_out header leaves by port packet_out.stream_id
 * (ARP requests and Neighbor Solicitations of the controller). */
const bit<8> CTRL_OP_SEND  = 5;
/* ARP / IPv6 ND the switch did not answer itself (the DUT's replies, requests
 * for addresses not the tester's): the controller learns from them. */
const bit<8> PUNT_REASON_CONTROL = 6;
/* A copy of a received frame a capture rule asked for. */
const bit<8> PUNT_REASON_CAPTURE = 7;

/* ---- Receive-side classification (index of the rx_kind counter) ---------- */
const bit<8> RX_KIND_STREAM        = 0;  /* valid tester packet of a stream */
const bit<8> RX_KIND_FOREIGN       = 1;  /* not addressed to the tester port */
const bit<8> RX_KIND_TRUNCATED     = 2;  /* tester port, header cut short */
const bit<8> RX_KIND_BAD_SIGNATURE = 3;  /* tester port, wrong signature */
const bit<8> RX_KIND_BAD_STREAM    = 4;  /* stream id >= MAX_STREAMS */
/* A well-formed frame of stream S that is not of S's current trial: its epoch is
 * not the one the controller wrote for S (rx_expected), or S is in no trial. */
const bit<8> RX_KIND_STALE         = 5;
/* A frame of S's current trial that S's template rules out: it arrived on another
 * port than S's RX port, or with another IP version (a look-alike). */
const bit<8> RX_KIND_MISMATCHED    = 6;
/* ARP and IPv6 ND (RS, RA, NS, NA, redirect): the network's control frames, answered
 * or handed to the controller, never counted as foreign. */
const bit<8> RX_KIND_CONTROL       = 7;
#define RX_KIND_COUNT 8

/* ---- Sequence verdicts (RFC 4737 terms) ---------------------------------- */
const bit<8> SEQ_IN_ORDER  = 0;  /* seq == next expected */
const bit<8> SEQ_GAP       = 1;  /* seq >  next expected: (seq - next) lost so far */
const bit<8> SEQ_REORDERED = 2;  /* seq <  next expected (RFC 4737 reordered) */
const bit<8> SEQ_DUPLICATE = 3;  /* seq == seq of the previous packet received */

/* ---- Generator replication ----------------------------------------------
 * The controller creates multicast group MCAST_GROUP_BASE + stream with
 * (pacing port, REPLICA_TOKEN), which keeps the loop going, and one replica per
 * frame a loop pass makes: (TX port, REPLICA_TX + i) for i < the stream's frames
 * per pass (at most MAX_FRAMES_PER_PASS), the frames that leave the tester. A
 * bursts shape's burst is one pass's frames, so this is also the largest burst. */
const bit<16> MCAST_GROUP_BASE = 1;
const bit<16> REPLICA_TX    = 1;
const bit<16> REPLICA_TOKEN = 0xFFFF;
#define MAX_FRAMES_PER_PASS 64

#endif
