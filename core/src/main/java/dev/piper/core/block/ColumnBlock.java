package dev.piper.core.block;

/**
 * A decoded block of a columnar input (Parquet): its valid rows after the pipeline's stateless
 * column operators, as the text decoder leaves a text block, and the dead letters of the rows whose
 * values do not fit the layout. The reader decodes (it is PIPER's decoder for columnar data);
 * {@code ColumnarDecoder.decoded} gives its parts as a text block's {@link DenseChunk} and {@link
 * KeyChunk}s, which the job's column decode function hands on. Every row of the block is one or the
 * other: {@code lines == rows + deadLetters.length}.
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
 * @param offsets per categorical column, a list column's offsets ({@code rows + 1} entries, into
 *     its keys), or null for a column of one id per row
 * @param names the original strings of the block's hash64 columns (events of named fields), or null
 * @param eventTimes each valid row's event time in milliseconds since the epoch, when the spec's
 *     input names a timestamp; else null
 */
public record ColumnBlock(
        int lane,
        long seq,
        long firstRow,
        int lines,
        int rows,
        int[] labelDense,
        long[][] keys,
        DeadLetter[] deadLetters,
        int[][] offsets,
        BlockNames names,
        long[] eventTimes) {

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
        if (keys.length == 0 || labelDense.length < rows || offsets.length != keys.length) {
            throw new IllegalArgumentException(
                    "no key arrays, fewer label values than rows, or not one offsets entry per"
                            + " key array");
        }
        for (int c = 0; c < keys.length; c++) {
            int[] o = offsets[c];
            if (o == null
                    ? keys[c].length < rows
                    : o.length != rows + 1 || keys[c].length < o[rows]) {
                throw new IllegalArgumentException(
                        "key array " + c + " holds fewer keys than its " + rows + " rows");
            }
        }
        if (names != null && names.columns() != keys.length) {
            throw new IllegalArgumentException(
                    "names of " + names.columns() + " columns for " + keys.length + " key arrays");
        }
        if (eventTimes != null && eventTimes.length != rows) {
            throw new IllegalArgumentException(
                    eventTimes.length + " event times for " + rows + " rows");
        }
    }

    /** A block of positional columns: no names, no event times. */
    public ColumnBlock(
            int lane,
            long seq,
            long firstRow,
            int lines,
            int rows,
            int[] labelDense,
            long[][] keys,
            DeadLetter[] deadLetters,
            int[][] offsets) {
        this(lane, seq, firstRow, lines, rows, labelDense, keys, deadLetters, offsets, null, null);
    }

    /** A block without list columns. */
    public ColumnBlock(
            int lane,
            long seq,
            long firstRow,
            int lines,
            int rows,
            int[] labelDense,
            long[][] keys,
            DeadLetter[] deadLetters) {
        this(
                lane,
                seq,
                firstRow,
                lines,
                rows,
                labelDense,
                keys,
                deadLetters,
                new int[keys.length][]);
    }

    /** Words of a bit set over {@code rows} rows. */
    public static int words(int rows) {
        return (rows + 63) >>> 6;
    }
}
