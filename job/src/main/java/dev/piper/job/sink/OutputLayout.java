package dev.piper.job.sink;

import dev.piper.operators.decode.CriteoLayout;

/** File names of the batch output directory (the contract in {@code docs/SEMANTICS.md}). */
public final class OutputLayout {

    public static final String ROWS = "rows.bin";
    public static final String VOCAB_DIR = "vocab";
    public static final String DEAD_LETTERS = "dead-letters.jsonl";
    public static final String METADATA = "metadata.json";

    /** Name of the output format in {@code metadata.json}. */
    public static final String FORMAT = "piper-dlrm-criteo";

    /** Version of the output format; bumped on any change of the files' layout. */
    public static final int FORMAT_VERSION = 1;

    private OutputLayout() {}

    /** Path of column {@code c}'s vocabulary file relative to the output directory. */
    public static String vocabFile(int c) {
        return VOCAB_DIR + "/" + CriteoLayout.sparseName(c) + ".tsv";
    }
}
