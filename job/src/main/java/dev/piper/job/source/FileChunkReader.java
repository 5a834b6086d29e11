package dev.piper.job.source;

import dev.piper.operators.block.RawChunk;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.zip.GZIPInputStream;
import org.apache.flink.api.connector.source.ReaderOutput;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.core.fs.FSDataInputStream;
import org.apache.flink.core.fs.Path;
import org.apache.flink.core.io.InputStatus;

/**
 * Reads its split chunk by chunk on the task thread: local and distributed file reads are short
 * compared with decoding the chunk downstream. Its checkpointed state is the split advanced to the
 * first line not yet emitted.
 */
final class FileChunkReader implements SourceReader<RawChunk, FileChunkSplit> {

    private final SourceReaderContext context;
    private final int blockRows;
    private final int maxLineBytes;
    private final int maxRawBytes;

    private final List<FileChunkSplit> queued = new ArrayList<>();
    private FileChunkSplit current;
    private InputStream stream;
    private LineChunker chunker;
    private boolean noMoreSplits;
    private CompletableFuture<Void> available = new CompletableFuture<>();

    FileChunkReader(SourceReaderContext context, int blockRows, int maxLineBytes, int maxRawBytes) {
        this.context = context;
        this.blockRows = blockRows;
        this.maxLineBytes = maxLineBytes;
        this.maxRawBytes = maxRawBytes;
    }

    @Override
    public void start() {
        context.sendSplitRequest();
    }

    @Override
    public InputStatus pollNext(ReaderOutput<RawChunk> output) throws Exception {
        if (chunker == null && !openNext()) {
            return noMoreSplits ? InputStatus.END_OF_INPUT : InputStatus.NOTHING_AVAILABLE;
        }
        RawChunk chunk = chunker.next();
        if (chunk != null) {
            output.collect(chunk);
            return InputStatus.MORE_AVAILABLE;
        }
        closeCurrent();
        context.sendSplitRequest();
        return queued.isEmpty() && noMoreSplits
                ? InputStatus.END_OF_INPUT
                : InputStatus.MORE_AVAILABLE;
    }

    private boolean openNext() throws IOException {
        if (queued.isEmpty()) {
            if (!noMoreSplits && available.isDone()) {
                available = new CompletableFuture<>();
            }
            return false;
        }
        current = queued.remove(0);
        stream = openAt(current.path(), current.offset());
        chunker =
                new LineChunker(
                        stream,
                        current.offset(),
                        current.nextLine(),
                        current.nextSeq(),
                        blockRows,
                        maxLineBytes,
                        maxRawBytes);
        return true;
    }

    /**
     * Opens the file positioned at {@code offset}. A {@code .gz} file is decompressed on the fly;
     * its offsets count decompressed bytes, so resuming re-reads and skips.
     */
    static InputStream openAt(String file, long offset) throws IOException {
        Path path = new Path(file);
        FSDataInputStream in = path.getFileSystem().open(path);
        if (file.endsWith(".gz")) {
            InputStream gz = new GZIPInputStream(in, 1 << 16);
            gz.skipNBytes(offset);
            return gz;
        }
        in.seek(offset);
        return in;
    }

    private void closeCurrent() throws IOException {
        stream.close();
        stream = null;
        chunker = null;
        current = null;
    }

    @Override
    public List<FileChunkSplit> snapshotState(long checkpointId) {
        List<FileChunkSplit> state = new ArrayList<>();
        if (current != null) {
            state.add(current.advancedTo(chunker.offset(), chunker.nextLine(), chunker.nextSeq()));
        }
        state.addAll(queued);
        return state;
    }

    @Override
    public CompletableFuture<Void> isAvailable() {
        return available;
    }

    @Override
    public void addSplits(List<FileChunkSplit> splits) {
        queued.addAll(splits);
        available.complete(null);
    }

    @Override
    public void notifyNoMoreSplits() {
        noMoreSplits = true;
        available.complete(null);
    }

    @Override
    public void close() throws Exception {
        if (stream != null) {
            stream.close();
        }
    }
}
