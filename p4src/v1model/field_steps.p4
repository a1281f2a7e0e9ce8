/* Field steps on BMv2: flows at scale. Each varied field of a stream has its own
 * pattern, kept by the data plane per stream and field, so a stream's flows are
 * not bounded by a table of whole frames (generator.p4, tx_vary_fields):
 *
 *   step   value = first + offset; offset += step, back to 0 after `span`
 *          ((count - 1) x step): increment and decrement, count up to 2^W.
 *   draw   value = low + crc32(seed, frame's seq) mod count: random within a
 *          range, independent per field (the controller gives each its own seed)
 *          and recomputable from the frames' sequence numbers, so a run can say
 *          which addresses it sent.
 *   redraw the same with a draw index 0..last in turn instead of the seq: the
 *          draws repeat every last + 1 frames (OTG's random count).
 *   cycle  value = entry `index` of the field's list, index 0..last in turn.
 *
 * Fields of different counts combine as the table's do: the pattern repeats every
 * lcm(counts) frames. Each offset and index restarts at the trial's CLEAR.
 *
 * Checksums: an IPv4 header that changed is recomputed (checksums.p4). An address
 * also sits in the L4 checksum's pseudo header, and TCP's sequence and acknowledgment
 * numbers in the TCP checksum: their change (new words + ~old words, RFC 1624) goes
 * into meta.vary_l4_delta, which joins the checksum-neutral stamp,
 * so the template's UDP or TCP checksum stays right without reading the payload. */
#ifndef TESTER_V1MODEL_FIELD_STEPS_P4
#define TESTER_V1MODEL_FIELD_STEPS_P4

#include "platform.p4"
#include "../common/headers.p4"

/* One field's state, patterns and tables. F names the field, W its width. */
#define STEPPED_FIELD(F, W) \
    register<bit<W>>(MAX_STREAMS) F##_offset; \
    register<bit<16>>(MAX_STREAMS) F##_next_index; \
    register<bit<32>>(MAX_STREAMS) F##_next_draw; \
    bit<W> F##_value = 0; \
    bit<16> F##_index = 0; \
    bool F##_listed = false; \
    bool F##_varies = false; \
    action F##_step(bit<W> first, bit<W> step, bit<W> span) { \
        bit<W> offset; \
        F##_offset.read(offset, (bit<32>) hdr.tester.stream_id); \
        F##_offset.write((bit<32>) hdr.tester.stream_id, \
                         offset == span ? (bit<W>) 0 : offset + step); \
        F##_value = first + offset; \
        F##_varies = true; \
    } \
    action F##_draw(bit<W> low, bit<64> count, bit<32> seed) { \
        bit<32> drawn; \
        hash(drawn, HashAlgorithm.crc32, 32w0, { seed, hdr.tester.seq }, count); \
        F##_value = low + (bit<W>) drawn; \
        F##_varies = true; \
    } \
    action F##_redraw(bit<W> low, bit<64> count, bit<32> seed, bit<32> last) { \
        bit<32> index; \
        F##_next_draw.read(index, (bit<32>) hdr.tester.stream_id); \
        F##_next_draw.write((bit<32>) hdr.tester.stream_id, index == last ? 32w0 : index + 1); \
        bit<32> drawn; \
        hash(drawn, HashAlgorithm.crc32, 32w0, { seed, index }, count); \
        F##_value = low + (bit<W>) drawn; \
        F##_varies = true; \
    } \
    action F##_cycle(bit<16> last) { \
        F##_next_index.read(F##_index, (bit<32>) hdr.tester.stream_id); \
        F##_next_index.write((bit<32>) hdr.tester.stream_id, \
                             F##_index == last ? 16w0 : F##_index + 1); \
        F##_listed = true; \
        F##_varies = true; \
    } \
    action F##_pick(bit<W> value) { \
        F##_value = value; \
    } \
    table tx_step_##F { \
        key = { hdr.tester.stream_id : exact @name("stream"); } \
        actions = { F##_step; F##_draw; F##_redraw; F##_cycle; NoAction; } \
        default_action = NoAction(); \
        size = MAX_STREAMS; \
    } \
    table tx_##F##_values { \
        key = { \
            hdr.tester.stream_id : exact @name("stream"); \
            F##_index            : exact @name("index"); \
        } \
        actions = { F##_pick; NoAction; } \
        default_action = NoAction(); \
        size = MAX_VARY_ENTRIES; \
    }

