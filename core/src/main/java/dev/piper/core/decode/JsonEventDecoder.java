package dev.piper.core.decode;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import dev.piper.core.block.DeadLetter;
import dev.piper.core.block.RawChunk;
import dev.piper.pipeline.input.EventFields;
import dev.piper.pipeline.input.FieldPath;
import dev.piper.pipeline.input.StringIds;
import dev.piper.pipeline.layout.Reason;
import dev.piper.pipeline.layout.RowLayout;
import dev.piper.pipeline.ops.ColumnProgram;
import dev.piper.pipeline.ops.DecodeOptions;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Decodes lines of JSON events, one object per line (a file's line, or a Kafka record's value):
 * each column's value is read from the field its {@link FieldPath} names ({@link EventFields}),
 * with Jackson's streaming parser, which the decoder walks along the paths it needs and skips past
 * everything else. A row's values then take their column operators as Parquet's do ({@link
 * ColumnarDecoder}: fills, neg2zero, modulus, then the column passes), so a JSON event holding a
 * Criteo line's values decodes to that line's row.
 *
 * <p>Values, per kind of column (docs/SEMANTICS.md, "JSON input"): a label or dense column takes an
 * integer, a number with no fraction, a boolean (1 or 0) or a decimal text, each within 32 bits; a
 * sparse column an integer (as it is; 0 to 2^64-1, a negative one as its two's complement) or a
 * string (hex2int: hexadecimal text; hash64: its XXH64 key, {@link StringIds}); a list column an
 * array of such ids. An absent field, {@code null} and an empty string are missing values (the
 * column's fill). Anything else makes the line a dead letter naming the column, its path and the
 * value: {@code invalid_json} for a line that is not one JSON object ({@code invalid_utf8} if it is
 * not UTF-8), {@code wrong_type}, or the text decoder's reasons for values out of range ({@code
 * dense_not_int32}, {@code categorical_not_hex}, ...).
 *
 * <p>Most lines never reach Jackson: {@link JsonFastPath} reads a line of plain JSON (ASCII strings
 * without escapes, integers that fit their column) straight from its bytes and hands anything else
 * back, which Jackson then reads as described here; both give every line they both read the same
 * row ({@code JsonFastPathTest}).
 *
 * <p>Not thread-safe; one per decoding subtask.
 */
public final class JsonEventDecoder implements BlockDecoder {

    private final DecodeOptions options;
    private final JsonFactory json;

    /** The paths as a tree, from the event's top-level object. */
    private final PathTree root;

    /** The block's rows, and the values of the line being decoded. */
    private final EventRows rows;

    /** What a leaf value becomes, and why a line is refused. */
    private final JsonValues values;

    /** Reads the common lines without Jackson; null in the reference decoder. */
    private final JsonFastPath fast;

    /** Lines {@link #fast} read, for tests. */
    long fastLines;

    public JsonEventDecoder(DecodeOptions options, boolean measure) {
        this(options, measure, true);
    }

    /**
     * A decoder that reads every line with Jackson when {@code fastPath} is false: the reference
     * that {@link JsonFastPath}'s readings are tested against.
     */
    JsonEventDecoder(DecodeOptions options, boolean measure, boolean fastPath) {
        this(options, measure, fastPath, null, null);
    }

    /**
     * A decoder of the label join's impressions ({@link #rowTime}, {@link #keyStart}): its fast
     * path also notes where the value of {@code key} lies, and leaves a line with the top-level
     * field {@code refusedTop} to Jackson.
     */
    public static JsonEventDecoder withJoinKey(
            DecodeOptions options, FieldPath key, String refusedTop) {
        return new JsonEventDecoder(options, false, true, key, refusedTop);
    }

