package dev.piper.hwmodel;

import java.util.Locale;

/**
 * The preprocessing operators the model prices, by their model names ({@code
 * shared/hwmodel/COMBINING.md}); the job reports each column's chain in these names.
 */
public enum Operator {
    FILL_MISSING,
    NEG2ZERO,
    LOG,
    BUCKETIZE,
    HEX2INT,
    MODULUS,
    GENVOCAB,
    APPLYVOCAB,
    SIGRIDHASH,
    CLAMP,
    BOXCOX,
    LOGIT,
    CAST,
    MAPID,
    FIRSTX,
    NGRAM,
    ONEHOT;

    /** The model name, e.g. {@code genvocab}. */
    public String modelName() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** The operator of model name {@code name}. */
    public static Operator byModelName(String name) {
        for (Operator op : values()) {
            if (op.modelName().equals(name)) {
                return op;
            }
        }
        throw new IllegalArgumentException(
                "unknown operator \""
                        + name
                        + "\"; the model knows "
                        + java.util.List.of(values()));
    }

    /**
     * Whether the operator runs in pass {@code pass} (0-based) of a column's {@code passes} over
     * the data: with two (generate, then apply), GenVocab runs in the first, ApplyVocab in the
     * second, and every stateless operator in both, the data being streamed again.
     */
    public boolean runsIn(int pass, int passes) {
        if (passes == 1) {
            return true;
        }
        return switch (this) {
            case GENVOCAB -> pass == 0;
            case APPLYVOCAB -> pass == 1;
            default -> true;
        };
    }

    /** Whether the operator reads or writes a vocabulary table (whose tier sets its cost). */
    public boolean usesVocabulary() {
        return this == GENVOCAB || this == APPLYVOCAB;
    }
}
