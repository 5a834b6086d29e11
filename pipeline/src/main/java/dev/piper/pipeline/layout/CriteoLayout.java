package dev.piper.pipeline.layout;

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

    /**
     * Categorical cardinalities of the Criteo Kaggle training set, C1..C26 (the vocabulary sizes
     * DLRM's preprocessing reports for it).
     */
    public static final int[] KAGGLE_CARDINALITY = {
        1460, 583, 10131227, 2202608, 305, 24, 12517, 633, 3, 93145, 5683, 8351593, 3194, 27, 14992,
        5461306, 10, 5652, 2173, 4, 7046547, 18, 15, 286181, 105, 142572
    };

    /**
     * Relative cost of a categorical column's vocabulary work, for placing columns on subtasks:
     * every column sees one value per row, and a larger vocabulary costs more per value (cache
     * misses, insertions). A heuristic, {@code 1 + log10(1 + Kaggle cardinality)}: from 1.6 for C9
     * (3 ids) to 8 for C3 (10M ids).
     */
    public static double[] vocabularyCosts() {
        double[] costs = new double[SPARSE];
        for (int c = 0; c < SPARSE; c++) {
            costs[c] = 1 + Math.log10(1 + KAGGLE_CARDINALITY[c]);
        }
        return costs;
    }

    private CriteoLayout() {}

    /** The name of field {@code f} (0-based): {@code label}, {@code I1}.., {@code C1}... */
    public static String fieldName(int f) {
        return RowLayout.CRITEO.fieldName(f);
    }

    /** The name of categorical column {@code c} (0-based): {@code C1}... */
    public static String sparseName(int c) {
        return "C" + (c + 1);
    }
}
