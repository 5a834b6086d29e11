package dev.piper.operators.block;

import java.io.IOException;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * Serializer of {@link KeyChunk}. Format 3: {@code lane, column} (int32), {@code seq} (int64), the
 * keys as int32 count and little-endian int64 values, then the {@code epoch} (int32). Format 2 had
 * no epoch, format 1 no lane.
 */
public final class KeyChunkSerializer extends BlockSerializer<KeyChunk> {

    private static final long serialVersionUID = 1L;

    public static final KeyChunkSerializer INSTANCE = new KeyChunkSerializer();

    /** The byte format this class writes and reads. */
    static final int FORMAT = 3;

    @Override
    public KeyChunk createInstance() {
        return new KeyChunk(0, 0, new long[0], 0);
    }

    @Override
    public KeyChunk copy(KeyChunk from) {
        return from;
    }

    @Override
    public void serialize(KeyChunk r, DataOutputView out) throws IOException {
        out.writeInt(r.lane());
        out.writeInt(r.column());
        out.writeLong(r.seq());
        ArrayIO.writeLongs(out, r.keys(), r.size());
        out.writeInt(r.epoch());
    }

    @Override
    public KeyChunk deserialize(DataInputView in) throws IOException {
        int lane = in.readInt();
        int column = in.readInt();
        long seq = in.readLong();
        long[] keys = ArrayIO.readLongs(in);
        int epoch = in.readInt();
        return new KeyChunk(lane, column, seq, keys, keys.length, epoch);
    }

    @Override
    public void copy(DataInputView in, DataOutputView out) throws IOException {
        out.writeInt(in.readInt());
        out.writeInt(in.readInt());
        out.writeLong(in.readLong());
        ArrayIO.copyArray(in, out, Long.BYTES);
        out.writeInt(in.readInt());
    }

    @Override
    public TypeSerializerSnapshot<KeyChunk> snapshotConfiguration() {
        return new Snapshot();
    }

    /** Snapshot of {@link KeyChunkSerializer}; its version is the byte format. */
    public static final class Snapshot extends BlockSerializerSnapshot<KeyChunk> {
        public Snapshot() {
            super("key chunk", FORMAT, () -> INSTANCE);
        }
    }
}
