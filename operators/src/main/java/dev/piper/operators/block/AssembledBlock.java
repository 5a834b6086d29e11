package dev.piper.operators.block;

/**
 * A block concatenated back into rows, ready for a sink.
 *
 * @param seq the block's sequence number
 * @param lines number of input lines in the block
 * @param rows number of rows in {@code rowBytes}
 * @param rowBytes rows in the DLRM layout: per row, label, dense and categorical indices as
 *     little-endian int32
 * @param deadLetters the rejected lines, in line order
 * @param firstNewIndex per categorical column, the vocabulary size before this block
 * @param newKeys per categorical column, the keys this block added, in index order
 */
public record AssembledBlock(
        long seq,
        int lines,
        int rows,
        byte[] rowBytes,
        DeadLetter[] deadLetters,
        int[] firstNewIndex,
        long[][] newKeys) {}
