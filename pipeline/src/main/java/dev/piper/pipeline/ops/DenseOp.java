package dev.piper.pipeline.ops;

import java.util.Arrays;
import java.util.List;

/**
 * The operators of dense columns between the fill and the end of the chain: PIPER's neg2zero and
 * log, RAP's numeric operators, {@code sqrt} and {@code onehot}. Each record is one operator's
 * room: its {@link OpDefinition}, its rule on the value it takes, the type it leaves and its pass.
 */
public sealed interface DenseOp extends Op {

    /** Negative values become 0. */
    record Neg2Zero() implements DenseOp {
        /** This operator's declaration ({@link OpDefinition}). */
        public static final OpDefinition DEFINITION =
                OpDefinition.constant(
                        "neg2zero",
                        new Neg2Zero(),
                        "a negative value becomes 0",
                        "PIPER, DLRM",
                        OpDefinition.DENSE,
                        "neg2zero",
                        112);

        @Override
        public boolean nonNegativeAfter(boolean before) {
            return true;
        }

        @Override
        public ColumnPasses.Pass pass(ColumnPasses.Group g) {
            return new ColumnPasses.Neg2Zero(g.width, g.fields, g.inFloat);
        }
    }

    /** Into {@code [lo, hi]} ({@link Clamp}); an int32 column to the integers inside. */
    record ClampOp(double lo, double hi) implements DenseOp {
        /** This operator's declaration ({@link OpDefinition}). */
        public static final OpDefinition DEFINITION =
                new OpDefinition(
                        "clamp",
                        ClampOp.class,
                        List.of("lo", "hi"),
                        "`lo`, `hi`: numbers, `lo <= hi`",
                        "into `[lo, hi]`; an int32 into the integers `[ceil(lo), floor(hi)]` (at least one required); a float32 to the bounds rounded to float32; NaN stays NaN",
                        "`torch.clamp`, RAP Clamp",
                        OpDefinition.DENSE,
                        "clamp",
                        118,
                        p -> new ClampOp(p.number("lo"), p.number("hi")));

        @Override
        public java.util.Optional<String> denseProblem(
                ValueType type, boolean nonNegative, boolean last) {
            if (type == ValueType.int32 && Math.ceil(lo) > Math.floor(hi)) {
                return java.util.Optional.of(
                        label()
                                + " holds no integer, and the value is an int32 here"
                                + " (cast it to float32 first)");
            }
            return java.util.Optional.empty();
        }

        @Override
        public boolean nonNegativeAfter(boolean before) {
            return lo >= 0 || (before && hi >= 0);
        }

        @Override
        public ColumnPasses.Pass pass(ColumnPasses.Group g) {
            return new ColumnPasses.Clamp(
                    g.width,
                    g.fields,
                    g.inFloat,
                    g.doubles(ClampOp.class, ClampOp::lo),
                    g.doubles(ClampOp.class, ClampOp::hi));
        }

        public ClampOp {
            new Clamp(lo, hi); // validates
            if (!Double.isFinite(lo) || !Double.isFinite(hi)) {
                throw new IllegalArgumentException(
                        "clamp bounds must be finite: " + lo + ", " + hi);
            }
        }

        @Override
        public String label() {
            return "clamp(" + Op.number(lo) + "," + Op.number(hi) + ")";
        }
    }

    /**
     * The problem of operator {@code op}, defined on non-negative values only ({@code why} says
     * what it does to a negative one), unless the value is known non-negative.
     */
    private static java.util.Optional<String> needsNonNegative(
            String op, boolean nonNegative, String why) {
        return nonNegative
                ? java.util.Optional.empty()
                : java.util.Optional.of(
                        op
                                + " needs neg2zero (or clamp with lo >= 0, or bucketize) before it "
                                + why);
    }

    /** {@code log(x + 1)}, a float32. */
    record Log() implements DenseOp {
        /** This operator's declaration ({@link OpDefinition}). */
        public static final OpDefinition DEFINITION =
                OpDefinition.constant(
                        "log",
                        new Log(),
                        "`log(x + 1)` as a float32: `float32(x) + 1` in float32, its logarithm rounded to float32 (DLRM's loader)",
                        "PIPER, DLRM",
                        OpDefinition.DENSE,
                        "log",
                        113);

