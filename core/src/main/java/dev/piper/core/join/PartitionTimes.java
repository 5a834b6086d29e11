package dev.piper.core.join;

import java.util.HashMap;
import java.util.Map;

/**
 * The latest event time read per partition of the label join's topics: it stamps each record with
 * its partition's watermark as it is read (the latest time before it there, less the max
 * out-of-orderness), which decides whether the record is late. The stream checkpoints it with the
 * topics' offsets, so that a record read again after a restore is judged as the first time; the
 * batch join keeps the same per file.
 */
public final class PartitionTimes {

    private final long maxOutOfOrdernessMs;
    private final Map<Long, Long> maxTimes = new HashMap<>();

    public PartitionTimes(long maxOutOfOrdernessMs) {
        this.maxOutOfOrdernessMs = maxOutOfOrdernessMs;
    }

    /** {@code r} with its partition's watermark; the partition then knows its time. */
    public JoinInput stamp(JoinInput r) {
        long key = key(r.isImpression() ? 0 : 1 + r.stream(), r.partition());
        Long max = maxTimes.get(key);
        long w = watermark(max == null ? Long.MIN_VALUE : max, maxOutOfOrdernessMs);
        if (max == null || r.timeMs() > max) {
            maxTimes.put(key, r.timeMs());
        }
        return r.withWatermark(w);
    }

    /** The latest time per partition, by {@link #key}: what a checkpoint holds. */
    public Map<Long, Long> maxTimes() {
        return maxTimes;
    }

    /**
     * Takes a restored partition's latest time (several subtasks' checkpoints may hold one
     * partition, after a rescale: the latest wins).
     */
    public void restore(long key, long maxTime) {
        maxTimes.merge(key, maxTime, Math::max);
    }

    /**
     * A partition's watermark: its latest time {@code maxTime} less {@code maxOutOfOrdernessMs};
     * {@link Long#MIN_VALUE} before any record ({@code maxTime} {@link Long#MIN_VALUE}). A record
     * of an earlier time is late. The batch join's partitions and the stream's alike.
     */
    public static long watermark(long maxTime, long maxOutOfOrdernessMs) {
        return maxTime == Long.MIN_VALUE ? Long.MIN_VALUE : maxTime - maxOutOfOrdernessMs;
    }

    /** A partition of a source (0: the impressions, {@code 1 + s}: action stream {@code s}). */
    public static long key(int source, int partition) {
        return ((long) source << 32) | (partition & 0xffffffffL);
    }
}
