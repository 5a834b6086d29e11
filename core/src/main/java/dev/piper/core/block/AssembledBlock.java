package dev.piper.core.block;

import dev.piper.pipeline.hotline.Split;

/**
 * A block concatenated back into rows, ready for a sink.
 *
 * @param lane the block's input lane (see {@link RawChunk})
 * @param seq the block's sequence number in its lane
 * @param lines number of input lines in the block
 * @param rows number of rows in {@code rowBytes}
 * @param rowBytes rows in the DLRM layout: per row, label, dense and categorical indices as
 *     little-endian int32 (the indices of the columns of one id per row; list columns are apart)
 * @param deadLetters the rejected lines, in line order
 * @param firstNewIndex per categorical column, the index of its first new key (see {@link
 *     IndexChunk#firstNewIndex()})
 * @param newKeys per categorical column, the keys this block added, in index order
 * @param origin the log records the block's lines came from, or {@link Origin#NONE}
 * @param version the version of the pipeline spec the whole block was decoded with
 * @param epochs per categorical column, the vocabulary epoch its indices belong to
 * @param listOffsets per list column of the layout, in column order: where each row's indices start
 *     ({@code rows + 1} entries)
 * @param listIndices per list column: the indices of its rows' ids, in row order
 * @param split Hotline's popular / non-popular split of the rows, or null when the job runs none
 * @param assignments per categorical column, what its evicting vocabulary assigned in this block
 *     (null for a column that does not evict); null when no column evicts
 * @param newNames per categorical column, the original string of each key of {@code newKeys} (of
 *     {@code assignments}' keys for an evicting column), parallel to them, a null entry for a key
 *     without one; null for a column that does not hash strings; null when no column does
 * @param eventTimes per row, its event's time in milliseconds since the epoch ({@code
 *     input.timestamp}); null when the rows carry none
 */
