package dev.piper.core.decode;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import dev.piper.core.block.DeadLetter;
import dev.piper.core.block.RawChunk;
import dev.piper.pipeline.input.EventFields;
import dev.piper.pipeline.input.EventTime;
import dev.piper.pipeline.input.FieldPath;
import dev.piper.pipeline.input.StringIds;
import dev.piper.pipeline.layout.HexIds;
import dev.piper.pipeline.layout.Reason;
import dev.piper.pipeline.layout.RowLayout;
import dev.piper.pipeline.ops.ColumnProgram;
import java.io.IOException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * JSON's values put into the columns that read them, for {@link JsonEventDecoder}: a leaf of the
 * event's paths, as Jackson's parser stands on it, becomes a label or dense value, an id or a list
 * of ids of the line being decoded ({@link EventRows}), or the line's dead-letter reason and detail
 * naming the column, its path and the value (docs/SEMANTICS.md, "JSON input"). {@link EventValues}
 * holds the same rules for the binary events' typed values.
 *
 * <p>Not thread-safe; one per decoder.
 */
final class JsonValues {

    /** The most characters of a bad value its dead letter's detail quotes. */
    static final int QUOTED_CHARS = 64;

    private final EventRows rows;

    /** Label and dense fields: field numbers below it. */
    private final int width;

    private final boolean[] hashes;
    private final int maxRawBytes;

    /** How details name the fields. */
    private final FieldNames fieldNames;

    /** The field of each event's time (one past the layout's), or -1 when there is none. */
    private final int timeField;

    private final EventTime time;

    // The line being decoded: its values, and which fields it has (the arrays of {@link #rows}).
    private final int[] lineDense;
    private final long[] lineIds;
    private final boolean[] present;
    private final long[][] lineLists;
    private final int[] lineListSize;

    /** Why the current line is rejected, once it is. */
    Reason failReason;

    private String failDetail;

    JsonValues(ColumnProgram program, EventFields events, EventRows rows, int maxRawBytes) {
        this.rows = rows;
        RowLayout layout = program.layout();
        this.width = layout.labelDenseWidth();
        this.hashes = new boolean[layout.sparse()];
        for (int c = 0; c < hashes.length; c++) {
            hashes[c] = program.hashesIds(c);
        }
        this.maxRawBytes = maxRawBytes;
        this.time = events.time();
        this.timeField = rows.timeField;
        this.fieldNames = new FieldNames(layout, events, timeField);
        this.lineDense = rows.lineDense;
        this.lineIds = rows.lineIds;
        this.present = rows.present;
        this.lineLists = rows.lineLists;
        this.lineListSize = rows.lineListSize;
    }

    /** Field {@code f}'s path (the event time's for the field after the layout's). */
    FieldPath path(int f) {
        return fieldNames.path(f);
    }

    /** Which sparse columns hash their string ids ({@code hash64}), by sparse column. */
    boolean[] hashes() {
        return hashes;
    }

    /** Reads a leaf value into each field that reads it. */
    boolean readTargets(JsonParser p, JsonToken t, int[] targets) throws IOException {
        if (t == JsonToken.START_ARRAY) {
            int first = -1;
            for (int f : targets) {
                int c = f - width;
                if (f == timeField) {
                    p.skipChildren();
                    return fail(
                            Reason.BAD_TIMESTAMP, column(f) + ": an array where a time belongs");
                }
                if (c < 0 || lineLists[c] == null) {
                    p.skipChildren();
                    return fail(
                            Reason.WRONG_TYPE,
                            column(f) + ": an array, but the column holds one value, not a list");
                }
                if (first < 0) {
                    if (!readList(p, f, c)) {
                        return false;
                    }
                    first = c;
                } else {
                    lineLists[c] = Arrays.copyOf(lineLists[first], lineLists[first].length);
                    lineListSize[c] = lineListSize[first];
                    if (rows.names != null) {
                        rows.names.copyLine(first, c);
                    }
                }
                present[f] = lineListSize[c] > 0;
            }
            return true;
        }
        if (t == JsonToken.START_OBJECT) {
            p.skipChildren();
            return fail(
                    targets[0] == timeField ? Reason.BAD_TIMESTAMP : Reason.WRONG_TYPE,
                    column(targets[0]) + ": a record, not a value");
        }
        for (int f : targets) {
            if (!readScalar(p, t, f)) {
                return false;
            }
        }
        return true;
    }

    private boolean readScalar(JsonParser p, JsonToken t, int f) throws IOException {
        if (f == timeField) {
            return readTime(p, t);
        }
        if (f < width) {
            return readInt(p, t, f);
        }
        int c = f - width;
        if (lineLists[c] != null) {
            return fail(
                    Reason.WRONG_TYPE,
                    column(f) + ": " + kindOf(t) + " " + quoted(p) + ", but the column is a list");
        }
        return readId(p, t, f, c, -1);
    }

