package dev.piper.job.source;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.core.io.SimpleVersionedSerializer;

/**
 * Serializes {@link FileChunkSplit}s, and lists of them for the enumerator's checkpoint. Version 1:
 * path (modified UTF-8), offset, next line, next sequence number (int64 each); a list is an int32
 * count followed by its splits.
 */
final class FileChunkSplitSerializer {

    static final int VERSION = 1;

    private FileChunkSplitSerializer() {}

    static void write(FileChunkSplit split, DataOutputStream out) throws IOException {
        out.writeUTF(split.path());
        out.writeLong(split.offset());
        out.writeLong(split.nextLine());
        out.writeLong(split.nextSeq());
    }

    static FileChunkSplit read(DataInputStream in) throws IOException {
        return new FileChunkSplit(in.readUTF(), in.readLong(), in.readLong(), in.readLong());
    }

    private static void checkVersion(int version) throws IOException {
        if (version != VERSION) {
            throw new IOException("unknown file split format version " + version);
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
                return read(in);
            }
        }
    }

    /** The enumerator's unassigned splits. */
    static final class Many implements SimpleVersionedSerializer<List<FileChunkSplit>> {
        @Override
        public int getVersion() {
            return VERSION;
        }

        @Override
        public byte[] serialize(List<FileChunkSplit> splits) throws IOException {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            try (DataOutputStream out = new DataOutputStream(bytes)) {
                out.writeInt(splits.size());
                for (FileChunkSplit s : splits) {
                    write(s, out);
                }
            }
            return bytes.toByteArray();
        }

        @Override
        public List<FileChunkSplit> deserialize(int version, byte[] serialized) throws IOException {
            checkVersion(version);
            try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(serialized))) {
                int n = in.readInt();
                List<FileChunkSplit> splits = new ArrayList<>(n);
                for (int i = 0; i < n; i++) {
                    splits.add(read(in));
                }
                return splits;
            }
        }
    }
}
