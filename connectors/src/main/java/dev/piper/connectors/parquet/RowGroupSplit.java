package dev.piper.connectors.parquet;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.connector.source.SourceSplit;
import org.apache.flink.core.io.SimpleVersionedSerializer;

/**
 * A piece of work for a {@link ParquetFileSource} reader: one row group of a Parquet file, cut into
 * blocks of the source's rows per block.
 *
 * @param path the file
 * @param rowGroup the row group's index in the file
 * @param firstRow index in the file of the row group's first row
 * @param firstSeq the sequence number of the row group's first block
 * @param nextBlock the first block not yet emitted (0 for a fresh split; more when a reader's
 *     checkpoint resumes it)
 */
public record RowGroupSplit(String path, int rowGroup, long firstRow, long firstSeq, int nextBlock)
        implements SourceSplit {

    @Override
    public String splitId() {
        return path + "#" + rowGroup;
    }

    /** The split resumed at block {@code block}. */
    RowGroupSplit at(int block) {
        return new RowGroupSplit(path, rowGroup, firstRow, firstSeq, block);
    }

    /**
     * Serializes splits, and the enumerator's state (the splits not handed out yet). Version 1: a
     * split is the path (modified UTF-8), {@code rowGroup} (int32), {@code firstRow, firstSeq}
     * (int64), {@code nextBlock} (int32); the state an int32 count and its splits.
     */
    static final class Serializer implements SimpleVersionedSerializer<RowGroupSplit> {
        static final int VERSION = 1;

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

        static void write(RowGroupSplit s, DataOutputStream out) throws IOException {
            out.writeUTF(s.path());
            out.writeInt(s.rowGroup());
            out.writeLong(s.firstRow());
            out.writeLong(s.firstSeq());
            out.writeInt(s.nextBlock());
        }

        static RowGroupSplit read(DataInputStream in) throws IOException {
            return new RowGroupSplit(
                    in.readUTF(), in.readInt(), in.readLong(), in.readLong(), in.readInt());
        }

        static void check(int version) throws IOException {
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

    /** The enumerator's checkpoint: the splits not handed out yet, in order. */
    static final class StateSerializer implements SimpleVersionedSerializer<List<RowGroupSplit>> {
        @Override
        public int getVersion() {
            return Serializer.VERSION;
        }

        @Override
        public byte[] serialize(List<RowGroupSplit> pending) throws IOException {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            try (DataOutputStream out = new DataOutputStream(bytes)) {
                out.writeInt(pending.size());
                for (RowGroupSplit s : pending) {
                    Serializer.write(s, out);
                }
            }
            return bytes.toByteArray();
        }

        @Override
        public List<RowGroupSplit> deserialize(int version, byte[] serialized) throws IOException {
            Serializer.check(version);
            try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(serialized))) {
                int n = in.readInt();
                List<RowGroupSplit> pending = new ArrayList<>(n);
                for (int i = 0; i < n; i++) {
                    pending.add(Serializer.read(in));
                }
                return pending;
            }
        }
    }
}
