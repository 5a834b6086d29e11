package dev.piper.core.decode;

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
import dev.piper.pipeline.ops.DecodeOptions;
import java.nio.charset.StandardCharsets;

/**
 * The typed values of a binary event (Avro, Protobuf) put into the columns that read them, by the
 * rules JSON's values follow (docs/SEMANTICS.md, "JSON input"): a label or dense column takes a
 * 32-bit integer, a whole number, a boolean or decimal text; a sparse column an integer as it is or
 * text (hashed by {@code hash64}, hexadecimal under {@code hex2int}); a list column a sequence of
 * such ids. The first value a column cannot hold names the event's dead letter (its reason and a
 * detail naming the column, its path and the value); later ones are ignored, so the decoder walks
 * on to the event's end. The values land in {@link EventRows}.
 *
 * <p>Not thread-safe; one per decoder.
 */
final class EventValues {

    private static final long NOT_DECIMAL = Long.MIN_VALUE;

    final EventRows rows;
    final RowLayout layout;

    /** Label and dense fields: field numbers below it. */
    final int width;

    private final boolean[] hashes;

    /** How details name the fields. */
    private final FieldNames fieldNames;

    /** The field of each event's time (one past the layout's), or -1 when there is none. */
    private final int timeField;

    private final EventTime time;
    private final int maxRawBytes;

    /** Why the current event is rejected, once it is (the first reason found); else null. */
    Reason failReason;

    String failDetail;

    EventValues(DecodeOptions options, boolean measure) {
        ColumnProgram program = options.program();
        this.layout = program.layout();
        this.rows = new EventRows(program, options.events().time(), measure);
        this.width = layout.labelDenseWidth();
        this.maxRawBytes = options.maxRawBytes();
        EventFields events = options.events();
        this.hashes = new boolean[layout.sparse()];
        for (int c = 0; c < hashes.length; c++) {
            hashes[c] = program.hashesIds(c);
        }
        this.time = events.time();
        this.timeField = rows.timeField;
        this.fieldNames = new FieldNames(layout, events, timeField);
    }

    /**
     * Whether the current event is a row: nothing wrong with it, and its time there if the rows
     * carry one (else it fails for the missing time).
     */
    boolean complete() {
        if (failReason == null && rows.lacksTime()) {
            fail(Reason.BAD_TIMESTAMP, fieldNames.missingTime());
        }
        return failReason == null;
    }

    /**
     * A time of {@code millis}, read from number {@code value}; {@link EventTime#INVALID} fails the
     * event (the detail is built only then, not for every event).
     */
    private void setTime(long millis, Object value) {
        if (millis == EventTime.INVALID) {
            fail(
                    Reason.BAD_TIMESTAMP,
                    column(timeField) + ": " + time.outOfRange(String.valueOf(value)));
        } else {
            rows.setTime(millis);
        }
    }

    /** The event time's field gets a value of a kind that is no time ({@code what}). */
    private void notATime(String what) {
        fail(Reason.BAD_TIMESTAMP, column(timeField) + ": " + what + " where a time belongs");
    }

    /** Field {@code f}'s path (the event time's for the field after the layout's). */
    FieldPath path(int f) {
        return fieldNames.path(f);
    }

    /** Starts an event: nothing read, nothing wrong. */
    void startEvent() {
        failReason = null;
        rows.clearLine();
    }

    /** Records the event's first problem; later ones are ignored. */
    void fail(Reason reason, String detail) {
        if (failReason == null) {
            failReason = reason;
            failDetail = detail;
        }
    }

    boolean isList(int f) {
        return f >= width && f != timeField && rows.lineLists[f - width] != null;
    }

    /** A boolean: 1 or 0 for a label or dense column; no id. */
    void bool(int[] targets, boolean v) {
        for (int f : targets) {
            if (f == timeField) {
                notATime("a boolean");
            } else if (f < width) {
                setDense(f, v ? 1 : 0);
            } else {
                fail(
                        Reason.WRONG_TYPE,
                        column(f) + ": a boolean where an integer or a string id belongs");
            }
        }
    }

    /** An integer: a label or dense value within 32 bits, or an id as it is. */
    void integer(int[] targets, long v) {
        for (int f : targets) {
            if (f == timeField) {
                setTime(time.millis(v), v);
            } else if (f < width) {
                if ((int) v != v) {
                    fail(rangeReason(f), column(f) + ": " + v + " is not a 32-bit integer");
                } else {
                    setDense(f, (int) v);
                }
            } else if (isList(f)) {
                fail(Reason.WRONG_TYPE, column(f) + ": " + v + ", but the column is a list");
            } else {
                setId(f, v);
            }
        }
    }

