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
final class LabelledLine implements LabelFields.Values {

    /** The most bytes a number of the labels object takes ({@code -9223372036854775808}). */
    private static final int NUMBER_BYTES = 24;

    /** The labels object's name and opening brace. */
    private static final byte[] OPEN =
            ("\"" + LabelFields.OBJECT + "\":{").getBytes(StandardCharsets.UTF_8);

    private final byte[][] names; // "name": per label field, UTF-8

    /** The digits of a number being written, from its end. */
    private final byte[] digits = new byte[20];

    private final int extraBytes;

    /** Where {@link #write} writes, while it does. */
    private ByteArrayOutputStream out;

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
     * decoder accepted it) with {@code row}'s labels, and a line break: a line of the batch join's
     * joined file.
     */
    void write(byte[] line, int length, JoinedRow<?> row, ByteArrayOutputStream out) {
        writeObject(line, length, row, out);
        out.write('\n');
    }

    /**
     * Writes the object of {@code line} with {@code row}'s labels, without a line break: a record
     * of the stream's join. Allocates nothing: it runs once per row ({@code docs/PERFORMANCE.md},
     * "The label join").
     */
    void writeObject(byte[] line, int length, JoinedRow<?> row, ByteArrayOutputStream out) {
        int open = objectStart(line, length);
        if (open < 0) {
            throw new IllegalArgumentException("not a JSON object: the decoder accepted the line");
        }
        out.write(line, 0, open + 1);
        writeLabels(row, out);
        writeRest(line, length, open, out);
    }

    /**
     * Writes {@code row}'s labels as the member {@code "labels":{...}}: what {@link #splice} later
     * puts into the impression's object when the join holds its position, not its line.
     */
    void writeLabels(JoinedRow<?> row, ByteArrayOutputStream out) {
        out.write(OPEN, 0, OPEN.length);
        this.out = out;
        LabelFields.values(row, this);
        this.out = null;
        out.write('}');
    }

    /**
     * The object of {@code line} with {@code labels} ({@link #writeLabels}) as its first member,
     * without a line break, as {@link #writeObject} would have written it; null if {@code line}
     * holds no JSON object.
     */
    static byte[] splice(byte[] line, byte[] labels) {
        int open = objectStart(line, line.length);
        if (open < 0) {
            return null;
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream(line.length + labels.length + 1);
        out.write(line, 0, open + 1);
        out.write(labels, 0, labels.length);
        writeRest(line, line.length, open, out);
        return out.toByteArray();
    }

    /** Where the object of {@code line} opens (whitespace may come before), or -1 for none. */
    private static int objectStart(byte[] line, int length) {
        int open = 0;
        while (open < length && line[open] != '{') {
            open++;
        }
        return open < length ? open : -1;
    }

    /** The object's members after the labels, the comma between if it has any. */
    private static void writeRest(byte[] line, int length, int open, ByteArrayOutputStream out) {
        int next = open + 1;
        while (next < length && isSpace(line[next])) {
            next++;
        }
        if (next < length && line[next] != '}') {
            out.write(',');
        }
        out.write(line, open + 1, length - open - 1);
    }

    @Override
    public void integer(int field, long value) {
        out.write(names[field], 0, names[field].length);
        writeDigits(value);
    }

    /** A whole double as its digits, any other as Java's. */
    @Override
    public void decimal(int field, double value) {
        out.write(names[field], 0, names[field].length);
        if (value == Math.rint(value) && Math.abs(value) < 0x1p53) {
            writeDigits((long) value);
        } else {
            byte[] text = Double.toString(value).getBytes(StandardCharsets.US_ASCII);
            out.write(text, 0, text.length);
        }
    }

    /** {@code Long.toString(v)}, written without making the string. */
    private void writeDigits(long v) {
        if (v == Long.MIN_VALUE) {
            byte[] text = Long.toString(v).getBytes(StandardCharsets.US_ASCII);
            out.write(text, 0, text.length);
            return;
        }
        if (v < 0) {
            out.write('-');
            v = -v;
        }
        int n = digits.length;
        do {
            digits[--n] = (byte) ('0' + v % 10);
            v /= 10;
        } while (v != 0);
        out.write(digits, n, digits.length - n);
    }

    private static boolean isSpace(byte b) {
        return b == ' ' || b == '\t' || b == '\r' || b == '\n';
    }
}