    /** The event's time: an integer or number of its unit, or text (digits or ISO-8601). */
    private boolean readTime(JsonParser p, JsonToken t) throws IOException {
        long ms;
        switch (t) {
            case VALUE_NUMBER_INT ->
                    ms =
                            p.getNumberType() == JsonParser.NumberType.BIG_INTEGER
                                    ? EventTime.INVALID
                                    : time.millis(p.getLongValue());
            case VALUE_NUMBER_FLOAT -> ms = time.millis(p.getDoubleValue());
            case VALUE_STRING -> {
                String text = p.getText();
                if (text.isEmpty()) {
                    return true; // missing
                }
                ms = time.millis(text);
                if (ms == EventTime.INVALID) {
                    return fail(Reason.BAD_TIMESTAMP, column(timeField) + ": " + time.whyNot(text));
                }
            }
            default -> {
                return fail(
                        Reason.BAD_TIMESTAMP,
                        column(timeField) + ": " + kindOf(t) + " where a time belongs");
            }
        }
        if (ms == EventTime.INVALID) { // a number: its detail is built only for a bad one
            return fail(
                    Reason.BAD_TIMESTAMP,
                    column(timeField) + ": " + time.outOfRange(clip(p.getText())));
        }
        rows.setTime(ms);
        return true;
    }

    /**
     * Whether the line just read is a row as far as its time goes: the rows carry none, or it has
     * one (else it fails for the missing time).
     */
    boolean timeComplete() {
        return !rows.lacksTime() || fail(Reason.BAD_TIMESTAMP, fieldNames.missingTime());
    }

    /** A label or dense value: a 32-bit integer in any of JSON's forms. */
    private boolean readInt(JsonParser p, JsonToken t, int f) throws IOException {
        Reason range = f == 0 ? Reason.LABEL_NOT_INT32 : Reason.DENSE_NOT_INT32;
        switch (t) {
            case VALUE_TRUE, VALUE_FALSE -> {
                lineDense[f] = t == JsonToken.VALUE_TRUE ? 1 : 0;
                present[f] = true;
                return true;
            }
            case VALUE_NUMBER_INT -> {
                if (p.getNumberType() != JsonParser.NumberType.INT) {
                    return fail(range, column(f) + ": " + p.getText() + " is not a 32-bit integer");
                }
                lineDense[f] = p.getIntValue();
                present[f] = true;
                return true;
            }
            case VALUE_NUMBER_FLOAT -> {
                double v = p.getDoubleValue();
                if (v != Math.rint(v) || v < Integer.MIN_VALUE || v > Integer.MAX_VALUE) {
                    return fail(
                            range,
                            column(f)
                                    + ": "
                                    + p.getText()
                                    + " is not a 32-bit integer (dense columns decode int32)");
                }
                lineDense[f] = (int) v;
                present[f] = true;
                return true;
            }
            case VALUE_STRING -> {
                String text = p.getText();
                if (text.isEmpty()) {
                    return true; // missing, as Criteo's empty field
                }
                try {
                    lineDense[f] = Integer.parseInt(text);
                } catch (NumberFormatException bad) {
                    return fail(
                            range,
                            column(f) + ": \"" + clip(text) + "\" is not a 32-bit decimal integer");
                }
                present[f] = true;
                return true;
            }
            default -> {
                return fail(
                        Reason.WRONG_TYPE,
                        column(f) + ": " + kindOf(t) + " where a number or a boolean belongs");
            }
        }
    }

