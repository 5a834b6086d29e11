package dev.piper.connectors.parquet.source;

import dev.piper.connectors.parquet.FlinkInputFile;
import dev.piper.connectors.parquet.ParquetEvents;
import dev.piper.connectors.parquet.ParquetFiles;
import dev.piper.connectors.parquet.ParquetLayout;
import dev.piper.connectors.parquet.source.enumerator.RowGroupEnumStateSerializer;
import dev.piper.connectors.parquet.source.enumerator.RowGroupEnumerator;
import dev.piper.connectors.parquet.source.reader.RowGroupReader;
import dev.piper.connectors.parquet.source.split.RowGroupSplit;
import dev.piper.connectors.parquet.source.split.RowGroupSplitSerializer;
import dev.piper.core.block.ColumnBlock;
import dev.piper.operators.block.BlockTypes;
import dev.piper.pipeline.input.EventFields;
import dev.piper.pipeline.layout.RowLayout;
import dev.piper.pipeline.ops.ColumnProgram;
import dev.piper.pipeline.ops.DecodeOptions;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.connector.source.Boundedness;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.api.java.typeutils.ResultTypeQueryable;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.schema.MessageType;

/**
 * A bounded source of one Parquet file of the pipeline's layout (positional columns, {@link
 * ParquetLayout}, or events of named fields, {@link ParquetEvents}) as numbered, decoded {@link
 * ColumnBlock}s, read in parallel a row group at a time: a reader takes the next row group from the
 * enumerator, decodes it into blocks of {@code blockRows} rows under the pipeline's column program
 * ({@code reader.RowGroupBlocks}) and asks for another when it is done. Block sequence numbers run
 * through the file in row order without gaps (the enumerator counts each row group's blocks from
 * the footer), so the ordered operators downstream work as for text.
 *
 * <p>A row group is the unit of parallelism: rows of a later row group wait downstream for those of
 * earlier ones, so very large row groups cost memory (the blocks of a row group being read while an
 * earlier one is still read elsewhere). {@code bin/piper convert} writes 131,072-row groups.
 */
public final class ParquetFileSource
        implements Source<ColumnBlock, RowGroupSplit, List<RowGroupSplit>>,
                ResultTypeQueryable<ColumnBlock> {

    private static final long serialVersionUID = 1L;

    private final String path;
    private final int blockRows;
    private final HashMap<String, String> columns;
    private final DecodeOptions options;

    /**
     * A file of positional columns (the layout's fields by name).
     *
     * @param columns the spec's {@code input.parquet_columns}
     * @param maxRawBytes how many bytes of a rejected row's text its dead letter keeps
     * @param program the pipeline's column program, which the readers run over their blocks
     */
    public ParquetFileSource(
            String path,
            int blockRows,
            Map<String, String> columns,
            int maxRawBytes,
            ColumnProgram program) {
        this(
                path,
                blockRows,
                columns,
                new DecodeOptions(
                        program, false, DecodeOptions.DEFAULT_MAX_LINE_BYTES, maxRawBytes));
    }

    /**
     * A file of the pipeline's input: positional columns, or with {@code options.events()} the
     * events of a spec of named fields, each column read by its path ({@link ParquetEvents}).
     *
     * @param columns the spec's {@code input.parquet_columns} (positional columns only)
     * @param options the pipeline's decoding: its column program, the dead letters' raw limit and
     *     the events' fields
     */
    public ParquetFileSource(
            String path, int blockRows, Map<String, String> columns, DecodeOptions options) {
        if (blockRows < 1) {
            throw new IllegalArgumentException("rows per block must be positive: " + blockRows);
        }
        this.path = path;
        this.blockRows = blockRows;
        this.columns = new HashMap<>(columns);
        this.options = options;
    }

    /**
     * Opens {@code path} and binds the layout to its columns: what a job checks before it starts.
     *
     * @throws IllegalArgumentException naming the field and column of a layout problem
     * @throws IOException if the file cannot be read as Parquet
     */
    public static ParquetLayout check(String path, RowLayout layout, Map<String, String> columns)
            throws IOException {
        return ParquetLayout.bind(layout, schema(path), columns, path);
    }

    /**
     * Opens {@code path} and binds the columns of a spec of named fields to it: what a job checks
     * before it starts.
     *
     * @throws IllegalArgumentException naming the column, its path and the file's type
     * @throws IOException if the file cannot be read as Parquet
     */
    public static ParquetEvents checkEvents(String path, EventFields events) throws IOException {
        return ParquetEvents.bind(schema(path), events, path);
    }

    private static MessageType schema(String path) throws IOException {
        try (ParquetFileReader file = ParquetFiles.open(new FlinkInputFile(path))) {
            return file.getFooter().getFileMetaData().getSchema();
        } catch (IOException e) {
            throw e;
        } catch (RuntimeException e) {
            // parquet-java refuses a short file or a bad footer with a RuntimeException; the
            // callers say which file ("--input: F is not a readable Parquet file: ...")
            throw new IOException(e.getMessage(), e);
        }
    }

    /** The file's row groups as splits, in order, each with its first row and block number. */
    public List<RowGroupSplit> splits() throws IOException {
        List<RowGroupSplit> splits = new ArrayList<>();
        try (ParquetFileReader file = ParquetFiles.open(new FlinkInputFile(path))) {
            long row = 0;
            long seq = 0;
            List<BlockMetaData> groups = file.getRowGroups();
            for (int g = 0; g < groups.size(); g++) {
                long rows = groups.get(g).getRowCount();
                if (rows > 0) {
                    splits.add(new RowGroupSplit(path, g, row, seq, 0));
                }
                row += rows;
                seq += (rows + blockRows - 1) / blockRows;
            }
        }
        return splits;
    }

    @Override
    public Boundedness getBoundedness() {
        return Boundedness.BOUNDED;
    }

    @Override
    public SourceReader<ColumnBlock, RowGroupSplit> createReader(SourceReaderContext context) {
        return new RowGroupReader(context, options, columns, blockRows);
    }

    @Override
    public SplitEnumerator<RowGroupSplit, List<RowGroupSplit>> createEnumerator(
            SplitEnumeratorContext<RowGroupSplit> context) throws IOException {
        return new RowGroupEnumerator(context, splits());
    }

    @Override
    public SplitEnumerator<RowGroupSplit, List<RowGroupSplit>> restoreEnumerator(
            SplitEnumeratorContext<RowGroupSplit> context, List<RowGroupSplit> checkpoint) {
        return new RowGroupEnumerator(context, checkpoint);
    }

    @Override
    public SimpleVersionedSerializer<RowGroupSplit> getSplitSerializer() {
        return new RowGroupSplitSerializer();
    }

    @Override
    public SimpleVersionedSerializer<List<RowGroupSplit>> getEnumeratorCheckpointSerializer() {
        return new RowGroupEnumStateSerializer();
    }

    @Override
    public TypeInformation<ColumnBlock> getProducedType() {
        return BlockTypes.COLUMN_BLOCK;
    }
}
