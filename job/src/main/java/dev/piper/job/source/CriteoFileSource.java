package dev.piper.job.source;

import dev.piper.operators.block.BlockTypes;
import dev.piper.operators.block.RawChunk;
import java.util.List;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.connector.source.Boundedness;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.api.java.typeutils.ResultTypeQueryable;
import org.apache.flink.core.io.SimpleVersionedSerializer;

/**
 * A bounded source of one Criteo text file as numbered, line-aligned {@link RawChunk}s. One reader
 * cuts the file (cheap: it only looks for line breaks); decoding happens in parallel downstream.
 * The chunk sequence numbers give the column operators the input order.
 *
 * <p>A file whose name ends in {@code .gz} is decompressed while it is read (Criteo Terabyte days
 * ship that way); dead-letter offsets then count decompressed bytes.
 *
 * <p>Run it at parallelism 1: extra readers would receive no split and finish at once.
 */
public final class CriteoFileSource
        implements Source<RawChunk, FileChunkSplit, List<FileChunkSplit>>,
                ResultTypeQueryable<RawChunk> {

    private static final long serialVersionUID = 1L;

    private final String path;
    private final int blockRows;
    private final int maxLineBytes;
    private final int maxRawBytes;

    public CriteoFileSource(String path, int blockRows, int maxLineBytes, int maxRawBytes) {
        if (blockRows < 1) {
            throw new IllegalArgumentException("blockRows must be positive: " + blockRows);
        }
        this.path = path;
        this.blockRows = blockRows;
        this.maxLineBytes = maxLineBytes;
        this.maxRawBytes = maxRawBytes;
    }

    @Override
    public Boundedness getBoundedness() {
        return Boundedness.BOUNDED;
    }

    @Override
    public SourceReader<RawChunk, FileChunkSplit> createReader(SourceReaderContext context) {
        return new FileChunkReader(context, blockRows, maxLineBytes, maxRawBytes);
    }

    @Override
    public SplitEnumerator<FileChunkSplit, List<FileChunkSplit>> createEnumerator(
            SplitEnumeratorContext<FileChunkSplit> context) {
        return new FileChunkEnumerator(context, List.of(new FileChunkSplit(path, 0, 1, 0)));
    }

    @Override
    public SplitEnumerator<FileChunkSplit, List<FileChunkSplit>> restoreEnumerator(
            SplitEnumeratorContext<FileChunkSplit> context, List<FileChunkSplit> checkpoint) {
        return new FileChunkEnumerator(context, checkpoint);
    }

    @Override
    public SimpleVersionedSerializer<FileChunkSplit> getSplitSerializer() {
        return new FileChunkSplitSerializer.Single();
    }

    @Override
    public SimpleVersionedSerializer<List<FileChunkSplit>> getEnumeratorCheckpointSerializer() {
        return new FileChunkSplitSerializer.Many();
    }

    @Override
    public TypeInformation<RawChunk> getProducedType() {
        return BlockTypes.RAW_CHUNK;
    }
}
