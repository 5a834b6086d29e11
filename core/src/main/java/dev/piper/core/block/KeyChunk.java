package dev.piper.core.block;

import dev.piper.pipeline.ops.VocabularyPolicy;

/**
 * One categorical column of a decoded block: the keys (after hex parsing and modulus) of the
 * block's valid rows, in row order. It travels to the column's vocabulary operator.
 *
 * @param lane the block's input lane (see {@link RawChunk})
 * @param column categorical column index, 0 for C1
 * @param seq the block's sequence number in its lane
 * @param keys the keys; only {@code [0, size)} is meaningful
 * @param size number of keys: the number of rows, or of ids in a list column's rows
 * @param epoch the column's vocabulary epoch under the spec the block was decoded with: a spec
 *     change that alters the column's id space starts a new epoch, a vocabulary of its own
 * @param policy how the epoch's vocabulary gives out indices (fixed for an epoch: a spec switch
 *     that changes it starts a new one)
 * @param offsets for a list column, where each row's ids start ({@code rows + 1} entries, the last
 *     {@code size}); null for a column of one id per row
 * @param times per row, its event time in milliseconds since the epoch, for a vocabulary whose time
 *     to live is event time ({@link VocabularyPolicy#ttlInEventTime()}); null otherwise
 */
public record KeyChunk(
        int lane,
        int column,
        long seq,
        long[] keys,
        int size,
        int epoch,
        VocabularyPolicy policy,
        int[] offsets,
        long[] times) {

    public KeyChunk {
        if (offsets != null && (offsets.length == 0 || offsets[offsets.length - 1] != size)) {
            throw new IllegalArgumentException(
                    "a list column's offsets must end at its " + size + " keys");
        }
        if (times != null && times.length != (offsets == null ? size : offsets.length - 1)) {
            throw new IllegalArgumentException(
                    times.length
                            + " event times for a chunk of "
                            + (offsets == null ? size : offsets.length - 1)
                            + " rows");
        }
    }

    /** A chunk without event times. */
    public int rows() {
        return offsets == null ? size : offsets.length - 1;
    }

    /** This chunk with {@code rowTimes} as its rows' event times. */
    public KeyChunk withTimes(long[] rowTimes) {
        return toBuilder().times(rowTimes).build();
    }

    /** A {@link Builder} with every component at its default (see its fields). */
    public static Builder builder() {
        return new Builder();
    }

    /** A builder holding this record's components, to build one that differs in some. */
    public Builder toBuilder() {
        return new Builder()
                .lane(lane)
                .column(column)
                .seq(seq)
                .keys(keys)
                .size(size)
                .epoch(epoch)
                .policy(policy)
                .offsets(offsets)
                .times(times);
    }

    /**
     * The components of a {@code KeyChunk} to build, each named, with its default: the one place
     * besides the record's header that lists them. {@link #build()} checks them as the record's
     * constructor does.
     */
    public static final class Builder {

        private int lane;
        private int column;
        private long seq;
        private long[] keys = new long[0];
        private int size;
        private int epoch;
        private VocabularyPolicy policy = VocabularyPolicy.FIRST_APPEARANCE;
        private int[] offsets;
        private long[] times;

        private Builder() {}

        public Builder lane(int lane) {
            this.lane = lane;
            return this;
        }

        public Builder column(int column) {
            this.column = column;
            return this;
        }

        public Builder seq(long seq) {
            this.seq = seq;
            return this;
        }

        public Builder keys(long[] keys) {
            this.keys = keys;
            return this;
        }

        public Builder size(int size) {
            this.size = size;
            return this;
        }

        public Builder epoch(int epoch) {
            this.epoch = epoch;
            return this;
        }

        /** The column's vocabulary policy; first appearance unless set. */
        public Builder policy(VocabularyPolicy policy) {
            this.policy = policy;
            return this;
        }

        public Builder offsets(int[] offsets) {
            this.offsets = offsets;
            return this;
        }

        public Builder times(long[] times) {
            this.times = times;
            return this;
        }

        public KeyChunk build() {
            return new KeyChunk(lane, column, seq, keys, size, epoch, policy, offsets, times);
        }
    }
}
