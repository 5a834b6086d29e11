package dev.piper.output;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.piper.pipeline.ops.ColumnProgram;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Locale;

/**
 * How the batch output holds its rows: {@code rows.bin} (DLRM's layout) or {@code rows.parquet}.
 */
public enum RowsFormat {
    /** {@code rows.bin}: 40 little-endian int32 per row, no header (DLRM's {@code .bin}). */
    DLRM_ROWS(
            "dlrm-rows",
            OutputLayout.ROWS,
            "rows.bin: 40 little-endian int32 per row, DLRM's layout",
            false) {
        @Override
        RowsFile open(Path file, ColumnProgram program) throws IOException {
            DirectFileOutput out = new DirectFileOutput(file, true);
            int rowBytes = program.rowBytes();
            return new RowsFile() {
                @Override
                public void write(byte[] bytes, int rows, int[][] offsets, int[][] indices)
                        throws IOException {
                    out.write(bytes, 0, rows * rowBytes);
                }

                @Override
                public void finish() throws IOException {
                    out.close();
                }

                @Override
                public void abort() throws IOException {
                    out.abort();
                    out.close();
                }
            };
        }

        @Override
        void describe(ObjectNode root, ColumnProgram program, String rowColumns, String lists) {
            root.put("row_bytes", program.rowBytes());
            root.put(
                    "row_layout",
                    program.rowBytes() / Integer.BYTES
                            + " little-endian int32 per row: "
                            + rowColumns
                            + " (ids are vocabulary indices)"
                            + (lists.isEmpty()
                                    ? ""
                                    : "; the list columns " + lists + " are in lists/"));
        }

        @Override
        String listLayout() {
            return "not in the rows: per list column Cj, lists/Cj.lengths (one little-endian int32"
                    + " per row, its number of ids) and lists/Cj.values (the ids' vocabulary"
                    + " indices, little-endian int32, rows in order)";
        }
    },
    /** {@code rows.parquet}: one Parquet column per field ({@link ParquetRows}). */
    PARQUET(
            "parquet",
            OutputLayout.ROWS_PARQUET,
            "rows.parquet: a column per field; float32 columns as FLOAT",
            true) {
        @Override
        RowsFile open(Path file, ColumnProgram program) throws IOException {
            return new ParquetRows(file, program);
        }

        @Override
        void describe(ObjectNode root, ColumnProgram program, String rowColumns, String lists) {
            root.put(
                    "row_layout",
                    "one required Parquet column per field: "
                            + rowColumns
                            + " (INT32, FLOAT for float32_columns; ids are vocabulary indices)"
                            + (lists.isEmpty()
                                    ? ""
                                    : ", and the list columns "
                                            + lists
                                            + " as required LISTs of INT32 vocabulary indices"));
        }

        @Override
        String listLayout() {
            return "in rows.parquet: each list column a required LIST of INT32 vocabulary indices";
        }
    };

    private final String id;
    private final String file;
    private final String summary;
    private final boolean listsInRows;

    RowsFormat(String id, String file, String summary, boolean listsInRows) {
        this.id = id;
        this.file = file;
        this.summary = summary;
        this.listsInRows = listsInRows;
    }

    /** Opens {@code file} for the rows of {@code program}'s layout. */
    abstract RowsFile open(Path file, ColumnProgram program) throws IOException;

    /**
     * Describes the rows for {@code metadata.json}: {@code row_layout}, and what else a reader
     * needs (such as {@code row_bytes}).
     *
     * @param rowColumns the row's fields, as ranges ({@code label, I1..I13, C1..C26})
     * @param lists the list columns, as ranges; empty without any
     */
    abstract void describe(ObjectNode root, ColumnProgram program, String rowColumns, String lists);

    /** Where the list columns are, for {@code metadata.json}'s {@code list_layout}. */
    abstract String listLayout();

    /** Whether the list columns are in the rows file; if not, they go to lists/ apart. */
    public boolean listsInRows() {
        return listsInRows;
    }

    /** What the format writes, in a few words, for help and docs. */
    public String summary() {
        return summary;
    }

    /** Every format as {@code id (summary)}, for an option's help. */
    public static String described() {
        return String.join(
                " or ", Arrays.stream(values()).map(f -> f.id + " (" + f.summary + ")").toList());
    }

    /** The name on the command line and in {@code metadata.json}. */
    public String id() {
        return id;
    }

    /** The rows file in the output directory. */
    public String file() {
        return file;
    }

    /**
     * The format named {@code id}.
     *
     * @throws IllegalArgumentException naming the known formats
     */
    public static RowsFormat of(String id) {
        for (RowsFormat f : values()) {
            if (f.id.equals(id.toLowerCase(Locale.ROOT))) {
                return f;
            }
        }
        throw new IllegalArgumentException(
                "unknown output format \""
                        + id
                        + "\" (known: "
                        + String.join(", ", Arrays.stream(values()).map(RowsFormat::id).toList())
                        + ")");
    }
}
