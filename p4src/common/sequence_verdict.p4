/* RFC 4737-style sequence bookkeeping, as pure arithmetic so that every target
 * shares it; the targets keep next_expected / last_seq in their own registers. */
#ifndef TESTER_COMMON_SEQUENCE_VERDICT_P4
#define TESTER_COMMON_SEQUENCE_VERDICT_P4

#include "headers.p4"

control SequenceVerdict(in seq_t seq, in seq_t next_expected, in seq_t last_seq,
                        in bool have_previous,
                        out bit<8> verdict, out seq_t gap, out seq_t new_next_expected) {
    apply {
        /* Modulo-2^32 distance: correct across the sequence wrap. A distance in
         * the upper half of the space means "behind" (seq < next_expected). */
        seq_t ahead = seq - next_expected;
        gap = 0;
        new_next_expected = next_expected;
        /* In order first: the common case decides with one comparison. A repeat of
         * the previous frame never has ahead == 0 (next_expected is always past the
         * last seq received), so testing it second changes no verdict. */
        if (ahead == 0) {
            verdict = SEQ_IN_ORDER;
            new_next_expected = seq + 1;
        } else if (have_previous && seq == last_seq) {
            /* Repeat of the packet just received. A repeat of an older packet is
             * indistinguishable from a late one without a per-seq bitmap: it
             * counts as reordered (documented limitation). */
            verdict = SEQ_DUPLICATE;
        } else if (ahead[31:31] == 0) {
            /* Gaps are not reduced when a late packet fills them later: loss is
             * TX - RX; gaps and reordering are separate figures. */
            verdict = SEQ_GAP;
            gap = ahead;
            new_next_expected = seq + 1;
        } else {
            verdict = SEQ_REORDERED;
        }
    }
}

#endif