    /** A floating-point number ({@code type} float or double): a whole one within 32 bits. */
    void real(int[] targets, double v, String type) {
        for (int f : targets) {
            if (f == timeField) {
                setTime(time.millis(v), v);
            } else if (f >= width) {
                fail(
                        Reason.WRONG_TYPE,
                        column(f)
                                + ": "
                                + v
                                + " (a "
                                + type
                                + ") where an integer or a string id belongs");
            } else if (v != Math.rint(v) || v < Integer.MIN_VALUE || v > Integer.MAX_VALUE) {
                fail(
                        rangeReason(f),
                        column(f)
                                + ": "
                                + v
                                + " is not a 32-bit integer (dense columns decode int32)");
            } else {
                setDense(f, (int) v);
            }
        }
    }

    /**
     * Text {@code b[s, e)} (a string, bytes, an enum's name): decimal, or an id; empty is missing.
     */
    void text(int[] targets, byte[] b, int s, int e) {
        for (int f : targets) {
            if (f == timeField) {
                long ms = s == e ? EventTime.INVALID : time.millis(b, s, e);
                if (ms != EventTime.INVALID) {
                    rows.setTime(ms);
                } else if (s != e) { // else missing
                    String text = new String(b, s, e - s, StandardCharsets.UTF_8);
                    fail(Reason.BAD_TIMESTAMP, column(timeField) + ": " + time.whyNot(text));
                }
            } else if (f < width) {
                if (s == e) {
                    continue; // missing, as Criteo's empty field
                }
                long v = decimal(b, s, e);
                if (v == NOT_DECIMAL) {
                    fail(
                            rangeReason(f),
                            column(f)
                                    + ": \""
                                    + quote(b, s, e)
                                    + "\" is not a 32-bit decimal integer");
                } else {
                    setDense(f, (int) v);
                }
            } else if (isList(f)) {
                fail(
                        Reason.WRONG_TYPE,
                        column(f)
                                + ": a string \""
                                + quote(b, s, e)
                                + "\", but the column is a list");
            } else if (s != e) { // else missing
                setId(f, id(f, b, s, e, ""));
            }
        }
    }

    /** A value of a kind no column takes as a value ({@code what}: "a record", "a map"). */
    void notAValue(int[] targets, String what) {
        if (targets[0] == timeField) {
            notATime(what);
        } else {
            fail(Reason.WRONG_TYPE, column(targets[0]) + ": " + what + ", not a value");
        }
    }

    /**
     * Starts the list of an array or repeated field read by {@code targets}: a column of one value
     * among them fails; returns the first list column's field, or -1 if there is none (the items
     * are then skipped).
     */
    int startList(int[] targets) {
        int first = -1;
        for (int f : targets) {
            if (f == timeField) {
                notATime("an array");
            } else if (!isList(f)) {
                fail(
                        Reason.WRONG_TYPE,
                        column(f) + ": an array, but the column holds one value, not a list");
            } else if (first < 0) {
                first = f;
            }
        }
        if (first >= 0) {
            rows.lineListSize[first - width] = 0;
        }
        return first;
    }

    /** Appends integer id {@code id} to list field {@code f}'s list. */
    void listInteger(int f, long id) {
        rows.appendListId(f - width, id);
    }

    /** Appends text id {@code b[s, e)}, item {@code i} (from 0), to list field {@code f}'s list. */
    void listText(int f, int i, byte[] b, int s, int e) {
        if (s == e) {
            fail(
                    Reason.CATEGORICAL_NOT_HEX,
                    column(f) + " id " + (i + 1) + " of the list is an empty text");
            return;
        }
        rows.appendListId(f - width, id(f, b, s, e, " id " + (i + 1) + " of the list"));
    }

    /** Item {@code i} of list field {@code f} is null. */
    void listNull(int f, int i) {
        fail(Reason.CATEGORICAL_NOT_HEX, column(f) + " id " + (i + 1) + " of the list is null");
    }

    /** Item {@code i} of list field {@code f} is of {@code type}, no id. */
    void listWrongType(int f, int i, String type) {
        fail(
                Reason.WRONG_TYPE,
                column(f)
                        + " id "
                        + (i + 1)
                        + " of the list: of type "
                        + type
                        + " where an integer or a string id belongs");
    }

    /**
     * Ends list field {@code first}'s list: the other list columns of {@code targets} get it too.
     */
    void endList(int[] targets, int first) {
        int c = first - width;
        for (int f : targets) {
            if (!isList(f)) {
                continue;
            }
            int d = f - width;
            if (f != first) {
                rows.lineLists[d] = rows.lineLists[c].clone();
                rows.lineListSize[d] = rows.lineListSize[c];
                if (rows.names != null) {
                    rows.names.copyLine(c, d);
                }
            }
            rows.present[f] = rows.lineListSize[d] > 0;
        }
    }

