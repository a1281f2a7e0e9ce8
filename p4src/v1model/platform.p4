/* BMv2 (v1model) facts the tester depends on. */
#ifndef TESTER_V1MODEL_PLATFORM_P4
#define TESTER_V1MODEL_PLATFORM_P4

#include <core.p4>
#include <v1model.p4>
#include "../common/constants.p4"

typedef bit<9> port_t;

/* Must match simple_switch_grpc --cpu-port. */
const port_t CPU_PORT = 510;
/* Stream s paces its generator loop through the egress queue of port
 * PACER_PORT_BASE + s: the controller sets that queue's rate (pps) over thrift.
 * These ports have no interface: what leaves their queue is recirculated. */
const port_t PACER_PORT_BASE = 256;
/* Front-panel ports are 0 .. PACER_PORT_BASE - 1: one per-port counter cell each. */
#define FRONT_PANEL_PORTS 256
const port_t PACER_PORT_LAST = PACER_PORT_BASE + MAX_STREAMS - 1;
/* A stream whose TX port is this one never leaves the switch. Egress stamps it as
 * any TX frame and recirculates it (LOOP_STAGE_OUT); ingress sends it to this port's
 * queue again, where egress reads the time and recirculates it once more
 * (LOOP_STAGE_BACK: a recirculated frame gets no ingress timestamp on BMv2); then
 * ingress checks it as if it had arrived on this port with that time. Such a
 * reference stream crosses the switch's input buffer, ingress, an egress queue and
 * egress, as the streams do on their way out and back: it measures the tester's own
 * latency (its queues, its threads, the host's stalls) beside the DUT's streams. */
const port_t REFERENCE_LOOP_PORT = 320;  /* PACER_PORT_LAST + 1 */
const bit<2> LOOP_STAGE_NONE = 0;
const bit<2> LOOP_STAGE_OUT  = 1;
const bit<2> LOOP_STAGE_BACK = 2;

/* The egress_spec mark_to_drop() sets: egress drops the packet at its end. */
const port_t DROP_PORT = 511;
/* standard_metadata.instance_type of a recirculated packet in simple_switch. */
const bit<32> PKT_INSTANCE_TYPE_RECIRC = 4;
/* Field list index that recirculation preserves: none (the template carries all). */
const bit<8> RECIRC_FIELDS_NONE = 0;
/* Field list index a reference frame's recirculation preserves: meta.looped_back. */
const bit<8> RECIRC_FIELDS_REFERENCE = 3;
/* standard_metadata.instance_type of an ingress-to-egress clone. */
const bit<32> PKT_INSTANCE_TYPE_INGRESS_CLONE = 1;
/* Capture (capture.p4): clone session to the CPU port, rules, preserved fields. */
const bit<32> CAPTURE_CLONE_SESSION = 250;
#define CAPTURE_RULES 16
const bit<8> CAPTURE_FIELDS = 2;
/* Random frame sizes (generator.p4, tx_resize): a frame loses up to 2^CUT_BITS - 1
 * bytes of its template (9216 - 64 = 9152 fits). The cut bytes are counted bit by
 * bit, CUT_BITS cells per stream and per port 0 .. CUT_PORTS - 1 (tx_cut_bits): the
 * ports random-size frames may leave by (fewer cells make every counter read, which
 * each snapshot does, shorter). */
#define CUT_BITS 14
#define CUT_PORTS 64

#endif
