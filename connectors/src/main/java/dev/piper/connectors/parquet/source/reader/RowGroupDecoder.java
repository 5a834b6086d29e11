package dev.piper.connectors.parquet.source.reader;

import dev.piper.core.block.ColumnBlock;
import java.io.IOException;

/**
 * Decodes one row group of a Parquet file into blocks of consecutive rows: positional columns
 * ({@link RowGroupBlocks}) or events of named fields ({@link RowGroupEvents}).
 */
interface RowGroupDecoder {

    /**
     * Reads the next {@code min(maxRows, rows left)} rows as block {@code seq} of {@code lane};
     * null when none is left.
     */
    ColumnBlock next(int lane, long seq, int maxRows) throws IOException;
}
