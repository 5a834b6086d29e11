package dev.piper.pipeline.ops;

import dev.piper.pipeline.ops.Op.ValueType;
import it.unimi.dsi.fastutil.longs.Long2LongOpenHashMap;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.function.IntFunction;
import java.util.function.ToDoubleFunction;
import java.util.function.ToLongFunction;

/**
 * The column passes of a {@link ColumnProgram}: the operators of each chain that the parser does
 * not fuse ({@link ColumnProgram#passOps(int)}), run over a decoded block's column arrays.
 *
 * <p><b>Horizontal fusion</b> (RAP): the i-th pass operator of every column is grouped with the
 * i-th of the other columns by operator and input type, and each group runs as one loop over the
 * block, each column with its own parameters (a sigrid_hash salt per column, bucket borders per
 * column). Dense values sit row-major in the block ({@link RowLayout#labelDenseWidth()} per row),
 * so a fused dense pass walks the block once for all its columns where one pass per column would
 * walk it once per column. Unfused ({@code fuse = false}, for {@code bin/piper bench}), every
 * column's operator is a pass of its own. Results are identical either way: a column's operators
 * run in chain order, and a pass touches only its own columns.
 *
 * <p>Each pass type has its own loop, so the per-value work is a monomorphic, inlinable body.
 */
public final class ColumnPasses {

    private final Pass[] passes;

    private ColumnPasses(Pass[] passes) {
        this.passes = passes;
    }

    /** The passes of {@code program}, fused or one per column and operator. */
    public static ColumnPasses of(ColumnProgram program, boolean fuse) {
        List<Pass> out = new ArrayList<>();
        Map<String, Long2LongOpenHashMap> tables = new HashMap<>(); // mapid files, read once
        int fieldCount = program.layout().fields();
        int width = program.layout().labelDenseWidth();
        ValueType[] type = new ValueType[fieldCount];
        int stages = 0;
        for (int f = 0; f < fieldCount; f++) {
            type[f] = ValueType.int32; // the parser's fused operators keep int32
            stages = Math.max(stages, program.passOps(f).size());
        }
        for (int s = 0; s < stages; s++) {
            Map<String, List<Integer>> groups = new LinkedHashMap<>();
            for (int f = 0; f < fieldCount; f++) {
                List<Op> ops = program.passOps(f);
                if (s < ops.size()) {
                    String key =
                            fuse
                                    ? ops.get(s).name() + "/" + type[f]
                                    : ops.get(s).name() + "/" + type[f] + "/" + f;
                    groups.computeIfAbsent(key, k -> new ArrayList<>()).add(f);
                }
            }
            for (List<Integer> fields : groups.values()) {
                int[] fs = fields.stream().mapToInt(Integer::intValue).toArray();
                Op[] ops = new Op[fs.length];
                for (int i = 0; i < fs.length; i++) {
                    ops[i] = program.passOps(fs[i]).get(s);
                }
                boolean inFloat = type[fs[0]] == ValueType.float32;
                out.add(ops[0].pass(new Group(width, fs, inFloat, ops, tables)));
                for (int i = 0; i < fs.length; i++) {
                    type[fs[i]] = ops[i].outType(type[fs[i]]);
                }
            }
        }
        return new ColumnPasses(out.toArray(new Pass[0]));
    }

    /** Whether there is nothing to run. */
    public boolean isEmpty() {
        return passes.length == 0;
    }

    /** The number of passes (loops over the block). */
    public int size() {
        return passes.length;
    }

    /**
     * Runs every pass over the first {@code rows} rows: dense values in {@code labelDense} (row
     * major, {@link RowLayout#labelDenseWidth()} per row), keys in {@code keys[c]}.
     */
    public void run(int[] labelDense, long[][] keys, int rows) {
        run(labelDense, keys, new int[keys.length][], rows);
    }

    /**
     * As above, with the lists of list columns: {@code offsets[c]} ({@code rows + 1} entries) for a
     * list column, null for the others. A pass that changes a list's length (firstx, ngram)
     * replaces the column's {@code keys[c]} and {@code offsets[c]}.
     */
    public void run(int[] labelDense, long[][] keys, int[][] offsets, int rows) {
        for (Pass p : passes) {
            p.run(labelDense, keys, offsets, rows);
        }
    }

