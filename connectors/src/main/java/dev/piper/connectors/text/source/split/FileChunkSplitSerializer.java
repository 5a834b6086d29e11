package dev.piper.connectors.text.source.split;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import org.apache.flink.core.io.SimpleVersionedSerializer;

/**
 * Serializes {@link FileChunkSplit}s (and the splits inside the enumerator's checkpoint).
 *
 * <p>Version 3 (a split is a run of byte ranges). A split: path (modified UTF-8), then {@code seq,
 * start, end, rangeBytes} (int64 each). (The enumerator's checkpoint, {@code
 * FileChunkEnumStateSerializer}, holds splits in this form.) Version 2 (a split is one range) is
 * the same without a split's {@code rangeBytes}, read as one range. Version 1 (one whole-file split
 * with a line number) is refused with a message: it came from a bounded job that cannot be resumed
 * by this version.
 */
public final class FileChunkSplitSerializer {

    public static final int VERSION = 3;

    private FileChunkSplitSerializer() {}

    public static void write(FileChunkSplit split, DataOutputStream out) throws IOException {
        out.writeUTF(split.path());
        out.writeLong(split.seq());
        out.writeLong(split.start());
        out.writeLong(split.end());
        out.writeLong(split.rangeBytes());
    }

    public static FileChunkSplit read(DataInputStream in, int version) throws IOException {
        String path = in.readUTF();
        long seq = in.readLong();
        long start = in.readLong();
        long end = in.readLong();
        if (version == 2) {
            return end < 0
                    ? FileChunkSplit.stream(path, seq, start)
                    : FileChunkSplit.range(path, seq, start, end);
        }
        return new FileChunkSplit(path, seq, start, end, in.readLong());
    }

    public static void checkVersion(int version) throws IOException {
        if (version != VERSION && version != 2) {
            throw new IOException(
                    "file split format version "
                            + version
                            + " is not readable by this version of piper (it reads 2 and "
                            + VERSION
                            + "); rerun the job from the start");
        }
    }

    /** One split. */
    public static final class Single implements SimpleVersionedSerializer<FileChunkSplit> {
        @Override
        public int getVersion() {
            return VERSION;
        }

        @Override
        public byte[] serialize(FileChunkSplit split) throws IOException {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            try (DataOutputStream out = new DataOutputStream(bytes)) {
                write(split, out);
            }
            return bytes.toByteArray();
        }

        @Override
        public FileChunkSplit deserialize(int version, byte[] serialized) throws IOException {
            checkVersion(version);
            try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(serialized))) {
                return read(in, version);
            }
        }
    }
}
