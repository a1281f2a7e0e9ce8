/* Target-neutral header and metadata types of the tester and the reference DUT. */
#ifndef TESTER_COMMON_HEADERS_P4
#define TESTER_COMMON_HEADERS_P4

#include "constants.p4"

header ethernet_h {
    bit<48> dst_addr;
    bit<48> src_addr;
    bit<16> ether_type;
}

header vlan_h {
    bit<3>  pcp;
    bit<1>  dei;
    bit<12> vid;
    bit<16> ether_type;
}

header arp_h {
    bit<16> htype;
    bit<16> ptype;
    bit<8>  hlen;
    bit<8>  plen;
    bit<16> oper;
    bit<48> sha;
    bit<32> spa;
    bit<48> tha;
    bit<32> tpa;
}

header icmpv6_h {
    bit<8>  type;
    bit<8>  code;
    bit<16> checksum;
}

/* Neighbor Solicitation / Advertisement body (RFC 4861): flags (NA) or reserved. */
header nd_h {
    bit<32>  flags;
    bit<128> target;
}

/* One link-layer address option (source in an NS, target in an NA). */
header nd_option_h {
    bit<8>  type;
    bit<8>  length;   /* 8-byte units: 1 */
    bit<48> mac;
}

header mpls_h {
    bit<20> label;
    bit<3>  tc;
    bit<1>  bos;          /* bottom of stack */
    bit<8>  ttl;
}

header ipv4_h {
    bit<4>  version;
    bit<4>  ihl;
    bit<8>  dscp_ecn;
    bit<16> total_len;
    bit<16> identification;
    bit<3>  flags;
    bit<13> frag_offset;
    bit<8>  ttl;
    bit<8>  protocol;
    bit<16> hdr_checksum;
    bit<32> src_addr;
    bit<32> dst_addr;
}

header ipv6_h {
    bit<4>   version;
    bit<8>   traffic_class;
    bit<20>  flow_label;
    bit<16>  payload_len;
    bit<8>   next_hdr;
    bit<8>   hop_limit;
    bit<128> src_addr;
    bit<128> dst_addr;
}

/* SRv6 Segment Routing Header (RFC 8754) without TLVs; its segments follow. */
header srh_h {
    bit<8>  next_hdr;
    bit<8>  hdr_ext_len;
    bit<8>  routing_type;
    bit<8>  segments_left;
    bit<8>  last_entry;
    bit<8>  flags;
    bit<16> tag;
}

header srh_segment_h {
    bit<128> sid;
}

header tcp_h {
    bit<16> src_port;
    bit<16> dst_port;
    bit<32> seq_no;
    bit<32> ack_no;
    bit<4>  data_offset;
    bit<4>  reserved;
    bit<8>  flags;
    bit<16> window;
    bit<16> checksum;
    bit<16> urgent_ptr;
}

header vxlan_h {
    bit<8>  flags;
    bit<24> reserved;
    bit<24> vni;
    bit<8>  reserved2;
}

/* GTP-U (3GPP TS 29.281): the mandatory part; gtpu_opt_h follows when any of
 * the E, S, PN flags is set, and one 4-byte extension header when E is. */
header gtpu_h {
    bit<3>  version;
    bit<1>  pt;
    bit<1>  spare;
    bit<1>  ext_flag;
    bit<1>  seq_flag;
    bit<1>  npdu_flag;
    bit<8>  msg_type;
    bit<16> length;
    bit<32> teid;
}

header gtpu_opt_h {
    bit<16> seq_no;
    bit<8>  npdu_no;
    bit<8>  next_ext;
}

/* One extension header of length 1 (4 bytes), e.g. the PDU Session Container. */
header gtpu_ext_h {
    bit<8>  length;       /* in 4-byte units: 1 */
    bit<16> content;
    bit<8>  next_ext;
}

header udp_h {
    bit<16> src_port;
    bit<16> dst_port;
    bit<16> length;
    bit<16> checksum;
}

/* The tester header: first 18 bytes of the UDP payload, so that a 64-byte
 * IPv4/UDP frame holds it (64 - 4 FCS - 14 Ethernet - 20 IPv4 - 8 UDP = 18).
 * Minimum frame sizes (incl. FCS): IPv4 64, VLAN+IPv4 68, IPv6 84, VLAN+IPv6 88. */
header tester_h {
    bit<16>     signature;    /* TESTER_SIGNATURE */
    bit<8>      run;          /* the run's value: with the epoch in flags, which run and trial */
    bit<8>      flags;        /* TESTER_FLAG_* */
    stream_id_t stream_id;
    seq_t       seq;          /* stamped in egress, contiguous from the initial seq */
    timestamp_t tx_ts;        /* stamped in egress: low 32 bits of the switch clock */
    bit<16>     dut_qdepth;   /* written by a cooperating DUT (packets, saturating) */
    bit<16>     dut_qdelay;   /* written by a cooperating DUT (its clock units, saturating) */
}

/* Controller -> switch. What the controller sends is described per opcode in
 * constants.p4 (CTRL_OP_*). */
@controller_header("packet_out")
header packet_out_h {
    bit<8>      opcode;
    stream_id_t stream_id;
    seq_t       initial_seq;  /* CTRL_OP_CLEAR: first sequence number of the trial */
}

/* Switch -> controller. */
@controller_header("packet_in")
header packet_in_h {
    bit<8>  reason;        /* CTRL_OP_CLEAR / CTRL_OP_READ reply, or PUNT_REASON_FOREIGN */
    bit<16> ingress_port;
}

/* Reply to CTRL_OP_READ: one stream's register state, gathered in-band because
 * BMv2 does not serve registers over P4Runtime (and in-band works on every target). */
