package dev.piper.operators.block;

import java.io.IOException;
import org.apache.flink.api.common.typeutils.SimpleTypeSerializerSnapshot;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * Serializer of {@link AssembledBlock}. Format 2: {@code seq} (int64), {@code lines, rows} (int32),
 * the row bytes (int32 length, bytes), the dead letters as in {@link DenseChunkSerializer}, then
 * the number of categorical columns (int32) and per column {@code firstNewIndex} (int32) and the
 * new keys (int32 count, little-endian int64 values).
 */
public final class AssembledBlockSerializer extends BlockSerializer<AssembledBlock> {

    private static final long serialVersionUID = 1L;

    public static final AssembledBlockSerializer INSTANCE = new AssembledBlockSerializer();

    @Override
    public AssembledBlock createInstance() {
        return new AssembledBlock(
                0, 0, 0, new byte[0], new DeadLetter[0], new int[0], new long[0][]);
    }

    @Override
    public AssembledBlock copy(AssembledBlock from) {
        return from;
    }

    @Override
    public void serialize(AssembledBlock r, DataOutputView out) throws IOException {
        out.writeLong(r.seq());
        out.writeInt(r.lines());
        out.writeInt(r.rows());
        ArrayIO.writeBytes(out, r.rowBytes(), r.rowBytes().length);
        writeDeadLetters(r.deadLetters(), out);
        int columns = r.newKeys().length;
        out.writeInt(columns);
        for (int c = 0; c < columns; c++) {
            out.writeInt(r.firstNewIndex()[c]);
            ArrayIO.writeLongs(out, r.newKeys()[c], r.newKeys()[c].length);
        }
    }

    @Override
    public AssembledBlock deserialize(DataInputView in) throws IOException {
        long seq = in.readLong();
        int lines = in.readInt();
        int rows = in.readInt();
        byte[] rowBytes = ArrayIO.readBytes(in);
        DeadLetter[] letters = readDeadLetters(in);
        int columns = in.readInt();
        if (columns < 0) {
            throw new IOException("corrupt block: negative column count " + columns);
        }
        int[] firstNew = new int[columns];
        long[][] newKeys = new long[columns][];
        for (int c = 0; c < columns; c++) {
            firstNew[c] = in.readInt();
            newKeys[c] = ArrayIO.readLongs(in);
        }
        return new AssembledBlock(seq, lines, rows, rowBytes, letters, firstNew, newKeys);
    }

    @Override
    public TypeSerializerSnapshot<AssembledBlock> snapshotConfiguration() {
        return new Snapshot();
    }

    /** Snapshot of {@link AssembledBlockSerializer}. */
    public static final class Snapshot extends SimpleTypeSerializerSnapshot<AssembledBlock> {
        public Snapshot() {
            super(() -> INSTANCE);
        }
    }
}
