package dev.piper.connectors.output;

import dev.piper.operators.block.AssembledBlock;
import dev.piper.pipeline.ops.DecodeOptions;
import java.io.IOException;
import java.nio.file.Paths;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;

/**
 * Writes the DLRM batch output directory ({@link DlrmOutputWriter}). Run at parallelism 1 behind
 * the sequencing operator: it expects blocks in input order. The directory must be on a file system
 * the task manager can write (local, or a shared mount).
 */
public final class DlrmFileSink implements Sink<AssembledBlock> {

    private static final long serialVersionUID = 1L;

    private final String directory;
    private final DecodeOptions options;
    private final RowsFormat format;

    public DlrmFileSink(String directory, DecodeOptions options) {
        this(directory, options, RowsFormat.DLRM_ROWS);
    }

    public DlrmFileSink(String directory, DecodeOptions options, RowsFormat format) {
        this.directory = directory;
        this.options = options;
        this.format = format;
    }

    @Override
    public SinkWriter<AssembledBlock> createWriter(WriterInitContext context) throws IOException {
        int parallelism = context.getTaskInfo().getNumberOfParallelSubtasks();
        if (parallelism != 1) {
            throw new IllegalStateException(
                    "DlrmFileSink must run at parallelism 1, not " + parallelism);
        }
        return new Writer(new DlrmOutputWriter(Paths.get(directory), options, format));
    }

    private static final class Writer implements SinkWriter<AssembledBlock> {
        private final DlrmOutputWriter out;

        Writer(DlrmOutputWriter out) {
            this.out = out;
        }

        @Override
        public void write(AssembledBlock block, Context context) throws IOException {
            out.write(block);
        }

        @Override
        public void flush(boolean endOfInput) throws IOException {
            if (endOfInput) {
                out.finish();
            }
        }

        @Override
        public void close() throws IOException {
            out.close();
        }
    }
}
