/* Tofino (TNA) facts the tester depends on. bf-p4c defines __TARGET_TOFINO__ (1 or
 * 2; p4test needs -D__TARGET_TOFINO__=1): common/constants.p4 sizes the stream state
 * for Tofino under that symbol. */
#ifndef TESTER_TNA_PLATFORM_P4
#define TESTER_TNA_PLATFORM_P4

#include <core.p4>
#if __TARGET_TOFINO__ == 2
#include <t2na.p4>
#else
#include <tna.p4>
#endif
#include "../common/constants.p4"
#include "../common/headers.p4"

typedef bit<9> port_t;

/* last_latency before a checker slot's first frame of a trial (checker.p4): no
 * previous latency to take an IPDV from. 0, which the controller writes at a trial's
 * start: a frame's latency from one MAC to another is never 0 ns (and a stateful ALU
 * compares with small constants only). */
const timestamp_t NO_LATENCY = 0;
/* A histogram cell: figure slot (low STREAM_BITS bits) ++ bin. */
#define STREAM_BITS 10
typedef bit<(STREAM_BITS + HIST_CELLS_LOG2)> hist_cell_t;

#if __TARGET_TOFINO__ == 2
/* Tofino 2: the PCIe CPU port is 0 (ASSUMED); each pipe's packet generator enters
 * ingress on port 6 of that pipe (6, 134, 262, 390: the ports P4TG enables in
 * tf2.pktgen.port_cfg; not checked on hardware here); 16 applications per pipe. */
#ifndef TNA_CPU_PORT
#define TNA_CPU_PORT 0
#endif
const bit<7> PKTGEN_PORT_IN_PIPE = 6;
#define PKTGEN_APPS 16
#else
/* Tofino 1: the PCIe CPU port of a 4-pipe part is 320 (2-pipe parts: 192, override
 * with -DTNA_CPU_PORT=192); each pipe's packet generator enters ingress on port 68
 * of that pipe (68, 196, 324, 452); 8 applications per pipe. */
#ifndef TNA_CPU_PORT
#define TNA_CPU_PORT 320
#endif
const bit<7> PKTGEN_PORT_IN_PIPE = 68;
#define PKTGEN_APPS 8
#endif
const port_t CPU_PORT = TNA_CPU_PORT;
/* Dev ports are 9 bits: per-port counters have a cell for each. */
#define DEV_PORTS 512
/* A front-panel (MAC) port, not the CPU port, a packet generator or a recirculation
 * port. Tofino 1: pipe-local ports 0-63 are the MACs, 64-71 are the CPU Ethernet
 * ports, the generators and recirculation (the PCIe CPU port 320 is pipe 2's 64).
 * Tofino 2: pipe-local ports 0-7 are the PCIe CPU port, the CPU Ethernet ports, the
 * generator and recirculation; the MACs are 8-71 (ASSUMED, as for the ports above).
 * A bit test of the port, so the condition fits a gateway. */
#if __TARGET_TOFINO__ == 2
#define IS_FRONT_PANEL(port) ((port)[6:3] != 0)
#else
#define IS_FRONT_PANEL(port) ((port)[6:6] == 0)
#endif
/* Pipes whose generators may run an application (pipe_id is 2 bits). */
#define PKTGEN_PIPES 4

/* Ingress -> egress: what ingress decided, so that egress need not guess. */
const bit<8> ROLE_NONE      = 0;
const bit<8> ROLE_GENERATED = 1;  /* a generator copy: stamp seq and tx_ts */
const bit<8> ROLE_PUNTED    = 2;  /* foreign frame sent to the CPU port */
const bit<8> ROLE_CONTROL   = 3;  /* ARP / ND not answered here, sent to the CPU port */

header bridge_h {
    bit<8>  role;
    bit<16> ingress_port;
}

/* The generator's clock: global_tstamp (48-bit ns) bits 39..8, ticks of 256 ns in
 * 32 bits, wrapping every 2^40 ns (~1100 s). A byte-aligned slice, so the stateful
 * ALU takes it straight from the PHV; a tick is finer than a microsecond, the trial
 * loop's clock unit. The driver widens and converts it (targets/tofino/switch_clock.py). */
typedef bit<32> generator_tick_t;

/* A generator application's cell: packets counted against its budget and the tick
 * of the last (a paired register: one access reads and updates both). */
struct generated_t {
    bit<32> made;
    bit<32> last_tick;
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

/* The checker's values between stages (checker.p4 says why not locals). */
struct checker_metadata_t {
    /* Register and counter indices (common/rx_port_slots.p4): the stream id, unless
     * the stream is received on several ports. */
    bit<32>     seq_slot;           /* the sequence state's */
    bit<32>     figure_slot;        /* counts', latency's and histograms' */
    bool        listed;             /* the frame's port is one of its stream's several */
    seq_t       ahead;              /* seq - next expected, modulo 2^32 */
    bit<8>      repeat;             /* 1: seq == the previous frame's seq */
    bool        have_previous;      /* not the stream's first frame of the trial */
    bool        is_repeat;          /* have_previous and repeat */
    bit<8>      verdict;            /* SEQ_* */
    seq_t       gap;
    seq_t       new_next_expected;  /* unused: advance_next_expected updates it */
    timestamp_t latency;
    timestamp_t latency_headroom;   /* ~latency, for the 64-bit sum's carry */
    timestamp_t latency_change;     /* latency - the stream's previous latency */
    timestamp_t ipdv_abs;
    timestamp_t ipdv_headroom;      /* ~ipdv_abs */
    bool        dut_stamped;
    hist_bin_t  latency_bin;
    hist_bin_t  qdepth_bin;
    hist_cell_t latency_cell;
    hist_cell_t qdepth_cell;
}

/* Egress, a varying stream's frame (field_steps.p4): whether any field varied, the
 * IPv4 header changed, and ~(the template's words) for the stamp's checksum sum. */
struct vary_metadata_t {
    bool    stepped;
    bool    ipv4_header;
    bit<16> template_words;
}

struct tna_metadata_t {
    local_metadata_t   local;
    vary_metadata_t    vary;
    bool               parsed_whole;  /* ingress: the parser reported no error */
    checker_metadata_t checker;
}

#endif
