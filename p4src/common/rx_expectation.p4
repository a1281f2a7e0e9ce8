/* What each stream's frames must be in its current trial, as the controller
 * wrote it before the trial: the checker accepts a frame as stream S's only
 * when it matches S's entry (RxClassifier), so that a frame of an earlier trial
 * still queued in a DUT, or a look-alike someone else sent, never changes S's
 * figures. The same table on every target. */
#ifndef TESTER_COMMON_RX_EXPECTATION_P4
#define TESTER_COMMON_RX_EXPECTATION_P4

#include "headers.p4"

control RxExpectation(in headers_t hdr, out rx_expectation_t expected) {
    action expect(bit<8> trial_run, bit<8> trial_epoch, bit<16> rx_port, bit<8> ip_version) {
        expected.in_trial = true;
        expected.run_epoch = trial_run ++ trial_epoch[7:1];
        expected.rx_port = rx_port;
        expected.ip_version = ip_version;
    }

    action not_in_trial() {
        expected.in_trial = false;
        expected.run_epoch = 0;
        expected.rx_port = 0;
        expected.ip_version = 0;
    }

    /* Controller writes, per stream before each trial: stream -> expect(run =
     * the run value of the trial's template, epoch = the TESTER_FLAG_EPOCH_MASK
     * bits of its flags (both the same values as the generator's run), rx_port = the port the stream's frames come back on,
     * ip_version = IP_VERSION_4 or IP_VERSION_6 as the template). A stream with no
     * entry is in no trial: its frames are RX_KIND_STALE. */
    table rx_expected {
        key = { hdr.tester.stream_id : exact @name("stream"); }
        actions = { expect; not_in_trial; }
        default_action = not_in_trial();
        size = MAX_STREAMS;
    }

    apply {
        rx_expected.apply();
    }
}

#endif
