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
    public KeyChunk(
            int lane,
            int column,
            long seq,
            long[] keys,
            int size,
            int epoch,
            VocabularyPolicy policy,
            int[] offsets) {
        this(lane, column, seq, keys, size, epoch, policy, offsets, null);
    }

    /** This chunk with its rows' event times. */
    public KeyChunk withTimes(long[] rowTimes) {
        return new KeyChunk(lane, column, seq, keys, size, epoch, policy, offsets, rowTimes);
    }

    /** A chunk of a column of one id per row. */
    public KeyChunk(
            int lane,
            int column,
            long seq,
            long[] keys,
            int size,
            int epoch,
            VocabularyPolicy policy) {
        this(lane, column, seq, keys, size, epoch, policy, null, null);
    }

    /** The number of rows: {@code size}, or one fewer than the offsets of a list column. */
    public int rows() {
        return offsets == null ? size : offsets.length - 1;
    }

    /** A chunk whose vocabulary has the default policy. */
    public KeyChunk(int lane, int column, long seq, long[] keys, int size, int epoch) {
        this(lane, column, seq, keys, size, epoch, VocabularyPolicy.FIRST_APPEARANCE);
    }

    /** A chunk in the first vocabulary epoch. */
    public KeyChunk(int lane, int column, long seq, long[] keys, int size) {
        this(lane, column, seq, keys, size, 0);
    }

    /** A chunk of lane 0 (file input). */
    public KeyChunk(int column, long seq, long[] keys, int size) {
        this(0, column, seq, keys, size, 0);
    }
}
