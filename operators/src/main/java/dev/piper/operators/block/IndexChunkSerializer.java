package dev.piper.operators.block;

import java.io.IOException;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * Serializer of {@link IndexChunk}. Format 3: {@code lane, column} (int32), {@code seq} (int64),
 * the indices (int32 count, little-endian int32 values), {@code firstNewIndex} (int32), the new
 * keys (int32 count, little-endian int64 values), the {@code epoch} (int32). Format 2 had no epoch,
 * format 1 no lane.
 */
public final class IndexChunkSerializer extends BlockSerializer<IndexChunk> {

    private static final long serialVersionUID = 1L;

    public static final IndexChunkSerializer INSTANCE = new IndexChunkSerializer();

    /** The byte format this class writes and reads. */
    static final int FORMAT = 3;

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
        int lane = in.readInt();
        int column = in.readInt();
        long seq = in.readLong();
        int[] indices = ArrayIO.readInts(in);
        int firstNew = in.readInt();
        long[] newKeys = ArrayIO.readLongs(in);
        int epoch = in.readInt();
        return new IndexChunk(lane, column, seq, indices, indices.length, firstNew, newKeys, epoch);
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
    }

    @Override
    public TypeSerializerSnapshot<IndexChunk> snapshotConfiguration() {
        return new Snapshot();
    }

    /** Snapshot of {@link IndexChunkSerializer}; its version is the byte format. */
    public static final class Snapshot extends BlockSerializerSnapshot<IndexChunk> {
        public Snapshot() {
            super("index chunk", FORMAT, () -> INSTANCE);
        }
    }
}