        @Override
        public ValueType outType(ValueType in) {
            return ValueType.float32;
        }

        @Override
        public java.util.Optional<String> denseProblem(
                ValueType type, boolean nonNegative, boolean last) {
            return needsNonNegative("log", nonNegative, "(log(x + 1) is undefined below -1)");
        }

        @Override
        public ColumnPasses.Pass pass(ColumnPasses.Group g) {
            return new ColumnPasses.Log(g.width, g.fields, g.inFloat);
        }
    }

    /**
     * The square root, a float32: {@code float32(x)}, its square root rounded to float32 ({@code
     * torch.sqrt} on a float32 tensor). It needs a value known to be non-negative, as log does, and
     * leaves one.
     */
    record Sqrt() implements DenseOp {
        /** This operator's declaration ({@link OpDefinition}). */
        public static final OpDefinition DEFINITION =
                OpDefinition.constant(
                        "sqrt",
                        new Sqrt(),
                        "`sqrt(x)` as a float32: `float32(x)`, its square root rounded to float32;"
                                + " after `neg2zero`, a `clamp` with `lo >= 0`, a `bucketize`,"
                                + " `log` or another `sqrt`",
                        "`torch.sqrt`; priced as `log` in the cost report (a unary float"
                                + " function; the papers price no square root)",
                        OpDefinition.DENSE,
                        "log",
                        128);

        @Override
        public ValueType outType(ValueType in) {
            return ValueType.float32;
        }

        @Override
        public java.util.Optional<String> denseProblem(
                ValueType type, boolean nonNegative, boolean last) {
            return needsNonNegative(
                    "sqrt", nonNegative, "(the square root of a negative value is NaN)");
        }

        @Override
        public ColumnPasses.Pass pass(ColumnPasses.Group g) {
            return new ColumnPasses.Pass(g.width, g.fields, g.inFloat) {
                @Override
                void run(int[] a, long[][] keys, int[][] offsets, int rows) {
                    for (int r = 0, base = 0; r < rows; r++, base += w) {
                        for (int f : fields) {
                            a[base + f] = sqrt(a[base + f], inFloat);
                        }
                    }
                }
            };
        }

        /** The operator on one value's bits, an int32 or (with {@code inFloat}) a float32. */
        public static int sqrt(int bits, boolean inFloat) {
            float x = inFloat ? Float.intBitsToFloat(bits) : (float) bits;
            return Float.floatToRawIntBits((float) Math.sqrt(x));
        }
    }

    /** The bucket among {@code borders} ({@link Bucketize}), an int32. */
    record BucketizeOp(double[] borders, boolean right) implements DenseOp {
        /**
         * The most borders a bucketize takes (each decoder keeps them, metadata.json lists them).
         */
        public static final int MAX_BORDERS = 1 << 16;

        /** This operator's declaration ({@link OpDefinition}). */
        public static final OpDefinition DEFINITION =
                new OpDefinition(
                        "bucketize",
                        BucketizeOp.class,
                        List.of("borders", "right"),
                        "`borders`: non-decreasing numbers, at most 65,536; `right`: default `true`",
                        "an int32 bucket from 0 to the number of borders: with `right: true` the number of borders strictly below the value (`torch.bucketize(right=False)`, TorchRec); with `right: false` the number at or below it (`numpy.digitize`); NaN to the last bucket",
                        "RAP Bucketize, PreSto",
                        OpDefinition.DENSE,
                        "bucketize",
                        119,
                        p ->
                                new BucketizeOp(
                                        p.numbers("borders", MAX_BORDERS), p.flag("right", true)));

        @Override
        public ValueType outType(ValueType in) {
            return ValueType.int32;
        }

        @Override
        public boolean nonNegativeAfter(boolean before) {
            return true;
        }

