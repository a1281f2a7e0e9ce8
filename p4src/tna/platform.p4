/* Tofino (TNA) facts the tester depends on. Compile with -D__TARGET_TOFINO__=1:
 * common/constants.p4 sizes the stream state for Tofino under that symbol. */
#ifndef TESTER_TNA_PLATFORM_P4
#define TESTER_TNA_PLATFORM_P4

#include <core.p4>
#include <tna.p4>
#include "../common/constants.p4"
#include "../common/headers.p4"

typedef bit<9> port_t;

/* The PCIe CPU port of a 4-pipe Tofino 1 (2-pipe parts: 192). Override with
 * -DTNA_CPU_PORT=... for another part. */
#ifndef TNA_CPU_PORT
#define TNA_CPU_PORT 320
#endif
const port_t CPU_PORT = TNA_CPU_PORT;

/* Tofino 1: each pipe's packet generator enters ingress on port 68 of that pipe
 * (68, 196, 324, 452): the low 7 bits of the ingress port tell a generated packet. */
const bit<7> PKTGEN_PORT_IN_PIPE = 68;
/* Packet-generator applications (Tofino 1: 8): one rate and template each,
 * fanned out to its streams by multicast. */
#define PKTGEN_APPS 8

/* Ingress -> egress: what ingress decided, so that egress need not guess. */
const bit<8> ROLE_NONE      = 0;
const bit<8> ROLE_GENERATED = 1;  /* a generator copy: stamp seq and tx_ts */
const bit<8> ROLE_PUNTED    = 2;  /* foreign frame sent to the CPU port */

header bridge_h {
    bit<8>  role;
    bit<16> ingress_port;
}

/* 64-bit sums as two 32-bit halves: a Tofino stateful ALU adds 32 bits. */
struct sum64_t {
    bit<32> lo;
    bit<32> hi;
}

struct tna_headers_t {
    bridge_h              bridge;
    pktgen_timer_header_t pktgen;
    headers_t             frame;
}

struct tna_metadata_t {
    local_metadata_t local;
    bit<16>          udp_residual;  /* egress: UDP checksum without the stamped fields */
}

#endif
