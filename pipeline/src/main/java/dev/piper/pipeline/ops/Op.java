package dev.piper.pipeline.ops;

import java.io.Serializable;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * One operator of a column's chain, as a spec names it: PIPER's set (decode, fill_missing,
 * neg2zero, log, hex2int, modulus, vocab) and RAP's numeric and hashing operators (fill_null,
 * clamp, bucketize, boxcox, logit, cast, sigrid_hash). Parameters are typed fields, validated on
 * construction with messages that name the parameter. {@link #label()} is the operator as chains
 * print it; {@link Chains} says which chains are valid.
 */
public sealed interface Op extends Serializable {

    /** The operator's name in specs. */
    String name();

    /** The operator with its parameters, as chains print it, e.g. {@code modulus(1000)}. */
    default String label() {
        return name();
    }

    /**
     * The column pass that runs this operator over {@code group}'s columns, every one of whose
     * operators is of this operator's class ({@link ColumnPasses} groups them). Operators the
     * decoder fuses into its parse (decode, fill_missing, fill_null, hex2int) and those of other
     * stages (vocab, onehot) run as no pass.
     */
    default ColumnPasses.Pass pass(ColumnPasses.Group group) {
        throw new IllegalArgumentException(name() + " does not run as a column pass");
    }

    /**
     * The type of the value this operator leaves in a dense chain, given a value of type {@code
     * in}: the same unless the operator says otherwise.
     */
    default ValueType outType(ValueType in) {
        return in;
    }

    /**
     * Why this operator cannot take a dense value of type {@code type}, known non-negative or not,
     * at the chain's end or not ({@link Chains}), if it cannot.
     */
    default java.util.Optional<String> denseProblem(
            ValueType type, boolean nonNegative, boolean last) {
        return java.util.Optional.empty();
    }

    /** Whether the value is known non-negative after this operator, given whether it was before. */
    default boolean nonNegativeAfter(boolean before) {
        return before;
    }

    /** Splits the field out of the line (every chain starts with it). */
    record Decode() implements Op {
        /** This operator's declaration ({@link OpDefinition}). */
        public static final OpDefinition DEFINITION =
                OpDefinition.constant(
                        "decode",
                        new Decode(),
                        "splits the field out of the line",
                        "PIPER",
                        OpDefinition.ALL_KINDS,
                        null,
                        110);

        public String name() {
            return "decode";
        }
    }

    /** An empty field becomes 0 (id 0 for categorical columns). */
    record FillMissing() implements Op {
        /** This operator's declaration ({@link OpDefinition}). */
        public static final OpDefinition DEFINITION =
                OpDefinition.constant(
                        "fill_missing",
                        new FillMissing(),
                        "an empty field becomes 0 (id 0 for a sparse column)",
                        "PIPER, DLRM",
                        OpDefinition.ALL_KINDS,
                        "fill_missing",
                        111);

        public String name() {
            return "fill_missing";
        }
    }

    /**
     * An empty field becomes {@code value} (RAP's FillNull): an int32 for the label and dense
     * columns, an unsigned id below 2^63 for categorical ones. Takes fill_missing's place.
     */
    record FillNull(long value) implements Op {
        /** This operator's declaration ({@link OpDefinition}). */
        public static final OpDefinition DEFINITION =
                new OpDefinition(
                        "fill_null",
                        FillNull.class,
                        List.of("value"),
                        "`value`: an int32 (label, dense), an id ≥ 0 (sparse)",
                        "an empty field becomes `value`",
                        "RAP FillNull",
                        OpDefinition.ALL_KINDS,
                        "fill_missing",
                        117,
                        p -> new FillNull(p.longValue("value", Long.MIN_VALUE)));

        public String name() {
            return "fill_null";
        }

        @Override
        public String label() {
            return "fill_null(" + value + ")";
        }
    }

    /** Negative values become 0. */
    record Neg2Zero() implements Op {
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

        public String name() {
            return "neg2zero";
        }
    }

    /** Into {@code [lo, hi]} ({@link Clamp}); an int32 column to the integers inside. */
    record ClampOp(double lo, double hi) implements Op {
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

        public String name() {
            return "clamp";
        }

        @Override
        public String label() {
            return "clamp(" + number(lo) + "," + number(hi) + ")";
        }
    }

    /** {@code log(x + 1)}, a float32. */
    record Log() implements Op {
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
            return nonNegative
                    ? java.util.Optional.empty()
                    : java.util.Optional.of(
                            "log needs neg2zero (or clamp with lo >= 0, or bucketize) before it"
                                    + " (log(x + 1) is undefined below -1)");
        }

        @Override
        public ColumnPasses.Pass pass(ColumnPasses.Group g) {
            return new ColumnPasses.Log(g.width, g.fields, g.inFloat);
        }

        public String name() {
            return "log";
        }
    }

    /**
     * The square root, a float32: {@code float32(x)}, its square root rounded to float32 ({@code
     * torch.sqrt} on a float32 tensor). It needs a value known to be non-negative, as log does, and
     * leaves one.
     */
    record Sqrt() implements Op {
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
            return nonNegative
                    ? java.util.Optional.empty()
                    : java.util.Optional.of(
                            "sqrt needs neg2zero (or clamp with lo >= 0, or bucketize) before it"
                                    + " (the square root of a negative value is NaN)");
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

        public String name() {
            return "sqrt";
        }
    }

    /** The bucket among {@code borders} ({@link Bucketize}), an int32. */
    record BucketizeOp(double[] borders, boolean right) implements Op {
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

        public String name() {
            return "bucketize";
        }

        @Override
        public double[] borders() {
            return borders.clone();
        }

        @Override
        public String label() {
            StringBuilder sb = new StringBuilder("bucketize(");
            for (int i = 0; i < borders.length; i++) {
                sb.append(i > 0 ? "," : "").append(number(borders[i]));
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
    record BoxCoxOp(double lambda) implements Op {
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

        public String name() {
            return "boxcox";
        }

        @Override
        public String label() {
            return "boxcox(" + number(lambda) + ")";
        }
    }

    /**
     * The logit ({@link Logit}), a float32; {@code eps} NaN for none (no clamping), else in {@code
     * [0, 0.5]}.
     */
    record LogitOp(double eps) implements Op {
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

        public String name() {
            return "logit";
        }

        @Override
        public String label() {
            return Double.isNaN(eps) ? "logit" : "logit(" + number(eps) + ")";
        }
    }

    /** The value types a dense column's value can have. */
    enum ValueType {
        int32,
        float32
    }

    /**
     * Converts the value to {@code to}: int32 to float32 rounds to the nearest float; float32 to
     * int32 truncates toward zero, saturating at the int32 bounds, NaN to 0 (Java's narrowing).
     */
    record Cast(ValueType to) implements Op {
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

        public String name() {
            return "cast";
        }

        @Override
        public String label() {
            return "cast(" + to + ")";
        }
    }

    /** Hexadecimal id to an unsigned 64-bit integer. */
    record Hex2Int() implements Op {
        /** This operator's declaration ({@link OpDefinition}). */
        public static final OpDefinition DEFINITION =
                OpDefinition.constant(
                        "hex2int",
                        new Hex2Int(),
                        "hexadecimal id to an unsigned 64-bit integer",
                        "PIPER, DLRM",
                        OpDefinition.IDS,
                        "hex2int",
                        114);

        public String name() {
            return "hex2int";
        }
    }

    /** {@code id mod m} (unsigned), {@code m > 0}. */
    record Modulus(long m) implements Op {
        /** This operator's declaration ({@link OpDefinition}). */
        public static final OpDefinition DEFINITION =
                new OpDefinition(
                        "modulus",
                        Modulus.class,
                        List.of("m"),
                        "`m`: a positive integer",
                        "key = id mod m (unsigned)",
                        "PIPER, DLRM",
                        OpDefinition.IDS,
                        "modulus",
                        115,
                        p -> new Modulus(p.longValue("m", 1)));

        @Override
        public ColumnPasses.Pass pass(ColumnPasses.Group g) {
            return new ColumnPasses.Modulus(g.width, g.fields, g.longs(Modulus.class, Modulus::m));
        }

        public Modulus {
            if (m <= 0) {
                throw new IllegalArgumentException("modulus m must be positive, not " + m);
            }
        }

        public String name() {
            return "modulus";
        }

        @Override
        public String label() {
            return "modulus(" + m + ")";
        }
    }

    /** Meta's SigridHash ({@link SigridHash}): the id hashed into {@code [0, max)}. */
    record SigridHashOp(long salt, long max) implements Op {
        /** This operator's declaration ({@link OpDefinition}). */
        public static final OpDefinition DEFINITION =
                new OpDefinition(
                        "sigrid_hash",
                        SigridHashOp.class,
                        List.of("salt", "max"),
                        "`salt`: int64, default 0; `max`: a positive integer",
                        "Meta's definition: `floorMod(hash_128_to_64(salt, twang_mix64(id)), max)` (folly's mixes, the hash read as signed), so keys lie in `[0, max)`",
                        "TorchRec, PreSto, RAP SigridHash",
                        OpDefinition.IDS,
                        "sigridhash",
                        123,
                        p ->
                                new SigridHashOp(
                                        p.has("salt") ? p.longValue("salt", Long.MIN_VALUE) : 0,
                                        p.longValue("max", 1)));

        @Override
        public ColumnPasses.Pass pass(ColumnPasses.Group g) {
            return new ColumnPasses.Sigrid(
                    g.width,
                    g.fields,
                    g.each(SigridHashOp.class, SigridHashOp::hash, SigridHash[]::new));
        }

        public SigridHashOp {
            new SigridHash(salt, max); // validates
        }

        /** The function this operator applies. */
        public SigridHash hash() {
            return new SigridHash(salt, max);
        }

        public String name() {
            return "sigrid_hash";
        }

        @Override
        public String label() {
            return "sigrid_hash(" + salt + "," + max + ")";
        }
    }

    /**
     * RAP's Mapid ({@link IdMap}): an id the table in {@code file} holds becomes its value; another
     * becomes {@code fallback}, or stays as it is when {@code fallback} is null.
     */
    record MapIdOp(String file, Long fallback) implements Op {
        /** This operator's declaration ({@link OpDefinition}). */
        public static final OpDefinition DEFINITION =
                new OpDefinition(
                        "mapid",
                        MapIdOp.class,
                        List.of("file", "default"),
                        "`file`: a table of `id<TAB>value` lines (unsigned decimals, an id at most once); `default` (optional): an id ≥ 0",
                        "an id the table holds becomes its value; another becomes `default`, or stays as it is without one. The table is read where the column's decoder runs (each decoder holds it: a fastutil map, about 24 bytes an id), once per file",
                        "RAP Mapid (\"maps feature IDs to fixed values\")",
                        OpDefinition.IDS,
                        "mapid",
                        124,
                        p ->
                                new MapIdOp(
                                        p.text("file"),
                                        p.has("default") ? p.longValue("default", 0) : null));

        @Override
        public ColumnPasses.Pass pass(ColumnPasses.Group g) {
            return new ColumnPasses.MapId(
                    g.width,
                    g.fields,
                    g.each(
                            MapIdOp.class,
                            op -> new IdMap(g.table(op.file()), op.fallback()),
                            IdMap[]::new));
        }

        public MapIdOp {
            if (file == null || file.isEmpty()) {
                throw new IllegalArgumentException("mapid needs a table file");
            }
        }

        public String name() {
            return "mapid";
        }

        @Override
        public String label() {
            return "mapid("
                    + file
                    + (fallback == null ? "" : ";default=" + Long.toUnsignedString(fallback))
                    + ")";
        }
    }

    /**
     * RAP's Onehot with the last category dropped ({@link OneHot}): an int32 category becomes
     * {@code size - 1} int32 columns; the last operator of a dense chain.
     */
    record OneHotOp(int size) implements Op {
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

        public String name() {
            return "onehot";
        }

        @Override
        public String label() {
            return "onehot(" + size + ")";
        }
    }

    /** RAP's FirstX ({@link FirstX}): a list cut to its first {@code x} ids; lists only. */
    record FirstXOp(int x) implements Op {
        /** This operator's declaration ({@link OpDefinition}). */
        public static final OpDefinition DEFINITION =
                new OpDefinition(
                        "firstx",
                        FirstXOp.class,
                        List.of("x"),
                        "`x`: an integer ≥ 1",
                        "lists only: a list cut to its first `min(x, length)` ids, no padding",
                        "RAP FirstX, TorchArrow `firstx`",
                        Set.of(Chains.Kind.list),
                        "firstx",
                        125,
                        p -> new FirstXOp(p.intValue("x", 1)));

        @Override
        public ColumnPasses.Pass pass(ColumnPasses.Group g) {
            return new ColumnPasses.ListPass(
                    g.width,
                    g.fields,
                    g.each(FirstXOp.class, FirstXOp::firstx, FirstX[]::new),
                    null);
        }

        public FirstXOp {
            if (x < 1) {
                throw new IllegalArgumentException("firstx \"x\" must be at least 1, not " + x);
            }
        }

        /** The function this operator applies. */
        public FirstX firstx() {
            return new FirstX(x);
        }

        public String name() {
            return "firstx";
        }

        @Override
        public String label() {
            return "firstx(" + x + ")";
        }
    }

    /**
     * RAP's Ngram ({@link Ngram}): a list's runs of {@code n} consecutive ids, each hashed into one
     * id; lists only.
     */
    record NgramOp(int n) implements Op {
        /** This operator's declaration ({@link OpDefinition}). */
        public static final OpDefinition DEFINITION =
                new OpDefinition(
                        "ngram",
                        NgramOp.class,
                        List.of("n"),
                        "`n`: 1 to 16",
                        "lists only: each run of `n` consecutive ids becomes one id, `h = x[i]`, then `h = hash_128_to_64(h, x[i+j])` for j = 1..n-1 (folly's mix, unsigned 64 bits); a list of k ids gives `max(0, k - n + 1)`. RAP describes Ngram as crossing several sparse features; this is the n-gram within one list. Follow it with `modulus` or `sigrid_hash` to bound the ids",
                        "RAP Ngram",
                        Set.of(Chains.Kind.list),
                        "ngram",
                        126,
                        p -> new NgramOp(p.intValue("n", 1)));

        @Override
        public ColumnPasses.Pass pass(ColumnPasses.Group g) {
            return new ColumnPasses.ListPass(
                    g.width, g.fields, null, g.each(NgramOp.class, NgramOp::ngram, Ngram[]::new));
        }

        public NgramOp {
            new Ngram(n); // validates
        }

        /** The function this operator applies. */
        public Ngram ngram() {
            return new Ngram(n);
        }

        public String name() {
            return "ngram";
        }

        @Override
        public String label() {
            return "ngram(" + n + ")";
        }
    }

    /**
     * GenVocab + ApplyVocab: the key's index of first appearance, under a {@link VocabularyPolicy}
     * (frequency threshold, OOV buckets, maximum size, imported entries; the default has none).
     */
    record Vocab(VocabularyPolicy policy) implements Op {
        /** This operator's declaration ({@link OpDefinition}). */
        public static final OpDefinition DEFINITION =
                new OpDefinition(
                        "vocab",
                        Vocab.class,
                        List.of(
                                "min_count",
                                "oov_buckets",
                                "max_size",
                                "import",
                                "capacity",
                                "evict",
                                "ttl"),
                        "`min_count`, `oov_buckets`, `max_size`, `import`, `capacity`, `evict`, `ttl`, all optional ([below](#vocabulary-policies))",
                        "GenVocab + ApplyVocab: the key's index of first appearance in the column",
                        "PIPER; thresholds, OOV buckets and bounds as NVTabular, tf.Transform, TorchRec offer them",
                        OpDefinition.IDS,
                        null,
                        116,
                        p -> new Vocab(p.vocabularyPolicy()));

        public Vocab {
            Objects.requireNonNull(policy, "policy");
        }

        /** DLRM's vocabulary: every key admitted at its first appearance, from index 0. */
        public Vocab() {
            this(VocabularyPolicy.FIRST_APPEARANCE);
        }

        public String name() {
            return "vocab";
        }

        @Override
        public String label() {
            return policy.label();
        }
    }

    /** Every operator name a spec may use ({@link OpDefinition#names()}). */
    static List<String> names() {
        return OpDefinition.names();
    }

    /** A parameter as chains print it: integral values without a fraction. */
    static String number(double v) {
        if (v == Math.rint(v) && Math.abs(v) < 1e15) {
            return Long.toString((long) v);
        }
        return Double.toString(v);
    }
}
