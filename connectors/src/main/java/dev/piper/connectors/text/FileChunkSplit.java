package dev.piper.connectors.text;

import org.apache.flink.api.connector.source.SourceSplit;

/**
 * A piece of work for a {@link FileChunkReader}: either one byte range of a plain file (read as one
 * chunk, {@link LineRange}) or the rest of a stream that cannot be split ({@code .gz}), cut into
 * chunks by {@link LineChunker}.
 *
 * @param path the file
 * @param seq for a range, its chunk's sequence number; for a stream, the next chunk's
 * @param start for a range, its first byte; for a stream, the offset at which reading resumes
 *     (counted in decompressed bytes, at the start of a line)
 * @param end for a range, the byte after it; -1 for a stream
 */
public record FileChunkSplit(String path, long seq, long start, long end) implements SourceSplit {

    static FileChunkSplit range(String path, long seq, long start, long end) {
        return new FileChunkSplit(path, seq, start, end);
    }

    static FileChunkSplit stream(String path, long seq, long offset) {
        return new FileChunkSplit(path, seq, offset, -1);
    }

    boolean isRange() {
        return end >= 0;
    }

    @Override
    public String splitId() {
        return isRange() ? path + "@" + seq : path;
    }

    /** A stream split advanced to {@code offset}, where chunk {@code nextSeq} starts. */
    FileChunkSplit advancedTo(long offset, long nextSeq) {
        return stream(path, nextSeq, offset);
    }
}
