package dev.piper.core.decode;

import dev.piper.core.block.ColumnBlock;
import dev.piper.core.block.DeadLetter;
import dev.piper.core.block.DenseChunk;
import dev.piper.core.block.RawChunk;
import dev.piper.core.cost.ThreadCpu;
import dev.piper.pipeline.input.EventTime;
import dev.piper.pipeline.layout.RowLayout;
import dev.piper.pipeline.ops.ColumnProgram;
import java.util.Arrays;
import java.util.List;

/**
 * The rows of a block of named-field events as a decoder reads them, one event at a time: the
 * current event's values ({@link #lineDense}, {@link #lineIds}, {@link #lineLists}, which fields it
 * has in {@link #present}), copied into the block's columns when the event is accepted ({@link
 * #commit}), and at the block's end the columns' operators ({@link ColumnarDecoder}: fills,
 * neg2zero, modulus, then the column passes) and the decoded block ({@link #finish}). Shared by the
 * JSON and Avro decoders, so an event's values become the same row whichever format carried them.
 *
 * <p>Not thread-safe; one per decoder.
 */
final class EventRows {

    private static final long[] NONE_MISSING = new long[0];
    private static final int[] NOT_COUNTED = new int[0];

    private final ColumnProgram program;
    private final RowLayout layout;
    private final ColumnarDecoder columnar;
    private final boolean measure;

    /** Label and dense fields: field numbers below it. */
    final int width;

    private final int sparse;
    private final int fields;

    /** Each event's time, or null when the rows carry none. */
    final EventTime time;

    /**
     * The number of the time's field: one past the layout's fields (its flag in {@link #present}),
     * or -1 without a time.
     */
    final int timeField;

    // The event being read: its values, and which fields it has.
    final int[] lineDense;
    final long[] lineIds;
    final boolean[] present;

    /** Per sparse column: the current event's ids of a list column, or null for a single id. */
    final long[][] lineLists;

    final int[] lineListSize;

    /** The event's time in milliseconds, when {@code present[timeField]}. */
    long lineTime;

    // The block: its columns so far.
    private int capacity;
    private int[] labelDense;
    private long[][] keys;
    private int[][] offsets;
    private long[][] missing;
    private long[] times;
    private int rows;

    /** The original strings of hash64 columns, or null when the program hashes none. */
    final NameCollector names;

    /** Sizes the next block's arrays: rows of the last block. */
    private int expectedRows = 256;

    /**
     * The rows of {@code program}'s layout, each with its event's time if {@code time} is not null.
     */
    EventRows(ColumnProgram program, EventTime time, boolean measure) {
        this.program = program;
        this.time = time;
        this.layout = program.layout();
        this.columnar = new ColumnarDecoder(program);
        this.measure = measure;
        this.width = layout.labelDenseWidth();
        this.sparse = layout.sparse();
        this.fields = layout.fields();
        this.lineDense = new int[width];
        this.lineIds = new long[sparse];
        this.timeField = time == null ? -1 : fields;
        this.present = new boolean[time == null ? fields : fields + 1];
        this.lineLists = new long[sparse][];
        this.lineListSize = new int[sparse];
        this.names = NameCollector.of(program);
        for (int c = 0; c < sparse; c++) {
            if (layout.isList(c)) {
                lineLists[c] = new long[16];
            }
        }
    }

    /**
     * Starts a block: no rows yet, arrays sized for an eighth more than the last block had (blocks
     * of one input vary a little; grown by half, every column would be copied for one more row).
     */
    void startBlock() {
        capacity = Math.max(16, expectedRows + (expectedRows >> 3));
        labelDense = new int[capacity * width];
        keys = new long[sparse][];
        offsets = new int[sparse][];
        for (int c = 0; c < sparse; c++) {
            if (layout.isList(c)) {
                offsets[c] = new int[capacity + 1];
                keys[c] = new long[capacity * 4];
            } else {
                keys[c] = new long[capacity];
            }
        }
        missing = new long[fields][];
        times = time == null ? null : new long[capacity];
        rows = 0;
    }

