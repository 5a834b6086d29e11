package dev.piper.core.join;

import dev.piper.pipeline.join.JoinReason;
import dev.piper.pipeline.join.JoinSettings;

/** The detail of a join's dead letter: what the record was and why the join refused it. */
final class JoinDetails {

    private JoinDetails() {}

    /**
     * A line of {@code length} bytes over the limit: {@code maxLineBytes}, less the {@code
     * reserved} bytes an impression's labels take (0 for an action).
     */
    static String tooLong(long length, int maxLineBytes, int reserved) {
        return "line has "
                + length
                + " bytes; the limit is "
                + maxLineBytes
                + (reserved == 0 ? "" : " less " + reserved + " kept for the join's labels");
    }

    static String of(
            JoinReason reason, String key, long timeMs, long watermark, JoinSettings settings) {
        String what = "key \"" + key + "\" at " + timeMs + " ms";
        return switch (reason) {
            case LATE_IMPRESSION, LATE_ACTION ->
                    what
                            + ": behind its partition's watermark "
                            + watermark
                            + " ms (out of order by more than max_out_of_orderness, "
                            + settings.maxOutOfOrdernessMs()
                            + " ms)";
            case DUPLICATE_IMPRESSION ->
                    what
                            + ": the key had an impression at most the longest window ("
                            + settings.longestWindowMs()
                            + " ms) before";
            case ACTION_AFTER_WINDOW -> what + ": after its impression's window";
            case ORPHAN_ACTION ->
                    what
                            + ": no impression of the key at or before it (within the window and"
                            + " retention, "
                            + settings.forgetAfterMs()
                            + " ms)";
            case DUPLICATE_ACTION -> what + ": its id joined the impression already";
        };
    }
}
