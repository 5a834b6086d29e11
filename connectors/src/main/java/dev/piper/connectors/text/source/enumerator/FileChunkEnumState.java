package dev.piper.connectors.text.source.enumerator;

import dev.piper.connectors.text.source.split.FileChunkSplit;
import java.util.List;

/**
 * What a {@link FileChunkEnumerator} checkpoints.
 *
 * @param path the file
 * @param fileLength its length in bytes; unused for a stream
 * @param rangeBytes bytes per range; 0 when the file is read as one stream
 * @param nextRange the index of the next range to hand out
 * @param pending splits to hand out before any new range
 */
public record FileChunkEnumState(
        String path,
        long fileLength,
        long rangeBytes,
        long nextRange,
        List<FileChunkSplit> pending) {

    public static FileChunkEnumState ranges(String path, long fileLength, long rangeBytes) {
        return new FileChunkEnumState(path, fileLength, rangeBytes, 0, List.of());
    }

    public static FileChunkEnumState stream(String path) {
        return new FileChunkEnumState(path, 0, 0, 0, List.of(FileChunkSplit.stream(path, 0, 0)));
    }

    public long rangeCount() {
        return rangeBytes == 0 ? 0 : (fileLength + rangeBytes - 1) / rangeBytes;
    }
}