    /** The number of keys of sparse column {@code c}: its rows, or its lists' ids. */
    private static int size(int[][] offsets, int c, int rows) {
        return offsets[c] == null ? rows : offsets[c][rows];
    }

    /**
     * What a pass is built from: the columns of one group and their operators, all of one class (an
     * operator builds its own pass: {@link Op#pass}).
     */
    static final class Group {
        /** Label and dense values per row ({@link RowLayout#labelDenseWidth()}). */
        final int width;

        /** The fields (1..dense the dense columns, then the sparse) the pass covers. */
        final int[] fields;

        /** Whether the dense input values are float32 bits. */
        final boolean inFloat;

        private final Op[] ops;
        private final Map<String, Long2LongOpenHashMap> tables;

        Group(
                int width,
                int[] fields,
                boolean inFloat,
                Op[] ops,
                Map<String, Long2LongOpenHashMap> tables) {
            this.width = width;
            this.fields = fields;
            this.inFloat = inFloat;
            this.ops = ops;
            this.tables = tables;
        }

        /** Each column's operator, as {@code type}, mapped by {@code f}. */
        <T extends Op, R> R[] each(Class<T> type, Function<T, R> f, IntFunction<R[]> array) {
            R[] out = array.apply(ops.length);
            for (int i = 0; i < ops.length; i++) {
                out[i] = f.apply(type.cast(ops[i]));
            }
            return out;
        }

        /** Each column's operator, as {@code type}, mapped by {@code f}. */
        <T extends Op> double[] doubles(Class<T> type, ToDoubleFunction<T> f) {
            double[] out = new double[ops.length];
            for (int i = 0; i < ops.length; i++) {
                out[i] = f.applyAsDouble(type.cast(ops[i]));
            }
            return out;
        }

        /** Each column's operator, as {@code type}, mapped by {@code f}. */
        <T extends Op> long[] longs(Class<T> type, ToLongFunction<T> f) {
            long[] out = new long[ops.length];
            for (int i = 0; i < ops.length; i++) {
                out[i] = f.applyAsLong(type.cast(ops[i]));
            }
            return out;
        }

        /** The table of a mapid file, read once per program however many columns use it. */
        Long2LongOpenHashMap table(String file) {
            Long2LongOpenHashMap t = tables.get(file);
            if (t == null) {
                try {
                    t = IdMap.read(Path.of(file));
                } catch (IOException e) {
                    throw new UncheckedIOException("mapid: " + e.getMessage(), e);
                }
                tables.put(file, t);
            }
            return t;
        }
    }

    /** One loop over a block for a group of columns. */
    abstract static class Pass {
        /**
         * Label and dense values per row; also the field number of the first sparse column, so
         * sparse field {@code f}'s keys are {@code keys[f - w]}.
         */
        final int w;

        /** The fields (1..dense the dense columns, then the sparse) the pass covers. */
        final int[] fields;

        /** Whether the dense input values are float32 bits. */
        final boolean inFloat;

        Pass(int width, int[] fields, boolean inFloat) {
            this.w = width;
            this.fields = fields;
            this.inFloat = inFloat;
        }

        abstract void run(int[] a, long[][] keys, int[][] offsets, int rows);
    }

    static final class Neg2Zero extends Pass {
        Neg2Zero(int width, int[] fields, boolean inFloat) {
            super(width, fields, inFloat);
        }

        @Override
        void run(int[] a, long[][] keys, int[][] offsets, int rows) {
            for (int r = 0, base = 0; r < rows; r++, base += w) {
                for (int f : fields) {
                    int v = a[base + f];
                    if (inFloat ? Float.intBitsToFloat(v) < 0 : v < 0) {
                        a[base + f] = 0; // 0 and 0.0f have the same bits
                    }
                }
            }
        }
    }

    static final class Clamp extends Pass {
        private final double[] lo;
        private final double[] hi;
        private final int[] intLo;
        private final int[] intHi;

        Clamp(int width, int[] fields, boolean inFloat, double[] lo, double[] hi) {
            super(width, fields, inFloat);
            this.lo = lo;
            this.hi = hi;
            intLo = new int[lo.length];
            intHi = new int[hi.length];
            for (int i = 0; i < lo.length; i++) {
                // the integers of [lo, hi], saturated to int32 (Java's cast saturates)
                intLo[i] = (int) Math.ceil(lo[i]);
                intHi[i] = (int) Math.floor(hi[i]);
            }
        }