    /**
     * An id of sparse column {@code c}: into {@code lineIds[c]}, or appended to its list when
     * {@code element} is its index in the list (else -1).
     */
    private boolean readId(JsonParser p, JsonToken t, int f, int c, int element)
            throws IOException {
        String where = element < 0 ? "" : " id " + (element + 1) + " of the list";
        long id;
        switch (t) {
            case VALUE_NUMBER_INT -> {
                if (p.getNumberType() == JsonParser.NumberType.BIG_INTEGER) {
                    BigInteger v = p.getBigIntegerValue();
                    if (v.signum() < 0 || v.bitLength() > 64) {
                        return fail(
                                Reason.CATEGORICAL_OVERFLOW,
                                column(f)
                                        + where
                                        + ": "
                                        + clip(v.toString())
                                        + " is beyond 64 bits");
                    }
                    id = v.longValue();
                } else {
                    id = p.getLongValue();
                }
            }
            case VALUE_STRING -> {
                // the parser's characters, without a String per value
                char[] text = p.getTextCharacters();
                int from = p.getTextOffset();
                int length = p.getTextLength();
                if (length == 0) {
                    if (element >= 0) {
                        return fail(
                                Reason.CATEGORICAL_NOT_HEX,
                                column(f) + where + " is an empty text");
                    }
                    return true; // missing
                }
                if (hashes[c]) {
                    id = key(c, text, from, length);
                } else {
                    int status = HexIds.status(text, from, from + length);
                    if (status != HexIds.OK) {
                        return fail(
                                status == HexIds.OVERFLOW
                                        ? Reason.CATEGORICAL_OVERFLOW
                                        : Reason.CATEGORICAL_NOT_HEX,
                                column(f)
                                        + where
                                        + ": \""
                                        + clip(p.getText())
                                        + (status == HexIds.OVERFLOW
                                                ? "\" is beyond 64 bits"
                                                : "\" is not hexadecimal (hex2int; hash64 takes"
                                                        + " any text)"));
                    }
                    id = HexIds.value(text, from, from + length);
                }
            }
            default -> {
                return fail(
                        Reason.WRONG_TYPE,
                        column(f)
                                + where
                                + ": "
                                + kindOf(t)
                                + " "
                                + quoted(p)
                                + " where an integer or a string id belongs");
            }
        }
        if (element < 0) {
            lineIds[c] = id;
            present[f] = true;
        } else {
            rows.appendListId(c, id);
        }
        return true;
    }

    /** UTF-8 bytes of the id being hashed; grows as needed. */
    private byte[] utf8 = new byte[64];

    /**
     * The {@link StringIds} key of the text {@code c[from, from + length)}, an id of sparse column
     * {@code col} (its string noted as the key's name).
     */
    private long key(int col, char[] c, int from, int length) {
        if (utf8.length < length) {
            utf8 = new byte[Math.max(length, utf8.length * 2)];
        }
        byte[] b = utf8;
        int n = length;
        for (int i = 0; i < length; i++) {
            char ch = c[from + i];
            if (ch >= 0x80) { // not ASCII: the JDK's encoder (surrogate pairs and all)
                b = new String(c, from, length).getBytes(StandardCharsets.UTF_8);
                n = b.length;
                break;
            }
            utf8[i] = (byte) ch;
        }
        long key = StringIds.key(b, 0, n);
        if (rows.names != null) {
            rows.names.note(col, key, b, 0, n);
        }
        return key;
    }

    /** A list column's array (its START_ARRAY read). */
    private boolean readList(JsonParser p, int f, int c) throws IOException {
        lineListSize[c] = 0; // a field given twice: the last one counts
        int i = 0;
        JsonToken t;
        while ((t = p.nextToken()) != JsonToken.END_ARRAY) {
            if (t == JsonToken.VALUE_NULL) {
                return fail(
                        Reason.CATEGORICAL_NOT_HEX,
                        column(f) + " id " + (i + 1) + " of the list is null");
            }
            if (!readId(p, t, f, c, i++)) {
                return false;
            }
        }
        return true;
    }

    /** The reason of a value of the wrong kind for field {@code f}. */
    Reason typeReason(int f) {
        return fieldNames.typeReason(f);
    }

    /** A column and its path, as details name them: {@code C1 (user.id)}. */
    String column(int f) {
        return fieldNames.column(f);
    }

    static String kindOf(JsonToken t) {
        if (t == null) {
            return "nothing";
        }
        return switch (t) {
            case START_OBJECT -> "a record";
            case START_ARRAY -> "an array";
            case VALUE_STRING -> "a string";
            case VALUE_NUMBER_INT -> "an integer";
            case VALUE_NUMBER_FLOAT -> "a number with a fraction";
            case VALUE_TRUE, VALUE_FALSE -> "a boolean";
            case VALUE_NULL -> "null";
            default -> "a " + t;
        };
    }

    private static String quoted(JsonParser p) throws IOException {
        JsonToken t = p.currentToken();
        if (t == JsonToken.START_OBJECT || t == JsonToken.START_ARRAY) {
            p.skipChildren();
            return "";
        }
        String text = clip(p.getText());
        return t == JsonToken.VALUE_STRING ? "\"" + text + "\"" : text;
    }

    /** {@code s}, or its first characters when it is longer than a detail quotes. */
    static String clip(String s) {
        return s.length() <= QUOTED_CHARS ? s : s.substring(0, QUOTED_CHARS) + "...";
    }

    boolean fail(Reason reason, String detail) {
        failReason = reason;
        failDetail = detail;
        return false;
    }

    DeadLetter deadLetter(RawChunk chunk, int lineIndex, byte[] b, int s, int e) {
        return CriteoDecoder.deadLetter(
                chunk, lineIndex, b, s, e, failReason, failDetail, maxRawBytes);
    }
}
