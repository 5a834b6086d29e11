package dev.piper.pipeline.ops;

import java.io.Serializable;
import java.util.List;
import java.util.Objects;

/**
 * One operator of a column's chain, as a spec names it: PIPER's set (decode, fill_missing,
 * neg2zero, log, hex2int, modulus, vocab), hash64 for string ids, and RAP's numeric and hashing
 * operators (fill_null, clamp, bucketize, boxcox, logit, cast, sigrid_hash). Parameters are typed
 * fields, validated on construction with messages that name the parameter. {@link #label()} is the
 * operator as chains print it; {@link Chains} says which chains are valid.
 */
public sealed interface Op extends Serializable
        permits Op.Decode,
                Op.FillMissing,
                Op.FillNull,
                DenseOp,
                Op.Hex2Int,
                Op.Hash64,
                IdOp,
                Op.Vocab {

    /** The operator's name in specs, as its {@link OpDefinition} declares it. */
    default String name() {
        return OpDefinition.of(getClass()).name();
    }

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

        @Override
        public String label() {
            return "fill_null(" + value + ")";
        }
    }

    /** The value types a dense column's value can have. */
    enum ValueType {
        int32,
        float32
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
    }

    /**
     * A string id to its 64-bit key, XXH64 with seed 0 over its UTF-8 bytes ({@link
     * dev.piper.pipeline.input.StringIds}); an integer id stays as it is. Takes hex2int's place in
     * the chain of a column of named-field input (JSON).
     */
    record Hash64() implements Op {
        /** This operator's declaration ({@link OpDefinition}). */
        public static final OpDefinition DEFINITION =
                OpDefinition.constant(
                        "hash64",
                        new Hash64(),
                        "named-field input (json, csv, avro, protobuf) only: a string id to its key, XXH64 with seed 0 over its UTF-8 bytes ([test vectors](#string-ids)); an integer id stays as it is. Takes hex2int's place; priced as hex2int (the id's parse)",
                        "xxHash (XXH64), as ClickHouse's `xxHash64` and Python's `xxhash`",
                        OpDefinition.IDS,
                        "hex2int",
                        129);
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
