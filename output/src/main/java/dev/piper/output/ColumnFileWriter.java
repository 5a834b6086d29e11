package dev.piper.output;

import java.io.Closeable;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;
import org.apache.parquet.column.ColumnWriteStore;
import org.apache.parquet.column.ColumnWriter;
import org.apache.parquet.column.ParquetProperties;
import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.hadoop.CodecFactory;
import org.apache.parquet.hadoop.ColumnChunkPageWriteStore;
import org.apache.parquet.hadoop.ParquetFileWriter;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.io.LocalOutputFile;
import org.apache.parquet.schema.MessageType;

/**
 * Writes a Parquet file of flat columns value by value, straight into parquet-column's column
 * writers (the layer under parquet-hadoop's record writer): no record objects, no converter calls,
 * so a block's column arrays go to the file in one loop per row. Row groups are cut after a fixed
 * number of rows, or earlier when their buffered pages pass {@link #MAX_ROW_GROUP_BYTES} (looked at
 * every {@link #SIZE_CHECK_ROWS} rows).
 *
 * <p>Write a row as one value (or null) per column in schema order, then {@link #endRow()}. Not
 * thread-safe.
 */
public final class ColumnFileWriter implements Closeable {

    /** A row group is cut when its buffered pages reach this many bytes, whatever its rows. */
    static final long MAX_ROW_GROUP_BYTES = 128L << 20;

    /**
     * How often (in rows) the buffered size is looked at: it walks every column's pages, 15% of the
     * writer's time in a profile when it was every 4,096 rows.
     */
    private static final int SIZE_CHECK_ROWS = 1 << 16;

    private final ParquetFileWriter file;
    private final MessageType schema;
    private final ParquetProperties properties;
    private final CodecFactory codecs;
    private final CodecFactory.BytesCompressor compressor;
    private final long rowGroupRows;
    private final Map<String, String> metadata;
    private final ColumnWriter[] columns;
    private ColumnChunkPageWriteStore pages;
    private ColumnWriteStore store;
    private int rowGroups;
    private long rowsInGroup;
    private long rows;
    private boolean closed;

    /**
     * @param rowGroupRows rows per row group (the last may have fewer)
     * @param dictionary whether columns are dictionary-encoded (Parquet falls back to plain
     *     encoding in a row group whose dictionary grows past its page size)
     * @param metadata key/value pairs for the file's footer
     */
    public ColumnFileWriter(
            Path path,
            MessageType schema,
            CompressionCodecName codec,
            long rowGroupRows,
            boolean dictionary,
            Map<String, String> metadata)
            throws IOException {
        if (rowGroupRows < 1) {
            throw new IllegalArgumentException("rows per row group must be positive");
        }
        this.schema = schema;
        this.rowGroupRows = rowGroupRows;
        this.metadata = Map.copyOf(metadata);
        this.properties =
                ParquetProperties.builder()
                        .withDictionaryEncoding(dictionary)
                        .withWriterVersion(ParquetProperties.WriterVersion.PARQUET_1_0)
                        // a CRC-32 per page, which the readers here verify (connectors'
                        // ParquetFiles)
                        .withPageWriteChecksumEnabled(true)
                        .build();
        this.file =
                new ParquetFileWriter(
                        new LocalOutputFile(path),
                        schema,
                        ParquetFileWriter.Mode.CREATE,
                        MAX_ROW_GROUP_BYTES,
                        ParquetWriter.MAX_PADDING_SIZE_DEFAULT,
                        null,
                        properties);
        this.codecs =
                new CodecFactory(
                        new PlainParquetConfiguration(), properties.getPageSizeThreshold());
        this.compressor = codecs.getCompressor(codec);
        this.columns = new ColumnWriter[schema.getColumns().size()];
        file.start();
        startRowGroup();
    }

    private void startRowGroup() {
        pages =
                new ColumnChunkPageWriteStore(
                        compressor,
                        schema,
                        properties.getAllocator(),
                        properties.getColumnIndexTruncateLength(),
                        properties.getPageWriteChecksumEnabled(),
                        null,
                        rowGroups);
        store = properties.newColumnWriteStore(schema, pages, pages);
        for (int i = 0; i < columns.length; i++) {
            columns[i] = store.getColumnWriter(schema.getColumns().get(i));
        }
    }

    /** Writes column {@code i}'s value of the current row. */
    public void writeInt(int i, int value) {
        columns[i].write(value, 0, 1);
    }

    /** As {@link #writeInt} for a required column (no definition level to record). */
    public void writeRequiredInt(int i, int value) {
        columns[i].write(value, 0, 0);
    }

    public void writeLong(int i, long value) {
        columns[i].write(value, 0, 1);
    }

    public void writeRequiredFloat(int i, float value) {
        columns[i].write(value, 0, 0);
    }

    /**
     * Writes column {@code i}'s value of the current row, a required list of required INT32 (a
     * three-level LIST: repetition level 1 for the ids after the first; definition level 1 for an
     * id, 0 for the empty list): {@code values[from, to)}.
     */
    public void writeList(int i, int[] values, int from, int to) {
        ColumnWriter column = columns[i];
        if (from == to) {
            column.writeNull(0, 0);
            return;
        }
        column.write(values[from], 0, 1);
        for (int k = from + 1; k < to; k++) {
            column.write(values[k], 1, 1);
        }
    }

    /** As {@link #writeList(int, int[], int, int)}, for a list of INT64. */
    public void writeList(int i, long[] values, int from, int to) {
        ColumnWriter column = columns[i];
        if (from == to) {
            column.writeNull(0, 0);
            return;
        }
        column.write(values[from], 0, 1);
        for (int k = from + 1; k < to; k++) {
            column.write(values[k], 1, 1);
        }
    }

    /** Writes a null as column {@code i}'s value of the current row (an optional column). */
    public void writeNull(int i) {
        columns[i].writeNull(0, 0);
    }

    /** Ends the current row; cuts the row group when it is full. */
    public void endRow() throws IOException {
        store.endRecord();
        rowsInGroup++;
        rows++;
        if (rowsInGroup >= rowGroupRows
                || (rowsInGroup % SIZE_CHECK_ROWS == 0
                        && store.getBufferedSize() >= MAX_ROW_GROUP_BYTES)) {
            flushRowGroup();
            startRowGroup();
        }
    }

    /** Rows written so far. */
    public long rows() {
        return rows;
    }

    /** Row groups written so far (the one being filled not counted). */
    public int rowGroups() {
        return rowGroups;
    }

    private void flushRowGroup() throws IOException {
        if (rowsInGroup > 0) {
            file.startBlock(rowsInGroup);
            store.flush();
            pages.flushToFileWriter(file);
            file.endBlock();
            rowGroups++;
        }
        store.close();
        pages.close();
        rowsInGroup = 0;
    }

    /** Writes the last row group and the footer. */
    @Override
    public void close() throws IOException {
        if (closed) {
            return;
        }
        closed = true;
        try {
            flushRowGroup();
            file.end(metadata);
        } finally {
            codecs.release();
        }
    }
}