    /** Rows accepted into the block so far. */
    int rows() {
        return rows;
    }

    /** Forgets the current event's values: nothing present, zeros, no strings noted. */
    void clearLine() {
        if (names != null) {
            names.dropLine();
        }
        Arrays.fill(present, false);
        Arrays.fill(lineDense, 0);
        Arrays.fill(lineIds, 0);
        Arrays.fill(lineListSize, 0);
    }

    /** Sets the current event's time, {@code millis} since the epoch. */
    void setTime(long millis) {
        lineTime = millis;
        present[timeField] = true;
    }

    /** Whether the current event lacks the time the rows carry. */
    boolean lacksTime() {
        return timeField >= 0 && !present[timeField];
    }

    /** Appends {@code id} to the current event's list of sparse column {@code c}. */
    void appendListId(int c, long id) {
        long[] list = lineLists[c];
        if (lineListSize[c] == list.length) {
            lineLists[c] = list = Arrays.copyOf(list, list.length * 2);
        }
        list[lineListSize[c]++] = id;
    }

    /**
     * Whether a decoder may write an event's values straight into the block's columns ({@link
     * #nextRow}, {@link #commitWritten}): the rows carry no time, no list and no original strings,
     * and their fields fit a {@code long}'s bits with one to spare ({@link AvroFlat#NOT_READ}).
     */
    boolean writesStraight() {
        boolean lists = false;
        for (long[] list : lineLists) {
            lists |= list != null;
        }
        return time == null && names == null && !lists && fields < Long.SIZE;
    }

    /**
     * The next row, room made for it: a decoder that {@link #writesStraight} writes every value the
     * event has into {@link #labelDense()} and {@link #keys()} at it, then {@link #commitWritten}
     * accepts it; if it does not, the next event's values go to the same row. A field the event
     * lacks takes its column's fill whatever the row holds there ({@link ColumnarDecoder#apply}).
     */
    int nextRow() {
        if (rows == capacity) {
            grow();
        }
        return rows;
    }

    /** The label and dense values, row by row ({@link #nextRow}). */
    int[] labelDense() {
        return labelDense;
    }

    /** The ids, column by column ({@link #nextRow}). */
    long[][] keys() {
        return keys;
    }

    /**
     * Accepts the row written at {@link #nextRow}: field {@code f} is missing unless bit {@code f}
     * of {@code present} is set (a missing field's value is then its column's fill).
     */
    void commitWritten(long present) {
        int row = rows++;
        for (long absent = ~present & (1L << fields) - 1; absent != 0; absent &= absent - 1) {
            markMissing(Long.numberOfTrailingZeros(absent), row);
        }
    }

    private void markMissing(int f, int row) {
        if (missing[f] == null) {
            missing[f] = new long[ColumnBlock.words(capacity)];
        } else if (missing[f].length < ColumnBlock.words(row + 1)) {
            missing[f] = Arrays.copyOf(missing[f], ColumnBlock.words(capacity));
        }
        missing[f][row >>> 6] |= 1L << row;
    }

    private void grow() {
        capacity += capacity >> 1;
        labelDense = Arrays.copyOf(labelDense, capacity * width);
        for (int c = 0; c < sparse; c++) {
            if (offsets[c] != null) {
                offsets[c] = Arrays.copyOf(offsets[c], capacity + 1);
            } else {
                keys[c] = Arrays.copyOf(keys[c], capacity);
            }
        }
        if (times != null) {
            times = Arrays.copyOf(times, capacity);
        }
    }

    /** Accepts the current event: copies its values into the block's next row. */
    void commit() {
        if (rows == capacity) {
            grow();
        }
        int row = rows++;
        if (times != null) {
            times[row] = lineTime;
        }
        if (names != null) {
            for (int c = 0; c < sparse; c++) {
                if (!present[width + c]) {
                    names.noteFill(c, offsets[c] != null); // the row takes the fill id
                }
            }
            names.commitLine();
        }
        System.arraycopy(lineDense, 0, labelDense, row * width, width);
        for (int f = 0; f < fields; f++) {
            if (!present[f]) {
                markMissing(f, row);
            }
        }
        for (int c = 0; c < sparse; c++) {
            if (offsets[c] == null) {
                keys[c][row] = lineIds[c];
                continue;
            }
            int at = offsets[c][row];
            int n = lineListSize[c];
            if (keys[c].length < at + n) {
                keys[c] = Arrays.copyOf(keys[c], Math.max(at + n, keys[c].length * 3 / 2));
            }
            System.arraycopy(lineLists[c], 0, keys[c], at, n);
            offsets[c][row + 1] = at + n;
        }
    }

