package dev.piper.core.block;

import dev.piper.pipeline.layout.RowLayout;

/**
 * The row-wise part of a decoded block: labels and dense values of its valid rows, and the dead
 * letters of its rejected lines. Every line of the block is one or the other: {@code lines == rows
 * + deadLetters.length}.
 *
 * @param lane the block's input lane (see {@link RawChunk})
 * @param seq the block's sequence number in its lane
 * @param lines number of input lines in the block
 * @param rows number of valid rows
 * @param labelDense row-major label then dense values, {@code rows * layout.labelDenseWidth()} ints
 * @param deadLetters the rejected lines, in line order
 * @param origin the log records the block's lines came from, or {@link Origin#NONE}
 * @param version the version of the pipeline spec the whole block was decoded with
 * @param layout the fields of the block's rows: the width of {@code labelDense}, and how many index
 *     chunks complete the block
 * @param onehot per label/dense slot, the size of the onehot its value becomes in the output row
 *     (the value is the category), or 0; null when no slot has one
 * @param names the original strings of the block's hash64 columns, or null when it has none
 * @param eventTimes per row, its event's time in milliseconds since the epoch ({@code
 *     input.timestamp}); null when the rows carry none
 */
public record DenseChunk(
        int lane,
        long seq,
        int lines,
        int rows,
        int[] labelDense,
        DeadLetter[] deadLetters,
        Origin origin,
        int version,
        RowLayout layout,
        int[] onehot,
        BlockNames names,
        long[] eventTimes) {

    public DenseChunk {
        if (onehot != null && onehot.length != layout.labelDenseWidth()) {
            throw new IllegalArgumentException("one onehot size per label/dense slot expected");
        }
        if (labelDense.length < rows * layout.labelDenseWidth()) {
            throw new IllegalArgumentException(
                    "labelDense holds fewer than " + rows + " rows of " + layout);
        }
        if (names != null && names.columns() != layout.sparse()) {
            throw new IllegalArgumentException(
                    "names of " + names.columns() + " columns for " + layout);
        }
        if (eventTimes != null && eventTimes.length != rows) {
            throw new IllegalArgumentException(
                    eventTimes.length + " event times for " + rows + " rows");
        }
    }

    /** A chunk without event times. */
    public DenseChunk(
            int lane,
            long seq,
            int lines,
            int rows,
            int[] labelDense,
            DeadLetter[] deadLetters,
            Origin origin,
            int version,
            RowLayout layout,
            int[] onehot,
            BlockNames names) {
        this(
                lane,
                seq,
                lines,
                rows,
                labelDense,
                deadLetters,
                origin,
                version,
                layout,
                onehot,
                names,
                null);
    }

    /** A chunk without names. */
    public DenseChunk(
            int lane,
            long seq,
            int lines,
            int rows,
            int[] labelDense,
            DeadLetter[] deadLetters,
            Origin origin,
            int version,
            RowLayout layout,
            int[] onehot) {
        this(
                lane,
                seq,
                lines,
                rows,
                labelDense,
                deadLetters,
                origin,
                version,
                layout,
                onehot,
                null);
    }

    /** A chunk of Criteo's layout. */
    public DenseChunk(
            int lane,
            long seq,
            int lines,
            int rows,
            int[] labelDense,
            DeadLetter[] deadLetters,
            Origin origin,
            int version) {
        this(lane, seq, lines, rows, labelDense, deadLetters, origin, version, RowLayout.CRITEO);
    }

    /** A chunk without onehot columns. */
    public DenseChunk(
            int lane,
            long seq,
            int lines,
            int rows,
            int[] labelDense,
            DeadLetter[] deadLetters,
            Origin origin,
            int version,
            RowLayout layout) {
        this(lane, seq, lines, rows, labelDense, deadLetters, origin, version, layout, null);
    }

    /** A chunk of lane 0 (file input) decoded with spec version 1. */
    public DenseChunk(long seq, int lines, int rows, int[] labelDense, DeadLetter[] deadLetters) {
        this(0, seq, lines, rows, labelDense, deadLetters, Origin.NONE, 1);
    }
}
