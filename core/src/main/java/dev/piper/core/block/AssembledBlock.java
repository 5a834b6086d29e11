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
    public AssembledBlock(
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
            String[][] newNames) {
        this(
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
                epochs,
                listOffsets,
                listIndices,
                split,
                assignments,
                newNames,
                null);
    }

    /** A block without names. */
    public AssembledBlock(
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
            Assignments[] assignments) {
        this(
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
                epochs,
                listOffsets,
                listIndices,
                split,
                assignments,
                null);
    }

    /** A block whose columns do not evict. */
    public AssembledBlock(
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
            Split split) {
        this(
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
                epochs,
                listOffsets,
                listIndices,
                split,
                null);
    }

    /** This block with its evicting columns' assignments. */
    public AssembledBlock withAssignments(Assignments[] a) {
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
                epochs,
                listOffsets,
                listIndices,
                split,
                a,
                newNames,
                eventTimes);
    }

    /** A block without a split. */
    public AssembledBlock(
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
            int[][] listIndices) {
        this(
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
                epochs,
                listOffsets,
                listIndices,
                null);
    }

    /**
     * This block without its rows' bytes (an empty {@link #rowBytes()}; {@link #rows()} still
     * counts them): what follows a block whose rows a shard writer has written, so that they do not
     * cross the network again.
     */
    public AssembledBlock withoutRowBytes() {
        return new AssembledBlock(
                lane,
                seq,
                lines,
                rows,
                new byte[0],
                deadLetters,
                firstNewIndex,
                newKeys,
                origin,
                version,
                epochs,
                listOffsets,
                listIndices,
                split,
                assignments,
                newNames,
                eventTimes);
    }

    /** This block with the names of its new keys. */
    public AssembledBlock withNewNames(String[][] names) {
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
                epochs,
                listOffsets,
                listIndices,
                split,
                assignments,
                names,
                eventTimes);
    }

    /** This block with its rows' event times. */
    public AssembledBlock withEventTimes(long[] times) {
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
                epochs,
                listOffsets,
                listIndices,
                split,
                assignments,
                newNames,
                times);
    }

    /** The original string of new key {@code i} of column {@code c}, or null. */
    public String newName(int c, int i) {
        return newNames == null || newNames[c] == null ? null : newNames[c][i];
    }

    /** This block with Hotline's split of its rows. */
    public AssembledBlock withSplit(Split s) {
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
                epochs,
                listOffsets,
                listIndices,
                s,
                assignments,
                newNames,
                eventTimes);
    }

    /** A block without list columns. */
    public AssembledBlock(
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
            int[] epochs) {
        this(
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
                epochs,
                new int[0][],
                new int[0][]);
    }

    /** A block of lane 0 (file input). */
    public AssembledBlock(
            long seq,
            int lines,
            int rows,
            byte[] rowBytes,
            DeadLetter[] deadLetters,
            int[] firstNewIndex,
            long[][] newKeys) {
        this(
                0,
                seq,
                lines,
                rows,
                rowBytes,
                deadLetters,
                firstNewIndex,
                newKeys,
                Origin.NONE,
                1,
                new int[newKeys.length]);
    }
}
