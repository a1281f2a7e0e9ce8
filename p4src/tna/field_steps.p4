/* Field steps on Tofino 2: flows at scale, BMv2's field_steps.p4 in stateful ALUs,
 * for the fields that matter most to a load balancer, a route table or an ACL: the
 * source and destination address (IPv4, or the low 32 bits of IPv6) and the L4 ports.
 * Each varied field of a stream has its own register cell per stream, advanced once
 * per frame the stream sends:
 *
 *   add     value = first + offset; offset += step, back to 0 after `last`
 *           ((count - 1) x step, modulo 2^32): increment and decrement.
 *   draw    value = first + (crc32(seed, seq) & mask): random within a power-of-two
 *           block (a prefix), the draws BMv2 makes (crc32 mod count) for such counts.
 *   redraw  the same on a draw index 0..last in turn instead of the seq: the draws
 *           repeat every last + 1 frames (OTG's random count).
 *
 * No modulo and no lists: a stateful ALU adds and compares, and an instruction takes
 * one register operand (the others come from PHV). More fields did not fit Tofino 2's
 * PHV beside the checker (dscp, VLAN and TCP numbers: measured, docs/tofino.md), and
 * Tofino 1 has no stage to spare: it varies nothing. Offsets restart when the
 * controller zeroes the registers before each trial.
 *
 * Checksums: the deparser recomputes an IPv4 header that changed, and folds the
 * addresses and ports (what the UDP or TCP checksum covers and a field may change)
 * into the checksum-neutral stamp, less the template's own, which the controller
 * gives per stream as one ones'-complement word (tx_steps' `template_words`). */
#ifndef TESTER_TNA_FIELD_STEPS_P4
#define TESTER_TNA_FIELD_STEPS_P4

#include "platform.p4"

const bit<2> FIELD_FIXED  = 0;
const bit<2> FIELD_ADD    = 1;
const bit<2> FIELD_DRAWN  = 2;

/* One field's register (the offset the next frame takes, per stream), hashes,
 * actions and table. `param` is an add's step and a draw's seed: one PHV word. A
 * stateful ALU instruction takes one register operand; the others come from PHV. */
#define TNA_STEPPED_FIELD(F, W) \
    Register<bit<32>, bit<32>>(MAX_STREAMS, 0) F##_offset; \
    bit<W>  F##_first = 0; \
    bit<32> F##_last = 0; \
    bit<32> F##_param = 0; \
    bit<W>  F##_mask = 0; \
    bit<32> F##_taken = 0; \
    bit<W>  F##_value = 0; \
    bit<2>  F##_how = FIELD_FIXED; \
    bool    F##_advances = false; \
    bool    F##_counts = false; \
    RegisterAction<bit<32>, bit<32>, bit<32>>(F##_offset) F##_advance = { \
        void apply(inout bit<32> offset, out bit<32> taken) { \
            taken = offset; \
            if (offset == F##_last) { \
                offset = 0; \
            } else { \
                offset = offset + F##_param; \
            } \
        } \
    }; \
    RegisterAction<bit<32>, bit<32>, bit<32>>(F##_offset) F##_count = { \
        void apply(inout bit<32> index, out bit<32> taken) { \
            taken = index; \
            if (index == F##_last) { \
                index = 0; \
            } else { \
                index = index + 1; \
            } \
        } \
    }; \
    Hash<bit<W>>(HashAlgorithm_t.CRC32) F##_hash_on_seq; \
    Hash<bit<W>>(HashAlgorithm_t.CRC32) F##_hash_on_index; \
    action F##_add(bit<W> first, bit<32> step, bit<32> last) { \
        F##_first = first; \
        F##_param = step; \
        F##_last = last; \
        F##_how = FIELD_ADD; \
        F##_advances = true; \
    } \
    action F##_draw(bit<W> low, bit<W> mask, bit<32> seed) { \
        F##_first = low; \
        F##_mask = mask; \
        F##_param = seed; \
        F##_how = FIELD_DRAWN; \
    } \
    action F##_redraw(bit<W> low, bit<W> mask, bit<32> seed, bit<32> last) { \
        F##_first = low; \
        F##_mask = mask; \
        F##_param = seed; \
        F##_last = last; \
        F##_how = FIELD_DRAWN; \
        F##_counts = true; \
    } \
    table tx_step_##F { \
        key = { hdr.frame.tester.stream_id : exact @name("stream"); } \
        actions = { F##_add; F##_draw; F##_redraw; NoAction; } \
        default_action = NoAction(); \
        size = MAX_STREAMS; \
    }

