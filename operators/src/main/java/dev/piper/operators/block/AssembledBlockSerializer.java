package dev.piper.operators.block;

import dev.piper.core.block.AssembledBlock;
import dev.piper.core.block.Assignments;
import dev.piper.core.block.DeadLetter;
import dev.piper.core.block.Origin;
import dev.piper.pipeline.hotline.HotSet;
import dev.piper.pipeline.hotline.Split;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntFunction;
import org.apache.flink.api.common.typeutils.TypeSerializer;
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
 * values), then whether a Hotline split follows (int8 0 or 1) and the split: its first row (int64),
 * the popular flags (int32 length, bytes), the popular rows (int32), per sparse column (int32
 * count) its working parameters (int32 count, little-endian int32 values), and the windows starting
 * in the block (int32 count), each its number (int32), first row (int64), capture (float64) and hot
 * set (int32 columns, per column int32 count and little-endian int32 indices), then the evicting
 * vocabularies' assignments: int32 0 when no column evicts, else the number of categorical columns
 * and per column its {@link Assignments} (a byte 0 for a column that does not evict), then the
 * original strings of the new keys ({@link NamesIO}; int32 0 for none), then the rows' event times
 * (a boolean, then if true an int32 count, {@code rows}, and that many little-endian int64
 * milliseconds), then where the split's windows start in event time (int32 0 for windows of rows
 * and blocks without a split, else the number of windows and that many int64 milliseconds). Format
 * 9 had no window starts, format 8 no event times, format 7 no names, format 6 no assignments,
 * format 5 no split (this build reads all five), format 4 no lists, format 3 neither version nor
 * epochs, format 2 no lane and no origin.
 */
public final class AssembledBlockSerializer extends BlockSerializer<AssembledBlock> {

    private static final long serialVersionUID = 1L;

    public static final AssembledBlockSerializer INSTANCE = new AssembledBlockSerializer();

    /** The byte format this class writes and reads. */
    static final int FORMAT = 10;

    @Override
    public AssembledBlock createInstance() {
        return AssembledBlock.builder().build();
    }

    @Override
    public AssembledBlock copy(AssembledBlock from) {
        return from;
    }

    @Override
    public void serialize(AssembledBlock r, DataOutputView out) throws IOException {
        writeFormat9(r, out);
        List<Split.Window> windows = r.split() == null ? List.of() : r.split().windows();
        boolean timed = windows.stream().anyMatch(Split.Window::inEventTime);
        out.writeInt(timed ? windows.size() : 0);
        if (timed) {
            for (Split.Window w : windows) {
                out.writeLong(w.startMs());
            }
        }
    }

    /** Format 9's fields: everything but the windows' starts in event time. */
    private static void writeFormat9(AssembledBlock r, DataOutputView out) throws IOException {
        writeFormat8(r, out);
        out.writeBoolean(r.eventTimes() != null);
        if (r.eventTimes() != null) {
            ArrayIO.writeLongs(out, r.eventTimes(), r.rows());
        }
    }

    /** Format 8's fields: everything but the event times. */
    private static void writeFormat8(AssembledBlock r, DataOutputView out) throws IOException {
        writeFormat7(r, out);
        NamesIO.writeNewNames(r.newNames(), out);
    }

    /** Format 7's fields: everything but the names. */
    private static void writeFormat7(AssembledBlock r, DataOutputView out) throws IOException {
        writeFormat6(r, out);
        Assignments[] a = r.assignments();
        if (a == null) {
            out.writeInt(0);
            return;
        }
        out.writeInt(a.length);
        for (Assignments x : a) {
            AssignmentsIO.write(x, out);
        }
    }

    /** Format 6's fields: everything but the assignments. */
    private static void writeFormat6(AssembledBlock r, DataOutputView out) throws IOException {
        writeFormat5(r, out);
        Split split = r.split();
        out.writeByte(split == null ? 0 : 1);
        if (split == null) {
            return;
        }
        out.writeLong(split.firstRow());
        ArrayIO.writeBytes(out, split.popular(), split.popular().length);
        out.writeInt(split.popularRows());
        out.writeInt(split.working().length);
        for (int[] w : split.working()) {
            ArrayIO.writeInts(out, w, w.length);
        }
        out.writeInt(split.windows().size());
        for (Split.Window w : split.windows()) {
            out.writeInt(w.number());
            out.writeLong(w.firstRow());
            out.writeDouble(w.capture());
            out.writeInt(w.hot().columns());
            for (int c = 0; c < w.hot().columns(); c++) {
                ArrayIO.writeInts(out, w.hot().indices(c), w.hot().indices(c).length);
            }
        }
    }

