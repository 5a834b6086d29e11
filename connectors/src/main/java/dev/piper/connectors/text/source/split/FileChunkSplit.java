package dev.piper.connectors.text.source.split;

import org.apache.flink.api.connector.source.SourceSplit;

/**
 * A piece of work for a text file's reader ({@code reader.FileChunkReader}): either a run of
 * consecutive byte ranges of a plain file (each read as one chunk, {@code reader.LineRange}) or the
 * rest of a stream that cannot be split ({@code .gz}), cut into chunks by {@code
 * reader.LineChunker}.
 *
 * @param path the file
 * @param seq for ranges, the first range's chunk sequence number (range {@code i} of the run has
 *     {@code seq + i}); for a stream, the next chunk's
 * @param start for ranges, the first range's first byte; for a stream, the offset at which reading
 *     resumes (counted in decompressed bytes, at the start of a line)
 * @param end for ranges, the byte after the last; -1 for a stream
 * @param rangeBytes for ranges, the bytes of each range (the last may be shorter); 0 for a stream
 */
public record FileChunkSplit(String path, long seq, long start, long end, long rangeBytes)
        implements SourceSplit {

    /** One byte range. */
    public static FileChunkSplit range(String path, long seq, long start, long end) {
        return new FileChunkSplit(path, seq, start, end, end - start);
    }

    /** The ranges of {@code rangeBytes} from {@code start} to {@code end}, numbered from seq. */
    public static FileChunkSplit ranges(
            String path, long seq, long start, long end, long rangeBytes) {
        return new FileChunkSplit(path, seq, start, end, rangeBytes);
    }

    public static FileChunkSplit stream(String path, long seq, long offset) {
        return new FileChunkSplit(path, seq, offset, -1, 0);
    }

    public boolean isRange() {
        return end >= 0;
    }

    /** For ranges: how many. */
    public int rangeCount() {
        return rangeBytes <= 0 ? 1 : (int) ((end - start + rangeBytes - 1) / rangeBytes);
    }

    /** For ranges: the first byte of range {@code i}. */
    public long rangeStart(int i) {
        return start + i * rangeBytes;
    }

    /** For ranges: the byte after range {@code i}. */
    public long rangeEnd(int i) {
        return Math.min(end, rangeStart(i) + rangeBytes);
    }

    /** For ranges: the ranges from {@code i} on. */
    public FileChunkSplit from(int i) {
        return ranges(path, seq + i, rangeStart(i), end, rangeBytes);
    }

    @Override
    public String splitId() {
        return isRange() ? path + "@" + seq : path;
    }

    /** A stream split advanced to {@code offset}, where chunk {@code nextSeq} starts. */
    public FileChunkSplit advancedTo(long offset, long nextSeq) {
        return stream(path, nextSeq, offset);
    }
}