/* The field's value for this frame, into F##_value, and F##_varies. Flags set by
 * actions, not `.hit` in expressions: BMv2 takes a table's result only as an if's
 * whole condition. */
#define FIELD_VALUE(F) \
    tx_step_##F.apply(); \
    if (F##_listed) { \
        tx_##F##_values.apply(); \
    }

#define FORGET_FIELD(F) \
    F##_offset.write((bit<32>) meta.stream, 0); \
    F##_next_index.write((bit<32>) meta.stream, 0); \
    F##_next_draw.write((bit<32>) meta.stream, 0);

control FieldSteps(inout headers_t hdr, inout local_metadata_t meta,
                   in bool ports_given, out bool stepped) {
    STEPPED_FIELD(src_port, 16)
    STEPPED_FIELD(dst_port, 16)
    STEPPED_FIELD(src_ip, 32)
    STEPPED_FIELD(dst_ip, 32)
    STEPPED_FIELD(src_ip6, 64)
    STEPPED_FIELD(dst_ip6, 64)
    STEPPED_FIELD(dscp, 6)
    STEPPED_FIELD(vlan, 12)
    STEPPED_FIELD(outer_vlan, 12)
    STEPPED_FIELD(tcp_seq, 32)
    STEPPED_FIELD(tcp_ack, 32)

    bool any_steps = false;

    action steps() {
        any_steps = true;
    }

    /* Controller writes: stream -> steps() when any of its fields steps; one lookup
     * spares the streams that vary nothing the nine of the fields. */
    table tx_steps {
        key = { hdr.tester.stream_id : exact @name("stream"); }
        actions = { steps; NoAction; }
        default_action = NoAction();
        size = MAX_STREAMS;
    }

    /* The ports the L4 header that carries the tester header has now: the stamp
     * counts them whenever a stream varies anything (generator.p4, write_ports). */
    action read_ports() {
        if (hdr.inner_udp.isValid()) {
            meta.vary_src_port = hdr.inner_udp.src_port;
            meta.vary_dst_port = hdr.inner_udp.dst_port;
        } else if (hdr.inner_tcp.isValid()) {
            meta.vary_src_port = hdr.inner_tcp.src_port;
            meta.vary_dst_port = hdr.inner_tcp.dst_port;
        } else if (hdr.tcp.isValid()) {
            meta.vary_src_port = hdr.tcp.src_port;
            meta.vary_dst_port = hdr.tcp.dst_port;
        } else {
            meta.vary_src_port = hdr.udp.src_port;
            meta.vary_dst_port = hdr.udp.dst_port;
        }
    }

    apply {
        stepped = false;
        if (meta.ctrl_op == CTRL_OP_CLEAR) {
            FORGET_FIELD(src_port)
            FORGET_FIELD(dst_port)
            FORGET_FIELD(src_ip)
            FORGET_FIELD(dst_ip)
            FORGET_FIELD(src_ip6)
            FORGET_FIELD(dst_ip6)
            FORGET_FIELD(dscp)
            FORGET_FIELD(vlan)
            FORGET_FIELD(outer_vlan)
            FORGET_FIELD(tcp_seq)
            FORGET_FIELD(tcp_ack)
        } else {
            tx_steps.apply();
        }
        if (meta.ctrl_op != CTRL_OP_CLEAR && any_steps) {
            stepped = true;
            if (!ports_given) {
                read_ports();
            }
            /* Each table once (a table applies at most once per control), in order. */
            FIELD_VALUE(src_port)
            FIELD_VALUE(dst_port)
            FIELD_VALUE(src_ip)
            FIELD_VALUE(dst_ip)
            FIELD_VALUE(src_ip6)
            FIELD_VALUE(dst_ip6)
            FIELD_VALUE(dscp)
            FIELD_VALUE(vlan)
            FIELD_VALUE(outer_vlan)
            FIELD_VALUE(tcp_seq)
            FIELD_VALUE(tcp_ack)
            if (src_port_varies) {
                meta.vary_src_port = src_port_value;
            }
            if (dst_port_varies) {
                meta.vary_dst_port = dst_port_value;
            }
            /* Ones'-complement sum of what the L4 checksum covers that changed: at
             * most 24 words of 16 bits, so 32 bits never overflow before the fold. */
            bit<32> delta = 0;
            if (hdr.ipv4.isValid()) {
                if (src_ip_varies) {
                    delta = delta + (bit<32>) src_ip_value[31:16] + (bit<32>) src_ip_value[15:0]
                            + (bit<32>) ~hdr.ipv4.src_addr[31:16]
                            + (bit<32>) ~hdr.ipv4.src_addr[15:0];
                    hdr.ipv4.src_addr = src_ip_value;
                    meta.vary_ipv4_header = true;
                }
                if (dst_ip_varies) {
                    delta = delta + (bit<32>) dst_ip_value[31:16] + (bit<32>) dst_ip_value[15:0]
                            + (bit<32>) ~hdr.ipv4.dst_addr[31:16]
                            + (bit<32>) ~hdr.ipv4.dst_addr[15:0];
                    hdr.ipv4.dst_addr = dst_ip_value;
                    meta.vary_ipv4_header = true;
                }
                /* DSCP is in no L4 checksum; ECN (the low 2 bits) stays. */
                if (dscp_varies) {
                    hdr.ipv4.dscp_ecn = dscp_value ++ hdr.ipv4.dscp_ecn[1:0];
                    meta.vary_ipv4_header = true;
                }
            } else if (hdr.ipv6.isValid()) {
                /* The low 64 bits of the address (the interface identifier). */
                if (src_ip6_varies) {
                    delta = delta + (bit<32>) src_ip6_value[63:48]
                            + (bit<32>) src_ip6_value[47:32]
                            + (bit<32>) src_ip6_value[31:16] + (bit<32>) src_ip6_value[15:0]
                            + (bit<32>) ~hdr.ipv6.src_addr[63:48]
                            + (bit<32>) ~hdr.ipv6.src_addr[47:32]
                            + (bit<32>) ~hdr.ipv6.src_addr[31:16]
                            + (bit<32>) ~hdr.ipv6.src_addr[15:0];
                    hdr.ipv6.src_addr = hdr.ipv6.src_addr[127:64] ++ src_ip6_value;
                }
                if (dst_ip6_varies) {
                    delta = delta + (bit<32>) dst_ip6_value[63:48]
                            + (bit<32>) dst_ip6_value[47:32]
                            + (bit<32>) dst_ip6_value[31:16] + (bit<32>) dst_ip6_value[15:0]
                            + (bit<32>) ~hdr.ipv6.dst_addr[63:48]
                            + (bit<32>) ~hdr.ipv6.dst_addr[47:32]
                            + (bit<32>) ~hdr.ipv6.dst_addr[31:16]
                            + (bit<32>) ~hdr.ipv6.dst_addr[15:0];
                    hdr.ipv6.dst_addr = hdr.ipv6.dst_addr[127:64] ++ dst_ip6_value;
                }
                if (dscp_varies) {
                    hdr.ipv6.traffic_class = dscp_value ++ hdr.ipv6.traffic_class[1:0];
                }
            }
            /* TCP sequence and acknowledgment numbers: in the TCP checksum itself. */
            if (hdr.tcp.isValid()) {
                if (tcp_seq_varies) {
                    delta = delta + (bit<32>) tcp_seq_value[31:16]
                            + (bit<32>) tcp_seq_value[15:0]
                            + (bit<32>) ~hdr.tcp.seq_no[31:16] + (bit<32>) ~hdr.tcp.seq_no[15:0];
                    hdr.tcp.seq_no = tcp_seq_value;
                }
                if (tcp_ack_varies) {
                    delta = delta + (bit<32>) tcp_ack_value[31:16]
                            + (bit<32>) tcp_ack_value[15:0]
                            + (bit<32>) ~hdr.tcp.ack_no[31:16] + (bit<32>) ~hdr.tcp.ack_no[15:0];
                    hdr.tcp.ack_no = tcp_ack_value;
                }
            }
            delta = (bit<32>) delta[15:0] + (bit<32>) delta[31:16];
            delta = (bit<32>) delta[15:0] + (bit<32>) delta[31:16];
            meta.vary_l4_delta = delta[15:0];
            if (vlan_varies && hdr.vlan.isValid()) {
                hdr.vlan.vid = vlan_value;
            }
            if (outer_vlan_varies && hdr.vlan_outer.isValid()) {
                hdr.vlan_outer.vid = outer_vlan_value;
            }
        }
    }
}

#endif