    /** Format 5's fields: everything but the split. */
    private static void writeFormat5(AssembledBlock r, DataOutputView out) throws IOException {
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
        AssembledBlock b = readFormat9(in);
        int n = count(in, "window starts");
        if (n == 0) {
            return b;
        }
        List<Split.Window> windows = b.split() == null ? List.of() : b.split().windows();
        if (n != windows.size()) {
            throw new IOException(
                    "corrupt block: " + n + " window starts for " + windows.size() + " windows");
        }
        List<Split.Window> timed = new ArrayList<>(n);
        for (Split.Window w : windows) {
            timed.add(
                    new Split.Window(
                            w.number(), w.firstRow(), in.readLong(), w.hot(), w.capture()));
        }
        Split s = b.split();
        return b.withSplit(
                new Split(s.firstRow(), s.popular(), s.popularRows(), s.working(), timed));
    }

    private static AssembledBlock readFormat9(DataInputView in) throws IOException {
        AssembledBlock b = readFormat8(in);
        if (!in.readBoolean()) {
            return b;
        }
        long[] times = ArrayIO.readLongs(in);
        if (times.length != b.rows()) {
            throw new IOException(
                    "corrupt block: " + times.length + " event times for " + b.rows() + " rows");
        }
        return b.withEventTimes(times);
    }

    private static AssembledBlock readFormat8(DataInputView in) throws IOException {
        AssembledBlock b = readFormat7(in);
        String[][] names = NamesIO.readNewNames(in, b.newKeys().length);
        return names == null ? b : b.withNewNames(names);
    }

    private static AssembledBlock readFormat7(DataInputView in) throws IOException {
        AssembledBlock b = readFormat6(in);
        int n = count(in, "assignment columns");
        if (n == 0) {
            return b;
        }
        if (n != b.newKeys().length) {
            throw new IOException(
                    "corrupt block: assignments of " + n + " columns for " + b.newKeys().length);
        }
        Assignments[] a = new Assignments[n];
        for (int c = 0; c < n; c++) {
            a[c] = AssignmentsIO.read(in);
        }
        return b.withAssignments(a);
    }

