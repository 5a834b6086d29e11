package dev.piper.connectors.parquet.source.split;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import org.apache.flink.core.io.SimpleVersionedSerializer;

/**
 * Serializes {@link RowGroupSplit}s (and the splits inside the enumerator's checkpoint). Version 1:
 * the path (modified UTF-8), {@code rowGroup} (int32), {@code firstRow, firstSeq} (int64), {@code
 * nextBlock} (int32).
 */
public final class RowGroupSplitSerializer implements SimpleVersionedSerializer<RowGroupSplit> {
    public static final int VERSION = 1;

    @Override
    public int getVersion() {
        return VERSION;
    }

    @Override
    public byte[] serialize(RowGroupSplit split) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            write(split, out);
        }
        return bytes.toByteArray();
    }

    @Override
    public RowGroupSplit deserialize(int version, byte[] serialized) throws IOException {
        check(version);
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(serialized))) {
            return read(in);
        }
    }

    public static void write(RowGroupSplit s, DataOutputStream out) throws IOException {
        out.writeUTF(s.path());
        out.writeInt(s.rowGroup());
        out.writeLong(s.firstRow());
        out.writeLong(s.firstSeq());
        out.writeInt(s.nextBlock());
    }

    public static RowGroupSplit read(DataInputStream in) throws IOException {
        return new RowGroupSplit(
                in.readUTF(), in.readInt(), in.readLong(), in.readLong(), in.readInt());
    }

    public static void check(int version) throws IOException {
        if (version != VERSION) {
            throw new IOException(
                    "Parquet split format version "
                            + version
                            + " is not readable by this version of piper (it reads "
                            + VERSION
                            + ")");
        }
    }
}