public record AssembledBlock(
        int lane,
        long seq,
        int lines,
        int rows,
        byte[] rowBytes,
        DeadLetter[] deadLetters,
        int[] firstNewIndex,
        long[][] newKeys,
        Origin origin,
        int version,
        int[] epochs,
        int[][] listOffsets,
        int[][] listIndices,
        Split split,
        Assignments[] assignments,
        String[][] newNames,
        long[] eventTimes) {

    public AssembledBlock {
        if (listOffsets.length != listIndices.length) {
            throw new IllegalArgumentException("one offsets and one indices array per list column");
        }
        if (split != null && split.rows() != rows) {
            throw new IllegalArgumentException(
                    "a split of " + split.rows() + " rows for a block of " + rows);
        }
        if (assignments != null && assignments.length != newKeys.length) {
            throw new IllegalArgumentException(
                    "assignments of " + assignments.length + " columns for " + newKeys.length);
        }
        if (newNames != null && newNames.length != newKeys.length) {
            throw new IllegalArgumentException(
                    "names of " + newNames.length + " columns for " + newKeys.length);
        }
        if (eventTimes != null && eventTimes.length != rows) {
            throw new IllegalArgumentException(
                    eventTimes.length + " event times for " + rows + " rows");
        }
    }

    /** A block without event times. */
    /**
     * A block to build, every component at its default: lane 0, sequence 0, no lines, rows, dead
     * letters, columns or list columns, {@link Origin#NONE}, spec version 1, epoch 0 for every
     * categorical column, no split, assignments, names or event times.
     */
    public static Builder builder() {
        return new Builder();
    }

    /** A builder holding this block's components, to build a block that differs in some. */
    public Builder toBuilder() {
        return new Builder()
                .lane(lane)
                .seq(seq)
                .lines(lines)
                .rows(rows)
                .rowBytes(rowBytes)
                .deadLetters(deadLetters)
                .newKeys(firstNewIndex, newKeys)
                .origin(origin)
                .version(version)
                .epochs(epochs)
                .lists(listOffsets, listIndices)
                .split(split)
                .assignments(assignments)
                .newNames(newNames)
                .eventTimes(eventTimes);
    }

    /** This block with {@code a} as its evicting vocabularies' assignments. */
    public AssembledBlock withAssignments(Assignments[] a) {
        return toBuilder().assignments(a).build();
    }

    /** This block without its rows' bytes (a sink that wrote them passes the rest on). */
    public AssembledBlock withoutRowBytes() {
        return toBuilder().rowBytes(new byte[0]).build();
    }

    /** This block with {@code names} as its new keys' strings. */
    public AssembledBlock withNewNames(String[][] names) {
        return toBuilder().newNames(names).build();
    }

    /** This block with {@code times} as its rows' event times. */
    public AssembledBlock withEventTimes(long[] times) {
        return toBuilder().eventTimes(times).build();
    }

    /** This block with Hotline's split {@code s}. */
    public AssembledBlock withSplit(Split s) {
        return toBuilder().split(s).build();
    }

    public String newName(int c, int i) {
        return newNames == null || newNames[c] == null ? null : newNames[c][i];
    }

    /**
     * The components of a block to build, each named: the one place besides the record's header
     * that lists them. {@link #build()} checks them as the record's constructor does.
     */
    public static final class Builder {

        private int lane;
        private long seq;
        private int lines;
        private int rows;
        private byte[] rowBytes = new byte[0];
        private DeadLetter[] deadLetters = new DeadLetter[0];
        private int[] firstNewIndex = new int[0];
        private long[][] newKeys = new long[0][];
        private Origin origin = Origin.NONE;
        private int version = 1;
        private int[] epochs;
        private int[][] listOffsets = new int[0][];
        private int[][] listIndices = new int[0][];
        private Split split;
        private Assignments[] assignments;
        private String[][] newNames;
        private long[] eventTimes;

        private Builder() {}

        public Builder lane(int lane) {
            this.lane = lane;
            return this;
        }

        public Builder seq(long seq) {
            this.seq = seq;
            return this;
        }

        public Builder lines(int lines) {
            this.lines = lines;
            return this;
        }

        public Builder rows(int rows) {
            this.rows = rows;
            return this;
        }

        public Builder rowBytes(byte[] rowBytes) {
            this.rowBytes = rowBytes;
            return this;
        }

        public Builder deadLetters(DeadLetter[] deadLetters) {
            this.deadLetters = deadLetters;
            return this;
        }

        /**
         * Per categorical column, the index of its first new key and the new keys, in index order
         * (the two together: they have one entry per column each).
         */
        public Builder newKeys(int[] firstNewIndex, long[][] newKeys) {
            this.firstNewIndex = firstNewIndex;
            this.newKeys = newKeys;
            return this;
        }

        public Builder origin(Origin origin) {
            this.origin = origin;
            return this;
        }

        public Builder version(int version) {
            this.version = version;
            return this;
        }

        /** Per categorical column, its vocabulary epoch; 0 for every column unless set. */
        public Builder epochs(int[] epochs) {
            this.epochs = epochs;
            return this;
        }

        /** Per list column, where each row's indices start and the indices (one pair a column). */
        public Builder lists(int[][] listOffsets, int[][] listIndices) {
            this.listOffsets = listOffsets;
            this.listIndices = listIndices;
            return this;
        }

        public Builder split(Split split) {
            this.split = split;
            return this;
        }

        public Builder assignments(Assignments[] assignments) {
            this.assignments = assignments;
            return this;
        }

        public Builder newNames(String[][] newNames) {
            this.newNames = newNames;
            return this;
        }

        public Builder eventTimes(long[] eventTimes) {
            this.eventTimes = eventTimes;
            return this;
        }

        public AssembledBlock build() {
            return new AssembledBlock(
                    lane,
                    seq,
                    lines,
                    rows,
                    rowBytes,
                    deadLetters,
                    firstNewIndex,
                    newKeys,
                    origin,
                    version,
                    epochs == null ? new int[newKeys.length] : epochs,
                    listOffsets,
                    listIndices,
                    split,
                    assignments,
                    newNames,
                    eventTimes);
        }
    }
}
