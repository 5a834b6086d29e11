package dev.piper.operators.block;

import java.io.IOException;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * Serializer of {@link AssembledBlock}. Format 4: {@code lane} (int32), {@code seq} (int64), {@code
 * lines, rows} (int32), the row bytes (int32 length, bytes), the dead letters as in {@link
 * DenseChunkSerializer}, the number of categorical columns (int32) and per column {@code
 * firstNewIndex} (int32) and the new keys (int32 count, little-endian int64 values), then the
 * origin (see {@link BlockSerializer#writeOrigin}), the spec {@code version} (int32) and the
 * per-column epochs (int32 count, little-endian int32 values), then the number of list columns
 * (int32) and per list column its offsets and its indices (each int32 count, little-endian int32
 * values). Format 4 had no lists, format 3 neither version nor epochs, format 2 no lane and no
 * origin.
 */
public final class AssembledBlockSerializer extends BlockSerializer<AssembledBlock> {

    private static final long serialVersionUID = 1L;

    public static final AssembledBlockSerializer INSTANCE = new AssembledBlockSerializer();

    /** The byte format this class writes and reads. */
    static final int FORMAT = 5;

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
        out.writeInt(r.lane());
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
        writeOrigin(r.origin(), out);
        out.writeInt(r.version());
        ArrayIO.writeInts(out, r.epochs(), r.epochs().length);
        out.writeInt(r.listOffsets().length);
        for (int l = 0; l < r.listOffsets().length; l++) {
            ArrayIO.writeInts(out, r.listOffsets()[l], r.listOffsets()[l].length);
            ArrayIO.writeInts(out, r.listIndices()[l], r.listIndices()[l].length);
        }
    }

    @Override
    public AssembledBlock deserialize(DataInputView in) throws IOException {
        int lane = in.readInt();
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
        Origin origin = readOrigin(in);
        int version = in.readInt();
        int[] epochs = ArrayIO.readInts(in);
        int lists = in.readInt();
        if (lists < 0 || lists > columns) {
            throw new IOException("corrupt block: " + lists + " list columns of " + columns);
        }
        int[][] listOffsets = new int[lists][];
        int[][] listIndices = new int[lists][];
        for (int l = 0; l < lists; l++) {
            listOffsets[l] = ArrayIO.readInts(in);
            listIndices[l] = ArrayIO.readInts(in);
        }
        return new AssembledBlock(
                lane,
                seq,
                lines,
                rows,
                rowBytes,
                letters,
                firstNew,
                newKeys,
                origin,
                version,
                epochs,
                listOffsets,
                listIndices);
    }

    @Override
    public TypeSerializerSnapshot<AssembledBlock> snapshotConfiguration() {
        return new Snapshot();
    }

    /** Snapshot of {@link AssembledBlockSerializer}; its version is the byte format. */
    public static final class Snapshot extends BlockSerializerSnapshot<AssembledBlock> {
        public Snapshot() {
            super("assembled block", FORMAT, () -> INSTANCE);
        }
    }
}