    /**
     * Runs the columns' operators over the block's rows; the thread CPU time it took, if measured.
     */
    private long applyOperators() {
        expectedRows = Math.max(16, rows);
        long passStart = measure ? ThreadCpu.now() : 0;
        for (int f = 0; f < fields; f++) {
            long[] m = missing[f] == null ? NONE_MISSING : missing[f];
            if (m.length != 0 && m.length < ColumnBlock.words(rows)) {
                m = Arrays.copyOf(m, ColumnBlock.words(rows)); // set before the block grew
            }
            int c = f - width;
            if (c >= 0 && offsets[c] != null) {
                offsets[c] = columnar.applyList(c, keys, offsets[c], m, rows);
            } else {
                columnar.apply(f, labelDense, keys, m, rows);
            }
        }
        columnar.runPasses(labelDense, keys, offsets, rows);
        return measure ? ThreadCpu.now() - passStart : 0;
    }

    /**
     * Ends the block: runs the columns' operators over its rows and returns it.
     *
     * @param lines events (rows and dead letters) the block held
     * @param acceptedBytes input bytes of the accepted events
     */
    CriteoDecoder.Decoded finish(
            RawChunk chunk, int lines, List<DeadLetter> dead, int acceptedBytes) {
        long passNanos = applyOperators();
        DenseChunk denseChunk =
                DenseChunk.builder()
                        .lane(chunk.lane())
                        .seq(chunk.seq())
                        .lines(lines)
                        .rows(rows)
                        .labelDense(labelDense)
                        .deadLetters(dead.toArray(new DeadLetter[0]))
                        .origin(chunk.origin())
                        .version(program.version())
                        .layout(layout)
                        .onehot(program.onehotSizes())
                        .names(names == null ? null : names.finish())
                        .eventTimes(times == null ? null : Arrays.copyOf(times, rows))
                        .build();
        CriteoDecoder.Decoded decoded =
                new CriteoDecoder.Decoded(
                        denseChunk,
                        CriteoDecoder.keyChunks(
                                program, chunk.lane(), chunk.seq(), keys, offsets, rows),
                        NOT_COUNTED,
                        acceptedBytes,
                        passNanos);
        release();
        return decoded;
    }

    /**
     * Ends the block of a columnar input's rows: runs the columns' operators over them and returns
     * the block as a columnar reader gives it ({@link ColumnarDecoder#decoded} makes its parts).
     *
     * @param firstRow index in the file of the block's first row
     * @param lines rows of the file in the block (rows and dead letters)
     */
    ColumnBlock finishColumns(int lane, long seq, long firstRow, int lines, List<DeadLetter> dead) {
        applyOperators();
        int[][] keyOffsets = new int[sparse][]; // a list column's: rows + 1 of them, no more
        for (int c = 0; c < sparse; c++) {
            keyOffsets[c] = offsets[c] == null ? null : Arrays.copyOf(offsets[c], rows + 1);
        }
        ColumnBlock block =
                new ColumnBlock(
                        lane,
                        seq,
                        firstRow,
                        lines,
                        rows,
                        labelDense,
                        keys,
                        dead.toArray(new DeadLetter[0]),
                        keyOffsets,
                        names == null ? null : names.finish(),
                        times == null ? null : Arrays.copyOf(times, rows));
        release();
        return block;
    }

    /** Lets go of the block's arrays, which the decoded block now holds. */
    private void release() {
        labelDense = null;
        keys = null;
        offsets = null;
        missing = null;
        times = null;
    }
}
