package dev.piper.operators.block;

import dev.piper.core.block.BlockNames;
import dev.piper.core.block.ColumnBlock;
import dev.piper.core.block.DeadLetter;
import dev.piper.pipeline.layout.RowLayout;
import java.io.IOException;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * Serializer of {@link ColumnBlock}. Format 4: {@code lane} (int32), {@code seq}, {@code firstRow}
 * (int64), {@code lines, rows} (int32), the label/dense values (int32 count, little-endian int32
 * values: the whole array, as the reader sized it), the number of key arrays (int32), each (int32
 * count, little-endian int64 values; a list column's all its ids), then the dead letters as in
 * {@link DenseChunkSerializer}, then per key array its offsets: int32 -1 for a column of one id per
 * row, else their count and little-endian int32 values; then the original strings of hash64 columns
 * as {@link DenseChunkSerializer} writes them (int32 0 for none) and the event times (a boolean,
 * then, if true, {@code rows} little-endian int64 milliseconds). Format 3 had no names and no
 * times, format 2 no offsets, format 1 26 key arrays and no count.
 *
 * <p>A block normally goes from the Parquet reader to the decoder chained to it and is never
 * serialized; this serializer exists so that the job never falls back to Kryo, and for the rare
 * unchained plan.
 */
public final class ColumnBlockSerializer extends BlockSerializer<ColumnBlock> {

    private static final long serialVersionUID = 1L;

    public static final ColumnBlockSerializer INSTANCE = new ColumnBlockSerializer();

    /** The byte format this class writes and reads. */
    static final int FORMAT = 4;

    @Override
    public ColumnBlock createInstance() {
        return new ColumnBlock(0, 0, 0, 0, 0, new int[0], new long[1][0], new DeadLetter[0]);
    }

    @Override
    public ColumnBlock copy(ColumnBlock from) {
        return from;
    }

    @Override
    public void serialize(ColumnBlock b, DataOutputView out) throws IOException {
        out.writeInt(b.lane());
        out.writeLong(b.seq());
        out.writeLong(b.firstRow());
        out.writeInt(b.lines());
        out.writeInt(b.rows());
        ArrayIO.writeInts(out, b.labelDense(), b.labelDense().length);
        out.writeInt(b.keys().length);
        for (int c = 0; c < b.keys().length; c++) {
            int[] o = b.offsets()[c];
            ArrayIO.writeLongs(out, b.keys()[c], o == null ? b.rows() : o[b.rows()]);
        }
        writeDeadLetters(b.deadLetters(), out);
        for (int[] o : b.offsets()) {
            if (o == null) {
                out.writeInt(-1);
            } else {
                ArrayIO.writeInts(out, o, o.length);
            }
        }
        NamesIO.write(b.names(), out);
        out.writeBoolean(b.eventTimes() != null);
        if (b.eventTimes() != null) {
            ArrayIO.writeLongs(out, b.eventTimes(), b.rows());
        }
    }

    @Override
    public ColumnBlock deserialize(DataInputView in) throws IOException {
        int lane = in.readInt();
        long seq = in.readLong();
        long firstRow = in.readLong();
        int lines = in.readInt();
        int rows = in.readInt();
        int[] labelDense = ArrayIO.readInts(in);
        int columns = in.readInt();
        if (columns < 1 || columns > RowLayout.MAX_SPARSE) {
            throw new IOException("corrupt column block: " + columns + " key arrays");
        }
        long[][] keys = new long[columns][];
        for (int c = 0; c < columns; c++) {
            keys[c] = ArrayIO.readLongs(in);
        }
        DeadLetter[] letters = readDeadLetters(in);
        int[][] offsets = new int[columns][];
        for (int c = 0; c < columns; c++) {
            int n = in.readInt();
            if (n != -1) {
                if (n != rows + 1) {
                    throw new IOException("corrupt column block: " + n + " offsets");
                }
                offsets[c] = ArrayIO.readInts(in, n);
            }
        }
        BlockNames names = NamesIO.read(in, columns);
        long[] times = in.readBoolean() ? ArrayIO.readLongs(in) : null;
        try {
            return new ColumnBlock(
                    lane,
                    seq,
                    firstRow,
                    lines,
                    rows,
                    labelDense,
                    keys,
                    letters,
                    offsets,
                    names,
                    times);
        } catch (IllegalArgumentException e) {
            throw new IOException("corrupt column block: " + e.getMessage(), e);
        }
    }

    @Override
    public TypeSerializerSnapshot<ColumnBlock> snapshotConfiguration() {
        return new Snapshot();
    }

    /** Snapshot of {@link ColumnBlockSerializer}; its version is the byte format. */
    public static final class Snapshot extends BlockSerializerSnapshot<ColumnBlock> {
        public Snapshot() {
            super("column block", FORMAT, () -> INSTANCE);
        }
    }
}
