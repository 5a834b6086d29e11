package dev.piper.pipeline.ops;

/**
 * An operator's parameters as a spec gives them, read with their types checked: the spec parser
 * implements it, and a reader reports a missing or mistyped parameter naming the operator, the
 * parameter and the spec path (then the operator is not built). {@link OpDefinition#parse()} reads
 * through it.
 */
public interface OpParams {

    /** Whether the spec gives parameter {@code name}. */
    boolean has(String name);

    /** A finite number. */
    double number(String name);

    /** A non-empty array of at most {@code max} finite numbers. */
    double[] numbers(String name, int max);

    /** true or false; {@code fallback} when absent. */
    boolean flag(String name, boolean fallback);

    /** A 64-bit integer of at least {@code min}. */
    long longValue(String name, long min);

    /** A 32-bit integer of at least {@code min}. */
    int intValue(String name, int min);

    /** A non-empty string. */
    String text(String name);

    /** {@code "int32"} or {@code "float32"}. */
    Op.ValueType valueType(String name);

    /** A vocab operator's policy from its parameters (docs/SPECS.md, "Vocabulary policies"). */
    VocabularyPolicy vocabularyPolicy();

    /** No parameters at all: what an operator without any is built from outside a spec. */
    static OpParams none() {
        return new OpParams() {
            @Override
            public boolean has(String name) {
                return false;
            }

            private IllegalArgumentException absent(String name) {
                return new IllegalArgumentException("no parameter \"" + name + "\" given");
            }

            @Override
            public double number(String name) {
                throw absent(name);
            }

            @Override
            public double[] numbers(String name, int max) {
                throw absent(name);
            }

            @Override
            public boolean flag(String name, boolean fallback) {
                return fallback;
            }

            @Override
            public long longValue(String name, long min) {
                throw absent(name);
            }

            @Override
            public int intValue(String name, int min) {
                throw absent(name);
            }

            @Override
            public String text(String name) {
                throw absent(name);
            }

            @Override
            public Op.ValueType valueType(String name) {
                throw absent(name);
            }

            @Override
            public VocabularyPolicy vocabularyPolicy() {
                return VocabularyPolicy.FIRST_APPEARANCE;
            }
        };
    }
}