        @Override
        public ColumnPasses.Pass pass(ColumnPasses.Group g) {
            return new ColumnPasses.BucketizePass(
                    g.width,
                    g.fields,
                    g.inFloat,
                    g.each(BucketizeOp.class, BucketizeOp::bucketize, Bucketize[]::new));
        }

        public BucketizeOp {
            new Bucketize(borders, right); // validates (the record's fields are not set yet)
            for (int i = 0; i < borders.length; i++) {
                if (!Double.isFinite(borders[i])) {
                    throw new IllegalArgumentException(
                            "bucketize border " + i + " must be finite, not " + borders[i]);
                }
            }
            borders = borders.clone();
        }

        /** The function this operator applies. */
        public Bucketize bucketize() {
            return new Bucketize(borders, right);
        }

        @Override
        public double[] borders() {
            return borders.clone();
        }

        @Override
        public String label() {
            StringBuilder sb = new StringBuilder("bucketize(");
            for (int i = 0; i < borders.length; i++) {
                sb.append(i > 0 ? "," : "").append(Op.number(borders[i]));
            }
            return sb.append(right ? ")" : ";right=false)").toString();
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof BucketizeOp b
                    && right == b.right
                    && Arrays.equals(borders, b.borders);
        }

        @Override
        public int hashCode() {
            return 31 * Arrays.hashCode(borders) + Boolean.hashCode(right);
        }

        @Override
        public String toString() {
            return label();
        }
    }

    /** The Box-Cox transform ({@link BoxCox}), a float32. */
    record BoxCoxOp(double lambda) implements DenseOp {
        /** This operator's declaration ({@link OpDefinition}). */
        public static final OpDefinition DEFINITION =
                new OpDefinition(
                        "boxcox",
                        BoxCoxOp.class,
                        List.of("lambda"),
                        "`lambda`: a number",
                        "`(x^lambda - 1) / lambda`, `log x` at `lambda = 0`, as a float32; NaN for `x < 0`",
                        "`scipy.special.boxcox`, RAP BoxCox",
                        OpDefinition.DENSE,
                        "boxcox",
                        120,
                        p -> new BoxCoxOp(p.number("lambda")));

        @Override
        public ValueType outType(ValueType in) {
            return ValueType.float32;
        }

        @Override
        public boolean nonNegativeAfter(boolean before) {
            return false;
        }

        @Override
        public ColumnPasses.Pass pass(ColumnPasses.Group g) {
            return new ColumnPasses.BoxCoxPass(
                    g.width,
                    g.fields,
                    g.inFloat,
                    g.each(BoxCoxOp.class, BoxCoxOp::boxcox, BoxCox[]::new));
        }

        public BoxCoxOp {
            new BoxCox(lambda); // validates
        }

        /** The function this operator applies. */
        public BoxCox boxcox() {
            return new BoxCox(lambda);
        }

        @Override
        public String label() {
            return "boxcox(" + Op.number(lambda) + ")";
        }
    }

    /**
     * The logit ({@link Logit}), a float32; {@code eps} NaN for none (no clamping), else in {@code
     * [0, 0.5]}.
     */
    record LogitOp(double eps) implements DenseOp {
        /** This operator's declaration ({@link OpDefinition}). */
        public static final OpDefinition DEFINITION =
                new OpDefinition(
                        "logit",
                        LogitOp.class,
                        List.of("eps"),
                        "`eps` (optional): in `[0, 0.5]`",
                        "`log(p / (1 - p))` as a float32, the input first clamped to `[eps, 1 - eps]` when `eps` is given; without it values outside `[0, 1]` give NaN, 0 and 1 give -inf and +inf",
                        "`torch.logit`, RAP Logit",
                        OpDefinition.DENSE,
                        "logit",
                        121,
                        p -> new LogitOp(p.has("eps") ? p.number("eps") : Double.NaN));

        @Override
        public ValueType outType(ValueType in) {
            return ValueType.float32;
        }

        @Override
        public boolean nonNegativeAfter(boolean before) {
            return false;
        }

