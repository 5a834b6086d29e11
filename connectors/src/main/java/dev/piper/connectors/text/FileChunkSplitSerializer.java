package dev.piper.connectors.text;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.core.io.SimpleVersionedSerializer;

/**
 * Serializes {@link FileChunkSplit}s, and the enumerator's {@link FileChunkEnumerator.State}.
 *
 * <p>Version 3 (a split is a run of byte ranges). A split: path (modified UTF-8), then {@code seq,
 * start, end, rangeBytes} (int64 each). The state: path, then {@code fileLength, rangeBytes,
 * nextRange} (int64 each), then an int32 count of pending splits and the splits. Version 2 (a split
 * is one range) is the same without a split's {@code rangeBytes}, read as one range. Version 1 (one
 * whole-file split with a line number) is refused with a message: it came from a bounded job that
 * cannot be resumed by this version.
 */
final class FileChunkSplitSerializer {

    static final int VERSION = 3;

    private FileChunkSplitSerializer() {}

    static void write(FileChunkSplit split, DataOutputStream out) throws IOException {
        out.writeUTF(split.path());
        out.writeLong(split.seq());
        out.writeLong(split.start());
        out.writeLong(split.end());
        out.writeLong(split.rangeBytes());
    }

    static FileChunkSplit read(DataInputStream in, int version) throws IOException {
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

    private static void checkVersion(int version) throws IOException {
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
    static final class Single implements SimpleVersionedSerializer<FileChunkSplit> {
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

    /** The enumerator's checkpoint. */
    static final class EnumeratorState
            implements SimpleVersionedSerializer<FileChunkEnumerator.State> {
        @Override
        public int getVersion() {
            return VERSION;
        }

        @Override
        public byte[] serialize(FileChunkEnumerator.State state) throws IOException {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            try (DataOutputStream out = new DataOutputStream(bytes)) {
                out.writeUTF(state.path());
                out.writeLong(state.fileLength());
                out.writeLong(state.rangeBytes());
                out.writeLong(state.nextRange());
                out.writeInt(state.pending().size());
                for (FileChunkSplit s : state.pending()) {
                    write(s, out);
                }
            }
            return bytes.toByteArray();
        }

        @Override
        public FileChunkEnumerator.State deserialize(int version, byte[] serialized)
                throws IOException {
            checkVersion(version);
            try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(serialized))) {
                String path = in.readUTF();
                long fileLength = in.readLong();
                long rangeBytes = in.readLong();
                long nextRange = in.readLong();
                int n = in.readInt();
                List<FileChunkSplit> pending = new ArrayList<>(n);
                for (int i = 0; i < n; i++) {
                    pending.add(read(in, version));
                }
                return new FileChunkEnumerator.State(
                        path, fileLength, rangeBytes, nextRange, pending);
            }
        }
    }
}