    private JsonEventDecoder(
            DecodeOptions options,
            boolean measure,
            boolean fastPath,
            FieldPath key,
            String refusedTop) {
        EventFields events = options.events();
        if (events == null) {
            throw new IllegalArgumentException("options without event fields");
        }
        this.options = options;
        ColumnProgram program = options.program();
        RowLayout layout = program.layout();
        this.json = factory();
        this.rows = new EventRows(program, events.time(), measure);
        this.values = new JsonValues(program, events, rows, options.maxRawBytes());
        this.root = PathTree.of(events, layout.fields());
        this.fast =
                fastPath
                        ? new JsonFastPath(
                                key == null
                                        ? root
                                        : PathTree.withKey(
                                                events, layout.fields(), key, refusedTop),
                                values.hashes(),
                                rows)
                        : null;
    }

    /**
     * The parsers' factory of every reader of JSON events: nesting and numbers up to 1,000 deep and
     * long (Jackson's defaults refuse some events real logs hold).
     */
    public static JsonFactory factory() {
        return JsonFactory.builder()
                .streamReadConstraints(
                        StreamReadConstraints.builder()
                                .maxNestingDepth(1000)
                                .maxNumberLength(1000)
                                .build())
                .build();
    }

    @Override
    public long[] measureKinds(RawChunk chunk) {
        return new long[2];
    }

    @Override
    public CriteoDecoder.Decoded decode(RawChunk chunk, boolean countFields) {
        byte[] b = chunk.data();
        int end = chunk.lastLineCut() ? Swar.lastLineStart(b, chunk.length()) : chunk.length();
        blockEnd = end;
        rows.startBlock();
        List<DeadLetter> dead = new ArrayList<>();
        int acceptedBytes = 0;
        int lines = 0;
        int start = 0;
        while (start < end) {
            int lineEnd = readFast(b, start, end);
            boolean row = lineEnd >= 0;
            if (!row) {
                int nl = Swar.indexOf(b, (byte) '\n', start, end);
                lineEnd = nl < 0 ? end : nl;
                int contentEnd = lineEnd > start && b[lineEnd - 1] == '\r' ? lineEnd - 1 : lineEnd;
                row = parseLine(b, start, contentEnd);
            }
            int next = lineEnd < end ? lineEnd + 1 : end;
            row = row && values.timeComplete();
            if (row) {
                rows.commit();
                acceptedBytes += next - start;
            } else {
                int contentEnd = lineEnd > start && b[lineEnd - 1] == '\r' ? lineEnd - 1 : lineEnd;
                dead.add(values.deadLetter(chunk, lines, b, start, contentEnd));
            }
            lines++;
            start = next;
        }
        closeShared();
        if (chunk.lastLineCut()) {
            dead.add(CriteoDecoder.cutLine(chunk, lines, end, options));
            lines++;
        }
        return rows.finish(chunk, lines, dead, acceptedBytes);
    }

    /**
     * Whether {@link #decode} would take the one line {@code b[s, e)} (no line break in it) as a
     * row, read as {@link #decode} reads it but without making a block: its event time if so, else
     * {@link Long#MIN_VALUE} (then {@link #decode} of the line says why). For the label join, which
     * decodes each impression it reads to know whether it may join, and when.
     */
    public long rowTime(byte[] b, int s, int e) {
        if (rows.time == null) {
            throw new IllegalStateException("the events have no time (input.timestamp)");
        }
        blockEnd = e;
        keyStart = -1;
        int lineEnd = readFast(b, s, e);
        boolean row;
        if (lineEnd >= 0) {
            row = lineEnd == e;
            if (row) {
                keyStart = fast.keyStart;
                keyEnd = fast.keyEnd;
            }
        } else {
            int contentEnd = e > s && b[e - 1] == '\r' ? e - 1 : e;
            row = Swar.indexOf(b, (byte) '\n', s, e) < 0 && parseLine(b, s, contentEnd);
            closeShared();
        }
        return row && values.timeComplete() ? rows.lineTime : Long.MIN_VALUE;
    }

    private int keyStart = -1;
    private int keyEnd;

    /**
     * Where the join key's text starts in the line {@link #rowTime} read last, for a decoder {@link
     * #withJoinKey}: -1 unless the fast path read the line as a row and the key as a non-empty
     * string or an integer (then {@code b[keyStart(), keyEnd())} is the key, ASCII, as Jackson
     * reads it); else the key is left to Jackson's reading, which says why it is missing or bad.
     */
    public int keyStart() {
        return keyStart;
    }

