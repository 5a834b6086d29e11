package dev.piper.operators.block;

/**
 * A decoded block of a columnar input (Parquet): its valid rows after the pipeline's stateless
 * column operators, as the text decoder leaves a text block, and the dead letters of the rows whose
 * values do not fit the layout. The reader decodes (it is PIPER's decoder for columnar data);
 * {@code ColumnDecodeFunction} hands the parts on as a text block's {@link DenseChunk} and {@link
 * KeyChunk}s. Every row of the block is one or the other: {@code lines == rows +
 * deadLetters.length}.
 *
 * @param lane the input lane (0: a file)
 * @param seq the block's position in its lane, from 0 without gaps
 * @param firstRow 0-based index in the file of the block's first row
 * @param lines number of rows of the file in the block, valid or not
 * @param rows number of valid rows
 * @param labelDense row-major label then I1.. of the valid rows, {@code rows * (1 + dense)} ints of
 *     the pipeline's layout
 * @param keys per categorical column of the layout, its keys of the valid rows
 * @param deadLetters the rejected rows, in row order ({@code lineInBlock} their index in the block)
 */
public record ColumnBlock(
        int lane,
        long seq,
        long firstRow,
        int lines,
        int rows,
        int[] labelDense,
        long[][] keys,
        DeadLetter[] deadLetters) {

    public ColumnBlock {
        if (rows < 0 || lines < rows || lines - rows != deadLetters.length) {
            throw new IllegalArgumentException(
                    lines
                            + " lines must be "
                            + rows
                            + " rows plus "
                            + deadLetters.length
                            + " dead letters");
        }
        if (keys.length == 0 || labelDense.length < rows) {
            throw new IllegalArgumentException("no key arrays, or fewer label values than rows");
        }
        for (long[] k : keys) {
            if (k.length < rows) {
                throw new IllegalArgumentException("a key array holds fewer than " + rows);
            }
        }
    }

    /** Words of a bit set over {@code rows} rows. */
    public static int words(int rows) {
        return (rows + 63) >>> 6;
    }
}
