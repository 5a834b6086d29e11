package dev.piper.core.decode;

import dev.piper.core.block.ColumnBlock;
import dev.piper.core.block.DenseChunk;
import dev.piper.core.block.Origin;
import dev.piper.pipeline.layout.RowLayout;
import dev.piper.pipeline.ops.ColumnPasses;
import dev.piper.pipeline.ops.ColumnProgram;

/**
 * Runs a {@link ColumnProgram} over the column arrays of a block read from a columnar file, in
 * place: what {@link CriteoDecoder} does after parsing a text line, for values that arrive parsed.
 * A missing value takes its field's fill, a dense value its leading neg2zero, an id its leading
 * modulus, then the block's {@link ColumnPasses}; the arrays then hold what a text block of the
 * same rows decodes to.
 *
 * <p>For the reader that owns the arrays (the block is emitted after this). Not thread-safe; one
 * instance per reader.
 */
public final class ColumnarDecoder {

    /** Label and dense values per row in the block's row-major array. */
    private final int width;

    private final long[] fill;
    private final boolean[] neg2zero;
    private final long[] modulus;

    /** Per sparse column, whether an empty list becomes the list of its fill_null value. */
    private final boolean[] fillsList;

    private final ColumnPasses passes;

    public ColumnarDecoder(ColumnProgram program) {
        RowLayout layout = program.layout();
        width = layout.labelDenseWidth();
        fill = new long[layout.fields()];
        neg2zero = new boolean[width];
        modulus = new long[layout.sparse()];
        for (int f = 0; f < fill.length; f++) {
            fill[f] = program.fill(f);
        }
        for (int f = 0; f < width; f++) {
            neg2zero[f] = program.neg2zero(f);
        }
        fillsList = new boolean[layout.sparse()];
        for (int c = 0; c < modulus.length; c++) {
            modulus[c] = program.modulus(c);
            fillsList[c] = program.fillsEmptyList(c);
        }
        passes = ColumnPasses.of(program, true);
    }

    /** The value a missing label or dense value {@code f} (0 the label, then I1..) takes. */
    public int fill(int f) {
        return (int) fill[f];
    }

    /** The id a missing value of categorical column {@code c} takes. */
    public long fillId(int c) {
        return fill[width + c];
    }

    /** Whether label or dense value {@code f} is clipped at 0 right after its fill. */
    public boolean neg2zero(int f) {
        return neg2zero[f];
    }

    /** The modulus an id of column {@code c} takes right after it is read, or 0 or less. */
    public long modulus(int c) {
        return modulus[c];
    }

    /**
     * Gives field {@code f}'s missing values their fill and its values the operator fused into the
     * text decoder's parser (neg2zero of a dense value, modulus of an id): what the reader does
     * inline for the fields it reads that way. After every field, {@link #runPasses}.
     *
     * @param labelDense row-major label and dense values as read, {@code rows * (1 + dense)}
     * @param keys per categorical column, its ids as read
     * @param missing a bit set over the rows of the field's values that are missing ({@code
     *     missing[r >>> 6] >>> r & 1}), or an empty array when none is
     */
    public void apply(int f, int[] labelDense, long[][] keys, long[] missing, int rows) {
        if (f < width) {
            boolean clip = neg2zero[f];
            if (missing.length == 0 && !clip) {
                return;
            }
            int fillValue = (int) fill[f];
            for (int r = 0, i = f; r < rows; r++, i += width) {
                int v = labelDense[i];
                if (missing.length != 0 && (missing[r >>> 6] >>> r & 1) != 0) {
                    v = fillValue;
                }
                labelDense[i] = clip && v < 0 ? 0 : v;
            }
            return;
        }
        int c = f - width;
        long m = modulus[c];
        if (missing.length == 0 && m <= 0) {
            return;
        }
        long[] ids = keys[c];
        long fillValue = fill[f];
        for (int r = 0; r < rows; r++) {
            long v = ids[r];
            if (missing.length != 0 && (missing[r >>> 6] >>> r & 1) != 0) {
                v = fillValue;
            }
            ids[r] = m > 0 ? Long.remainderUnsigned(v, m) : v;
        }
    }

    /**
     * A list column's fill and modulus, as the text decoder gives them to a list field: a missing
     * list (null or empty in the file: {@code missing}, as for {@link #apply}) becomes the list of
     * the column's fill_null value if it has one, else stays empty; every id takes the leading
     * modulus. Returns the column's offsets, new if a list grew ({@code keys[c]} is then new too).
     */
    public int[] applyList(int c, long[][] keys, int[] offsets, long[] missing, int rows) {
        long m = modulus[c];
        long[] ids = keys[c];
        if (m > 0) {
            for (int i = offsets[0]; i < offsets[rows]; i++) {
                ids[i] = Long.remainderUnsigned(ids[i], m);
            }
        }
        if (missing.length == 0 || !fillsList[c]) {
            return offsets;
        }
        long fillId = fill[width + c];
        int added = 0;
        for (int r = 0; r < rows; r++) {
            if ((missing[r >>> 6] >>> r & 1) != 0) {
                added++;
            }
        }
        int[] out = new int[rows + 1];
        long[] values = new long[offsets[rows] + added];
        int n = 0;
        for (int r = 0; r < rows; r++) {
            if ((missing[r >>> 6] >>> r & 1) != 0) {
                values[n++] = m > 0 ? Long.remainderUnsigned(fillId, m) : fillId;
            } else {
                int len = offsets[r + 1] - offsets[r];
                System.arraycopy(ids, offsets[r], values, n, len);
                n += len;
            }
            out[r + 1] = n;
        }
        keys[c] = values;
        return out;
    }

    /** Runs the program's column passes (its operators after those fused into the parser). */
    public void runPasses(int[] labelDense, long[][] keys, int rows) {
        if (!passes.isEmpty()) {
            passes.run(labelDense, keys, rows);
        }
    }

    /**
     * As above, with the lists of list columns ({@link ColumnPasses#run(int[], long[][], int[][],
     * int)}).
     */
    public void runPasses(int[] labelDense, long[][] keys, int[][] offsets, int rows) {
        if (!passes.isEmpty()) {
            passes.run(labelDense, keys, offsets, rows);
        }
    }

    /**
     * The block's parts, as the text decoder gives them for a text block (with its events' names
     * and times, if it has them).
     */
    public static CriteoDecoder.Decoded decoded(ColumnProgram program, ColumnBlock block) {
        if (block.keys().length != program.layout().sparse()) {
            throw new IllegalArgumentException(
                    "a block of "
                            + block.keys().length
                            + " sparse columns for a pipeline of "
                            + program.layout());
        }
        DenseChunk dense =
                DenseChunk.builder()
                        .lane(block.lane())
                        .seq(block.seq())
                        .lines(block.lines())
                        .rows(block.rows())
                        .labelDense(block.labelDense())
                        .deadLetters(block.deadLetters())
                        .origin(Origin.NONE)
                        .version(program.version())
                        .layout(program.layout())
                        .onehot(program.onehotSizes())
                        .names(block.names())
                        .eventTimes(block.eventTimes())
                        .build();
        return new CriteoDecoder.Decoded(
                dense,
                CriteoDecoder.keyChunks(
                        program,
                        block.lane(),
                        block.seq(),
                        block.keys(),
                        block.offsets(),
                        block.rows()),
                new int[0],
                0,
                0);
    }
}
