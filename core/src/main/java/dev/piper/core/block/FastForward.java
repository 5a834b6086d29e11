package dev.piper.core.block;

import java.io.Serializable;
import java.util.Map;

/**
 * What a stream's output topics hold past the snapshot it resumes from: output that an earlier run
 * committed after that snapshot (whose own {@code _metadata} was lost, or which the user passed
 * over for an older savepoint). A stream restored with a fast-forward does not compute that output
 * again: each lane starts after the last input record the committed output covers and numbers its
 * next block after the last committed one, and each vocabulary first takes the entries committed
 * past the snapshot, in index order, so that the indices it gives next follow them. The state after
 * that is the state the lost snapshot would have restored.
 *
 * <p>Every step is checked against the restored state, so that a fast-forward that does not fit the
 * snapshot (output missing in the middle, a vocabulary with a gap) fails the job loudly rather than
 * commit a plausible mix; and every step is a no-op where the state is already past it, as it is
 * after a restart of the job from one of its own later checkpoints.
 *
 * @param floorStamp the highest commit stamp the output topics hold ({@code piper.checkpoint}): the
 *     run's own stamps continue above it, so that stamps keep growing along the topics
 * @param lanes by lane ({@link Lanes}): what its committed output past the snapshot covers
 * @param columns by pipeline and column ({@link #columnKey}): the vocabulary entries committed past
 *     the snapshot
 */
public record FastForward(long floorStamp, Map<Integer, LaneTail> lanes, Map<Long, Entries> columns)
        implements Serializable {

    /**
     * One lane's committed blocks past the snapshot.
     *
     * @param firstBlock the first of them: the restored state must number its next block so
     * @param lastBlock the last of them: the lane's next block is the one after
     * @param lastOffset the last input offset they cover: the lane goes on after it
     */
    public record LaneTail(long firstBlock, long lastBlock, long lastOffset)
            implements Serializable {

        public LaneTail {
            if (firstBlock < 0 || lastBlock < firstBlock || lastOffset < 0) {
                throw new IllegalArgumentException(
                        "blocks " + firstBlock + ".." + lastBlock + " to offset " + lastOffset);
            }
        }
    }

    /**
     * One column's vocabulary entries committed past the snapshot, without gaps.
     *
     * @param epoch the vocabulary epoch they belong to
     * @param firstIndex the index of the first (with OOV buckets, counted from the buckets' start)
     * @param keys the keys, in index order
     */
    public record Entries(int epoch, long firstIndex, long[] keys) implements Serializable {}

    public FastForward {
        lanes = Map.copyOf(lanes);
        columns = Map.copyOf(columns);
    }

    /** A fast-forward over nothing: a resume whose snapshot is as new as the output. */
    public static FastForward none(long floorStamp) {
        return new FastForward(floorStamp, Map.of(), Map.of());
    }

    /** Whether the output holds anything past the snapshot. */
    public boolean skipsAnything() {
        return !lanes.isEmpty() || !columns.isEmpty();
    }

    /**
     * The key of column {@code column} (0 for C1) of pipeline {@code pipeline} in {@link #columns}.
     */
    public static long columnKey(int pipeline, int column) {
        return (long) pipeline << 32 | column;
    }

    /** The entries of column {@code column} of pipeline {@code pipeline}, or null for none. */
    public Entries entries(int pipeline, int column) {
        return columns.get(columnKey(pipeline, column));
    }
}
