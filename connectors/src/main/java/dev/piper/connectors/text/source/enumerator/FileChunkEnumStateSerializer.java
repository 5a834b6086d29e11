package dev.piper.connectors.text.source.enumerator;

import dev.piper.connectors.text.source.split.FileChunkSplit;
import dev.piper.connectors.text.source.split.FileChunkSplitSerializer;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.core.io.SimpleVersionedSerializer;

/**
 * Serializes a {@link FileChunkEnumerator}'s checkpoint, in the version of {@link
 * FileChunkSplitSerializer}: path (modified UTF-8), then {@code fileLength, rangeBytes, nextRange}
 * (int64 each), then an int32 count of pending splits and the splits.
 */
public final class FileChunkEnumStateSerializer
        implements SimpleVersionedSerializer<FileChunkEnumState> {
    @Override
    public int getVersion() {
        return FileChunkSplitSerializer.VERSION;
    }

    @Override
    public byte[] serialize(FileChunkEnumState state) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeUTF(state.path());
            out.writeLong(state.fileLength());
            out.writeLong(state.rangeBytes());
            out.writeLong(state.nextRange());
            out.writeInt(state.pending().size());
            for (FileChunkSplit s : state.pending()) {
                FileChunkSplitSerializer.write(s, out);
            }
        }
        return bytes.toByteArray();
    }

    @Override
    public FileChunkEnumState deserialize(int version, byte[] serialized) throws IOException {
        FileChunkSplitSerializer.checkVersion(version);
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(serialized))) {
            String path = in.readUTF();
            long fileLength = in.readLong();
            long rangeBytes = in.readLong();
            long nextRange = in.readLong();
            int n = in.readInt();
            List<FileChunkSplit> pending = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                pending.add(FileChunkSplitSerializer.read(in, version));
            }
            return new FileChunkEnumState(path, fileLength, rangeBytes, nextRange, pending);
        }
    }
}
