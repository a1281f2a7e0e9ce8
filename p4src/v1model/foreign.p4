/* What happens to foreign (non-tester) frames: the controller chooses per
 * ingress port; the default drops them. They are counted (rx_kind) either way. */
#ifndef TESTER_V1MODEL_FOREIGN_P4
#define TESTER_V1MODEL_FOREIGN_P4

#include "platform.p4"

control ForeignTraffic(inout standard_metadata_t smeta) {
    action drop_foreign() {
        mark_to_drop(smeta);
    }

    action punt_foreign() {
        smeta.egress_spec = CPU_PORT;
    }

    action forward_foreign(port_t port) {
        smeta.egress_spec = port;
    }

    /* Controller writes: ingress port (ternary; mask 0 = any port) -> action. */
    table foreign_traffic {
        key = { smeta.ingress_port : ternary @name("ingress_port"); }
        actions = { drop_foreign; punt_foreign; forward_foreign; }
        default_action = drop_foreign();
        size = 64;
    }

    apply {
        foreign_traffic.apply();
    }
}

#endif
