package dev.piper.output;

import dev.piper.pipeline.layout.RowLayout;
import dev.piper.pipeline.ops.ColumnProgram;
import dev.piper.pipeline.ops.Op.ValueType;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
import org.apache.parquet.schema.Types;

/**
 * {@code rows.parquet}: the rows of {@code rows.bin} as a Parquet file, one required column per
 * field in the row's order: {@code label}, {@code I1}.. (INT32, or FLOAT for a column the spec
 * makes float32), {@code C1}.. (INT32 vocabulary indices). Rows in input order, row groups of
 * {@link #ROW_GROUP_ROWS} rows, Snappy-compressed, dictionary encoding where it pays (Parquet drops
 * it for a column chunk whose dictionary outgrows a page).
 *
 * <p>Written from the block's row bytes value by value through {@link ColumnFileWriter}.
 */
final class ParquetRows implements RowsFile {

    /** Rows per row group: pyarrow's default, a good unit for a training loader's reads. */
    static final int ROW_GROUP_ROWS = 1 << 20;

    private final ColumnFileWriter writer;

    /** Per Parquet column (a field, or one of a onehot field's columns): whether it is FLOAT. */
    private final boolean[] isFloat;

    /** Per Parquet column, its list's index among the layout's list columns, or -1. */
    private final int[] list;

    ParquetRows(Path file, ColumnProgram program) throws IOException {
        RowLayout layout = program.layout();
        int[] onehot = program.onehotSizes();
        List<Boolean> floats = new ArrayList<>();
        List<Integer> lists = new ArrayList<>();
        for (int f = 0; f < layout.fields(); f++) {
            int columns = onehot != null && f < onehot.length && onehot[f] > 0 ? onehot[f] - 1 : 1;
            for (int k = 0; k < columns; k++) {
                floats.add(program.type(f) == ValueType.float32);
                lists.add(
                        layout.isLabelOrDense(f)
                                ? -1
                                : layout.listColumns().indexOf(f - layout.labelDenseWidth()));
            }
        }
        isFloat = new boolean[floats.size()];
        list = new int[lists.size()];
        for (int i = 0; i < isFloat.length; i++) {
            isFloat[i] = floats.get(i);
            list[i] = lists.get(i);
        }
        writer =
                new ColumnFileWriter(
                        file,
                        schema(program),
                        CompressionCodecName.SNAPPY,
                        ROW_GROUP_ROWS,
                        true,
                        Map.of(
                                "piper.format",
                                OutputLayout.format(program),
                                "piper.format.version",
                                Integer.toString(OutputLayout.FORMAT_VERSION)));
    }

    /**
     * The file's schema under {@code program}: a float32 column is FLOAT, any other INT32; a list
     * column is a required LIST of required INT32 indices (Parquet's three-level list: {@code
     * required group Cj (LIST) { repeated group list { required int32 element; } }}); a onehot
     * column of {@code size} is {@code size - 1} INT32 columns {@code I3_0}, {@code I3_1}, ...
     */
    static MessageType schema(ColumnProgram program) {
        RowLayout layout = program.layout();
        int[] onehot = program.onehotSizes();
        Types.MessageTypeBuilder b = Types.buildMessage();
        for (int f = 0; f < layout.fields(); f++) {
            String name = layout.fieldName(f);
            if (!layout.isLabelOrDense(f) && layout.isList(f - layout.labelDenseWidth())) {
                b.requiredList().requiredElement(PrimitiveTypeName.INT32).named(name);
                continue;
            }
            if (onehot != null && f < onehot.length && onehot[f] > 0) {
                for (int k = 0; k < onehot[f] - 1; k++) {
                    b.required(PrimitiveTypeName.INT32).named(name + "_" + k);
                }
                continue;
            }
            PrimitiveTypeName type =
                    program.type(f) == ValueType.float32
                            ? PrimitiveTypeName.FLOAT
                            : PrimitiveTypeName.INT32;
            b.required(type).named(name);
        }
        return b.named("piper_rows");
    }

    /**
     * Appends {@code rows} rows of {@code rowBytes} (the {@code rows.bin} layout) and, for the list
     * columns, their lists ({@code listOffsets[l]}, {@code listIndices[l]} per list column).
     */
    @Override
    public void write(byte[] rowBytes, int rows, int[][] listOffsets, int[][] listIndices)
            throws IOException {
        ByteBuffer bytes = ByteBuffer.wrap(rowBytes).order(ByteOrder.LITTLE_ENDIAN);
        int at = 0;
        for (int r = 0; r < rows; r++) {
            for (int f = 0; f < isFloat.length; f++) {
                int l = list[f];
                if (l >= 0) {
                    int[] offsets = listOffsets[l];
                    writer.writeList(f, listIndices[l], offsets[r], offsets[r + 1]);
                    continue;
                }
                int v = bytes.getInt(at);
                at += Integer.BYTES;
                if (isFloat[f]) {
                    writer.writeRequiredFloat(f, Float.intBitsToFloat(v));
                } else {
                    writer.writeRequiredInt(f, v);
                }
            }
            writer.endRow();
        }
    }

    /** Writes the last row group and the footer; once. */
    @Override
    public void finish() throws IOException {
        writer.close();
    }

    @Override
    public void abort() throws IOException {
        writer.close(); // a partial file, which the failed run's staging directory takes away
    }
}
