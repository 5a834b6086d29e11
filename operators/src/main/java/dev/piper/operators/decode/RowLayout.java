package dev.piper.operators.decode;

import java.io.Serializable;

/**
 * The fields of a pipeline's rows: a label, {@code dense} integer columns {@code I1..I<dense>} and
 * {@code sparse} categorical columns {@code C1..C<sparse>}, in that order, in the input line (tab
 * separated) and in the output row. Criteo's is {@link #CRITEO} (13 and 26); PreSto's production
 * mixes have 504 and 42. A pipeline spec declares its layout ({@code input.dense}, {@code
 * input.sparse}); the decoder, the blocks and the output are sized by it.
 *
 * <p>Fields are numbered from 0: the label, then {@code 1..dense} the dense columns, then the
 * sparse columns. Sparse columns are also numbered on their own from 0 ({@code c}).
 *
 * @param dense number of dense columns, 1 to {@link #MAX_DENSE}
 * @param sparse number of sparse (categorical) columns, 1 to {@link #MAX_SPARSE}
 */
public record RowLayout(int dense, int sparse) implements Serializable {

    /** Criteo's layout (Kaggle and Terabyte): I1..I13, C1..C26. */
    public static final RowLayout CRITEO = new RowLayout(CriteoLayout.DENSE, CriteoLayout.SPARSE);

    /** The most dense columns a layout may have. */
    public static final int MAX_DENSE = 4096;

    /**
     * The most sparse columns a layout may have: each is a vocabulary with its own key group, so a
     * job's maximum parallelism must be at least the sparse columns of all its pipelines.
     */
    public static final int MAX_SPARSE = 1024;

    public RowLayout {
        if (dense < 1 || dense > MAX_DENSE) {
            throw new IllegalArgumentException(
                    "dense columns must be 1 to " + MAX_DENSE + ", not " + dense);
        }
        if (sparse < 1 || sparse > MAX_SPARSE) {
            throw new IllegalArgumentException(
                    "sparse columns must be 1 to " + MAX_SPARSE + ", not " + sparse);
        }
    }

    /** Fields of a row: the label, the dense and the sparse columns. */
    public int fields() {
        return 1 + dense + sparse;
    }

    /** Values of a row's label and dense part, as blocks hold them row-major. */
    public int labelDenseWidth() {
        return 1 + dense;
    }

    /** Bytes of one output row of int32 values. */
    public int rowBytes() {
        return fields() * Integer.BYTES;
    }

    /** Whether field {@code f} is the label or a dense column. */
    public boolean isLabelOrDense(int f) {
        return f <= dense;
    }

    /** The field number of sparse column {@code c}. */
    public int sparseField(int c) {
        return 1 + dense + c;
    }

    /** The name of field {@code f}: {@code label}, {@code I1}.., {@code C1}... */
    public String fieldName(int f) {
        if (f == 0) {
            return "label";
        }
        return f <= dense ? "I" + f : "C" + (f - dense);
    }

    /** The name of sparse column {@code c} (0-based): {@code C1}... */
    public String sparseName(int c) {
        return "C" + (c + 1);
    }

    /** The field number of a field's name ({@code label}, {@code I5}, {@code C3}), or -1. */
    public int fieldOf(String name) {
        if (name.equals("label")) {
            return 0;
        }
        if (name.length() < 2 || (name.charAt(0) != 'I' && name.charAt(0) != 'C')) {
            return -1;
        }
        int n = 0;
        for (int i = 1; i < name.length(); i++) {
            char ch = name.charAt(i);
            if (ch < '0' || ch > '9' || (i == 1 && ch == '0') || n > MAX_DENSE) {
                return -1;
            }
            n = n * 10 + (ch - '0');
        }
        if (name.charAt(0) == 'I') {
            return n <= dense ? n : -1;
        }
        return n <= sparse ? dense + n : -1;
    }

    /** {@code 13 dense, 26 sparse}, as messages name a layout. */
    @Override
    public String toString() {
        return dense + " dense, " + sparse + " sparse";
    }
}
