package dev.piper.connectors.parquet;

import dev.piper.connectors.text.SplitQueue;
import dev.piper.core.block.ColumnBlock;
import dev.piper.core.decode.ColumnarDecoder;
import dev.piper.operators.block.BlockTypes;
import dev.piper.pipeline.layout.RowLayout;
import dev.piper.pipeline.ops.ColumnProgram;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.connector.source.Boundedness;
import org.apache.flink.api.connector.source.ReaderOutput;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.api.java.typeutils.ResultTypeQueryable;
import org.apache.flink.core.io.InputStatus;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.schema.MessageType;

/**
 * A bounded source of one Parquet file in the Criteo layout ({@link ParquetLayout}) as numbered,
 * decoded {@link ColumnBlock}s, read in parallel a row group at a time: a reader takes the next row
 * group from the enumerator, decodes it into blocks of {@code blockRows} rows under the pipeline's
 * column program ({@link RowGroupBlocks}) and asks for another when it is done. Block sequence
 * numbers run through the file in row order without gaps (the enumerator counts each row group's
 * blocks from the footer), so the ordered operators downstream work as for text.
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
    private final int maxRawBytes;
    private final ColumnProgram program;

    /**
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
        if (blockRows < 1) {
            throw new IllegalArgumentException("rows per block must be positive: " + blockRows);
        }
        this.path = path;
        this.blockRows = blockRows;
        this.columns = new HashMap<>(columns);
        this.maxRawBytes = maxRawBytes;
        this.program = program;
    }

    /**
     * Opens {@code path} and binds the layout to its columns: what a job checks before it starts.
     *
     * @throws IllegalArgumentException naming the field and column of a layout problem
     * @throws IOException if the file cannot be read as Parquet
     */
    public static ParquetLayout check(String path, RowLayout layout, Map<String, String> columns)
            throws IOException {
        MessageType schema;
        try (ParquetFileReader file = ParquetFiles.open(new FlinkInputFile(path))) {
            schema = file.getFooter().getFileMetaData().getSchema();
        } catch (IOException e) {
            throw e;
        } catch (RuntimeException e) {
            // parquet-java refuses a short file or a bad footer with a RuntimeException; the
            // callers say which file ("--input: F is not a readable Parquet file: ...")
            throw new IOException(e.getMessage(), e);
        }
        return ParquetLayout.bind(layout, schema, columns, path);
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
        return new Reader(context);
    }

    @Override
    public SplitEnumerator<RowGroupSplit, List<RowGroupSplit>> createEnumerator(
            SplitEnumeratorContext<RowGroupSplit> context) throws IOException {
        return new Enumerator(context, splits());
    }

    @Override
    public SplitEnumerator<RowGroupSplit, List<RowGroupSplit>> restoreEnumerator(
            SplitEnumeratorContext<RowGroupSplit> context, List<RowGroupSplit> checkpoint) {
        return new Enumerator(context, checkpoint);
    }

    @Override
    public SimpleVersionedSerializer<RowGroupSplit> getSplitSerializer() {
        return new RowGroupSplit.Serializer();
    }

    @Override
    public SimpleVersionedSerializer<List<RowGroupSplit>> getEnumeratorCheckpointSerializer() {
        return new RowGroupSplit.StateSerializer();
    }

    @Override
    public TypeInformation<ColumnBlock> getProducedType() {
        return BlockTypes.COLUMN_BLOCK;
    }

    /**
     * Hands out row groups in file order, one per request, a returned one first: the row groups in
     * progress are always the lowest ones not done.
     */
    private static final class Enumerator
            implements SplitEnumerator<RowGroupSplit, List<RowGroupSplit>> {
        private final SplitEnumeratorContext<RowGroupSplit> context;
        private final Deque<RowGroupSplit> pending;

        Enumerator(SplitEnumeratorContext<RowGroupSplit> context, List<RowGroupSplit> splits) {
            this.context = context;
            this.pending = new ArrayDeque<>(splits);
        }

        @Override
        public void start() {}

        @Override
        public void handleSplitRequest(int subtaskId, String requesterHostname) {
            RowGroupSplit split = pending.poll();
            if (split != null) {
                context.assignSplit(split, subtaskId);
            } else {
                context.signalNoMoreSplits(subtaskId);
            }
        }

        @Override
        public void addSplitsBack(List<RowGroupSplit> splits, int subtaskId) {
            SplitQueue.returnInOrder(pending, splits, RowGroupSplit::firstSeq);
        }

        @Override
        public void addReader(int subtaskId) {}

        @Override
        public List<RowGroupSplit> snapshotState(long checkpointId) {
            return new ArrayList<>(pending);
        }

        @Override
        public void close() {}
    }

    /**
     * Reads its row groups on the task thread, where the decoder is chained, a block per call. Its
     * checkpointed state is the row groups it holds, the current one advanced to its next block (a
     * resumed row group is read again from its start and the blocks already emitted skipped).
     */
    private final class Reader implements SourceReader<ColumnBlock, RowGroupSplit> {
        private final SourceReaderContext context;
        private final SplitQueue<RowGroupSplit> queued = new SplitQueue<>();

        private ParquetFileReader file;
        private String filePath;
        private ParquetLayout layout;
        private final ColumnarDecoder decoder = new ColumnarDecoder(program);

        private RowGroupSplit current;
        private RowGroupBlocks blocks;
        private int nextBlock;

        Reader(SourceReaderContext context) {
            this.context = context;
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
                layout =
                        ParquetLayout.bind(
                                program.layout(),
                                file.getFooter().getFileMetaData().getSchema(),
                                columns,
                                split.path());
                file.setRequestedSchema(layout.projection());
            }
            current = split;
            blocks =
                    new RowGroupBlocks(
                            file, layout, decoder, split.rowGroup(), split.firstRow(), maxRawBytes);
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
}
