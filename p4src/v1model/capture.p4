/* Capture: copies of received frames to the controller, by rule (port, stream,
 * RX kind), each rule at most one copy per min_gap_us of switch time, so that a
 * capture taken during a trial adds a bounded load however fast the stream runs.
 * The copy is an ingress-to-egress clone to the CPU port (clone session
 * CAPTURE_CLONE_SESSION, which the controller points at the CPU port); the
 * original goes on as if nothing happened. */
#ifndef TESTER_V1MODEL_CAPTURE_P4
#define TESTER_V1MODEL_CAPTURE_P4

#include "platform.p4"
#include "../common/headers.p4"

control FrameCapture(in headers_t hdr, inout local_metadata_t meta,
                     in standard_metadata_t smeta) {
    /* Per rule: switch time of its last copy. */
    register<bit<48>>(CAPTURE_RULES) last_copy;
    /* Per rule: frames copied, and frames it matched but skipped (too soon after
     * the last copy): the capture is a sample when skipped > 0, and says so. */
    counter(CAPTURE_RULES, CounterType.packets) capture_copied;
    counter(CAPTURE_RULES, CounterType.packets) capture_skipped;

    bit<32> rule = 0;
    bit<48> min_gap = 0;

    action copy(bit<32> rule_index, bit<32> min_gap_us) {
        rule = rule_index;
        min_gap = (bit<48>) min_gap_us;
    }

    /* Controller writes: (port, stream, rx_kind) ternary -> copy(rule, gap). */
    table capture_rules {
        key = {
            smeta.ingress_port  : ternary @name("port");
            hdr.tester.stream_id: ternary @name("stream");
            meta.rx_kind        : ternary @name("rx_kind");
        }
        actions = { copy; NoAction; }
        default_action = NoAction();
        size = CAPTURE_RULES;
    }

    apply {
        if (capture_rules.apply().hit) {
            bit<48> last;
            last_copy.read(last, rule);
            bit<48> now = smeta.ingress_global_timestamp;
            if (last == 0 || now - last >= min_gap) {
                last_copy.write(rule, now);
                capture_copied.count(rule);
                meta.capture_port = (bit<16>) smeta.ingress_port;
                clone_preserving_field_list(CloneType.I2E, CAPTURE_CLONE_SESSION,
                                            CAPTURE_FIELDS);
            } else {
                capture_skipped.count(rule);
            }
        }
    }
}

#endif