    /** Where the key's text ends; see {@link #keyStart()}. */
    public int keyEnd() {
        return keyEnd;
    }

    /**
     * Reads the line at {@code s} with the {@link JsonFastPath}, if this decoder has one.
     *
     * @return the line's end (its {@code \n}, or {@code end}) if it read the line as a row, else -1
     *     (the line is read again by {@link #parseLine})
     */
    private int readFast(byte[] b, int s, int end) {
        if (fast == null) {
            return -1;
        }
        rows.clearLine();
        int lineEnd = fast.read(b, s, end);
        if (lineEnd < 0
                || (lineEnd > s && b[lineEnd - 1] == '\r' ? lineEnd - 1 : lineEnd) - s
                        > options.maxLineBytes()) {
            return -1; // a line too long is a dead letter, however well-formed
        }
        closeShared(); // it is behind this line
        fastLines++;
        return lineEnd;
    }

    /** Reads one line's values into the line's arrays; false (with the reason set) if it is bad. */
    private boolean parseLine(byte[] b, int s, int e) {
        if (readLine(b, s, e)) {
            return true;
        }
        if (values.failReason == Reason.INVALID_JSON && !CriteoDecoder.isUtf8(b, s, e)) {
            return values.fail(Reason.INVALID_UTF8, "the line is not valid UTF-8");
        }
        return false;
    }

    /**
     * The block's parser, reading line after line while each holds one object: a parser per line
     * costs a third of Jackson's time on short events. Null once a line went wrong (the next line
     * starts a new one), and between blocks.
     */
    private JsonParser shared;

    /** Where in the block {@link #shared} starts: its byte offsets count from there. */
    private int sharedBase;

    /** The end of the block's complete lines, which {@link #shared} reads up to. */
    private int blockEnd;

    private boolean readLine(byte[] b, int s, int e) {
        if (e - s > options.maxLineBytes()) {
            closeShared(); // it would read the line
            return values.fail(
                    Reason.LINE_TOO_LONG,
                    "line has " + (e - s) + " bytes; the limit is " + options.maxLineBytes());
        }
        if (blank(b, s, e)) {
            return values.fail(Reason.EMPTY_LINE, "the line is empty"); // whitespace to the parser
        }
        if (readShared(b, s, e)) {
            return true;
        }
        // Whatever went wrong, the line is read again on its own: the reason and detail are those
        // of a parser that sees this line only (one that read on into the next line would name
        // it, or take an object split over two lines for one).
        closeShared();
        return readAlone(b, s, e);
    }

    /** Reads the line with the block's parser; false if anything about it is not a plain row. */
    private boolean readShared(byte[] b, int s, int e) {
        rows.clearLine();
        try {
            if (shared == null) {
                shared = json.createParser(b, s, blockEnd - s);
                sharedBase = s;
            }
            JsonParser p = shared;
            if (p.nextToken() != JsonToken.START_OBJECT
                    || sharedBase + p.currentTokenLocation().getByteOffset() < s
                    || sharedBase + p.currentTokenLocation().getByteOffset() >= e
                    || !readObject(p, root)) {
                return false;
            }
            long after = sharedBase + p.currentLocation().getByteOffset();
            return after <= e && blank(b, (int) after, e);
        } catch (IOException | RuntimeException bad) {
            return false;
        }
    }

    private void closeShared() {
        if (shared != null) {
            try {
                shared.close();
            } catch (IOException ignored) {
                // a parser over a byte array holds nothing to release
            }
            shared = null;
        }
    }

