package dev.piper.connectors.text.source;

import dev.piper.connectors.text.source.enumerator.FileChunkEnumState;
import dev.piper.connectors.text.source.enumerator.FileChunkEnumStateSerializer;
import dev.piper.connectors.text.source.enumerator.FileChunkEnumerator;
import dev.piper.connectors.text.source.reader.FileChunkReader;
import dev.piper.connectors.text.source.reader.FileRecords;
import dev.piper.connectors.text.source.split.FileChunkSplit;
import dev.piper.connectors.text.source.split.FileChunkSplitSerializer;
import dev.piper.core.block.RawChunk;
import dev.piper.core.chunk.LineChunker;
import dev.piper.operators.block.BlockTypes;
import java.io.IOException;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.connector.source.Boundedness;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.api.java.typeutils.ResultTypeQueryable;
import org.apache.flink.core.fs.Path;
import org.apache.flink.core.io.SimpleVersionedSerializer;

/**
 * A bounded source of one Criteo text file as numbered, line-aligned {@link RawChunk}s, read in
 * parallel: each reader takes the file's byte ranges of {@code blockBytes} from the enumerator,
 * {@link #RANGES_PER_SPLIT} at a time and in order, and turns each range into one chunk whose
 * sequence number is the range's index ({@code LineRange}). Run it at the job's parallelism with
 * the decoder chained to it: a chunk then goes from the read buffer to the parser without being
 * serialized.
 *
 * <p>A file whose name ends in {@code .gz} (Criteo Terabyte days ship that way) cannot be split: it
 * is one split, decompressed and cut into chunks of at most {@code blockBytes} by one reader
 * ({@link LineChunker}), and dead-letter offsets count decompressed bytes. {@link #isSplittable()}
 * tells the job to read it at parallelism 1 and spread the chunks over the decoders instead.
 */
public final class CriteoFileSource
        implements Source<RawChunk, FileChunkSplit, FileChunkEnumState>,
                ResultTypeQueryable<RawChunk> {

    private static final long serialVersionUID = 1L;

    /** The largest block: a block and its arrays must fit Java arrays with room to spare. */
    public static final int MAX_BLOCK_BYTES = 1 << 28;

    /**
     * Consecutive byte ranges (blocks) a reader gets per split. One range per split cost two remote
     * calls per block (the reader's request, the enumerator's assignment, both Java-serialized),
     * and made the JIT compile that path: 8 ranges per split took 1.5 to 3 s of CPU and about 1 s
     * of wall time off a 10M-line run at parallelism 2 (docs/PERFORMANCE.md); 16 and 32 gained no
     * more and held more blocks in the reorder buffers (two splits per reader).
     */
    static final int RANGES_PER_SPLIT = 8;

    /** The configuration key of the block size, named in errors. */
    public static final String BLOCK_BYTES_KEY = "piper.block-bytes";

    private final String path;
    private final int blockBytes;
    private final int maxLineBytes;
    private final int maxRawBytes;

    private final FileRecords records;

    public CriteoFileSource(String path, int blockBytes, int maxLineBytes, int maxRawBytes) {
        this(path, blockBytes, maxLineBytes, maxRawBytes, FileRecords.LINES);
    }

    /**
     * A source of an Avro container file, split as a text file is: byte ranges of {@code
     * blockBytes}, each a chunk of the blocks that start in it, decompressed, a {@code
     * RecordFrames} frame a block ({@code AvroRanges}); the readers share the file.
     */
    public static CriteoFileSource avroContainer(String path, int blockBytes, int maxRawBytes) {
        return new CriteoFileSource(
                path, blockBytes, Integer.MAX_VALUE, maxRawBytes, FileRecords.AVRO_CONTAINER);
    }

    /**
     * A source of a file of length-delimited Protobuf messages: one reader takes them in order, as
     * chunks of {@code RecordFrames} of up to {@code blockBytes} ({@code DelimitedChunker}); not
     * split.
     */
    public static CriteoFileSource protobufDelimited(String path, int blockBytes, int maxRawBytes) {
        return new CriteoFileSource(
                path, blockBytes, Integer.MAX_VALUE, maxRawBytes, FileRecords.PROTOBUF_DELIMITED);
    }

    private CriteoFileSource(
            String path, int blockBytes, int maxLineBytes, int maxRawBytes, FileRecords records) {
        if (blockBytes < 1 || blockBytes > MAX_BLOCK_BYTES) {
            throw new IllegalArgumentException(
                    BLOCK_BYTES_KEY
                            + " must be between 1 and "
                            + MAX_BLOCK_BYTES
                            + ", not "
                            + blockBytes);
        }
        this.path = path;
        this.blockBytes = blockBytes;
        this.maxLineBytes = maxLineBytes;
        this.maxRawBytes = maxRawBytes;
        this.records = records;
    }

    /**
     * Whether parallel readers can share the file: lines not compressed as a whole, or an Avro
     * container file (not a {@code .gz} stream, nor length-delimited Protobuf messages).
     */
    public boolean isSplittable() {
        return records == FileRecords.LINES && !path.endsWith(".gz")
                || records == FileRecords.AVRO_CONTAINER;
    }

    @Override
    public Boundedness getBoundedness() {
        return Boundedness.BOUNDED;
    }

    @Override
    public SourceReader<RawChunk, FileChunkSplit> createReader(SourceReaderContext context) {
        return new FileChunkReader(context, blockBytes, maxLineBytes, maxRawBytes, records);
    }

    @Override
    public SplitEnumerator<FileChunkSplit, FileChunkEnumState> createEnumerator(
            SplitEnumeratorContext<FileChunkSplit> context) throws IOException {
        FileChunkEnumState state;
        long length = -1;
        if (isSplittable()) {
            Path file = new Path(path);
            length = file.getFileSystem().getFileStatus(file).getLen();
        }
        if (length > 0) {
            state = FileChunkEnumState.ranges(path, length, blockBytes);
        } else {
            // compressed, or of no size: a pipe or a pseudo-file (/proc/...) has content all the
            // same, so it is read to its end as one stream (an empty file gives no lines either
            // way)
            state = FileChunkEnumState.stream(path);
        }
        return new FileChunkEnumerator(context, state, RANGES_PER_SPLIT);
    }

    @Override
    public SplitEnumerator<FileChunkSplit, FileChunkEnumState> restoreEnumerator(
            SplitEnumeratorContext<FileChunkSplit> context, FileChunkEnumState checkpoint) {
        return new FileChunkEnumerator(context, checkpoint, RANGES_PER_SPLIT);
    }

    @Override
    public SimpleVersionedSerializer<FileChunkSplit> getSplitSerializer() {
        return new FileChunkSplitSerializer.Single();
    }

    @Override
    public SimpleVersionedSerializer<FileChunkEnumState> getEnumeratorCheckpointSerializer() {
        return new FileChunkEnumStateSerializer();
    }

    @Override
    public TypeInformation<RawChunk> getProducedType() {
        return BlockTypes.RAW_CHUNK;
    }
}
