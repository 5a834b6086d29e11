package dev.piper.connectors.parquet.source.reader;

import dev.piper.connectors.parquet.ParquetEvents;
import dev.piper.core.block.ColumnBlock;
import dev.piper.core.decode.TypedEvents;
import dev.piper.pipeline.layout.RowLayout;
import org.apache.parquet.column.page.PageReadStore;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.io.ColumnIOFactory;
import org.apache.parquet.io.ParquetDecodingException;
import org.apache.parquet.io.RecordReader;

/**
 * Decodes one row group of a Parquet file of events into blocks of consecutive rows: parquet-java
 * assembles each row's values from the columns on the spec's paths ({@link EventConverters}), and
 * {@link TypedEvents} makes each row a row of the layout or a dead letter by the events' rules,
 * then runs the column program over the block. A row group whose pages fail their checks is read as
 * {@link RowGroupBlocks} reads one: its rows (from the block where the damage is met) are {@code
 * corrupt_page} dead letters.
 *
 * <p>Not thread-safe; one per reader.
 */
public final class RowGroupEvents implements RowGroupDecoder {

    private final TypedEvents events;
    private final RowLayout layout;
    private final String where;
    private RecordReader<Boolean> records;
    private String damaged;
    private long nextRow;
    private long rowsLeft;

    /**
     * @param file an open file whose requested schema is {@code binding}'s projection
     * @param events the rows' maker, shared by the reader's row groups
     * @param rowGroup the row group's index in the file
     * @param firstRow index in the file of the row group's first row
     */
    public RowGroupEvents(
            ParquetFileReader file,
            ParquetEvents binding,
            TypedEvents events,
            RowLayout layout,
            int rowGroup,
            long firstRow)
            throws java.io.IOException {
        this.events = events;
        this.layout = layout;
        long groupRows = DamagedRows.rowsOf(file, rowGroup);
        this.where = DamagedRows.where(file, rowGroup, firstRow, groupRows);
        try {
            PageReadStore store = file.readRowGroup(rowGroup);
            records =
                    new ColumnIOFactory()
                            .getColumnIO(binding.projection())
                            .getRecordReader(store, new EventConverters(binding, events));
        } catch (RuntimeException e) {
            damaged = where + ": " + cause(e);
        }
        this.nextRow = firstRow;
        this.rowsLeft = groupRows;
    }

    @Override
    public ColumnBlock next(int lane, long seq, int maxRows) {
        if (rowsLeft == 0) {
            return null;
        }
        int lines = (int) Math.min(maxRows, rowsLeft);
        long firstRow = nextRow;
        nextRow += lines;
        rowsLeft -= lines;
        if (damaged != null) {
            return DamagedRows.block(layout, lane, seq, firstRow, lines, damaged);
        }
        events.startBlock();
        try {
            for (int r = 0; r < lines; r++) {
                records.read();
                events.endEvent();
            }
        } catch (RuntimeException e) {
            // A page whose values cannot be decoded (a damaged file without checksums): this
            // block and the rest of the row group are dead letters, and the job goes on.
            damaged = where + ": its pages cannot be decoded (" + cause(e) + ")";
            events.finishBlock(lane, seq, firstRow); // dropped: its rows cannot be trusted
            return DamagedRows.block(layout, lane, seq, firstRow, lines, damaged);
        }
        return events.finishBlock(lane, seq, firstRow);
    }

    private static String cause(RuntimeException e) {
        return e instanceof ParquetDecodingException ? e.getMessage() : e.toString();
    }
}
