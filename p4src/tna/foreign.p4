/* What happens to foreign (non-tester) frames on Tofino: the controller chooses
 * per ingress port; the default drops them. They are counted (rx_kind) either way. */
#ifndef TESTER_TNA_FOREIGN_P4
#define TESTER_TNA_FOREIGN_P4

#include "platform.p4"

control ForeignTraffic(inout tna_headers_t hdr, in port_t ingress_port,
                       inout ingress_intrinsic_metadata_for_deparser_t ig_dprsr_md,
                       inout ingress_intrinsic_metadata_for_tm_t ig_tm_md) {
    action drop_foreign() {
        ig_dprsr_md.drop_ctl = 1;
    }

    action punt_foreign() {
        ig_tm_md.ucast_egress_port = CPU_PORT;
        hdr.bridge.setValid();
        hdr.bridge.role = ROLE_PUNTED;
        hdr.bridge.ingress_port = (bit<16>) ingress_port;
    }

    action forward_foreign(port_t port) {
        ig_tm_md.ucast_egress_port = port;
        hdr.bridge.setValid();
        hdr.bridge.role = ROLE_NONE;
        hdr.bridge.ingress_port = (bit<16>) ingress_port;
    }

    /* Controller writes: ingress port (ternary; mask 0 = any port) -> action. */
    table foreign_traffic {
        key = { ingress_port : ternary @name("ingress_port"); }
        actions = { drop_foreign; punt_foreign; forward_foreign; }
        default_action = drop_foreign();
        size = 64;
    }

    apply {
        foreign_traffic.apply();
    }
}

#endif
