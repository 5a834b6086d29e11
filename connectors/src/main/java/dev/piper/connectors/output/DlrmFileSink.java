package dev.piper.connectors.output;

import dev.piper.core.block.AssembledBlock;
import dev.piper.output.DirectoryLock;
import dev.piper.output.DlrmOutputWriter;
import dev.piper.output.JoinedInput;
import dev.piper.output.OutputCommit;
import dev.piper.output.RowShards;
import dev.piper.output.RowsFormat;
import dev.piper.pipeline.hotline.HotlineSettings;
import dev.piper.pipeline.ops.DecodeOptions;
import java.io.IOException;
import java.util.Objects;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;

/**
 * Writes the DLRM batch output directory ({@link DlrmOutputWriter}) as part {@value #PART} of a run
 * ({@link OutputCommit}): into the run's staging directory, published when every part is done. Run
 * at parallelism 1 behind the sequencing operator: it expects blocks in input order. The directory
 * must be on a file system the task manager can write (local, or a shared mount); where the command
 * that started the job does not hold the output's lock (a cluster), the writer takes it.
 */
public final class DlrmFileSink implements Sink<AssembledBlock> {

    /** This sink's part of a run. */
    public static final String PART = "rows";

    private static final long serialVersionUID = 1L;

    private final OutputCommit commit;
    private final DecodeOptions options;
    private final RowsFormat format;
    private final HotlineSettings hotline; // or null
    private final long blocksPerShard; // > 0: sharded output (RowShards)
    private JoinedInput joined; // or null: the input is not the label join's

    public DlrmFileSink(OutputCommit commit, DecodeOptions options, RowsFormat format) {
        this(commit, options, format, null);
    }

    /** Also writes Hotline's split of the rows (every block must carry one), if not null. */
    public DlrmFileSink(
            OutputCommit commit,
            DecodeOptions options,
            RowsFormat format,
            HotlineSettings hotline) {
        this(commit, options, format, hotline, 0);
    }

    private DlrmFileSink(
            OutputCommit commit,
            DecodeOptions options,
            RowsFormat format,
            HotlineSettings hotline,
            long blocksPerShard) {
        this.commit = Objects.requireNonNull(commit);
        this.options = options;
        this.format = format;
        this.hotline = hotline;
        this.blocksPerShard = blocksPerShard;
    }

    /**
     * This sink for a sharded output ({@link RowShards}): the rows are written by {@link
     * ShardWriterOperator}s upstream; the blocks arrive without their bytes, and this sink writes
     * the rest of the directory and the rows' manifest.
     */
    public DlrmFileSink sharded(long blocksPerShard) {
        if (blocksPerShard < 1) {
            throw new IllegalArgumentException(
                    "blocks per shard must be positive: " + blocksPerShard);
        }
        DlrmFileSink sharded = new DlrmFileSink(commit, options, format, hotline, blocksPerShard);
        sharded.joined = joined;
        return sharded;
    }

    /**
     * The input is the label join's rows ({@link JoinedInput}): the writer adds the join's dead
     * letters and counts to the output.
     */
    public DlrmFileSink joined(JoinedInput input) {
        this.joined = input;
        return this;
    }

    @Override
    public SinkWriter<AssembledBlock> createWriter(WriterInitContext context) throws IOException {
        int parallelism = context.getTaskInfo().getNumberOfParallelSubtasks();
        if (parallelism != 1) {
            throw new IllegalStateException(
                    "DlrmFileSink must run at parallelism 1, not " + parallelism);
        }
        DirectoryLock lock = commit.lockForWriter();
        try {
            DlrmOutputWriter writer =
                    new DlrmOutputWriter(
                            commit.partStarted(PART),
                            commit.output(),
                            options,
                            format,
                            hotline,
                            blocksPerShard);
            if (joined != null) {
                writer.joinedInput(joined);
            }
            return new Writer(writer, commit, lock);
        } catch (IOException | RuntimeException e) {
            if (lock != null) {
                lock.close();
            }
            throw e;
        }
    }

    private static final class Writer implements SinkWriter<AssembledBlock> {
        private final DlrmOutputWriter out;
        private final OutputCommit commit;
        private final DirectoryLock lock; // or null

        Writer(DlrmOutputWriter out, OutputCommit commit, DirectoryLock lock) {
            this.out = out;
            this.commit = commit;
            this.lock = lock;
        }

        @Override
        public void write(AssembledBlock block, Context context) throws IOException {
            out.write(block);
        }

        @Override
        public void flush(boolean endOfInput) throws IOException {
            if (endOfInput) {
                out.finish();
                commit.partDone(PART);
            }
        }

        @Override
        public void close() throws IOException {
            try {
                out.close();
            } finally {
                if (lock != null) {
                    lock.close();
                }
            }
        }
    }
}
