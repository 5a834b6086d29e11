package dev.piper.connectors.parquet.source.reader;

import dev.piper.core.block.ColumnBlock;
import dev.piper.core.block.DeadLetter;
import dev.piper.pipeline.layout.Reason;
import dev.piper.pipeline.layout.RowLayout;
import java.io.IOException;
import org.apache.parquet.hadoop.ParquetFileReader;

/**
 * A row group as its decoders name it, and the rows of a damaged one: every one a dead letter
 * ({@link Reason#CORRUPT_PAGE}, no text: none of it can be trusted), so the counts still add up.
 */
final class DamagedRows {

    private DamagedRows() {}

    /**
     * The rows of row group {@code rowGroup} of {@code file}.
     *
     * @throws IOException if the file has no such row group
     */
    static long rowsOf(ParquetFileReader file, int rowGroup) throws IOException {
        if (rowGroup >= file.getRowGroups().size()) {
            throw new IOException(file.getFile() + " has no row group " + rowGroup);
        }
        return file.getRowGroups().get(rowGroup).getRowCount();
    }

    /** Where a row group is, for messages: its file, number and rows. */
    static String where(ParquetFileReader file, int rowGroup, long firstRow, long rows) {
        return file.getFile()
                + ": row group "
                + rowGroup
                + " (rows "
                + firstRow
                + ".."
                + (firstRow + rows - 1)
                + " of the file)";
    }

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
