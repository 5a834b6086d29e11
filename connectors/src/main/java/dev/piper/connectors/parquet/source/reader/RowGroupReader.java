package dev.piper.connectors.parquet.source.reader;

import dev.piper.connectors.parquet.FlinkInputFile;
import dev.piper.connectors.parquet.ParquetEvents;
import dev.piper.connectors.parquet.ParquetFiles;
import dev.piper.connectors.parquet.ParquetLayout;
import dev.piper.connectors.parquet.source.split.RowGroupSplit;
import dev.piper.connectors.source.SplitQueue;
import dev.piper.core.block.ColumnBlock;
import dev.piper.core.decode.ColumnarDecoder;
import dev.piper.core.decode.TypedEvents;
import dev.piper.pipeline.ops.DecodeOptions;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.flink.api.connector.source.ReaderOutput;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.core.io.InputStatus;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.schema.MessageType;

/**
 * The Parquet source's reader: decodes the row groups the enumerator gives it into blocks of {@code
 * blockRows} rows ({@link RowGroupBlocks} for positional columns, {@link RowGroupEvents} for a spec
 * of named fields), on the task thread where the decoder is chained, a block per call. Its
 * checkpointed state is the row groups it holds, the current one advanced to its next block (a
 * resumed row group is read again from its start and the blocks already emitted skipped).
 */
public final class RowGroupReader implements SourceReader<ColumnBlock, RowGroupSplit> {
    private final SourceReaderContext context;
    private final DecodeOptions options;
    private final Map<String, String> columns;
    private final int blockRows;
    private final SplitQueue<RowGroupSplit> queued = new SplitQueue<>();

    private ParquetFileReader file;
    private String filePath;
    private ParquetLayout layout;
    private ParquetEvents binding;
    private final ColumnarDecoder decoder;

    /** The rows' maker of a spec of named fields; null for positional columns. */
    private final TypedEvents events;

    private RowGroupSplit current;
    private RowGroupDecoder blocks;
    private int nextBlock;

    /**
     * @param options the pipeline's decoding: its column program, how many bytes of a rejected
     *     row's text its dead letter keeps, and for a spec of named fields where each is read from
     * @param columns the spec's {@code input.parquet_columns} (positional columns)
     * @param blockRows rows per block
     */
    public RowGroupReader(
            SourceReaderContext context,
            DecodeOptions options,
            Map<String, String> columns,
            int blockRows) {
        this.context = context;
        this.options = options;
        this.columns = columns;
        this.blockRows = blockRows;
        this.decoder = new ColumnarDecoder(options.program());
        this.events = options.events() == null ? null : new TypedEvents(options);
    }

    @Override
    public void start() {
        context.sendSplitRequest();
    }

    @Override
    public InputStatus pollNext(ReaderOutput<ColumnBlock> output) throws Exception {
        if (blocks != null) {
            ColumnBlock block = blocks.next(0, current.firstSeq() + nextBlock, blockRows);
            if (block != null) {
                nextBlock++;
                output.collect(block);
                return InputStatus.MORE_AVAILABLE;
            }
            blocks = null;
            current = null;
            context.sendSplitRequest();
        }
        RowGroupSplit split = queued.poll();
        if (split == null) {
            return queued.idle();
        }
        open(split);
        return InputStatus.MORE_AVAILABLE;
    }

    private void open(RowGroupSplit split) throws IOException {
        if (file == null || !split.path().equals(filePath)) {
            if (file != null) {
                file.close();
            }
            file = ParquetFiles.open(new FlinkInputFile(split.path()));
            filePath = split.path();
            MessageType schema = file.getFooter().getFileMetaData().getSchema();
            if (events != null) {
                binding = ParquetEvents.bind(schema, options.events(), split.path());
                file.setRequestedSchema(binding.projection());
            } else {
                layout =
                        ParquetLayout.bind(
                                options.program().layout(), schema, columns, split.path());
                file.setRequestedSchema(layout.projection());
            }
        }
        current = split;
        blocks =
                events != null
                        ? new RowGroupEvents(
                                file,
                                binding,
                                events,
                                options.program().layout(),
                                split.rowGroup(),
                                split.firstRow())
                        : new RowGroupBlocks(
                                file,
                                layout,
                                decoder,
                                split.rowGroup(),
                                split.firstRow(),
                                options.maxRawBytes());
        for (nextBlock = 0; nextBlock < split.nextBlock(); nextBlock++) {
            if (blocks.next(0, split.firstSeq() + nextBlock, blockRows) == null) {
                throw new IOException(
                        split.path()
                                + ": row group "
                                + split.rowGroup()
                                + " has fewer blocks than when it was checkpointed");
            }
        }
    }

    @Override
    public List<RowGroupSplit> snapshotState(long checkpointId) {
        List<RowGroupSplit> state = new ArrayList<>();
        if (current != null) {
            state.add(current.at(nextBlock));
        }
        state.addAll(queued.queued());
        return state;
    }

    @Override
    public CompletableFuture<Void> isAvailable() {
        return queued.available();
    }

    @Override
    public void addSplits(List<RowGroupSplit> splits) {
        queued.add(splits);
    }

    @Override
    public void notifyNoMoreSplits() {
        queued.noMoreSplits();
    }

    @Override
    public void close() throws Exception {
        if (file != null) {
            file.close();
        }
    }
}
