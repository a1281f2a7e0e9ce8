/* Facts of the eBPF target (p4c-ebpf, PSA architecture, the Linux TC hook) the
 * tester depends on. A port here is what the kernel calls an ifindex; the
 * controller gives each tester port its topology number (TesterIngress.ports),
 * so counters, expectations and results use the same port numbers as on BMv2.
 *
 * The kernel's verifier bounds a program's paths (a million instructions
 * explored): a deparser that re-emits every header the frame parser may have
 * found exceeds it. So ingress re-emits only what a neighbor answer carries
 * (checked frames are dropped, never re-emitted), and egress, which stamps the
 * generator's frames, does not parse them: the sender's generator tag says where
 * the tester header is, and egress carries the bytes before it as opaque chunks.
 * For the same reason the frame parser walks no tunnels here (VxLAN, GTP-U,
 * SRv6, IP in IPv6: TESTER_NO_TUNNELS, TESTER_NO_IPV6_TUNNELS, set by the build). */
#ifndef TESTER_PSA_PLATFORM_P4
#define TESTER_PSA_PLATFORM_P4

#include <core.p4>
#include <psa.p4>
#include "../common/constants.p4"

/* p4c-ebpf cannot look ahead by a bit type (it extracts into a temporary that
 * is not a header): look ahead by one-field headers instead. */
header peek16_h {
    bit<16> value;
}
header peek8_h {
    bit<8> value;
}
#define PEEK_16(pkt) pkt.lookahead<peek16_h>().value
#define PEEK_IP_VERSION(pkt) pkt.lookahead<peek8_h>().value[7:4]

/* Per-port counters have a cell per topology port number below this. */
#define FRONT_PANEL_PORTS 256
#define FRONT_PANEL_PORTS_LOG2 8
/* rx_port_slots.p4: a cell per (stream, topology port). */
#define RX_PORT_SLOT_CELLS (MAX_STREAMS * FRONT_PANEL_PORTS)

/* The ingress port cache (tester.p4: port_cache): cells, a power of two, and the
 * kinds of port a cell names. */
#define PORT_CACHE_CELLS 1024
const bit<2> PORT_KIND_TESTER = 1;
const bit<2> PORT_KIND_GENERATOR = 2;

/* The clock is the kernel's monotonic clock (bpf_ktime_get_ns): nanoseconds;
 * timestamps carry its low 32 bits, as on the other targets. */
timestamp_t clock_low32(in Timestamp_t ts) {
    return (timestamp_t) (bit<64>) ts;
}

/* What the sender writes into the generator interface: the stream's template
 * with this tag after its MAC addresses. The frame's EtherType says IPv4 (the
 * kernel resizes only IPv4 and IPv6 frames: bpf_skb_adjust_room) and the tag's
 * first byte, 0x50, cannot start an IPv4 header (version 5). Egress removes the
 * tag, restoring the template's EtherType. */
const bit<16> GENERATOR_TAG_ETHERTYPE = 0x0800;
const bit<16> GENERATOR_TAG_SIGNATURE = 0x5047;   /* "PG" */
header generator_tag_h {
    bit<16>     signature;        /* GENERATOR_TAG_SIGNATURE */
    stream_id_t stream_id;
    bit<8>      tester_offset;    /* bytes from the end of the tag to the tester header */
    bit<8>      tx_port;          /* the topology number of the port the copies leave by */
    bit<16>     ether_type;       /* the template's */
}

/* The first 16 bytes of a frame: enough to tell a generator frame. */
header generator_peek_h {
    bit<96>  mac_addresses;
    bit<16>  ether_type;
    bit<16>  signature;
}

/* Opaque bytes: the template's headers between the tag and the tester header,
 * as chunks of 64, 32, 16, 8 and 4 bytes (the binary digits of tester_offset:
 * every header a template may have before the tester header is a multiple of 4
 * bytes long after the Ethernet addresses and EtherType). */
header chunk64_h { bit<64> b0; bit<64> b1; bit<64> b2; bit<64> b3;
                   bit<64> b4; bit<64> b5; bit<64> b6; bit<64> b7; }
header chunk32_h { bit<64> b0; bit<64> b1; bit<64> b2; bit<64> b3; }
header chunk16_h { bit<64> b0; bit<64> b1; }
header chunk8_h  { bit<64> b0; }
header chunk4_h  { bit<32> b0; }

/* One header type for both pipelines (p4c-ebpf keeps one per-CPU copy of it). */
#define TARGET_HEADERS generator_tag_h generator_tag; \
    chunk64_h chunk64; chunk32_h chunk32; chunk16_h chunk16; chunk8_h chunk8; \
    chunk4_h chunk4;
#include "../common/headers.p4"

struct empty_t {
}

#endif
