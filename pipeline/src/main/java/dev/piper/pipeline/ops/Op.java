package dev.piper.pipeline.ops;

import java.io.Serializable;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

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

    /** Splits the field out of the line (every chain starts with it). */
    record Decode() implements Op {
        public String name() {
            return "decode";
        }
    }

    /** An empty field becomes 0 (id 0 for categorical columns). */
    record FillMissing() implements Op {
        public String name() {
            return "fill_missing";
        }
    }

    /**
     * An empty field becomes {@code value} (RAP's FillNull): an int32 for the label and dense
     * columns, an unsigned id below 2^63 for categorical ones. Takes fill_missing's place.
     */
    record FillNull(long value) implements Op {
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
        @Override
        public ColumnPasses.Pass pass(ColumnPasses.Group g) {
            return new ColumnPasses.Neg2Zero(g.width, g.fields, g.inFloat);
        }

        public String name() {
            return "neg2zero";
        }
    }

    /** {@code log(x + 1)}, a float32. */
    record Log() implements Op {
        @Override
        public ColumnPasses.Pass pass(ColumnPasses.Group g) {
            return new ColumnPasses.Log(g.width, g.fields, g.inFloat);
        }

        public String name() {
            return "log";
        }
    }

    /** Into {@code [lo, hi]} ({@link Clamp}); an int32 column to the integers inside. */
    record ClampOp(double lo, double hi) implements Op {
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

    /** The bucket among {@code borders} ({@link Bucketize}), an int32. */
    record BucketizeOp(double[] borders, boolean right) implements Op {
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
        public String name() {
            return "hex2int";
        }
    }

    /** {@code id mod m} (unsigned), {@code m > 0}. */
    record Modulus(long m) implements Op {
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

    /**
     * Every operator a spec may use, in the order docs list them, with the parameters a spec may
     * give it (those {@code SpecParser} reads; any other is refused naming it). {@code
     * SpecParserTest} parses every operator with a stray parameter.
     */
    Map<String, List<String>> PARAMETERS = parameters();

    /** Every operator name a spec may use: {@link #PARAMETERS}' keys. */
    List<String> NAMES = List.copyOf(PARAMETERS.keySet());

    private static Map<String, List<String>> parameters() {
        Map<String, List<String>> p = new LinkedHashMap<>();
        p.put("decode", List.of());
        p.put("fill_missing", List.of());
        p.put("fill_null", List.of("value"));
        p.put("neg2zero", List.of());
        p.put("clamp", List.of("lo", "hi"));
        p.put("log", List.of());
        p.put("bucketize", List.of("borders", "right"));
        p.put("boxcox", List.of("lambda"));
        p.put("logit", List.of("eps"));
        p.put("cast", List.of("to"));
        p.put("hex2int", List.of());
        p.put("modulus", List.of("m"));
        p.put("sigrid_hash", List.of("salt", "max"));
        p.put("mapid", List.of("file", "default"));
        p.put("onehot", List.of("size"));
        p.put("firstx", List.of("x"));
        p.put("ngram", List.of("n"));
        p.put(
                "vocab",
                List.of(
                        "min_count",
                        "oov_buckets",
                        "max_size",
                        "import",
                        "capacity",
                        "evict",
                        "ttl"));
        return Collections.unmodifiableMap(p);
    }

    /** A parameter as chains print it: integral values without a fraction. */
    static String number(double v) {
        if (v == Math.rint(v) && Math.abs(v) < 1e15) {
            return Long.toString((long) v);
        }
        return Double.toString(v);
    }
}
