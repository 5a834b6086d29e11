package dev.piper.operators.block;

import dev.piper.core.block.Assignments;
import dev.piper.core.block.IndexChunk;
import java.io.IOException;
import java.util.function.IntFunction;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * Serializer of {@link IndexChunk}. Format 5: {@code lane, column} (int32), {@code seq} (int64),
 * the indices (int32 count, little-endian int32 values), {@code firstNewIndex} (int32), the new
 * keys (int32 count, little-endian int64 values), the {@code epoch} (int32), then a list column's
 * offsets: int32 -1 for a column of one id per row, else their count and little-endian int32
 * values, then an evicting vocabulary's {@link Assignments} (a byte 0 when there are none). Format
 * 4 had no assignments, format 3 no offsets, format 2 no epoch, format 1 no lane.
 *
 * <p>Index chunks wait in the concatenation's keyed state for the rest of their block, so this
 * still reads formats 3 and 4: a savepoint taken before list columns or eviction restores by
 * migration.
 */
public final class IndexChunkSerializer extends BlockSerializer<IndexChunk> {

    private static final long serialVersionUID = 1L;

    public static final IndexChunkSerializer INSTANCE = new IndexChunkSerializer();

    /** The byte format this class writes and reads. */
    static final int FORMAT = 5;

    @Override
    public IndexChunk createInstance() {
        return new IndexChunk(0, 0, new int[0], 0, 0, new long[0]);
    }

    @Override
    public IndexChunk copy(IndexChunk from) {
        return from;
    }

    @Override
    public void serialize(IndexChunk r, DataOutputView out) throws IOException {
        writeFormat4(r, out);
        AssignmentsIO.write(r.assignments(), out);
    }

    private static void writeFormat4(IndexChunk r, DataOutputView out) throws IOException {
        writeFormat3(r, out);
        if (r.offsets() == null) {
            out.writeInt(-1);
        } else {
            ArrayIO.writeInts(out, r.offsets(), r.offsets().length);
        }
    }

    private static void writeFormat3(IndexChunk r, DataOutputView out) throws IOException {
        out.writeInt(r.lane());
        out.writeInt(r.column());
        out.writeLong(r.seq());
        ArrayIO.writeInts(out, r.indices(), r.size());
        out.writeInt(r.firstNewIndex());
        ArrayIO.writeLongs(out, r.newKeys(), r.newKeys().length);
        out.writeInt(r.epoch());
    }

    @Override
    public IndexChunk deserialize(DataInputView in) throws IOException {
        return read(in, 5);
    }

    private static IndexChunk read(DataInputView in, int format) throws IOException {
        boolean withOffsets = format >= 4;
        int lane = in.readInt();
        int column = in.readInt();
        long seq = in.readLong();
        int[] indices = ArrayIO.readInts(in);
        int firstNew = in.readInt();
        long[] newKeys = ArrayIO.readLongs(in);
        int epoch = in.readInt();
        int[] offsets = null;
        if (withOffsets) {
            int n = in.readInt();
            if (n != -1) {
                if (n < 1) {
                    throw new IOException("corrupt index chunk: " + n + " list offsets");
                }
                offsets = ArrayIO.readInts(in, n);
            }
        }
        Assignments assignments = format >= 5 ? AssignmentsIO.read(in) : null;
        try {
            return new IndexChunk(
                    lane,
                    column,
                    seq,
                    indices,
                    indices.length,
                    firstNew,
                    newKeys,
                    epoch,
                    offsets,
                    assignments);
        } catch (IllegalArgumentException e) {
            throw new IOException("corrupt index chunk: " + e.getMessage(), e);
        }
    }

    /** Format 3, for restoring state written before list columns: no offsets. */
    static final class Format3 extends LegacyFormat<IndexChunk> {
        private static final long serialVersionUID = 1L;

        static final Format3 INSTANCE = new Format3();

        private Format3() {
            super("index chunk", 3, IndexChunkSerializer.INSTANCE);
        }

        @Override
        public void serialize(IndexChunk r, DataOutputView out) throws IOException {
            if (r.offsets() != null) {
                throw cannotHold("list columns");
            }
            if (r.assignments() != null) {
                throw cannotHold("evicting vocabularies");
            }
            writeFormat3(r, out);
        }

        @Override
        public IndexChunk deserialize(DataInputView in) throws IOException {
            return read(in, 3);
        }
    }

    /** Format 4, for restoring state written before eviction: no assignments. */
    static final class Format4 extends LegacyFormat<IndexChunk> {
        private static final long serialVersionUID = 1L;

        static final Format4 INSTANCE = new Format4();

        private Format4() {
            super("index chunk", 4, IndexChunkSerializer.INSTANCE);
        }

        @Override
        public void serialize(IndexChunk r, DataOutputView out) throws IOException {
            if (r.assignments() != null) {
                throw cannotHold("evicting vocabularies");
            }
            writeFormat4(r, out);
        }

        @Override
        public IndexChunk deserialize(DataInputView in) throws IOException {
            return read(in, 4);
        }
    }

    @Override
    public void copy(DataInputView in, DataOutputView out) throws IOException {
        out.writeInt(in.readInt());
        out.writeInt(in.readInt());
        out.writeLong(in.readLong());
        ArrayIO.copyArray(in, out, Integer.BYTES);
        out.writeInt(in.readInt());
        ArrayIO.copyArray(in, out, Long.BYTES);
        out.writeInt(in.readInt());
        int n = in.readInt();
        out.writeInt(n);
        if (n > 0) {
            byte[] offsets = new byte[n * Integer.BYTES];
            in.readFully(offsets);
            out.write(offsets);
        }
        AssignmentsIO.copy(in, out);
    }

    @Override
    public TypeSerializerSnapshot<IndexChunk> snapshotConfiguration() {
        return new Snapshot();
    }

    /** Snapshot of {@link IndexChunkSerializer}; its version is the byte format, 3 to 5. */
    public static final class Snapshot extends FormatSnapshot<IndexChunk> {
        public Snapshot() {
            super(
                    "index chunk",
                    FORMAT,
                    3,
                    (IntFunction<TypeSerializer<IndexChunk>>)
                            f ->
                                    f == FORMAT
                                            ? INSTANCE
                                            : f == 4 ? Format4.INSTANCE : Format3.INSTANCE);
        }
    }
}
