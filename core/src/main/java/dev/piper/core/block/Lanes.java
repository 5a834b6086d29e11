package dev.piper.core.block;

/**
 * A lane is one ordered input of the dataflow: a file is lane 0; with a partitioned log, each
 * partition of each pipeline's topic is its own lane. The lane number packs both: {@code pipeline
 * << 16 | partition}, so a job running one pipeline (pipeline 0) has lane = partition.
 */
public final class Lanes {

    /** Partitions per topic a lane number can hold. */
    public static final int MAX_PARTITIONS = 1 << 16;

    /** Pipelines a lane number can hold. */
    public static final int MAX_PIPELINES = 1 << 15;

    private Lanes() {}

    /** The lane of partition {@code partition} of pipeline {@code pipeline}'s input. */
    public static int of(int pipeline, int partition) {
        if (pipeline < 0 || pipeline >= MAX_PIPELINES) {
            throw new IllegalArgumentException("pipeline index " + pipeline + " out of range");
        }
        if (partition < 0 || partition >= MAX_PARTITIONS) {
            throw new IllegalArgumentException(
                    "partition " + partition + ": at most " + MAX_PARTITIONS + " per topic");
        }
        return pipeline << 16 | partition;
    }

    /** The pipeline index of {@code lane}. */
    public static int pipeline(int lane) {
        return lane >>> 16;
    }

    /** The input partition of {@code lane}. */
    public static int partition(int lane) {
        return lane & (MAX_PARTITIONS - 1);
    }
}
