package dev.piper.operators.decode;

/**
 * The Criteo row layout (Kaggle and Terabyte): a label, 13 dense integer columns I1..I13 and 26
 * categorical columns C1..C26, tab-separated. Output rows have the same 40 columns.
 */
public final class CriteoLayout {

    public static final int DENSE = 13;
    public static final int SPARSE = 26;
    public static final int FIELDS = 1 + DENSE + SPARSE;

    /** Label and dense values of one row, as carried by a {@code DenseChunk}. */
    public static final int LABEL_DENSE_WIDTH = 1 + DENSE;

    /** Bytes of one output row in {@code rows.bin}. */
    public static final int ROW_BYTES = FIELDS * Integer.BYTES;

    private CriteoLayout() {}

    /** The name of field {@code f} (0-based): {@code label}, {@code I1}.., {@code C1}... */
    public static String fieldName(int f) {
        if (f == 0) {
            return "label";
        }
        return f <= DENSE ? "I" + f : "C" + (f - DENSE);
    }

    /** The name of categorical column {@code c} (0-based): {@code C1}... */
    public static String sparseName(int c) {
        return "C" + (c + 1);
    }
}