        @Override
        void run(int[] a, long[][] keys, int[][] offsets, int rows) {
            int n = fields.length;
            for (int r = 0, base = 0; r < rows; r++, base += w) {
                for (int i = 0; i < n; i++) {
                    int at = base + fields[i];
                    if (inFloat) {
                        float v = Float.intBitsToFloat(a[at]);
                        if (v < lo[i]) {
                            a[at] = Float.floatToRawIntBits((float) lo[i]);
                        } else if (v > hi[i]) {
                            a[at] = Float.floatToRawIntBits((float) hi[i]);
                        }
                    } else {
                        int v = a[at];
                        a[at] = v < intLo[i] ? intLo[i] : v > intHi[i] ? intHi[i] : v;
                    }
                }
            }
        }
    }

    static final class Log extends Pass {
        Log(int width, int[] fields, boolean inFloat) {
            super(width, fields, inFloat);
        }

        /**
         * log(v + 1) of the integers below {@link #TABLE_SIZE}, as {@link #log} computes it: most
         * dense counts are small, and a table read (64 KiB, in the core's L2) costs a fraction of a
         * logarithm (a PreSto row has 504 of them).
         */
        private static final int TABLE_SIZE = 1 << 14;

        private static final int[] TABLE = new int[TABLE_SIZE];

        static {
            for (int v = 0; v < TABLE_SIZE; v++) {
                TABLE[v] = log((float) v);
            }
        }

        /** The operator: log(x + 1) in float, as its bits. */
        static int log(float x) {
            return Float.floatToRawIntBits((float) Math.log(x + 1f));
        }

        @Override
        void run(int[] a, long[][] keys, int[][] offsets, int rows) {
            for (int r = 0, base = 0; r < rows; r++, base += w) {
                for (int f : fields) {
                    int v = a[base + f];
                    if (inFloat) {
                        a[base + f] = log(Float.intBitsToFloat(v));
                    } else {
                        a[base + f] = v >= 0 && v < TABLE_SIZE ? TABLE[v] : log((float) v);
                    }
                }
            }
        }
    }

    static final class BucketizePass extends Pass {
        private final Bucketize[] buckets;

        /**
         * Integer input: per field, the buckets of the integers below {@link #SMALL} (most dense
         * counts), one table per distinct border list (PreSto's RM3 bucketizes 42 columns by the
         * same 1,024 borders), read instead of a binary search.
         */
        private final int[][] small;

        static final int SMALL = 1 << 12;

        BucketizePass(int width, int[] fields, boolean inFloat, Bucketize[] buckets) {
            super(width, fields, inFloat);
            this.buckets = buckets;
            if (inFloat) {
                small = null;
            } else {
                small = new int[buckets.length][];
                java.util.Map<Bucketize, int[]> tables = new java.util.HashMap<>();
                for (int i = 0; i < buckets.length; i++) {
                    small[i] = tables.computeIfAbsent(buckets[i], b -> b.smallIntegers(SMALL));
                }
            }
        }

        @Override
        void run(int[] a, long[][] keys, int[][] offsets, int rows) {
            int n = fields.length;
            for (int r = 0, base = 0; r < rows; r++, base += w) {
                for (int i = 0; i < n; i++) {
                    int at = base + fields[i];
                    if (inFloat) {
                        a[at] = buckets[i].bucket(Float.intBitsToFloat(a[at]));
                    } else {
                        int v = a[at];
                        a[at] = v >= 0 && v < SMALL ? small[i][v] : buckets[i].bucket(v);
                    }
                }
            }
        }
    }

    static final class BoxCoxPass extends Pass {
        private final BoxCox[] boxcox;

        BoxCoxPass(int width, int[] fields, boolean inFloat, BoxCox[] boxcox) {
            super(width, fields, inFloat);
            this.boxcox = boxcox;
        }

        @Override
        void run(int[] a, long[][] keys, int[][] offsets, int rows) {
            int n = fields.length;
            for (int r = 0, base = 0; r < rows; r++, base += w) {
                for (int i = 0; i < n; i++) {
                    int at = base + fields[i];
                    double x = inFloat ? Float.intBitsToFloat(a[at]) : a[at];
                    a[at] = Float.floatToRawIntBits((float) boxcox[i].transform(x));
                }
            }
        }
    }

