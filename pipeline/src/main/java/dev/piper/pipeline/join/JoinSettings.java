package dev.piper.pipeline.join;

import java.io.Serializable;
import java.util.List;

/**
 * The label join's settings: its action streams and how event time is judged.
 *
 * @param streams the action streams, in the spec's order (a stream's index is its number in rows'
 *     labels and in {@link Position#source()}, less one)
 * @param maxOutOfOrdernessMs how far behind the latest record of its partition a record may be and
 *     still be placed by its time: a record more than this behind is late
 * @param retentionMs how long past its longest window an impression is remembered, so that an
 *     action of its key after its window is counted late (after its window) rather than orphan
 * @param negativeSampleRate the fraction of negative rows kept, in (0, 1]: a row is kept by a hash
 *     of its key, the same choice in every run, and weighs {@code 1 / rate}
 */
public record JoinSettings(
        List<ActionStream> streams,
        long maxOutOfOrdernessMs,
        long retentionMs,
        double negativeSampleRate)
        implements Serializable {

    public JoinSettings {
        streams = List.copyOf(streams);
        if (streams.isEmpty()) {
            throw new IllegalArgumentException("a label join needs at least one action stream");
        }
        if (maxOutOfOrdernessMs < 0 || retentionMs < 0) {
            throw new IllegalArgumentException(
                    "max out-of-orderness and retention are at least 0 ms, not "
                            + maxOutOfOrdernessMs
                            + " and "
                            + retentionMs);
        }
        if (!(negativeSampleRate > 0 && negativeSampleRate <= 1)) {
            throw new IllegalArgumentException(
                    "the negative sample rate is in (0, 1], not " + negativeSampleRate);
        }
    }

    /** The longest window of any stream. */
    public long longestWindowMs() {
        long longest = Long.MIN_VALUE; // a loop, not a stream: every key's join asks, once
        for (ActionStream s : streams) {
            longest = Math.max(longest, s.windowMs());
        }
        return longest;
    }

    /**
     * How long after its time an impression's row is first emitted: the longest window of the
     * {@link EmitPolicy#WAIT} streams, 0 when every stream is {@link EmitPolicy#NEGATIVE_FIRST}.
     */
    public long firstEmissionDelayMs() {
        long delay = 0;
        for (ActionStream s : streams) {
            if (s.policy() == EmitPolicy.WAIT) {
                delay = Math.max(delay, s.windowMs());
            }
        }
        return delay;
    }

    /** How long after its time an impression is forgotten. */
    public long forgetAfterMs() {
        return longestWindowMs() + retentionMs;
    }
}
