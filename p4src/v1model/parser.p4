/* v1model parser and deparser of the tester: controller packets first, then
 * the shared frame parser. */
#ifndef TESTER_V1MODEL_PARSER_P4
#define TESTER_V1MODEL_PARSER_P4

#include "platform.p4"
#include "../common/frame_parser.p4"

parser TesterParser(packet_in pkt, out headers_t hdr, inout local_metadata_t meta,
                    inout standard_metadata_t smeta) {
    FrameParser() frame_parser;

    state start {
        transition select(smeta.ingress_port) {
            CPU_PORT: parse_packet_out;
            default: parse_frame;
        }
    }

    /* Only a seed carries a frame (the stream template); CLEAR and READ carry none. */
    state parse_packet_out {
        pkt.extract(hdr.packet_out);
        transition select(hdr.packet_out.opcode) {
            CTRL_OP_SEED: parse_frame;
            CTRL_OP_SEND: parse_frame;
            default: accept;
        }
    }

    state parse_frame {
        frame_parser.apply(pkt, hdr, meta.frame);
        transition accept;
    }
}

control TesterDeparser(packet_out pkt, in headers_t hdr) {
    EmitFrame() emit_frame;

    apply {
        pkt.emit(hdr.packet_in);
        pkt.emit(hdr.stats);
        emit_frame.apply(pkt, hdr);
    }
}

#endif