header stream_stats_h {
    stream_id_t stream_id;
    seq_t       rx_next_expected;
    seq_t       rx_last_seq;
    bit<64>     rx_samples;        /* packets that gave a latency sample */
    bit<64>     rx_lost;           /* sum of sequence gaps */
    timestamp_t latency_min;
    timestamp_t latency_max;
    bit<64>     latency_sum;
    bit<64>     jitter_sum;        /* sum of |latency difference| of consecutive packets */
    timestamp_t last_latency;
    bit<32>     generated;         /* token passes that made a TX copy */
    seq_t       tx_next_seq;
    timestamp_t switch_time;       /* switch clock when the read passed egress (BMv2),
                                    * where tx_next_seq was read with it */
}

struct headers_t {
#ifdef TARGET_HEADERS
    /* Headers only one target's adapter extracts (psa/platform.p4). */
    TARGET_HEADERS
#endif
    packet_out_h   packet_out;
    packet_in_h    packet_in;
    stream_stats_h stats;
    /* Outer (or only) headers, in wire order. */
    ethernet_h     ethernet;
    vlan_h         vlan_outer;   /* QinQ: the service tag before `vlan` */
    vlan_h         vlan;
    arp_h          arp;
    mpls_h[MPLS_MAX_LABELS] mpls;
    ipv4_h         ipv4;
    ipv6_h         ipv6;
#ifdef TESTER_IPV6_TUNNELS
    srh_h          srh;
    srh_segment_h[SRH_MAX_SEGMENTS] srh_segments;
#endif
    icmpv6_h       icmpv6;
    nd_h           nd;
    nd_option_h    nd_option;
    udp_h          udp;
    tcp_h          tcp;
    /* A tunnel's payload: VxLAN carries Ethernet, GTP-U and SRv6 carry IP. */
    vxlan_h        vxlan;
    gtpu_h         gtpu;
    gtpu_opt_h     gtpu_opt;
    gtpu_ext_h     gtpu_ext;
    ethernet_h     inner_ethernet;
    ipv4_h         inner_ipv4;
    ipv6_h         inner_ipv6;
    udp_h          inner_udp;
    tcp_h          inner_tcp;
    tester_h       tester;
}

/* What the frame parser learned beyond header validity. */
struct frame_metadata_t {
    /* UDP to TESTER_UDP_DST_PORT, or the signature found: should carry a tester header */
    bool tester_port_seen;
    /* IP_VERSION_* of the tester's own (innermost) IP, set as the parser walks:
     * a parser constant costs Tofino no MAU stage. */
    bit<8>  ip_version;
    bool    neighbor_discovery;  /* ICMPv6 RS, RA, NS, NA or redirect */
}

/* What a stream's frames must be in its current trial: the rx_expected entry the
 * controller wrote for the stream (common/rx_expectation.p4). */
struct rx_expectation_t {
    bool    in_trial;     /* false: no entry, the stream is in no trial */
    /* The trial's frames' run byte, then their epoch (flags bits 7..1): compared
     * with the frame's as one 15-bit field, a Tofino gateway with no stage of
     * its own for masking the flags. */
    bit<15> run_epoch;
    bit<16> rx_port;      /* the port the stream's frames come back on */
    bit<8>  ip_version;   /* IP_VERSION_4 or IP_VERSION_6: the template's */
}

struct local_metadata_t {
    frame_metadata_t frame;
    bit<8>      ctrl_op;        /* opcode of a controller packet, CTRL_OP_NONE otherwise */
    stream_id_t stream;
    seq_t       initial_seq;
    bit<8>      rx_kind;
    bool        stamped_tx;     /* egress stamped seq/tx_ts: dut_qdelay keeps the checksums */
    rx_expectation_t expected;  /* ingress: the received frame's stream's expectation */
    /* Egress: L4 ports a varying stream's frame got (0 when the stream does not
     * vary them); they join the checksum-neutral stamp (constants.p4). */
    bool        neighbor_answered;  /* ingress answered an ARP request / NS */
    /* A capture copy's port of arrival (v1model clones keep only listed fields). */
    @field_list(2) bit<16> capture_port;
    /* BMv2: where a reference stream's frame is on its loop inside the switch
     * (LOOP_STAGE_*, v1model/platform.p4), and the time it came back; its
     * recirculations keep both. */
    @field_list(3) bit<2> loop_stage;
    @field_list(3) timestamp_t loop_rx_ts;
    /* BMv2 generator: TX replicas this loop pass keeps (the last pass of a budget
     * may need fewer than the stream's frames per pass). */
    bit<8>      tx_copies;
    bit<16>     vary_index;
    bit<16>     vary_src_port;
    bit<16>     vary_dst_port;
    /* BMv2 generator, random frame sizes: the bytes this frame lost of its template
     * (0: none), and its L4 length after the cut and, complemented, before: they join
     * the checksum-neutral stamp (v1model/checksums.p4). */
    bit<16>     size_cut;
    bit<16>     l4_len_after;
    bit<16>     l4_len_before_neg;
    /* BMv2 field steps (v1model/field_steps.p4): the L4 pseudo header's change from
     * new addresses (ones' complement), which joins the stamp, and whether the
     * IPv4 header changed (its checksum is recomputed). */
    bit<16>     vary_l4_delta;
    bool        vary_ipv4_header;
    /* BMv2: the tester's clock setting (v1model/tester_clock.p4), read in ingress for
     * egress's stamps, and a TX frame's clock correction (its stream's, from
     * gen_streams): its stamp on the receiving tester's clock. */
    timestamp_t clock_offset;
    bit<8>      clock_drift_shift;
    timestamp_t tx_clock_correction;
}

#endif