    /**
     * The key of id text {@code b[s, e)} of sparse field {@code f} (hashed, or hexadecimal);
     * records the reason and returns 0 if hexadecimal text is bad.
     */
    private long id(int f, byte[] b, int s, int e, String where) {
        int c = f - width;
        if (hashes[c]) {
            long key = StringIds.key(b, s, e - s);
            if (rows.names != null) {
                rows.names.note(c, key, b, s, e - s);
            }
            return key;
        }
        if (e - s == Long.BYTES) { // Criteo's ids: eight digits a step, as the text decoder
            long w = Swar.load(b, s);
            if (Swar.isHex8(w)) {
                return Swar.hex8(w);
            }
        } else if (e - s == 2 * Long.BYTES) {
            long high = Swar.load(b, s);
            long low = Swar.load(b, s + Long.BYTES);
            if (Swar.isHex8(high) && Swar.isHex8(low)) {
                return Swar.hex8(high) << 32 | Swar.hex8(low);
            }
        }
        int status = HexIds.status(b, s, e);
        if (status != HexIds.OK) {
            fail(
                    status == HexIds.OVERFLOW
                            ? Reason.CATEGORICAL_OVERFLOW
                            : Reason.CATEGORICAL_NOT_HEX,
                    column(f)
                            + where
                            + ": \""
                            + quote(b, s, e)
                            + (status == HexIds.OVERFLOW
                                    ? "\" is beyond 64 bits"
                                    : "\" is not hexadecimal (hex2int; hash64 takes any text)"));
            return 0;
        }
        return HexIds.value(b, s, e);
    }

    private void setDense(int f, int v) {
        rows.lineDense[f] = v;
        rows.present[f] = true;
    }

    private void setId(int f, long id) {
        rows.lineIds[f - width] = id;
        rows.present[f] = true;
    }

    private static Reason rangeReason(int f) {
        return f == 0 ? Reason.LABEL_NOT_INT32 : Reason.DENSE_NOT_INT32;
    }

    /**
     * The 32-bit decimal integer of {@code b[s, e)} as {@link Integer#parseInt} reads it (a sign,
     * then ASCII digits), or {@link #NOT_DECIMAL}.
     */
    private static long decimal(byte[] b, int s, int e) {
        int i = s;
        boolean negative = b[i] == '-';
        if (negative || b[i] == '+') {
            i++;
        }
        if (i == e) {
            return NOT_DECIMAL;
        }
        long v = 0;
        for (; i < e; i++) {
            int d = b[i] - '0';
            if (d < 0 || d > 9) {
                return NOT_DECIMAL;
            }
            v = v * 10 + d;
            if (v > 1L << 31) {
                return NOT_DECIMAL;
            }
        }
        v = negative ? -v : v;
        return v < Integer.MIN_VALUE || v > Integer.MAX_VALUE ? NOT_DECIMAL : v;
    }

    /** Text for a detail: {@code b[s, e)} as UTF-8, its first characters as JSON's are quoted. */
    static String quote(byte[] b, int s, int e) {
        return JsonValues.clip(new String(b, s, e - s, StandardCharsets.UTF_8));
    }

    /** The reason of a value of the wrong kind for field {@code f}. */
    Reason typeReason(int f) {
        return fieldNames.typeReason(f);
    }

    /** A column and its path, as details name them: {@code C1 (user.id)}. */
    String column(int f) {
        return fieldNames.column(f);
    }

    /**
     * The current event's dead letter: line {@code line} of its block, its bytes {@code b[s, e)},
     * the reason found; its offset is the number of the block's first record in its file (a frame's
     * bytes are no file's), or 0 for a log's records, which their origin locates.
     */
    DeadLetter deadLetter(RawChunk chunk, int line, byte[] b, int s, int e) {
        int keep = Math.min(e - s, maxRawBytes);
        return new DeadLetter(
                line,
                chunk.firstOffset(),
                failReason.code(),
                failDetail,
                java.util.Arrays.copyOfRange(b, s, s + keep),
                keep < e - s);
    }

    /**
     * The current event's dead letter, of a reader that has no bytes of the event (a Parquet row):
     * line {@code line} of its block, no offset, no raw bytes; its detail names the column, its
     * path and the value.
     */
    DeadLetter deadLetterWithoutBytes(int line) {
        return new DeadLetter(line, -1, failReason.code(), failDetail, new byte[0], false);
    }
}
