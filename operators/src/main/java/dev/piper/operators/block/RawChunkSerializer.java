package dev.piper.operators.block;

import dev.piper.core.block.Origin;
import dev.piper.core.block.RawChunk;
import java.io.IOException;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * Serializer of {@link RawChunk}. Format 3: {@code lane} (int32), {@code seq, firstOffset,
 * lastLineLength} (int64), the bytes as int32 length and raw bytes, then the origin (see {@link
 * BlockSerializer#writeOrigin}). Format 2 had no lane and no origin.
 */
public final class RawChunkSerializer extends BlockSerializer<RawChunk> {

    private static final long serialVersionUID = 1L;

    public static final RawChunkSerializer INSTANCE = new RawChunkSerializer();

    /** The byte format this class writes and reads. */
    static final int FORMAT = 3;

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
        out.writeInt(r.lane());
        out.writeLong(r.seq());
        out.writeLong(r.firstOffset());
        out.writeLong(r.lastLineLength());
        ArrayIO.writeBytes(out, r.data(), r.length());
        writeOrigin(r.origin(), out);
    }

    @Override
    public RawChunk deserialize(DataInputView in) throws IOException {
        int lane = in.readInt();
        long seq = in.readLong();
        long firstOffset = in.readLong();
        long lastLineLength = in.readLong();
        byte[] data = ArrayIO.readBytes(in);
        Origin origin = readOrigin(in);
        return new RawChunk(lane, seq, firstOffset, data, data.length, lastLineLength, origin);
    }

    @Override
    public TypeSerializerSnapshot<RawChunk> snapshotConfiguration() {
        return new Snapshot();
    }

    /** Snapshot of {@link RawChunkSerializer}; its version is the byte format. */
    public static final class Snapshot extends BlockSerializerSnapshot<RawChunk> {
        public Snapshot() {
            super("raw chunk", FORMAT, () -> INSTANCE);
        }
    }
}