/* The field's value for this frame into F##_value (F##_how says whether it varies). */
#define TNA_FIELD_VALUE(F, W) \
    tx_step_##F.apply(); \
    if (F##_advances) { \
        F##_taken = F##_advance.execute((bit<32>) hdr.frame.tester.stream_id); \
    } else if (F##_counts) { \
        F##_taken = F##_count.execute((bit<32>) hdr.frame.tester.stream_id); \
    } \
    if (F##_how == FIELD_ADD) { \
        F##_value = F##_first + F##_taken[W-1:0]; \
    } else if (F##_how == FIELD_DRAWN) { \
        if (F##_counts) { \
            F##_value = F##_hash_on_index.get({F##_param, F##_taken}); \
        } else { \
            F##_value = F##_hash_on_seq.get({F##_param, hdr.frame.tester.seq}); \
        } \
        F##_value = F##_value & F##_mask; \
        F##_value = F##_value + F##_first; \
    }

control FieldSteps(inout tna_headers_t hdr, inout tna_metadata_t meta) {
    TNA_STEPPED_FIELD(src_port, 16)
    TNA_STEPPED_FIELD(dst_port, 16)
    TNA_STEPPED_FIELD(src_ip, 32)
    TNA_STEPPED_FIELD(dst_ip, 32)

    bool any_steps = false;

    /* template_words: ~(ones'-complement sum of the template's words that the
     * deparser's stamp sum counts), so the sum counts only what changed. */
    action steps(bit<16> template_words) {
        any_steps = true;
        meta.vary.template_words = template_words;
    }

    /* Controller writes: stream -> steps(...) when any of its fields varies. */
    table tx_steps {
        key = { hdr.frame.tester.stream_id : exact @name("stream"); }
        actions = { steps; NoAction; }
        default_action = NoAction();
        size = MAX_STREAMS;
    }

    action read_tcp_ports() {
        src_port_value = hdr.frame.tcp.src_port;
        dst_port_value = hdr.frame.tcp.dst_port;
    }

    action read_udp_ports() {
        src_port_value = hdr.frame.udp.src_port;
        dst_port_value = hdr.frame.udp.dst_port;
    }

    action write_tcp_ports() {
        hdr.frame.tcp.src_port = src_port_value;
        hdr.frame.tcp.dst_port = dst_port_value;
    }

    action write_udp_ports() {
        hdr.frame.udp.src_port = src_port_value;
        hdr.frame.udp.dst_port = dst_port_value;
    }

    apply {
        tx_steps.apply();
        if (any_steps) {
            meta.vary.stepped = true;
            if (hdr.frame.tcp.isValid()) {
                read_tcp_ports();
            } else {
                read_udp_ports();
            }
            TNA_FIELD_VALUE(src_port, 16)
            TNA_FIELD_VALUE(dst_port, 16)
            TNA_FIELD_VALUE(src_ip, 32)
            TNA_FIELD_VALUE(dst_ip, 32)
            /* Both ports written together, the template's where a port is fixed:
             * they share a PHV container, which one action must write whole. */
            if (hdr.frame.tcp.isValid()) {
                write_tcp_ports();
            } else {
                write_udp_ports();
            }
            /* IPv4 addresses, or the low 32 bits of IPv6 ones: the controller gives
             * src_ip/dst_ip patterns of IPv6 streams their low 32 bits. */
            if (src_ip_how != FIELD_FIXED) {
                if (hdr.frame.ipv4.isValid()) {
                    hdr.frame.ipv4.src_addr = src_ip_value;
                    meta.vary.ipv4_header = true;
                } else {
                    hdr.frame.ipv6.src_addr[31:0] = src_ip_value;
                }
            }
            if (dst_ip_how != FIELD_FIXED) {
                if (hdr.frame.ipv4.isValid()) {
                    hdr.frame.ipv4.dst_addr = dst_ip_value;
                    meta.vary.ipv4_header = true;
                } else {
                    hdr.frame.ipv6.dst_addr[31:0] = dst_ip_value;
                }
            }
        }
    }
}

#endif
