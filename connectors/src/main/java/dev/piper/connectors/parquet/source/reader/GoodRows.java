package dev.piper.connectors.parquet.source.reader;

import dev.piper.core.block.ColumnBlock;

/**
 * A block's columns without its bad rows: {@code badField[r] >= 0} marks row {@code r} of the
 * block's {@code lines} bad; {@code rows} is how many are good.
 */
final class GoodRows {

    private GoodRows() {}

    /** The rows of {@code values} ({@code width} per row) but the bad ones. */
    static int[] of(int[] values, int width, int[] badField, int lines, int rows) {
        int[] out = new int[rows * width];
        int row = 0;
        for (int r = 0; r < lines; r++) {
            if (badField[r] < 0) {
                System.arraycopy(values, r * width, out, row++ * width, width);
            }
        }
        return out;
    }

    /** The values of {@code values} (one per row) but the bad rows'. */
    static long[] of(long[] values, int[] badField, int lines, int rows) {
        long[] out = new long[rows];
        int row = 0;
        for (int r = 0; r < lines; r++) {
            if (badField[r] < 0) {
                out[row++] = values[r];
            }
        }
        return out;
    }

    /** A missing set without the bad rows' bits. */
    static long[] bits(long[] set, int[] badField, int lines, int rows) {
        long[] out = new long[ColumnBlock.words(rows)];
        int row = 0;
        for (int r = 0; r < lines; r++) {
            if (badField[r] < 0) {
                if ((set[r >>> 6] >>> r & 1) != 0) {
                    out[row >>> 6] |= 1L << row;
                }
                row++;
            }
        }
        return out;
    }
}
