package dev.piper.core.join;

import dev.piper.pipeline.join.JoinedRow;
import dev.piper.pipeline.join.LabelFields;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * An impression's JSON object with the join's labels added as its first field, {@code
 * "labels":{...}} ({@link LabelFields}), the rest of the object byte for byte as the impression had
 * it: what the decoder then reads the spec's columns from.
 */
final class LabelledLine {

    /** The most bytes a number of the labels object takes ({@code -9223372036854775808}). */
    private static final int NUMBER_BYTES = 24;

    private final byte[][] names; // "name": per label field, UTF-8
    private final int extraBytes;

    LabelledLine(List<String> streams) {
        List<String> fields = LabelFields.names(streams);
        names = new byte[fields.size()][];
        int extra = ("\"" + LabelFields.OBJECT + "\":{},").length();
        for (int i = 0; i < fields.size(); i++) {
            names[i] =
                    ((i == 0 ? "" : ",") + "\"" + fields.get(i) + "\":")
                            .getBytes(StandardCharsets.UTF_8);
            extra += names[i].length + NUMBER_BYTES;
        }
        extraBytes = extra;
    }

    /**
     * The most bytes the labels add to a line: a longer impression than the limit less these is
     * refused.
     */
    int extraBytes() {
        return extraBytes;
    }

    /**
     * Writes the object of {@code line} (its first {@code length} bytes: one JSON object, as the
     * decoder accepted it) with {@code row}'s labels, and a line break.
     */
    void write(byte[] line, int length, JoinedRow<?> row, ByteArrayOutputStream out) {
        int open = 0;
        while (line[open] != '{') {
            open++; // whitespace before the object
        }
        out.write(line, 0, open + 1);
        out.writeBytes(("\"" + LabelFields.OBJECT + "\":{").getBytes(StandardCharsets.UTF_8));
        List<Number> values = LabelFields.values(row);
        for (int i = 0; i < names.length; i++) {
            out.writeBytes(names[i]);
            out.writeBytes(number(values.get(i)).getBytes(StandardCharsets.US_ASCII));
        }
        out.write('}');
        int next = open + 1;
        while (next < length && isSpace(line[next])) {
            next++;
        }
        if (next < length && line[next] != '}') {
            out.write(',');
        }
        out.write(line, open + 1, length - open - 1);
        out.write('\n');
    }

    /** A JSON number: an integer as its digits, a whole double too, any other double as Java's. */
    static String number(Number n) {
        if (n instanceof Double d) {
            if (d == Math.rint(d) && Math.abs(d) < 0x1p53) {
                return Long.toString(d.longValue());
            }
            return Double.toString(d);
        }
        return n.toString();
    }

    private static boolean isSpace(byte b) {
        return b == ' ' || b == '\t' || b == '\r' || b == '\n';
    }
}
