package dev.piper.operators.block;

import java.io.IOException;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * Serializer of {@link DenseChunk}. Format 4: {@code lane} (int32), {@code seq} (int64), {@code
 * lines, rows} (int32), the label/dense values as int32 count and little-endian int32 values, the
 * dead letters (int32 count; each: line in block as int32, offset as int64, reason and detail as
 * modified UTF-8, raw as int32 length and bytes, truncated flag), then the origin (see {@link
 * BlockSerializer#writeOrigin}), the spec {@code version} (int32). Format 3 had no version, format
 * 2 no lane and no origin.
 */
public final class DenseChunkSerializer extends BlockSerializer<DenseChunk> {

    private static final long serialVersionUID = 1L;

    public static final DenseChunkSerializer INSTANCE = new DenseChunkSerializer();

    /** The byte format this class writes and reads. */
    static final int FORMAT = 4;

    /** Values per row: the label and 13 dense columns. */
    private static final int ROW_WIDTH = 14;

    @Override
    public DenseChunk createInstance() {
        return new DenseChunk(0, 0, 0, new int[0], new DeadLetter[0]);
    }

    @Override
    public DenseChunk copy(DenseChunk from) {
        return from;
    }

    @Override
    public void serialize(DenseChunk r, DataOutputView out) throws IOException {
        out.writeInt(r.lane());
        out.writeLong(r.seq());
        out.writeInt(r.lines());
        out.writeInt(r.rows());
        ArrayIO.writeInts(out, r.labelDense(), r.rows() * ROW_WIDTH);
        writeDeadLetters(r.deadLetters(), out);
        writeOrigin(r.origin(), out);
        out.writeInt(r.version());
    }

    @Override
    public DenseChunk deserialize(DataInputView in) throws IOException {
        int lane = in.readInt();
        long seq = in.readLong();
        int lines = in.readInt();
        int rows = in.readInt();
        int[] values = ArrayIO.readInts(in);
        DeadLetter[] letters = readDeadLetters(in);
        Origin origin = readOrigin(in);
        int version = in.readInt();
        return new DenseChunk(lane, seq, lines, rows, values, letters, origin, version);
    }

    @Override
    public TypeSerializerSnapshot<DenseChunk> snapshotConfiguration() {
        return new Snapshot();
    }

    /** Snapshot of {@link DenseChunkSerializer}; its version is the byte format. */
    public static final class Snapshot extends BlockSerializerSnapshot<DenseChunk> {
        public Snapshot() {
            super("dense chunk", FORMAT, () -> INSTANCE);
        }
    }
}
