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

    /** A {@link Builder} with every component at its default (see its fields). */
    public static Builder builder() {
        return new Builder();
    }

    /** A builder holding this record's components, to build one that differs in some. */
    public Builder toBuilder() {
        return new Builder()
                .lane(lane)
                .seq(seq)
                .lines(lines)
                .rows(rows)
                .labelDense(labelDense)
                .deadLetters(deadLetters)
                .origin(origin)
                .version(version)
                .layout(layout)
                .onehot(onehot)
                .names(names)
                .eventTimes(eventTimes);
    }

    /**
     * The components of a {@code DenseChunk} to build, each named, with its default: the one place
     * besides the record's header that lists them. {@link #build()} checks them as the record's
     * constructor does.
     */
    public static final class Builder {

        private int lane;
        private long seq;
        private int lines;
        private int rows;
        private int[] labelDense = new int[0];
        private DeadLetter[] deadLetters = new DeadLetter[0];
        private Origin origin = Origin.NONE;
        private int version = 1;
        private RowLayout layout = RowLayout.CRITEO;
        private int[] onehot;
        private BlockNames names;
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

        public Builder labelDense(int[] labelDense) {
            this.labelDense = labelDense;
            return this;
        }

        public Builder deadLetters(DeadLetter[] deadLetters) {
            this.deadLetters = deadLetters;
            return this;
        }

        public Builder origin(Origin origin) {
            this.origin = origin;
            return this;
        }

        /** The pipeline spec's version; 1 unless set. */
        public Builder version(int version) {
            this.version = version;
            return this;
        }

        /** The row layout; Criteo's unless set. */
        public Builder layout(RowLayout layout) {
            this.layout = layout;
            return this;
        }

        public Builder onehot(int[] onehot) {
            this.onehot = onehot;
            return this;
        }

        public Builder names(BlockNames names) {
            this.names = names;
            return this;
        }

        public Builder eventTimes(long[] eventTimes) {
            this.eventTimes = eventTimes;
            return this;
        }

        public DenseChunk build() {
            return new DenseChunk(
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
                    eventTimes);
        }
    }
}