        @Override
        public ColumnPasses.Pass pass(ColumnPasses.Group g) {
            return new ColumnPasses.LogitPass(
                    g.width,
                    g.fields,
                    g.inFloat,
                    g.each(LogitOp.class, LogitOp::logit, Logit[]::new));
        }

        public LogitOp {
            if (!Double.isNaN(eps)) {
                Logit.clamped(eps); // validates
            }
        }

        /** {@code torch.logit(x)}. */
        public static LogitOp unclamped() {
            return new LogitOp(Double.NaN);
        }

        /** The function this operator applies. */
        public Logit logit() {
            return Double.isNaN(eps) ? Logit.unclamped() : Logit.clamped(eps);
        }

        @Override
        public String label() {
            return Double.isNaN(eps) ? "logit" : "logit(" + Op.number(eps) + ")";
        }
    }

    /**
     * Converts the value to {@code to}: int32 to float32 rounds to the nearest float; float32 to
     * int32 truncates toward zero, saturating at the int32 bounds, NaN to 0 (Java's narrowing).
     */
    record Cast(ValueType to) implements DenseOp {
        /** This operator's declaration ({@link OpDefinition}). */
        public static final OpDefinition DEFINITION =
                new OpDefinition(
                        "cast",
                        Cast.class,
                        List.of("to"),
                        "`to`: `\"int32\"` or `\"float32\"` (not the current type)",
                        "int32 to float32: the nearest float; float32 to int32: toward zero, saturating at the int32 bounds, NaN to 0 (Java's narrowing)",
                        "RAP Cast",
                        OpDefinition.DENSE,
                        "cast",
                        122,
                        p -> new Cast(p.valueType("to")));

        @Override
        public ValueType outType(ValueType in) {
            return to;
        }

        @Override
        public java.util.Optional<String> denseProblem(
                ValueType type, boolean nonNegative, boolean last) {
            return to == type
                    ? java.util.Optional.of("the value is already " + type + " here")
                    : java.util.Optional.empty();
        }

        @Override
        public ColumnPasses.Pass pass(ColumnPasses.Group g) {
            return new ColumnPasses.Cast(g.width, g.fields, g.inFloat);
        }

        @Override
        public String label() {
            return "cast(" + to + ")";
        }
    }

    /**
     * RAP's Onehot with the last category dropped ({@link OneHot}): an int32 category becomes
     * {@code size - 1} int32 columns; the last operator of a dense chain.
     */
    record OneHotOp(int size) implements DenseOp {
        /** This operator's declaration ({@link OpDefinition}). */
        public static final OpDefinition DEFINITION =
                new OpDefinition(
                        "onehot",
                        OneHotOp.class,
                        List.of("size"),
                        "`size`: 2 to 4,096",
                        "dense only, last in its chain, on an int32 category (e.g. after `bucketize`): the value becomes `size - 1` int32 columns of the row, 1 at the category and 0 elsewhere; the last category (`size - 1`) and any value outside `[0, size)` are all zeros (drop-last: `torch.nn.functional.one_hot(v, size)[:-1]`, where torch refuses out-of-range values). `metadata.json` lists such columns under `onehot_columns` (their width), `rows.parquet` names them `I3_0`..",
                        "RAP Onehot",
                        OpDefinition.DENSE,
                        "onehot",
                        127,
                        p -> new OneHotOp(p.intValue("size", 2)));

        @Override
        public java.util.Optional<String> denseProblem(
                ValueType type, boolean nonNegative, boolean last) {
            if (!last) {
                return java.util.Optional.of(
                        "onehot must come last (its value is several columns)");
            }
            if (type != ValueType.int32) {
                return java.util.Optional.of(
                        "onehot takes an int32 category, and the value is a float32 here"
                                + " (bucketize or cast it first)");
            }
            return java.util.Optional.empty();
        }

        public OneHotOp {
            new OneHot(size); // validates
        }

        /** The function this operator applies. */
        public OneHot onehot() {
            return new OneHot(size);
        }

        @Override
        public String label() {
            return "onehot(" + size + ")";
        }
    }
}
