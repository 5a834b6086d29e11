package dev.piper.cli.serve;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import dev.piper.core.block.AssembledBlock;
import dev.piper.core.block.DeadLetter;
import dev.piper.core.serve.Transform;
import dev.piper.pipeline.layout.RowLayout;
import dev.piper.pipeline.ops.ColumnProgram;
import dev.piper.pipeline.ops.Op.ValueType;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;

/**
 * A transform's answer as JSON: {@code columns}, the names of a row's slots as a rows record's
 * {@code piper.row.columns} has them, and {@code float32_columns} where there are some; {@code
 * rows}, each the row's {@code rows.bin} slots in order (a float32 column's as a number with its
 * fraction, the others as integers), {@code lists} (per list column, each row's indices), {@code
 * event_times} when the spec reads a time, {@code dead_letters} (each record the feed would reject:
 * its number in the request from 0, reason and detail) and {@code unknown_keys} (per sparse column,
 * the keys the vocabulary had no entry for).
 */
final class RowsJson {

    private static final JsonFactory JSON = new JsonFactory();

    /** Per slot of a row, whether it holds float32 bits. */
    private final boolean[] floatSlots;

    private final List<String> listNames = new ArrayList<>();

    /** The names of a row's slots ({@code piper.row.columns}) and of its float32 fields. */
    private final List<String> rowColumns;

    private final List<String> float32Columns;
    private final List<String> sparseNames = new ArrayList<>();

    RowsJson(ColumnProgram program) {
        rowColumns = program.rowColumns();
        float32Columns = program.float32Columns();
        RowLayout layout = program.layout();
        int[] onehot = program.onehotSizes();
        List<Boolean> slots = new ArrayList<>();
        for (int j = 0; j < layout.labelDenseWidth(); j++) {
            if (onehot != null && onehot[j] > 0) {
                for (int k = 0; k < onehot[j] - 1; k++) {
                    slots.add(false);
                }
            } else {
                slots.add(program.type(j) == ValueType.float32);
            }
        }
        for (int c = 0; c < layout.sparse(); c++) {
            String name = layout.fieldName(layout.labelDenseWidth() + c);
            sparseNames.add(name);
            if (layout.isList(c)) {
                listNames.add(name);
            } else {
                slots.add(false);
            }
        }
        floatSlots = new boolean[slots.size()];
        for (int i = 0; i < floatSlots.length; i++) {
            floatSlots[i] = slots.get(i);
        }
    }

    /** The answer to a request: its records are the block's lines, rows and dead letters. */
    byte[] write(Transform.Result result) {
        AssembledBlock b = result.block();
        ByteArrayOutputStream out = new ByteArrayOutputStream(64 + b.rowBytes().length * 3);
        try (JsonGenerator g = JSON.createGenerator(out)) {
            g.writeStartObject();
            g.writeNumberField("records", b.lines());
            names(g, "columns", rowColumns);
            if (!float32Columns.isEmpty()) {
                names(g, "float32_columns", float32Columns);
            }
            g.writeArrayFieldStart("rows");
            ByteBuffer rows = ByteBuffer.wrap(b.rowBytes()).order(ByteOrder.LITTLE_ENDIAN);
            int at = 0;
            for (int r = 0; r < b.rows(); r++) {
                g.writeStartArray();
                for (boolean isFloat : floatSlots) {
                    int v = rows.getInt(at);
                    at += Integer.BYTES;
                    if (isFloat) {
                        g.writeNumber(Float.intBitsToFloat(v));
                    } else {
                        g.writeNumber(v);
                    }
                }
                g.writeEndArray();
            }
            g.writeEndArray();
            if (!listNames.isEmpty()) {
                g.writeObjectFieldStart("lists");
                for (int l = 0; l < listNames.size(); l++) {
                    g.writeArrayFieldStart(listNames.get(l));
                    int[] offsets = b.listOffsets()[l];
                    int[] indices = b.listIndices()[l];
                    for (int r = 0; r < b.rows(); r++) {
                        g.writeStartArray();
                        for (int i = offsets[r]; i < offsets[r + 1]; i++) {
                            g.writeNumber(indices[i]);
                        }
                        g.writeEndArray();
                    }
                    g.writeEndArray();
                }
                g.writeEndObject();
            }
            if (b.eventTimes() != null) {
                g.writeArrayFieldStart("event_times");
                for (long t : b.eventTimes()) {
                    g.writeNumber(t);
                }
                g.writeEndArray();
            }
            g.writeArrayFieldStart("dead_letters");
            for (DeadLetter d : b.deadLetters()) {
                g.writeStartObject();
                g.writeNumberField("record", d.lineInBlock());
                g.writeStringField("reason", d.reason());
                g.writeStringField("detail", d.detail());
                g.writeEndObject();
            }
            g.writeEndArray();
            g.writeObjectFieldStart("unknown_keys");
            for (int c = 0; c < sparseNames.size(); c++) {
                if (result.unknown()[c] > 0) {
                    g.writeNumberField(sparseNames.get(c), result.unknown()[c]);
                }
            }
            g.writeEndObject();
            g.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException(e); // a byte array does not fail
        }
        return out.toByteArray();
    }

    private static void names(JsonGenerator g, String field, List<String> names)
            throws IOException {
        g.writeArrayFieldStart(field);
        for (String name : names) {
            g.writeString(name);
        }
        g.writeEndArray();
    }

    /** An error's body: {@code {"error": why}}. */
    static byte[] error(String why) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (JsonGenerator g = JSON.createGenerator(out)) {
            g.writeStartObject();
            g.writeStringField("error", why);
            g.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toByteArray();
    }
}
