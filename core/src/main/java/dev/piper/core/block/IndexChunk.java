package dev.piper.core.block;

/**
 * One categorical column of a block after its vocabulary: the dense index of every row, and the
 * keys that this block added to the vocabulary (at indices {@code firstNewIndex, firstNewIndex + 1,
 * ...}).
 *
 * @param lane the block's input lane (see {@link RawChunk})
 * @param column categorical column index, 0 for C1
 * @param seq the block's sequence number in its lane
 * @param indices the indices; only {@code [0, size)} is meaningful
 * @param size number of indices: the number of rows, or of ids in a list column's rows
 * @param firstNewIndex the index of the first new key: the OOV buckets plus the vocabulary size
 *     before this block
 * @param newKeys keys first seen in this block, in index order
 * @param epoch the vocabulary epoch the indices belong to (see {@link KeyChunk#epoch()})
 * @param offsets for a list column, where each row's indices start ({@code rows + 1} entries, the
 *     last {@code size}), as its key chunk had them; null for a column of one id per row
 * @param assignments under an evicting vocabulary policy, what it assigned (fresh and reused
 *     indices, in order, with their rows), and then {@code newKeys} are their keys; null otherwise
 */
public record IndexChunk(
        int lane,
        int column,
        long seq,
        int[] indices,
        int size,
        int firstNewIndex,
        long[] newKeys,
        int epoch,
        int[] offsets,
        Assignments assignments) {

    public IndexChunk {
        if (offsets != null && (offsets.length == 0 || offsets[offsets.length - 1] != size)) {
            throw new IllegalArgumentException(
                    "a list column's offsets must end at its " + size + " indices");
        }
    }

    /** A chunk whose vocabulary does not evict. */
    public IndexChunk(
            int lane,
            int column,
            long seq,
            int[] indices,
            int size,
            int firstNewIndex,
            long[] newKeys,
            int epoch,
            int[] offsets) {
        this(lane, column, seq, indices, size, firstNewIndex, newKeys, epoch, offsets, null);
    }

    /** A chunk of a column of one id per row. */
    public IndexChunk(
            int lane,
            int column,
            long seq,
            int[] indices,
            int size,
            int firstNewIndex,
            long[] newKeys,
            int epoch) {
        this(lane, column, seq, indices, size, firstNewIndex, newKeys, epoch, null);
    }

    /** The number of rows: {@code size}, or one fewer than the offsets of a list column. */
    public int rows() {
        return offsets == null ? size : offsets.length - 1;
    }

    /** A chunk in the first vocabulary epoch. */
    public IndexChunk(
            int lane,
            int column,
            long seq,
            int[] indices,
            int size,
            int firstNewIndex,
            long[] newKeys) {
        this(lane, column, seq, indices, size, firstNewIndex, newKeys, 0);
    }

    /** A chunk of lane 0 (file input). */
    public IndexChunk(
            int column, long seq, int[] indices, int size, int firstNewIndex, long[] newKeys) {
        this(0, column, seq, indices, size, firstNewIndex, newKeys, 0);
    }
}