    static final class LogitPass extends Pass {
        private final Logit[] logit;

        LogitPass(int width, int[] fields, boolean inFloat, Logit[] logit) {
            super(width, fields, inFloat);
            this.logit = logit;
        }

        @Override
        void run(int[] a, long[][] keys, int[][] offsets, int rows) {
            int n = fields.length;
            for (int r = 0, base = 0; r < rows; r++, base += w) {
                for (int i = 0; i < n; i++) {
                    int at = base + fields[i];
                    double x = inFloat ? Float.intBitsToFloat(a[at]) : a[at];
                    a[at] = Float.floatToRawIntBits((float) logit[i].logit(x));
                }
            }
        }
    }

    /** int32 to float32 (nearest float) or float32 to int32 (toward zero, saturating, NaN to 0). */
    static final class Cast extends Pass {
        Cast(int width, int[] fields, boolean inFloat) {
            super(width, fields, inFloat);
        }

        @Override
        void run(int[] a, long[][] keys, int[][] offsets, int rows) {
            for (int r = 0, base = 0; r < rows; r++, base += w) {
                for (int f : fields) {
                    int v = a[base + f];
                    a[base + f] =
                            inFloat
                                    ? (int) Float.intBitsToFloat(v)
                                    : Float.floatToRawIntBits((float) v);
                }
            }
        }
    }

    static final class Modulus extends Pass {
        private final long[] m;

        Modulus(int width, int[] fields, long[] m) {
            super(width, fields, false);
            this.m = m;
        }

        @Override
        void run(int[] a, long[][] keys, int[][] offsets, int rows) {
            for (int i = 0; i < fields.length; i++) {
                int c = fields[i] - w;
                long[] k = keys[c];
                long mod = m[i];
                for (int r = 0, n = size(offsets, c, rows); r < n; r++) {
                    k[r] = Long.remainderUnsigned(k[r], mod);
                }
            }
        }
    }

    static final class Sigrid extends Pass {
        private final SigridHash[] hash;

        Sigrid(int width, int[] fields, SigridHash[] hash) {
            super(width, fields, false);
            this.hash = hash;
        }

        @Override
        void run(int[] a, long[][] keys, int[][] offsets, int rows) {
            for (int i = 0; i < fields.length; i++) {
                int c = fields[i] - w;
                long[] k = keys[c];
                SigridHash h = hash[i];
                for (int r = 0, n = size(offsets, c, rows); r < n; r++) {
                    k[r] = h.hash(k[r]);
                }
            }
        }
    }

    /**
     * firstx or ngram over list columns: each column's lists are rewritten into new arrays (both
     * shorten lists, so the new ids fit in the old count).
     */
    static final class ListPass extends Pass {
        private final FirstX[] firstx;
        private final Ngram[] ngram;

        ListPass(int width, int[] fields, FirstX[] firstx, Ngram[] ngram) {
            super(width, fields, false);
            this.firstx = firstx;
            this.ngram = ngram;
        }

        @Override
        void run(int[] a, long[][] keys, int[][] offsets, int rows) {
            for (int i = 0; i < fields.length; i++) {
                int c = fields[i] - w;
                int[] from = offsets[c];
                int[] to = new int[rows + 1];
                long[] values = new long[Math.max(1, from[rows])];
                if (firstx != null) {
                    firstx[i].apply(from, keys[c], rows, to, values);
                } else {
                    ngram[i].apply(from, keys[c], rows, to, values);
                }
                keys[c] = values;
                offsets[c] = to;
            }
        }
    }

    /** The table in {@code file}, read on first use: columns that name the same file share it. */
    static final class MapId extends Pass {
        private final IdMap[] maps;

        MapId(int width, int[] fields, IdMap[] maps) {
            super(width, fields, false);
            this.maps = maps;
        }

        @Override
        void run(int[] a, long[][] keys, int[][] offsets, int rows) {
            for (int i = 0; i < fields.length; i++) {
                int c = fields[i] - w;
                long[] k = keys[c];
                IdMap m = maps[i];
                for (int r = 0, n = size(offsets, c, rows); r < n; r++) {
                    k[r] = m.map(k[r]);
                }
            }
        }
    }
}
