package dev.piper.connectors.output;

import java.util.Arrays;
import java.util.Locale;

/**
 * How the batch output holds its rows: {@code rows.bin} (DLRM's layout) or {@code rows.parquet}.
 */
public enum RowsFormat {
    /** {@code rows.bin}: 40 little-endian int32 per row, no header (DLRM's {@code .bin}). */
    DLRM_ROWS("dlrm-rows", OutputLayout.ROWS),
    /** {@code rows.parquet}: one Parquet column per field ({@link ParquetRows}). */
    PARQUET("parquet", OutputLayout.ROWS_PARQUET);

    private final String id;
    private final String file;

    RowsFormat(String id, String file) {
        this.id = id;
        this.file = file;
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
