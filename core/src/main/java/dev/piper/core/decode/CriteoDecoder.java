package dev.piper.core.decode;

import dev.piper.core.block.ColumnBlock;
import dev.piper.core.block.DeadLetter;
import dev.piper.core.block.DenseChunk;
import dev.piper.core.block.KeyChunk;
import dev.piper.core.block.RawChunk;
import dev.piper.core.cost.CostSample;
import dev.piper.core.cost.ThreadCpu;
import dev.piper.pipeline.layout.HexIds;
import dev.piper.pipeline.layout.Reason;
import dev.piper.pipeline.layout.RowLayout;
import dev.piper.pipeline.ops.ColumnPasses;
import dev.piper.pipeline.ops.ColumnProgram;
import dev.piper.pipeline.ops.DecodeOptions;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Decodes a chunk of Criteo text lines into columnar arrays and applies the stateless column
 * operators of its {@link ColumnProgram}: while parsing, the fill (an empty field to 0 or to
 * fill_null's value), a leading neg2zero on dense values, hex2int and a leading modulus on
 * categorical ids (DLRM's {@code data_utils.py} semantics, see {@code docs/SEMANTICS.md}); the
 * other operators afterwards, as the block's {@link ColumnPasses}.
 *
 * <p>The parser works on bytes in place: no per-line or per-value objects on the accepted path.
 * Only a rejected line allocates (its dead letter).
 *
 * <p>Not thread-safe; one instance per operator subtask.
 */
public final class CriteoDecoder implements BlockDecoder {

    /** Signals a field that is not an int32; outside the int range so it cannot collide. */
    private static final long NOT_INT32 = Long.MIN_VALUE;

    private final DecodeOptions options;
    private final ColumnProgram program;

    /** The program's layout: its dense and sparse columns, all its fields, label + dense. */
    private final RowLayout layout;

    private final int dense;
    private final int sparse;
    private final int fieldCount;
    private final int width;

    /** Fields of an input line: the label, the dense and the sparse columns. */
    private final int inputFields;

    /** The program's onehot sizes per label/dense slot, or null ({@link DenseChunk#onehot()}). */
    private final int[] onehot;

    /**
     * Per dense field (1..dense), the generated fields that decode it again, or null when there are
     * none at all ({@link RowLayout#generatedFrom()}).
     */
    private final int[][] generatedFields;

    /** Whether a sparse column holds lists, and the byte between a list's ids. */
    private final boolean hasLists;

    private final boolean[] isList;
    private final byte listSeparator;

    /** Whether a list column's empty field is a list of its fill_null value (else empty). */
    private final boolean[] fillsList;

    /**
     * The current block's lists: per list column its offsets ({@code rows + 1}, the next row's
     * start last) and its ids so far; null entries for the other columns.
     */
    private int[][] listOffsets;

    private int[] listSize;

    /** The program's operators fused into the parser, as plain arrays for the inner loops. */
    private final long[] modulus;

    private final boolean[] neg2zero;

    /** Each field's value when empty (fill_missing's 0 or fill_null's value). */
    private final long[] fill;

    /** The program's other operators, run over each decoded block. */
    private final ColumnPasses passes;

    /** Whether {@link #decode} reads the thread's CPU clock around the column passes. */
    private final boolean measure;

    /** Whether {@link #decode} records which values were missing ({@link Decoded#missing()}). */
    private final boolean trackMissing;

    /**
     * Tracking: the current block's missing sets, one per field over its rows (as {@link
     * ColumnarDecoder#apply} takes them); null otherwise.
     */
    private long[][] missing;

    /**
     * Whether the current {@link #decode(RawChunk, boolean)} counts each field's bytes: it costs
     * about an eighth of the single-thread decoding rate, so the cost report counts only a sample
     * of the blocks (docs/HARDWARE_MODEL.md).
     */
    private boolean counting;

    /**
     * Measuring: encoded bytes of each field of the line being parsed, delimiter included; added to
     * the block's totals only when the line is accepted. The fast path fills only the label and
     * dense fields here: a categorical field almost always takes {@link #TYPICAL_ID_BYTES}, so it
     * only notes the exceptions ({@link #exceptionColumns}).
     */
    private final int[] lineBytes;

    /** Bytes of a categorical field of 8 hex digits and its tab. */
    private static final int TYPICAL_ID_BYTES = 9;

    /** The fast path's categorical fields of the current line not of {@link #TYPICAL_ID_BYTES}. */
    private final int[] exceptionColumns;

    private final int[] exceptionBytes;
    private int exceptions;

    /**
     * Bytes per line the next block's arrays are sized for: 7/8 of the mean of the last block's
     * lines, so that they rarely grow and are not many times larger than the block's rows (a wide
     * layout's lines are kilobytes; Criteo's 240 to 260 bytes).
     */
    private int expectedLineBytes;

    /** Per list column, the ids per row the next block's keys are sized for (the last block's). */
    private final int[] expectedIdsPerRow;

    /** Set by {@link #decodeLine} when it rejects a line. */
    private Reason failReason;

    private String failDetail;

    public CriteoDecoder(DecodeOptions options) {
        this(options, false);
    }

    /**
     * @param measure whether to time the column passes ({@link Decoded#passNanos()})
     */
    public CriteoDecoder(DecodeOptions options, boolean measure) {
        this(options, measure, true);
    }

    /**
     * @param fuse whether the column passes run fused (RAP's horizontal fusion, the default) or one
     *     per column and operator ({@link ColumnPasses}; for the benchmark)
     */
    public CriteoDecoder(DecodeOptions options, boolean measure, boolean fuse) {
        this(options, measure, fuse, false);
    }

    private CriteoDecoder(
            DecodeOptions options, boolean measure, boolean fuse, boolean trackMissing) {
        this.options = options;
        this.measure = measure;
        this.trackMissing = trackMissing;
        this.program = options.program();
        this.layout = program.layout();
        this.dense = layout.dense();
        this.sparse = layout.sparse();
        this.fieldCount = layout.fields();
        this.width = layout.labelDenseWidth();
        this.inputFields = layout.inputFields();
        this.onehot = program.onehotSizes();
        if (layout.generated() > 0) {
            generatedFields = new int[dense + 1][0];
            for (int g = 0; g < layout.generated(); g++) {
                int source = layout.generatedFrom().get(g) + 1;
                int[] t = generatedFields[source];
                t = Arrays.copyOf(t, t.length + 1);
                t[t.length - 1] = dense + 1 + g;
                generatedFields[source] = t;
            }
        } else {
            generatedFields = null;
        }
        this.modulus = new long[sparse];
        this.neg2zero = new boolean[width];
        this.fill = new long[fieldCount];
        this.lineBytes = new int[fieldCount];
        this.exceptionColumns = new int[sparse];
        this.exceptionBytes = new int[sparse];
        this.hasLists = layout.hasLists();
        this.isList = new boolean[sparse];
        this.fillsList = new boolean[sparse];
        this.listSeparator = (byte) layout.listSeparator();
        for (int c = 0; c < sparse; c++) {
            isList[c] = layout.isList(c);
            fillsList[c] = program.fillsEmptyList(c);
        }
        for (int c = 0; c < sparse; c++) {
            modulus[c] = program.modulus(c);
        }
        for (int f = 0; f < width; f++) {
            neg2zero[f] = program.neg2zero(f);
        }
        for (int f = 0; f < fieldCount; f++) {
            fill[f] = program.fill(f);
        }
        passes = ColumnPasses.of(program, fuse);
        // before the first block: a few bytes per field, and never less than Criteo's assumption
        this.expectedLineBytes = Math.max(ASSUMED_LINE_BYTES, 4 * inputFields);
        this.expectedIdsPerRow = new int[sparse];
        Arrays.fill(expectedIdsPerRow, 1);
    }

    /**
     * A decoder that also records which values of each accepted line were missing (an empty field),
     * for a conversion that keeps them as nulls ({@code bin/piper convert}). Run it with a program
     * that changes no value ({@link ColumnProgram#raw()}) to get the values as the lines hold them.
     */
    public static CriteoDecoder tracking(DecodeOptions options) {
        return new CriteoDecoder(options, false, true, true);
    }

    /**
     * The result of decoding one chunk.
     *
     * @param fieldBytes if the fields were counted, the encoded bytes of each field (label, I1..,
     *     C1..) in the accepted lines, delimiters included: what each column cost to decode;
     *     otherwise empty
     * @param acceptedBytes the bytes of the accepted lines, line breaks included
     * @param passNanos if the decoder measures, the thread CPU time of the column passes (the
     *     operators not fused into the parser, {@link ColumnPasses}); otherwise 0
     * @param missing if the decoder {@link #tracking tracks} them, the missing values of the
     *     block's rows, a set per field as {@link ColumnarDecoder#apply(int, int[], long[][],
     *     long[], int)} takes them; otherwise empty
     */
    public record Decoded(
            DenseChunk dense,
            KeyChunk[] keys,
            int[] fieldBytes,
            int acceptedBytes,
            long passNanos,
            long[][] missing) {

        /**
         * A column whose vocabulary's time to live is event time gets its key chunk the rows' event
         * times, which the dense chunk carries.
         */
        public Decoded {
            long[] times = dense.eventTimes();
            KeyChunk[] given = keys;
            for (int c = 0; times != null && c < given.length; c++) {
                if (given[c].times() == null && given[c].policy().ttlInEventTime()) {
                    if (keys == given) {
                        keys = given.clone(); // the caller's array stays as it was
                    }
                    keys[c] = given[c].withTimes(times);
                }
            }
        }

        /**
         * The cost sample of this block, decoded by the calling thread between the CPU clock
         * readings {@code start} and {@code end}, the log pass's time apart.
         */
        public CostSample costSample(int pipeline, long start, long end, long threadNanos) {
            return CostSample.decode(
                            pipeline,
                            dense.lines(),
                            dense.rows(),
                            fieldBytes,
                            acceptedBytes,
                            end - start - passNanos,
                            passNanos,
                            threadNanos)
                    .withVersion(dense.version());
        }

        /** A result without missing sets. */
        public Decoded(
                DenseChunk dense,
                KeyChunk[] keys,
                int[] fieldBytes,
                int acceptedBytes,
                long passNanos) {
            this(dense, keys, fieldBytes, acceptedBytes, passNanos, NOT_TRACKED);
        }
    }

    private static final long[][] NOT_TRACKED = new long[0][];

    /**
     * Bytes per row assumed at least when sizing a block's arrays: Criteo lines average 240
     * (Kaggle) to 260 bytes; a block of shorter lines grows its arrays by half whenever they fill.
     * Sizing for the shortest possible line instead would make every block zero arrays many times
     * larger than its rows.
     */
    static final int ASSUMED_LINE_BYTES = 200;

    private static final int[] NOT_COUNTED = new int[0];

    /** The least bytes per line a block's arrays are sized for: a line of a few empty fields. */
    private static final int MIN_EXPECTED_LINE_BYTES = 16;

    /**
     * Lines longer than this on average size the next block as if they were this long: a block of a
     * few huge (rejected) lines must not leave the next block of normal ones growing its arrays
     * many times.
     */
    private static final int ASSUMED_LINE_BYTES_MAX = 1 << 16;

    /** The most ids a list column's keys are sized for up front; beyond, they grow. */
    private static final int MAX_IDS = 1 << 24;

    /** Decodes every line of {@code chunk}; each becomes a row or a dead letter. */
    public Decoded decode(RawChunk chunk) {
        return decode(chunk, false);
    }

    /**
     * Decodes every line of {@code chunk}; each becomes a row or a dead letter. With {@code
     * countFields}, also counts each field's bytes ({@link Decoded#fieldBytes()}).
     */
    public Decoded decode(RawChunk chunk, boolean countFields) {
        counting = countFields;
        byte[] b = chunk.data();
        // A cut-short last line is rejected whole; the loop below only sees the lines before it.
        int end = chunk.lastLineCut() ? Swar.lastLineStart(b, chunk.length()) : chunk.length();
        int capacity = end / Math.min(expectedLineBytes, ASSUMED_LINE_BYTES_MAX) + 16;
        int[] labelDense = new int[capacity * width];
        long[][] keys = new long[sparse][];
        missing = trackMissing ? new long[fieldCount][ColumnBlock.words(capacity)] : null;
        int[][] offsets = new int[sparse][];
        if (hasLists) {
            listSize = new int[sparse];
        }
        for (int c = 0; c < sparse; c++) {
            if (isList[c]) {
                offsets[c] = new int[capacity + 1];
                keys[c] = new long[(int) Math.min(MAX_IDS, (long) capacity * expectedIdsPerRow[c])];
            } else {
                keys[c] = new long[capacity];
            }
        }
        listOffsets = offsets;
        List<DeadLetter> dead = null;
        int[] fieldBytes = countFields ? new int[fieldCount] : NOT_COUNTED;
        int acceptedBytes = 0;

        int rows = 0;
        int fastRows = 0;
        int lines = 0;
        int start = 0;
        while (start < end) {
            if (rows == capacity) {
                capacity = capacity + (capacity >> 1);
                labelDense = Arrays.copyOf(labelDense, capacity * width);
                for (int c = 0; c < sparse; c++) {
                    if (isList[c]) {
                        offsets[c] = Arrays.copyOf(offsets[c], capacity + 1);
                    } else {
                        keys[c] = Arrays.copyOf(keys[c], capacity);
                    }
                }
                if (missing != null) {
                    for (int f = 0; f < fieldCount; f++) {
                        missing[f] = Arrays.copyOf(missing[f], ColumnBlock.words(capacity));
                    }
                }
            }
            int next = decodeWellFormed(b, start, end, labelDense, keys, rows);
            if (hasLists) {
                endListRow(rows, next >= 0); // a line the fast path gave up on drops its ids
            }
            if (next >= 0) {
                if (countFields) {
                    addFastLineBytes(fieldBytes);
                }
                acceptedBytes += next - start;
                fastRows++;
                rows++;
                lines++;
                start = next;
                continue;
            }
            int nl = indexOf(b, (byte) '\n', start, end);
            int lineEnd = nl < 0 ? end : nl;
            int contentEnd = lineEnd > start && b[lineEnd - 1] == '\r' ? lineEnd - 1 : lineEnd;
            boolean accepted = decodeLine(b, start, contentEnd, labelDense, keys, rows);
            if (hasLists) {
                endListRow(rows, accepted);
            }
            if (accepted) {
                if (countFields) {
                    addLineBytes(fieldBytes);
                }
                acceptedBytes += (nl < 0 ? end : nl + 1) - start;
                rows++;
            } else {
                if (dead == null) {
                    dead = new ArrayList<>();
                }
                dead.add(deadLetter(chunk, lines, b, start, contentEnd, failReason, failDetail));
            }
            lines++;
            start = nl < 0 ? end : nl + 1;
        }
        if (lines > 0 && start > 0) { // size the next block's arrays by this one's lines
            int mean = (int) Math.min(Integer.MAX_VALUE, (long) start / lines);
            // a row's line has a byte per field at least (its delimiters)
            expectedLineBytes =
                    Math.max(Math.max(MIN_EXPECTED_LINE_BYTES, inputFields), mean - (mean >> 3));
        }
        if (hasLists && rows > 0) {
            for (int c = 0; c < sparse; c++) {
                if (isList[c]) {
                    expectedIdsPerRow[c] = Math.max(1, (listSize[c] + rows - 1) / rows);
                }
            }
        }
        if (chunk.lastLineCut()) {
            if (dead == null) {
                dead = new ArrayList<>(1);
            }
            dead.add(cutLine(chunk, lines, end));
            lines++;
        }
        long passNanos = 0;
        if (countFields) {
            for (int c = 0; c < sparse; c++) {
                fieldBytes[width + c] += fastRows * TYPICAL_ID_BYTES;
            }
        }
        if (!passes.isEmpty()) {
            if (measure) {
                long before = ThreadCpu.now();
                passes.run(labelDense, keys, offsets, rows);
                passNanos = ThreadCpu.now() - before;
            } else {
                passes.run(labelDense, keys, offsets, rows);
            }
        }
        DeadLetter[] letters = dead == null ? new DeadLetter[0] : dead.toArray(new DeadLetter[0]);
        DenseChunk denseChunk =
                DenseChunk.builder()
                        .lane(chunk.lane())
                        .seq(chunk.seq())
                        .lines(lines)
                        .rows(rows)
                        .labelDense(labelDense)
                        .deadLetters(letters)
                        .origin(chunk.origin())
                        .version(program.version())
                        .layout(layout)
                        .onehot(onehot)
                        .build();
        KeyChunk[] out = keyChunks(program, chunk.lane(), chunk.seq(), keys, offsets, rows);
        listOffsets = null;
        long[][] missingSets = NOT_TRACKED;
        if (missing != null) {
            missingSets = missing;
            missing = null;
        }
        return new Decoded(denseChunk, out, fieldBytes, acceptedBytes, passNanos, missingSets);
    }

    /**
     * A block's key chunks, one per categorical column, stamped with the program's epochs; a list
     * column's with its offsets ({@code offsets[c]}, null for the others).
     */
    static KeyChunk[] keyChunks(
            ColumnProgram program, int lane, long seq, long[][] keys, int[][] offsets, int rows) {
        KeyChunk[] out = new KeyChunk[keys.length];
        for (int c = 0; c < keys.length; c++) {
            int[] o = offsets[c] == null ? null : Arrays.copyOf(offsets[c], rows + 1);
            out[c] =
                    KeyChunk.builder()
                            .lane(lane)
                            .column(c)
                            .seq(seq)
                            .keys(keys[c])
                            .size(o == null ? rows : o[rows])
                            .epoch(program.epoch(c))
                            .policy(program.vocabPolicy(c))
                            .offsets(o)
                            .build();
        }
        return out;
    }

    /** Tracking: records whether field {@code f} of row {@code row} is missing. */
    private void markMissing(int f, int row, boolean isMissing) {
        long bit = 1L << row;
        if (isMissing) {
            missing[f][row >>> 6] |= bit;
        } else {
            missing[f][row >>> 6] &= ~bit;
        }
    }

    /** Adds a line of the full rules: every field's bytes are in {@link #lineBytes}. */
    private void addLineBytes(int[] fieldBytes) {
        for (int f = 0; f < fieldCount; f++) {
            fieldBytes[f] += lineBytes[f];
        }
    }

    /**
     * Adds a line of the fast path: the label and dense fields from {@link #lineBytes}, the
     * categorical fields' difference from {@link #TYPICAL_ID_BYTES} (which {@link #decode} adds per
     * fast row).
     */
    private void addFastLineBytes(int[] fieldBytes) {
        for (int f = 0; f <= dense; f++) {
            fieldBytes[f] += lineBytes[f];
        }
        for (int i = 0; i < exceptions; i++) {
            fieldBytes[width + exceptionColumns[i]] += exceptionBytes[i] - TYPICAL_ID_BYTES;
        }
    }

    /** The dead letter of a cut-short last line starting at {@code s}. */
    private DeadLetter cutLine(RawChunk chunk, int lineIndex, int s) {
        return cutLine(chunk, lineIndex, s, options);
    }

    /**
     * The dead letter of {@code chunk}'s cut-short last line, which starts at {@code s}: too long
     * (every decoder's).
     */
    static DeadLetter cutLine(RawChunk chunk, int lineIndex, int s, DecodeOptions options) {
        int kept = Math.min(chunk.length() - s, options.maxRawBytes());
        return new DeadLetter(
                lineIndex,
                chunk.firstOffset() + s,
                Reason.LINE_TOO_LONG.code(),
                "line has "
                        + chunk.lastLineLength()
                        + " bytes; the limit is "
                        + options.maxLineBytes(),
                Arrays.copyOfRange(chunk.data(), s, s + kept),
                chunk.lastLineLength() > kept);
    }

    /**
     * The fast path: parses the line starting at {@code s} in a single pass, assuming it is well
     * formed: the layout's fields, ASCII digits, a plain sign at most, at most 10 decimal or 16 hex
     * digits (a list column: ids of at most 16 hex digits between separators), and a line break (or
     * the chunk's end) right after the last field. On success it fills row {@code row} (and appends
     * the row's list ids) and returns the position after the line's break. At the first surprise it
     * returns -1 without side effects that matter (the row's slots are overwritten later), and
     * {@link #decodeLine} classifies the line with the full rules, so reasons and their precedence
     * are the same whichever path a line takes.
     */
    private int decodeWellFormed(
            byte[] b, int s, int end, int[] labelDense, long[][] keys, int row) {
        return fastPath(b, s, s, end, labelDense, keys, row, WHOLE_LINE);
    }

    /**
     * What each kind of field costs this decoder, measured on {@code chunk} (already decoded) with
     * the report's clock: the thread CPU nanoseconds of the fast path over the block's label and
     * dense fields, then over its categorical fields, each part parsed apart over every line the
     * fast path takes (the decoder's own code, {@link #fastPath}; other lines are skipped). {@code
     * {0, 0}} when the layout has lists (the fast path appends their ids as it parses) or the block
     * has no such line. It leaves nothing a later block sees.
     */
    public long[] measureKinds(RawChunk chunk) {
        if (hasLists || trackMissing) {
            return new long[2];
        }
        byte[] b = chunk.data();
        int end = chunk.lastLineCut() ? Swar.lastLineStart(b, chunk.length()) : chunk.length();
        boolean wasCounting = counting;
        counting = false;
        int[] row = new int[width];
        long[][] keys = new long[sparse][1];
        int[] starts = new int[256];
        int[] middles = new int[256];
        int n = 0;
        int p = 0;
        while (p < end) {
            int middle = fastPath(b, p, p, end, row, keys, 0, LABEL_DENSE_ONLY);
            int next = middle < 0 ? -1 : fastPath(b, p, middle, end, row, keys, 0, SPARSE_ONLY);
            if (next < 0) {
                int nl = indexOf(b, (byte) '\n', p, end);
                p = nl < 0 ? end : nl + 1;
                continue;
            }
            if (n == starts.length) {
                starts = Arrays.copyOf(starts, n * 2);
                middles = Arrays.copyOf(middles, n * 2);
            }
            starts[n] = p;
            middles[n++] = middle;
            p = next;
        }
        long t0 = ThreadCpu.now();
        for (int i = 0; i < n; i++) {
            fastPath(b, starts[i], starts[i], end, row, keys, 0, LABEL_DENSE_ONLY);
        }
        long t1 = ThreadCpu.now();
        for (int i = 0; i < n; i++) {
            fastPath(b, starts[i], middles[i], end, row, keys, 0, SPARSE_ONLY);
        }
        long t2 = ThreadCpu.now();
        counting = wasCounting;
        return n == 0 ? new long[2] : new long[] {t1 - t0, t2 - t1};
    }

    /** {@link #fastPath} parses the whole line. */
    private static final int WHOLE_LINE = 0;

    /** {@link #fastPath} parses the label and dense fields only, returning where C1 starts. */
    static final int LABEL_DENSE_ONLY = 1;

    /** {@link #fastPath} parses the categorical fields only, from the position it is given. */
    static final int SPARSE_ONLY = 2;

    /**
     * {@link #decodeWellFormed}'s work, or one of its two parts for {@link #measureKinds} (one
     * method, so that the decoder's own code is what is measured; the part is checked once per
     * line, not per field).
     *
     * @param from where the categorical fields start, for {@link #SPARSE_ONLY}
     */
    private int fastPath(
            byte[] b,
            int s,
            int from,
            int end,
            int[] labelDense,
            long[][] keys,
            int row,
            int part) {
        int p = part == SPARSE_ONLY ? from : s;
        int base = row * width;
        int exception = 0;
        for (int f = part == SPARSE_ONLY ? dense + 1 : 0; f <= dense; f++) {
            int fieldStart = p;
            long v = 0;
            int digits = 0;
            long word;
            if (p + Long.BYTES <= end
                    && (digits = Swar.decimalDigits(word = Swar.load(b, p))) < Long.BYTES
                    && b[p + digits] == '\t') {
                // up to seven digits and a tab, one word: most dense counts are short
                v = digits == 0 ? fill[f] : Swar.decimal(word, digits);
                p += digits;
            } else {
                boolean negative = false;
                if (p < end && b[p] == '-') {
                    negative = true;
                    p++;
                }
                digits = 0;
                while (p < end) {
                    int d = b[p] - '0';
                    if (d < 0 || d > 9) {
                        break;
                    }
                    v = v * 10 + d;
                    digits++;
                    p++;
                }
                if (p >= end || b[p] != '\t' || digits > 10 || (negative && digits == 0)) {
                    return -1;
                }
                if (negative) {
                    v = -v;
                } else if (digits == 0) {
                    v = fill[f];
                }
            }
            if (v > Integer.MAX_VALUE || v < Integer.MIN_VALUE) {
                return -1;
            }
            labelDense[base + f] = v < 0 && neg2zero[f] ? 0 : (int) v;
            if (missing != null) {
                markMissing(f, row, digits == 0);
            }
            if (generatedFields != null) {
                generate(labelDense, base, f, v, digits == 0, row);
            }
            p++;
            if (counting) {
                lineBytes[f] = p - fieldStart;
            }
        }
        if (part == LABEL_DENSE_ONLY) {
            return p;
        }
        for (int c = 0; c < sparse; c++) {
            int fieldStart = p;
            if (hasLists && isList[c]) {
                int listEnd = wellFormedList(b, p, end, c, keys);
                if (listEnd < 0) {
                    return -1;
                }
                if (missing != null) {
                    markMissing(width + c, row, listEnd == p);
                }
                p = afterField(b, listEnd, end, c);
                if (p < 0) {
                    return -1;
                }
                if (counting) {
                    exceptionColumns[exception] = c;
                    exceptionBytes[exception++] = p - fieldStart;
                }
                continue;
            }
            long v = 0;
            int digits = 0;
            boolean parsedAsWord = false;
            if (p + 8 < end) { // Criteo ids are 8 hex digits: parse them as one word
                byte after = b[p + 8];
                if (after == '\t' || after == '\n' || after == '\r') {
                    long word = Swar.load(b, p);
                    if (Swar.isHex8(word)) {
                        v = Swar.hex8(word);
                        digits = 8;
                        p += 8;
                        parsedAsWord = true;
                    }
                }
            }
            while (!parsedAsWord && p < end) {
                int d = HexIds.digit(b[p]);
                if (d < 0) {
                    break;
                }
                v = (v << 4) | d;
                digits++;
                p++;
            }
            if (digits > 16) {
                return -1;
            }
            if (digits == 0) {
                v = fill[width + c];
            }
            p = afterField(b, p, end, c);
            if (p < 0) {
                return -1;
            }
            long m = modulus[c];
            keys[c][row] = m > 0 ? Long.remainderUnsigned(v, m) : v;
            if (missing != null) {
                markMissing(width + c, row, digits == 0);
            }
            // an 8-digit id parsed as one word takes 9 bytes, but for the line break after C26
            if (counting
                    && (!parsedAsWord || c == sparse - 1)
                    && p - fieldStart != TYPICAL_ID_BYTES) {
                exceptionColumns[exception] = c;
                exceptionBytes[exception++] = p - fieldStart;
            }
        }
        if (p - s > options.maxLineBytes()) {
            return -1; // the full rules decide whether the line itself is over the limit
        }
        exceptions = exception;
        return p;
    }

    /**
     * The fast path's end of categorical field {@code c} at {@code p}: the position after its tab,
     * or after the line's break for the last field (the chunk's end may stand for it); -1 if
     * anything else follows.
     */
    private int afterField(byte[] b, int p, int end, int c) {
        if (c < sparse - 1) {
            return p < end && b[p] == '\t' ? p + 1 : -1;
        }
        if (p == end) {
            return p;
        }
        if (b[p] == '\n') {
            return p + 1;
        }
        if (b[p] == '\r' && (p + 1 == end || b[p + 1] == '\n')) {
            return p + 1 == end ? p + 1 : p + 2;
        }
        return -1;
    }

    /**
     * The fast path of list column {@code c}'s field at {@code p}: appends its ids (each after the
     * fused modulus; an 8-hex-digit id parsed as one word, as single ids are) and returns where the
     * field ends; -1 at the first surprise (an empty id, more than 16 digits, a byte that is no hex
     * digit), leaving the ids appended for the caller to drop. An empty field is an empty list, or
     * the list of its fill_null value, as in {@link #decodeList}.
     */
    private int wellFormedList(byte[] b, int p, int end, int c, long[][] keys) {
        long m = modulus[c];
        if (p == end || b[p] == '\t' || b[p] == '\n' || b[p] == '\r') {
            if (fillsList[c]) {
                long id = fill[width + c];
                append(keys, c, m > 0 ? Long.remainderUnsigned(id, m) : id);
            }
            return p;
        }
        byte separator = listSeparator;
        long[] k = keys[c]; // the ids and their count in locals, stored back when the field ends
        int n = listSize[c];
        while (true) {
            long v = 0;
            int digits = 0;
            if (p + 8 < end) {
                byte after = b[p + 8];
                if (after == separator || after == '\t' || after == '\n' || after == '\r') {
                    long word = Swar.load(b, p);
                    if (Swar.isHex8(word)) {
                        v = Swar.hex8(word);
                        digits = 8;
                        p += 8;
                    }
                }
            }
            if (digits == 0) {
                while (p < end) {
                    int d = HexIds.digit(b[p]);
                    if (d < 0) {
                        break;
                    }
                    v = (v << 4) | d;
                    digits++;
                    p++;
                }
                if (digits == 0 || digits > 16) {
                    p = -1;
                    break;
                }
            }
            if (n == k.length) {
                k = Arrays.copyOf(k, Math.max(16, n + (n >> 1)));
            }
            k[n++] = m > 0 ? Long.remainderUnsigned(v, m) : v;
            if (p < end && b[p] == separator) {
                p++;
            } else {
                break;
            }
        }
        keys[c] = k;
        listSize[c] = n;
        return p;
    }

    /**
     * Decodes the line {@code b[s, e)} into row {@code row} of the output arrays. Returns false,
     * with {@link #failReason} and {@link #failDetail} set, if the line is rejected; then the row's
     * slots may hold partial values and are overwritten by the next accepted line.
     */
    private boolean decodeLine(byte[] b, int s, int e, int[] labelDense, long[][] keys, int row) {
        if (s == e) {
            return fail(Reason.EMPTY_LINE, "the line is empty");
        }
        if (e - s > options.maxLineBytes()) {
            return fail(
                    Reason.LINE_TOO_LONG,
                    "line has " + (e - s) + " bytes; the limit is " + options.maxLineBytes());
        }
        int tabs = 0;
        int high = 0;
        for (int i = s; i < e; i++) {
            byte c = b[i];
            high |= c;
            if (c == '\t') {
                tabs++;
            }
        }
        if (high < 0 && !isUtf8(b, s, e)) {
            return fail(Reason.INVALID_UTF8, "the line is not valid UTF-8");
        }
        int fields = tabs + 1;
        if (fields > inputFields || (fields < inputFields && !options.padMissingFields())) {
            return fail(
                    Reason.WRONG_FIELD_COUNT,
                    "expected " + inputFields + " tab-separated fields, found " + fields);
        }
        int base = row * width;
        int pos = s;
        for (int i = 0; i < inputFields; i++) {
            int f = i <= dense ? i : i + width - dense - 1; // past the generated fields
            int fieldEnd;
            if (i < fields) {
                fieldEnd = indexOf(b, (byte) '\t', pos, e);
                if (fieldEnd < 0) {
                    fieldEnd = e;
                }
                lineBytes[f] = fieldEnd - pos + 1; // its tab, or the line break
            } else {
                fieldEnd = pos; // padded: an absent field is missing
                lineBytes[f] = 0;
            }
            if (f <= dense) {
                long v = pos == fieldEnd ? fill[f] : parseInt32(b, pos, fieldEnd);
                if (v == NOT_INT32) {
                    return fail(
                            f == 0 ? Reason.LABEL_NOT_INT32 : Reason.DENSE_NOT_INT32,
                            layout.fieldName(f)
                                    + ": "
                                    + quote(b, pos, fieldEnd)
                                    + " is not a 32-bit integer");
                }
                labelDense[base + f] = v < 0 && neg2zero[f] ? 0 : (int) v;
                if (missing != null) {
                    markMissing(f, row, pos == fieldEnd);
                }
                if (generatedFields != null) {
                    generate(labelDense, base, f, v, pos == fieldEnd, row);
                }
            } else if (hasLists && isList[f - width]) {
                if (!decodeList(b, pos, fieldEnd, f, keys)) {
                    return false;
                }
                if (missing != null) {
                    markMissing(f, row, pos == fieldEnd);
                }
            } else {
                int hexStatus = pos == fieldEnd ? HexIds.OK : HexIds.status(b, pos, fieldEnd);
                if (hexStatus != HexIds.OK) {
                    return fail(
                            HexIds.reason(hexStatus),
                            layout.fieldName(f)
                                    + ": "
                                    + quote(b, pos, fieldEnd)
                                    + " "
                                    + HexIds.problem(hexStatus));
                }
                long id = pos == fieldEnd ? fill[f] : HexIds.value(b, pos, fieldEnd);
                long m = modulus[f - width];
                keys[f - width][row] = m > 0 ? Long.remainderUnsigned(id, m) : id;
                if (missing != null) {
                    markMissing(f, row, pos == fieldEnd);
                }
            }
            pos = fieldEnd + 1;
        }
        return true;
    }

    /**
     * Gives the generated fields that decode dense field {@code f} their value: the field's value
     * {@code v} as parsed (before its own neg2zero), or their own fill if it is missing, then their
     * own fused neg2zero.
     */
    private void generate(int[] labelDense, int base, int f, long v, boolean isMissing, int row) {
        for (int g : generatedFields[f]) {
            long x = isMissing ? fill[g] : v;
            labelDense[base + g] = x < 0 && neg2zero[g] ? 0 : (int) x;
            if (missing != null) {
                markMissing(g, row, isMissing);
            }
        }
    }

    /**
     * Parses the list field {@code b[s, e)} of field {@code f}, appending its ids (after the fused
     * modulus) to the column's keys; false, with the reason set, if an id is not a valid one. An
     * empty field is an empty list, or the list of its fill_null value.
     */
    private boolean decodeList(byte[] b, int s, int e, int f, long[][] keys) {
        int c = f - width;
        long m = modulus[c];
        if (s == e) {
            if (fillsList[c]) {
                long id = fill[f]; // takes the field's place: the operators apply to it
                append(keys, c, m > 0 ? Long.remainderUnsigned(id, m) : id);
            }
            return true;
        }
        int element = 1;
        for (int from = s; ; element++) {
            int to = indexOf(b, listSeparator, from, e);
            if (to < 0) {
                to = e;
            }
            int status = from == to ? HexIds.NOT_HEX : HexIds.status(b, from, to);
            if (status != HexIds.OK) {
                return fail(
                        HexIds.reason(status),
                        layout.fieldName(f)
                                + ": id "
                                + element
                                + " of the list, "
                                + quote(b, from, to)
                                + ", "
                                + (from == to ? "is empty" : HexIds.problem(status)));
            }
            long id = HexIds.value(b, from, to);
            append(keys, c, m > 0 ? Long.remainderUnsigned(id, m) : id);
            if (to == e) {
                return true;
            }
            from = to + 1;
        }
    }

    /** Appends an id to list column {@code c}, growing its keys by half when full. */
    private void append(long[][] keys, int c, long id) {
        int n = listSize[c];
        if (n == keys[c].length) {
            keys[c] = Arrays.copyOf(keys[c], Math.max(16, n + (n >> 1)));
        }
        keys[c][n] = id;
        listSize[c] = n + 1;
    }

    /**
     * Ends row {@code row}'s lists: an accepted row's end is the next row's start; a rejected row's
     * ids are dropped (it may have appended some before a later field failed).
     */
    private void endListRow(int row, boolean accepted) {
        for (int c = 0; c < sparse; c++) {
            if (isList[c]) {
                if (accepted) {
                    listOffsets[c][row + 1] = listSize[c];
                } else {
                    listSize[c] = listOffsets[c][row];
                }
            }
        }
    }

    private boolean fail(Reason reason, String detail) {
        failReason = reason;
        failDetail = detail;
        return false;
    }

    /**
     * Parses an optionally signed decimal int32; an empty field is missing and gives 0. Returns
     * {@link #NOT_INT32} for anything else.
     */
    static long parseInt32(byte[] b, int s, int e) {
        if (s == e) {
            return 0;
        }
        boolean negative = false;
        int i = s;
        if (b[i] == '-' || b[i] == '+') {
            negative = b[i] == '-';
            i++;
            if (i == e) {
                return NOT_INT32;
            }
        }
        long v = 0;
        for (; i < e; i++) {
            int d = b[i] - '0';
            if (d < 0 || d > 9) {
                return NOT_INT32;
            }
            v = v * 10 + d;
            if (v > 1L << 31) {
                return NOT_INT32;
            }
        }
        if (negative) {
            v = -v;
        }
        return v > Integer.MAX_VALUE ? NOT_INT32 : v;
    }

    private DeadLetter deadLetter(
            RawChunk chunk, int lineIndex, byte[] b, int s, int e, Reason reason, String detail) {
        return deadLetter(chunk, lineIndex, b, s, e, reason, detail, options.maxRawBytes());
    }

    /** The dead letter of line {@code b[s, e)} of {@code chunk}, its first bytes kept. */
    static DeadLetter deadLetter(
            RawChunk chunk,
            int lineIndex,
            byte[] b,
            int s,
            int e,
            Reason reason,
            String detail,
            int maxRawBytes) {
        int keep = Math.min(e - s, maxRawBytes);
        return new DeadLetter(
                lineIndex,
                chunk.firstOffset() + s,
                reason.code(),
                detail,
                Arrays.copyOfRange(b, s, s + keep),
                keep < e - s);
    }

    private static int indexOf(byte[] b, byte target, int from, int to) {
        return Swar.indexOf(b, target, from, to);
    }

    static boolean isUtf8(byte[] b, int s, int e) {
        try {
            StandardCharsets.UTF_8
                    .newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(b, s, e - s));
            return true;
        } catch (CharacterCodingException ex) {
            return false;
        }
    }

    /** The field's text for an error message, quoted and cut at 40 bytes. */
    static String quote(byte[] b, int s, int e) {
        int keep = Math.min(e - s, 40);
        String text = new String(b, s, keep, StandardCharsets.UTF_8);
        return "\"" + text + (keep < e - s ? "...\"" : "\"");
    }
}
