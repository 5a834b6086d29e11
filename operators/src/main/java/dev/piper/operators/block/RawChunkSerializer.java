package dev.piper.operators.block;

import java.io.IOException;
import org.apache.flink.api.common.typeutils.SimpleTypeSerializerSnapshot;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * Serializer of {@link RawChunk}. Format 2: {@code seq, firstOffset, lastLineLength} (int64), then
 * the bytes as int32 length and raw bytes.
 */
public final class RawChunkSerializer extends BlockSerializer<RawChunk> {

    private static final long serialVersionUID = 1L;

    public static final RawChunkSerializer INSTANCE = new RawChunkSerializer();

    @Override
    public RawChunk createInstance() {
        return new RawChunk(0, 0, new byte[0], 0, -1);
    }

    @Override
    public RawChunk copy(RawChunk from) {
        return from;
    }

    @Override
    public void serialize(RawChunk r, DataOutputView out) throws IOException {
        out.writeLong(r.seq());
        out.writeLong(r.firstOffset());
        out.writeLong(r.lastLineLength());
        ArrayIO.writeBytes(out, r.data(), r.length());
    }

    @Override
    public RawChunk deserialize(DataInputView in) throws IOException {
        long seq = in.readLong();
        long firstOffset = in.readLong();
        long lastLineLength = in.readLong();
        byte[] data = ArrayIO.readBytes(in);
        return new RawChunk(seq, firstOffset, data, data.length, lastLineLength);
    }

    @Override
    public TypeSerializerSnapshot<RawChunk> snapshotConfiguration() {
        return new Snapshot();
    }

    /** Snapshot of {@link RawChunkSerializer}. */
    public static final class Snapshot extends SimpleTypeSerializerSnapshot<RawChunk> {
        public Snapshot() {
            super(() -> INSTANCE);
        }
    }
}
