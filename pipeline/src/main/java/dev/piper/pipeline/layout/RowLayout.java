package dev.piper.pipeline.layout;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;

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
 * <p>A sparse column may be a <b>list</b> (multi-hot): a field of ids separated by {@code
 * listSeparator}, each a hexadecimal id like a single-valued column's; an empty field is an empty
 * list. A list column's values travel as an offsets array and a values array, and leave the fixed
 * part of the output row ({@link #rowBytes()}) for files of their own.
 *
 * @param dense number of dense columns, 1 to {@link #MAX_DENSE}
 * @param sparse number of sparse (categorical) columns, 1 to {@link #MAX_SPARSE}
 *     <p><b>Generated</b> columns {@code G1..G<n>} (PreSto's generated features) are not in the
 *     input: each decodes the field of a dense column again ({@code generatedFrom}), with a chain
 *     of its own (a bucketize, typically), and sits in the row after the dense columns. Field
 *     numbers: the label, {@code I1..I<dense>}, {@code G1..G<n>}, then the sparse columns; an input
 *     line holds {@link #inputFields()} of them (no generated ones).
 * @param dense number of dense columns, 1 to {@link #MAX_DENSE}
 * @param sparse number of sparse (categorical) columns, 1 to {@link #MAX_SPARSE}
 * @param listColumns the sparse columns (0-based, ascending) that hold lists
 * @param listSeparator the character between a list's ids in a text field
 * @param generatedFrom for each generated column, the dense column (0-based) it decodes
 */
public record RowLayout(
        int dense,
        int sparse,
        List<Integer> listColumns,
        char listSeparator,
        List<Integer> generatedFrom)
        implements Serializable {

    /** Criteo's layout (Kaggle and Terabyte): I1..I13, C1..C26. */
    public static final RowLayout CRITEO = new RowLayout(CriteoLayout.DENSE, CriteoLayout.SPARSE);

    /** The separator of list ids unless a spec names another. */
    public static final char DEFAULT_LIST_SEPARATOR = ',';

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
        listColumns = List.copyOf(listColumns);
        for (int i = 0; i < listColumns.size(); i++) {
            int c = listColumns.get(i);
            if (c < 0 || c >= sparse || (i > 0 && c <= listColumns.get(i - 1))) {
                throw new IllegalArgumentException(
                        "list columns must be distinct sparse columns in ascending order: "
                                + listColumns);
            }
        }
        generatedFrom = List.copyOf(generatedFrom);
        if (generatedFrom.size() > MAX_DENSE) {
            throw new IllegalArgumentException(
                    "at most " + MAX_DENSE + " generated columns, not " + generatedFrom.size());
        }
        for (int d : generatedFrom) {
            if (d < 0 || d >= dense) {
                throw new IllegalArgumentException(
                        "a generated column decodes a dense column I1..I" + dense + ", not " + d);
            }
        }
        if (!isValidSeparator(listSeparator)) {
            throw new IllegalArgumentException(
                    "a list separator must be a printable ASCII character other than a hex digit,"
                            + " not '"
                            + listSeparator
                            + "'");
        }
    }

    /** A layout without list columns. */
    public RowLayout(int dense, int sparse) {
        this(dense, sparse, List.of(), DEFAULT_LIST_SEPARATOR);
    }

    /** A layout without generated columns. */
    public RowLayout(int dense, int sparse, List<Integer> listColumns, char listSeparator) {
        this(dense, sparse, listColumns, listSeparator, List.of());
    }

    /** The number of generated columns. */
    public int generated() {
        return generatedFrom.size();
    }

    /** Fields of an input line: the label, the dense and the sparse columns. */
    public int inputFields() {
        return 1 + dense + sparse;
    }

    /** The field number of the {@code i}-th field of an input line. */
    public int fieldOfInput(int i) {
        return i <= dense ? i : i + generatedFrom.size();
    }

    /**
     * Whether {@code ch} may separate a list's ids: a printable ASCII character (a space too) that
     * is no hex digit, so it cannot be read as part of an id.
     */
    public static boolean isValidSeparator(char ch) {
        return ch >= ' '
                && ch < 127
                && !(ch >= '0' && ch <= '9')
                && !(ch >= 'a' && ch <= 'f')
                && !(ch >= 'A' && ch <= 'F');
    }

    /** Whether sparse column {@code c} holds lists. */
    public boolean isList(int c) {
        return listColumns.contains(c);
    }

    /** The names of the sparse columns that hold lists ({@code C1}, ...), ascending. */
    public List<String> listNames() {
        List<String> names = new ArrayList<>(listColumns.size());
        for (int c : listColumns) {
            names.add(CriteoLayout.sparseName(c));
        }
        return names;
    }

    /** Whether any sparse column holds lists. */
    public boolean hasLists() {
        return !listColumns.isEmpty();
    }

    /** The sparse columns that hold one id per row, ascending. */
    public int[] scalarColumns() {
        List<Integer> out = new ArrayList<>(sparse);
        for (int c = 0; c < sparse; c++) {
            if (!isList(c)) {
                out.add(c);
            }
        }
        return out.stream().mapToInt(Integer::intValue).toArray();
    }

    /** Fields of a row: the label, the dense, the generated and the sparse columns. */
    public int fields() {
        return 1 + dense + generatedFrom.size() + sparse;
    }

    /**
     * Values of a row's label, dense and generated part, as blocks hold them row-major; also the
     * field number of the first sparse column.
     */
    public int labelDenseWidth() {
        return 1 + dense + generatedFrom.size();
    }

    /**
     * Bytes of one output row of int32 values: the label, the dense columns and the single-valued
     * sparse columns (list columns are written apart).
     */
    public int rowBytes() {
        return (fields() - listColumns.size()) * Integer.BYTES;
    }

    /**
     * Bytes of one output row when label/dense slots become onehot columns: {@link #rowBytes()}
     * with the {@code size - 1} values of each slot of a {@code size} in {@code onehot} (one size
     * per label/dense slot, 0 for none; null for no onehot at all) in place of one.
     */
    public int rowBytes(int[] onehot) {
        int extra = 0;
        if (onehot != null) {
            for (int size : onehot) {
                if (size > 0) {
                    extra += size - 2;
                }
            }
        }
        return rowBytes() + extra * Integer.BYTES;
    }

    /** Whether field {@code f} is the label, a dense or a generated column (an int32 slot). */
    public boolean isLabelOrDense(int f) {
        return f < labelDenseWidth();
    }

    /** Whether field {@code f} is a generated column. */
    public boolean isGenerated(int f) {
        return f > dense && f < labelDenseWidth();
    }

    /** The field number of sparse column {@code c}. */
    public int sparseField(int c) {
        return labelDenseWidth() + c;
    }

    /** The name of field {@code f}: {@code label}, {@code I1}.., {@code G1}.., {@code C1}... */
    public String fieldName(int f) {
        if (f == 0) {
            return "label";
        }
        if (f <= dense) {
            return "I" + f;
        }
        return f < labelDenseWidth()
                ? "G" + (f - dense)
                : CriteoLayout.sparseName(f - labelDenseWidth());
    }

    /**
     * The field number of a field's name ({@code label}, {@code I5}, {@code G2}, {@code C3}), or
     * -1.
     */
    public int fieldOf(String name) {
        if (name.equals("label")) {
            return 0;
        }
        char kind = name.isEmpty() ? ' ' : name.charAt(0);
        if (name.length() < 2 || (kind != 'I' && kind != 'C' && kind != 'G')) {
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
        if (kind == 'I') {
            return n <= dense ? n : -1;
        }
        if (kind == 'G') {
            return n <= generatedFrom.size() ? dense + n : -1;
        }
        return n <= sparse ? labelDenseWidth() + n - 1 : -1;
    }

    /**
     * {@code 13 dense, 26 sparse}, as messages name a layout; with lists, e.g. {@code 504 dense, 42
     * sparse (lists: C1..C42, separated by ',')}.
     */
    @Override
    public String toString() {
        String s = dense + " dense, " + sparse + " sparse";
        if (!generatedFrom.isEmpty()) {
            s += ", " + generatedFrom.size() + " generated";
        }
        if (listColumns.isEmpty()) {
            return s;
        }
        return s + " (lists: " + ranges(listColumns) + ", separated by '" + listSeparator + "')";
    }

    /** Sparse columns as names and ranges: {@code C1..C3, C7}. */
    public static String ranges(List<Integer> columns) {
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < columns.size(); ) {
            int j = i;
            while (j + 1 < columns.size() && columns.get(j + 1) == columns.get(j) + 1) {
                j++;
            }
            if (out.length() > 0) {
                out.append(", ");
            }
            out.append('C').append(columns.get(i) + 1);
            if (j > i) {
                out.append("..C").append(columns.get(j) + 1);
            }
            i = j + 1;
        }
        return out.toString();
    }
}
