package dev.piper.operators.block;

import dev.piper.core.block.BlockNames;
import dev.piper.core.block.DeadLetter;
import dev.piper.core.block.DenseChunk;
import dev.piper.core.block.Origin;
import dev.piper.pipeline.layout.RowLayout;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntFunction;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * Serializer of {@link DenseChunk}. Format 5: {@code lane} (int32), {@code seq} (int64), {@code
 * lines, rows} (int32), the label/dense values as int32 count and little-endian int32 values, the
 * dead letters (int32 count; each: line in block as int32, offset as int64, reason and detail as
 * modified UTF-8, raw as int32 length and bytes, truncated flag), then the origin (see {@link
 * BlockSerializer#writeOrigin}), the spec {@code version} (int32), the layout: its dense and sparse
 * columns (int32 each), its list columns (int32 count, each an int32 sparse index), list separator
 * (a UTF-16 char) and generated columns (int32 count, each the int32 dense index it decodes), then
 * the onehot sizes (int32 count, 0 for none, else one int32 per label/dense slot). Format 6: format
 * 5, then the original strings of hash64 columns ({@link NamesIO}; int32 0 for none). Format 7:
 * format 6, then the rows' event times: a boolean, then if true an int32 count ({@code rows}) and
 * that many little-endian int64 milliseconds. Format 6 had no event times, format 5 no names,
 * format 4 no layout (always Criteo's), format 3 no version, format 2 no lane and no origin.
 *
 * <p>Dense chunks wait in the concatenation's keyed state for their index chunks, so this still
 * reads formats 4 to 6: a savepoint taken before layouts, names or event times restores by
 * migration.
 */
public final class DenseChunkSerializer extends BlockSerializer<DenseChunk> {

    private static final long serialVersionUID = 1L;

    public static final DenseChunkSerializer INSTANCE = new DenseChunkSerializer();

    /** The byte format this class writes and reads. */
    static final int FORMAT = 7;

    @Override
    public DenseChunk createInstance() {
        return DenseChunk.builder()
                .seq(0)
                .lines(0)
                .rows(0)
                .labelDense(new int[0])
                .deadLetters(new DeadLetter[0])
                .build();
    }

    @Override
    public DenseChunk copy(DenseChunk from) {
        return from;
    }

    @Override
    public void serialize(DenseChunk r, DataOutputView out) throws IOException {
        writeFormat6(r, out);
        out.writeBoolean(r.eventTimes() != null);
        if (r.eventTimes() != null) {
            ArrayIO.writeLongs(out, r.eventTimes(), r.rows());
        }
    }

    /** Format 6's fields: everything but the event times. */
    private static void writeFormat6(DenseChunk r, DataOutputView out) throws IOException {
        writeFormat5(r, out);
        NamesIO.write(r.names(), out);
    }

    /** Format 5's fields: everything but the names. */
    private static void writeFormat5(DenseChunk r, DataOutputView out) throws IOException {
        writeFormat4(r, out);
        RowLayout layout = r.layout();
        out.writeInt(layout.dense());
        out.writeInt(layout.sparse());
        out.writeInt(layout.listColumns().size());
        for (int c : layout.listColumns()) {
            out.writeInt(c);
        }
        out.writeChar(layout.listSeparator());
        out.writeInt(layout.generated());
        for (int d : layout.generatedFrom()) {
            out.writeInt(d);
        }
        int[] onehot = r.onehot();
        out.writeInt(onehot == null ? 0 : onehot.length);
        if (onehot != null) {
            for (int size : onehot) {
                out.writeInt(size);
            }
        }
    }

    /** Format 4's fields: everything but the layout. */
    private static void writeFormat4(DenseChunk r, DataOutputView out) throws IOException {
        out.writeInt(r.lane());
        out.writeLong(r.seq());
        out.writeInt(r.lines());
        out.writeInt(r.rows());
        ArrayIO.writeInts(out, r.labelDense(), r.rows() * r.layout().labelDenseWidth());
        writeDeadLetters(r.deadLetters(), out);
        writeOrigin(r.origin(), out);
        out.writeInt(r.version());
    }

    @Override
    public DenseChunk deserialize(DataInputView in) throws IOException {
        return read(in, FORMAT);
    }

    private static DenseChunk read(DataInputView in, int format) throws IOException {
        boolean withLayout = format >= 5;
        int lane = in.readInt();
        long seq = in.readLong();
        int lines = in.readInt();
        int rows = in.readInt();
        int[] values = ArrayIO.readInts(in);
        DeadLetter[] letters = readDeadLetters(in);
        Origin origin = readOrigin(in);
        int version = in.readInt();
        RowLayout layout = RowLayout.CRITEO;
        int[] onehot = null;
        if (withLayout) {
            int dense = in.readInt();
            int sparse = in.readInt();
            int lists = in.readInt();
            if (lists < 0 || lists > RowLayout.MAX_SPARSE) {
                throw new IOException("corrupt dense chunk: " + lists + " list columns");
            }
            List<Integer> listColumns = new ArrayList<>(lists);
            for (int i = 0; i < lists; i++) {
                listColumns.add(in.readInt());
            }
            char separator = in.readChar();
            int generated = in.readInt();
            if (generated < 0 || generated > RowLayout.MAX_DENSE) {
                throw new IOException("corrupt dense chunk: " + generated + " generated columns");
            }
            List<Integer> generatedFrom = new ArrayList<>(generated);
            for (int i = 0; i < generated; i++) {
                generatedFrom.add(in.readInt());
            }
            try {
                layout = new RowLayout(dense, sparse, listColumns, separator, generatedFrom);
            } catch (IllegalArgumentException e) {
                throw new IOException("corrupt dense chunk: " + e.getMessage(), e);
            }
            int slots = in.readInt();
            if (slots != 0 && slots != layout.labelDenseWidth()) {
                throw new IOException("corrupt dense chunk: " + slots + " onehot sizes");
            }
            if (slots > 0) {
                onehot = new int[slots];
                for (int j = 0; j < slots; j++) {
                    onehot[j] = in.readInt();
                }
            }
        }
        if (values.length != rows * layout.labelDenseWidth()) {
            throw new IOException(
                    "corrupt dense chunk: "
                            + values.length
                            + " values for "
                            + rows
                            + " rows of "
                            + layout);
        }
        BlockNames names = format >= 6 ? NamesIO.read(in, layout.sparse()) : null;
        long[] times = format >= 7 && in.readBoolean() ? ArrayIO.readLongs(in) : null;
        try {
            return DenseChunk.builder()
                    .lane(lane)
                    .seq(seq)
                    .lines(lines)
                    .rows(rows)
                    .labelDense(values)
                    .deadLetters(letters)
                    .origin(origin)
                    .version(version)
                    .layout(layout)
                    .onehot(onehot)
                    .names(names)
                    .eventTimes(times)
                    .build();
        } catch (IllegalArgumentException e) {
            throw new IOException("corrupt dense chunk: " + e.getMessage(), e);
        }
    }

    /** Format 6, for restoring state written before event times: none. */
    static final class Format6 extends LegacyFormat<DenseChunk> {
        private static final long serialVersionUID = 1L;

        static final Format6 INSTANCE = new Format6();

        private Format6() {
            super("dense chunk", 6, DenseChunkSerializer.INSTANCE);
        }

        @Override
        public void serialize(DenseChunk r, DataOutputView out) throws IOException {
            if (r.eventTimes() != null) {
                throw cannotHold("event times");
            }
            writeFormat6(r, out);
        }

        @Override
        public DenseChunk deserialize(DataInputView in) throws IOException {
            return read(in, 6);
        }
    }

    /** Format 5, for restoring state written before names: none. */
    static final class Format5 extends LegacyFormat<DenseChunk> {
        private static final long serialVersionUID = 1L;

        static final Format5 INSTANCE = new Format5();

        private Format5() {
            super("dense chunk", 5, DenseChunkSerializer.INSTANCE);
        }

        @Override
        public void serialize(DenseChunk r, DataOutputView out) throws IOException {
            if (r.names() != null) {
                throw cannotHold("names");
            }
            writeFormat5(r, out);
        }

        @Override
        public DenseChunk deserialize(DataInputView in) throws IOException {
            return read(in, 5);
        }
    }

    /** Format 4, for restoring state written before layouts: Criteo's layout. */
    static final class Format4 extends LegacyFormat<DenseChunk> {
        private static final long serialVersionUID = 1L;

        static final Format4 INSTANCE = new Format4();

        private Format4() {
            super("dense chunk", 4, DenseChunkSerializer.INSTANCE);
        }

        @Override
        public void serialize(DenseChunk r, DataOutputView out) throws IOException {
            if (!r.layout().equals(RowLayout.CRITEO)) {
                throw new IOException("dense chunk format 4 holds only Criteo's layout");
            }
            writeFormat4(r, out);
        }

        @Override
        public DenseChunk deserialize(DataInputView in) throws IOException {
            return read(in, 4);
        }
    }

    @Override
    public TypeSerializerSnapshot<DenseChunk> snapshotConfiguration() {
        return new Snapshot();
    }

    /** Snapshot of {@link DenseChunkSerializer}; its version is the byte format, 4 to 7. */
    public static final class Snapshot extends FormatSnapshot<DenseChunk> {
        public Snapshot() {
            super(
                    "dense chunk",
                    FORMAT,
                    4,
                    (IntFunction<TypeSerializer<DenseChunk>>)
                            f ->
                                    switch (f) {
                                        case FORMAT -> INSTANCE;
                                        case 6 -> Format6.INSTANCE;
                                        case 5 -> Format5.INSTANCE;
                                        default -> Format4.INSTANCE;
                                    });
        }
    }
}