    private static AssembledBlock readFormat6(DataInputView in) throws IOException {
        AssembledBlock b = readFormat5(in);
        int flag = in.readByte();
        if (flag == 0) {
            return b;
        }
        if (flag != 1) {
            throw new IOException("corrupt block: split flag " + flag);
        }
        long firstRow = in.readLong();
        byte[] popular = ArrayIO.readBytes(in);
        int popularRows = in.readInt();
        int columns = count(in, "split columns");
        int[][] working = new int[columns][];
        for (int c = 0; c < columns; c++) {
            working[c] = ArrayIO.readInts(in);
        }
        int n = count(in, "windows");
        List<Split.Window> windows = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            int number = in.readInt();
            long first = in.readLong();
            double capture = in.readDouble();
            int[][] hot = new int[count(in, "hot columns")][];
            for (int c = 0; c < hot.length; c++) {
                hot[c] = ArrayIO.readInts(in);
            }
            try {
                windows.add(
                        new Split.Window(
                                number, first, Split.Window.NO_TIME, new HotSet(hot), capture));
            } catch (IllegalArgumentException e) {
                throw new IOException("corrupt block: " + e.getMessage(), e);
            }
        }
        try {
            return b.withSplit(new Split(firstRow, popular, popularRows, working, windows));
        } catch (IllegalArgumentException e) {
            throw new IOException("corrupt block: " + e.getMessage(), e);
        }
    }

    private static int count(DataInputView in, String what) throws IOException {
        int n = in.readInt();
        if (n < 0) {
            throw new IOException("corrupt block: " + n + " " + what);
        }
        return n;
    }

    private static AssembledBlock readFormat5(DataInputView in) throws IOException {
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
        return AssembledBlock.builder()
                .lane(lane)
                .seq(seq)
                .lines(lines)
                .rows(rows)
                .rowBytes(rowBytes)
                .deadLetters(letters)
                .newKeys(firstNew, newKeys)
                .origin(origin)
                .version(version)
                .epochs(epochs)
                .lists(listOffsets, listIndices)
                .build();
    }

    @Override
    public TypeSerializerSnapshot<AssembledBlock> snapshotConfiguration() {
        return new Snapshot();
    }

    /** Format 5, for restoring blocks in flight written before Hotline: no split. */
    static final class Format5 extends LegacyFormat<AssembledBlock> {
        private static final long serialVersionUID = 1L;

        static final Format5 INSTANCE = new Format5();

        private Format5() {
            super("assembled block", 5, AssembledBlockSerializer.INSTANCE);
        }

        @Override
        public void serialize(AssembledBlock r, DataOutputView out) throws IOException {
            if (r.split() != null) {
                throw cannotHold("Hotline split");
            }
            if (r.assignments() != null) {
                throw cannotHold("evicting vocabularies");
            }
            if (r.newNames() != null) {
                throw cannotHold("names");
            }
            if (r.eventTimes() != null) {
                throw cannotHold("event times");
            }
            writeFormat5(r, out);
        }

        @Override
        public AssembledBlock deserialize(DataInputView in) throws IOException {
            return readFormat5(in);
        }
    }

    /** Format 6, for restoring blocks in flight written before eviction: no assignments. */
    static final class Format6 extends LegacyFormat<AssembledBlock> {
        private static final long serialVersionUID = 1L;

        static final Format6 INSTANCE = new Format6();

        private Format6() {
            super("assembled block", 6, AssembledBlockSerializer.INSTANCE);
        }

        @Override
        public void serialize(AssembledBlock r, DataOutputView out) throws IOException {
            if (r.assignments() != null) {
                throw cannotHold("evicting vocabularies");
            }
            if (r.newNames() != null) {
                throw cannotHold("names");
            }
            if (r.eventTimes() != null) {
                throw cannotHold("event times");
            }
            writeFormat6(r, out);
        }

        @Override
        public AssembledBlock deserialize(DataInputView in) throws IOException {
            return readFormat6(in);
        }
    }

    /** Format 7, for restoring blocks in flight written before names: none. */
    static final class Format7 extends LegacyFormat<AssembledBlock> {
        private static final long serialVersionUID = 1L;

        static final Format7 INSTANCE = new Format7();

        private Format7() {
            super("assembled block", 7, AssembledBlockSerializer.INSTANCE);
        }

        @Override
        public void serialize(AssembledBlock r, DataOutputView out) throws IOException {
            if (r.newNames() != null) {
                throw cannotHold("names");
            }
            if (r.eventTimes() != null) {
                throw cannotHold("event times");
            }
            writeFormat7(r, out);
        }

        @Override
        public AssembledBlock deserialize(DataInputView in) throws IOException {
            return readFormat7(in);
        }
    }

    /** Format 8, for restoring blocks in flight written before event times: none. */
    static final class Format8 extends LegacyFormat<AssembledBlock> {
        private static final long serialVersionUID = 1L;

        static final Format8 INSTANCE = new Format8();

        private Format8() {
            super("assembled block", 8, AssembledBlockSerializer.INSTANCE);
        }

        @Override
        public void serialize(AssembledBlock r, DataOutputView out) throws IOException {
            if (r.eventTimes() != null) {
                throw cannotHold("event times");
            }
            writeFormat8(r, out);
        }

        @Override
        public AssembledBlock deserialize(DataInputView in) throws IOException {
            return readFormat8(in);
        }
    }

    /** Format 9, for restoring blocks in flight written before windows in event time: none. */
    static final class Format9 extends LegacyFormat<AssembledBlock> {
        private static final long serialVersionUID = 1L;

        static final Format9 INSTANCE = new Format9();

        private Format9() {
            super("assembled block", 9, AssembledBlockSerializer.INSTANCE);
        }

        @Override
        public void serialize(AssembledBlock r, DataOutputView out) throws IOException {
            if (r.split() != null
                    && r.split().windows().stream().anyMatch(Split.Window::inEventTime)) {
                throw cannotHold("windows in event time");
            }
            writeFormat9(r, out);
        }

        @Override
        public AssembledBlock deserialize(DataInputView in) throws IOException {
            return readFormat9(in);
        }
    }

    /** Snapshot of {@link AssembledBlockSerializer}; its version is the byte format, 5 to 10. */
    public static final class Snapshot extends FormatSnapshot<AssembledBlock> {
        public Snapshot() {
            super(
                    "assembled block",
                    FORMAT,
                    5,
                    (IntFunction<TypeSerializer<AssembledBlock>>)
                            f ->
                                    switch (f) {
                                        case FORMAT -> INSTANCE;
                                        case 9 -> Format9.INSTANCE;
                                        case 8 -> Format8.INSTANCE;
                                        case 7 -> Format7.INSTANCE;
                                        case 6 -> Format6.INSTANCE;
                                        default -> Format5.INSTANCE;
                                    });
        }
    }
}