    /** Reads the line with a parser of its own, which sees nothing after it. */
    private boolean readAlone(byte[] b, int s, int e) {
        rows.clearLine();
        try (JsonParser p = json.createParser(b, s, e - s)) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                return values.fail(
                        Reason.INVALID_JSON,
                        "the line is "
                                + JsonValues.kindOf(p.currentToken())
                                + ", not a JSON object");
            }
            if (!readObject(p, root)) {
                return false;
            }
            JsonToken after = p.nextToken();
            if (after != null) {
                return values.fail(
                        Reason.INVALID_JSON,
                        "content after the JSON object, at column "
                                + p.currentLocation().getColumnNr());
            }
            return true;
        } catch (JsonParseException bad) {
            String message = bad.getOriginalMessage();
            int source = message.indexOf(" (start marker at ");
            message = (source < 0 ? message : message.substring(0, source)).replace('\n', ' ');
            return values.fail(
                    Reason.INVALID_JSON,
                    message
                            + " (column "
                            + (bad.getLocation() == null ? "?" : bad.getLocation().getColumnNr())
                            + ")");
        } catch (IOException | RuntimeException bad) {
            // Jackson's other read errors (a number too long, nesting too deep) are the line's.
            return values.fail(Reason.INVALID_JSON, String.valueOf(bad.getMessage()));
        }
    }

    private static boolean blank(byte[] b, int s, int e) {
        for (int i = s; i < e; i++) {
            if (b[i] != ' ' && b[i] != '\t') {
                return false;
            }
        }
        return true;
    }

    /** Walks an object (its START_OBJECT read) along the paths below {@code node}. */
    private boolean readObject(JsonParser p, PathTree node) throws IOException {
        JsonToken t;
        node.next = 0;
        while (true) {
            PathTree child;
            int expected = node.next;
            if (expected < node.expected.length && p.nextFieldName(node.expected[expected])) {
                // the field that followed the last one found: matched on the input's bytes,
                // without the parser's symbol table
                node.next = expected + 1;
                child = node.orderNodes[expected];
            } else {
                if (expected >= node.expected.length) {
                    p.nextToken();
                }
                t = p.currentToken();
                if (t != JsonToken.FIELD_NAME) {
                    break;
                }
                child = node.fields == null ? null : node.child(p.currentName());
            }
            JsonToken value = p.nextToken();
            if (child == null) {
                p.skipChildren();
            } else if (!readValue(p, value, child)) {
                return false;
            }
        }
        return t == JsonToken.END_OBJECT
                || values.fail(Reason.INVALID_JSON, "the object does not end where it should");
    }

    /** Walks an array (its START_ARRAY read) along the element paths below {@code node}. */
    private boolean readArray(JsonParser p, PathTree node) throws IOException {
        int i = 0;
        JsonToken t;
        while ((t = p.nextToken()) != JsonToken.END_ARRAY && t != null) {
            PathTree child = node.elements.get(i++);
            if (child == null) {
                p.skipChildren();
            } else if (!readValue(p, t, child)) {
                return false;
            }
        }
        return true;
    }

    /** The value at {@code node} (its first token {@code t} read). */
    private boolean readValue(JsonParser p, JsonToken t, PathTree node) throws IOException {
        if (t == JsonToken.VALUE_NULL) {
            return true; // missing, as if absent
        }
        if (node.targets.length > 0) {
            return values.readTargets(p, t, node.targets);
        }
        if (t == JsonToken.START_OBJECT && node.fields != null) {
            return readObject(p, node);
        }
        if (t == JsonToken.START_ARRAY && node.elements != null) {
            return readArray(p, node);
        }
        int f = node.firstField();
        return values.fail(
                values.typeReason(f),
                values.column(f)
                        + ": the event's "
                        + prefix(values.path(f), node)
                        + " is "
                        + JsonValues.kindOf(t)
                        + (node.fields != null ? ", not a record" : ", not an array"));
    }

    /** The part of {@code path} that leads to {@code node}, for messages. */
    private String prefix(FieldPath path, PathTree node) {
        PathTree n = root;
        StringBuilder sb = new StringBuilder();
        for (FieldPath.Segment s : path.segments()) {
            if (n == node) {
                break;
            }
            sb.append(s.isField() && sb.length() > 0 ? "." : "").append(s);
            n = s.isField() ? n.fields.get(s.name()) : n.elements.get(s.index());
        }
        return "\"" + sb + "\"";
    }
}
