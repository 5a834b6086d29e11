package dev.piper.job.sink;

import dev.piper.job.parquet.ColumnFileWriter;
import dev.piper.operators.decode.ColumnProgram;
import dev.piper.operators.ops.Op.ValueType;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
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
final class ParquetRows implements AutoCloseable {

    /** Rows per row group: pyarrow's default, a good unit for a training loader's reads. */
    static final int ROW_GROUP_ROWS = 1 << 20;

    private final ColumnFileWriter writer;
    private final boolean[] isFloat;

    ParquetRows(Path file, ColumnProgram program) throws IOException {
        isFloat = new boolean[program.layout().fields()];
        for (int f = 0; f < isFloat.length; f++) {
            isFloat[f] = program.type(f) == ValueType.float32;
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
                                OutputLayout.FORMAT,
                                "piper.format.version",
                                Integer.toString(OutputLayout.FORMAT_VERSION)));
    }

    /** The file's schema under {@code program}: a float32 column is FLOAT, any other INT32. */
    static MessageType schema(ColumnProgram program) {
        Types.MessageTypeBuilder b = Types.buildMessage();
        for (int f = 0; f < program.layout().fields(); f++) {
            PrimitiveTypeName type =
                    program.type(f) == ValueType.float32
                            ? PrimitiveTypeName.FLOAT
                            : PrimitiveTypeName.INT32;
            b.required(type).named(program.layout().fieldName(f));
        }
        return b.named("piper_rows");
    }

    /** Appends {@code rows} rows of {@code rowBytes} (the {@code rows.bin} layout). */
    void write(byte[] rowBytes, int rows) throws IOException {
        ByteBuffer bytes = ByteBuffer.wrap(rowBytes).order(ByteOrder.LITTLE_ENDIAN);
        int at = 0;
        for (int r = 0; r < rows; r++) {
            for (int f = 0; f < isFloat.length; f++, at += Integer.BYTES) {
                int v = bytes.getInt(at);
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
    public void close() throws IOException {
        writer.close();
    }
}
