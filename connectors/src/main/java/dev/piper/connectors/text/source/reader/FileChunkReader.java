package dev.piper.connectors.text.source.reader;

import dev.piper.connectors.source.SplitQueue;
import dev.piper.connectors.text.TextFiles;
import dev.piper.connectors.text.source.split.FileChunkSplit;
import dev.piper.core.block.RawChunk;
import dev.piper.core.chunk.AvroBlockChunker;
import dev.piper.core.chunk.Chunker;
import dev.piper.core.chunk.DelimitedChunker;
import dev.piper.core.chunk.LineChunker;
import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.flink.api.connector.source.ReaderOutput;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.core.fs.FSDataInputStream;
import org.apache.flink.core.fs.Path;
import org.apache.flink.core.io.InputStatus;

/**
 * Reads its splits on the task thread, where the decoder is chained: each byte range of a split
 * becomes one chunk (its lines, or an Avro container file's blocks, {@link AvroRanges}), a stream
 * split a chunk per call. It keeps one split in hand and one request on its way to the enumerator,
 * so it rarely waits for work. Its checkpointed state is the splits it holds, the one in hand
 * advanced to its first range (or, for a stream, line) not yet emitted.
 */
public final class FileChunkReader implements SourceReader<RawChunk, FileChunkSplit> {

    private final SourceReaderContext context;
    private final int blockBytes;
    private final int maxLineBytes;
    private final int maxRawBytes;
    private final LineRange lineRange;

    private final SplitQueue<FileChunkSplit> queued = new SplitQueue<>();

    /** The open file of range splits, kept across ranges of the same file. */
    private FSDataInputStream rangeFile;

    private String rangePath;
    private long rangeFileLength;

    /** The Avro container file of range splits, kept across its ranges. */
    private AvroRanges avroRanges;

    /** The split of ranges being read, and how many of its ranges are emitted. */
    private FileChunkSplit ranges;

    private int rangesDone;

    /** The stream split being read, its stream and cutter. */
    private FileChunkSplit current;

    private InputStream stream;
    private Chunker chunker;

    /** What the files hold. */
    private final FileRecords records;

    public FileChunkReader(
            SourceReaderContext context, int blockBytes, int maxLineBytes, int maxRawBytes) {
        this(context, blockBytes, maxLineBytes, maxRawBytes, FileRecords.LINES);
    }

    /**
     * A reader of files holding {@code records}: lines, Avro container files ({@link
     * AvroBlockChunker}) or length-delimited Protobuf messages ({@link DelimitedChunker}).
     */
    public FileChunkReader(
            SourceReaderContext context,
            int blockBytes,
            int maxLineBytes,
            int maxRawBytes,
            FileRecords records) {
        this.records = records;
        this.context = context;
        this.blockBytes = blockBytes;
        this.maxLineBytes = maxLineBytes;
        this.maxRawBytes = maxRawBytes;
        this.lineRange = new LineRange(maxLineBytes);
    }

    @Override
    public void start() {
        context.sendSplitRequest();
        context.sendSplitRequest();
    }

    @Override
    public InputStatus pollNext(ReaderOutput<RawChunk> output) throws Exception {
        if (ranges != null) {
            int i = rangesDone++;
            output.collect(
                    readRange(
                            ranges.path(),
                            ranges.seq() + i,
                            ranges.rangeStart(i),
                            ranges.rangeEnd(i)));
            if (rangesDone == ranges.rangeCount()) {
                ranges = null;
                context.sendSplitRequest();
            }
            return InputStatus.MORE_AVAILABLE;
        }
        if (chunker != null) {
            RawChunk chunk = chunker.next();
            if (chunk != null) {
                output.collect(chunk);
                return InputStatus.MORE_AVAILABLE;
            }
            closeStream();
            context.sendSplitRequest();
        }
        FileChunkSplit split = queued.poll();
        if (split == null) {
            return queued.idle();
        }
        if (split.isRange()) {
            ranges = split;
            rangesDone = 0;
        } else {
            current = split;
            if (records == FileRecords.AVRO_CONTAINER) {
                stream = TextFiles.open(split.path(), 0);
                chunker = new AvroBlockChunker(stream, split.start(), split.seq(), blockBytes);
            } else if (records == FileRecords.PROTOBUF_DELIMITED) {
                stream = new BufferedInputStream(TextFiles.open(split.path(), 0), 1 << 16);
                chunker =
                        new DelimitedChunker(
                                stream, split.path(), split.start(), split.seq(), blockBytes);
            } else {
                stream = TextFiles.open(split.path(), split.start());
                chunker =
                        new LineChunker(
                                stream,
                                split.start(),
                                split.seq(),
                                blockBytes,
                                maxLineBytes,
                                maxRawBytes);
            }
        }
        return InputStatus.MORE_AVAILABLE;
    }

    private RawChunk readRange(String file, long seq, long start, long end) throws IOException {
        if (records == FileRecords.AVRO_CONTAINER) {
            if (avroRanges == null || !avroRanges.path().equals(file)) {
                if (avroRanges != null) {
                    avroRanges.close();
                }
                avroRanges = new AvroRanges(file);
            }
            return avroRanges.read(seq, start, end);
        }
        if (rangeFile == null || !file.equals(rangePath)) {
            if (rangeFile != null) {
                rangeFile.close();
            }
            Path path = new Path(file);
            rangeFile = path.getFileSystem().open(path);
            rangePath = file;
            rangeFileLength = path.getFileSystem().getFileStatus(path).getLen();
        }
        if (end > rangeFileLength) {
            throw new IOException(
                    file
                            + " is "
                            + rangeFileLength
                            + " bytes now, shorter than when the job started: the input must"
                            + " not change while it is read");
        }
        return lineRange.read(rangeFile, rangeFileLength, seq, start, end);
    }

    private void closeStream() throws IOException {
        stream.close();
        stream = null;
        chunker = null;
        current = null;
    }

    @Override
    public List<FileChunkSplit> snapshotState(long checkpointId) {
        List<FileChunkSplit> state = new ArrayList<>();
        if (ranges != null) {
            state.add(ranges.from(rangesDone));
        }
        if (current != null) {
            state.add(current.advancedTo(chunker.offset(), chunker.nextSeq()));
        }
        state.addAll(queued.queued());
        return state;
    }

    @Override
    public CompletableFuture<Void> isAvailable() {
        return queued.available();
    }

    @Override
    public void addSplits(List<FileChunkSplit> splits) {
        queued.add(splits);
    }

    @Override
    public void notifyNoMoreSplits() {
        queued.noMoreSplits();
    }

    @Override
    public void close() throws Exception {
        if (stream != null) {
            stream.close();
        }
        if (rangeFile != null) {
            rangeFile.close();
        }
        if (avroRanges != null) {
            avroRanges.close();
        }
    }
}
