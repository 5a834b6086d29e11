package dev.piper.connectors.parquet.source.reader;

import dev.piper.core.block.ColumnBlock;
import dev.piper.core.block.DeadLetter;
import dev.piper.pipeline.layout.Reason;
import dev.piper.pipeline.layout.RowLayout;

/**
 * The rows of a damaged row group: every one a dead letter ({@link Reason#CORRUPT_PAGE}, no text:
 * none of it can be trusted), so the counts still add up.
 */
final class DamagedRows {

    private DamagedRows() {}

    /**
     * A block of {@code lines} rows of a damaged row group, all dead letters whose detail is {@code
     * why}.
     */
    static ColumnBlock block(
            RowLayout layout, int lane, long seq, long firstRow, int lines, String why) {
        DeadLetter[] dead = new DeadLetter[lines];
        for (int r = 0; r < lines; r++) {
            dead[r] = new DeadLetter(r, -1, Reason.CORRUPT_PAGE.code(), why, new byte[0], false);
        }
        int sparse = layout.sparse();
        long[][] keys = new long[sparse][];
        int[][] offsets = new int[sparse][];
        for (int c = 0; c < sparse; c++) {
            keys[c] = new long[0];
            offsets[c] = layout.isList(c) ? new int[1] : null;
        }
        return new ColumnBlock(lane, seq, firstRow, lines, 0, new int[0], keys, dead, offsets);
    }
}
