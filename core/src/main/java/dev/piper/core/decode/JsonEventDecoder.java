package dev.piper.core.decode;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.io.SerializedString;
import dev.piper.core.block.DeadLetter;
import dev.piper.core.block.RawChunk;
import dev.piper.pipeline.input.EventFields;
import dev.piper.pipeline.input.FieldPath;
import dev.piper.pipeline.input.StringIds;
import dev.piper.pipeline.layout.HexIds;
import dev.piper.pipeline.layout.Reason;
import dev.piper.pipeline.layout.RowLayout;
import dev.piper.pipeline.ops.ColumnProgram;
import dev.piper.pipeline.ops.DecodeOptions;
import java.io.IOException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

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

    /** The most characters of a bad value its dead letter's detail quotes. */
    private static final int QUOTED_CHARS = 64;

    private final DecodeOptions options;
    private final ColumnProgram program;
    private final RowLayout layout;
    private final JsonFactory json;

    /** The paths as a tree, from the event's top-level object. */
    private final Node root;

    private final FieldPath[] paths;
    private final int width;
    private final int sparse;
    private final int fields;
    private final boolean[] hashes;

    /** The block's rows, and the values of the line being decoded. */
    private final EventRows rows;

    // The line being decoded: its values, and which fields it has (the arrays of {@link #rows}).
    private final int[] lineDense;
    private final long[] lineIds;
    private final boolean[] present;
    private final long[][] lineLists;
    private final int[] lineListSize;

    /** Reads the common lines without Jackson; null in the reference decoder. */
    private final JsonFastPath fast;

    /** Lines {@link #fast} read, for tests. */
    long fastLines;

    /** Why the current line is rejected, once it is. */
    private Reason failReason;

    private String failDetail;

    public JsonEventDecoder(DecodeOptions options, boolean measure) {
        this(options, measure, true);
    }

    /**
     * A decoder that reads every line with Jackson when {@code fastPath} is false: the reference
     * that {@link JsonFastPath}'s readings are tested against.
     */
    JsonEventDecoder(DecodeOptions options, boolean measure, boolean fastPath) {
        EventFields events = options.events();
        if (events == null) {
            throw new IllegalArgumentException("options without event fields");
        }
        this.options = options;
        this.program = options.program();
        this.layout = program.layout();
        this.json =
                JsonFactory.builder()
                        .streamReadConstraints(
                                StreamReadConstraints.builder()
                                        .maxNestingDepth(1000)
                                        .maxNumberLength(1000)
                                        .build())
                        .build();
        this.width = layout.labelDenseWidth();
        this.sparse = layout.sparse();
        this.fields = layout.fields();
        this.paths = new FieldPath[fields];
        this.root = new Node();
        for (int f = 0; f < fields; f++) {
            paths[f] = events.path(f);
            root.add(paths[f], 0, f);
        }
        root.checkLeaves();
        this.hashes = new boolean[sparse];
        for (int c = 0; c < sparse; c++) {
            hashes[c] = program.hashesIds(c);
        }
        this.rows = new EventRows(program, measure);
        this.lineDense = rows.lineDense;
        this.lineIds = rows.lineIds;
        this.present = rows.present;
        this.lineLists = rows.lineLists;
        this.lineListSize = rows.lineListSize;
        this.fast =
                fastPath
                        ? new JsonFastPath(
                                root,
                                width,
                                hashes,
                                lineDense,
                                lineIds,
                                present,
                                lineLists,
                                lineListSize,
                                rows.names)
                        : null;
    }

    /** A step of the paths: the fields read here, and the steps below. */
    static final class Node {
        /** Layout fields whose value is this node's value. */
        int[] targets = new int[0];

        Map<String, Node> fields;
        Map<Integer, Node> elements;

        /**
         * The fields below in the order first added, as the parser matches them ({@link
         * JsonParser#nextFieldName}): events of one producer list their fields in one order, so the
         * field after the last one found is tried first, on the input's bytes, before the map.
         */
        SerializedString[] expected = new SerializedString[0];

        /**
         * The names of {@link #expected} as {@link JsonFastPath} matches them: their bytes, or null
         * for a name it leaves to Jackson ({@link JsonFastPath#plainName}).
         */
        byte[][] nameBytes = new byte[0][];

        /** {@link #nameBytes} of up to 7 bytes and their closing quote, as 8 bytes read them. */
        long[] nameWords = new long[0];

        Node[] orderNodes = new Node[0];

        /** The index in {@link #expected} expected next. */
        int next;

        /** The field {@code name} below, when it was not the one expected next. */
        Node child(String name) {
            Node n = fields == null ? null : fields.get(name);
            if (n != null) {
                next = n.position + 1;
            }
            return n;
        }

        /** This node's index in its parent's {@link #expected}. */
        int position;

        void add(FieldPath path, int depth, int field) {
            if (depth == path.segments().size()) {
                targets = Arrays.copyOf(targets, targets.length + 1);
                targets[targets.length - 1] = field;
                return;
            }
            FieldPath.Segment s = path.segments().get(depth);
            Node child;
            if (s.isField()) {
                fields = fields == null ? new HashMap<>() : fields;
                child = fields.get(s.name());
                if (child == null) {
                    child = new Node();
                    child.position = expected.length;
                    fields.put(s.name(), child);
                    orderNodes = Arrays.copyOf(orderNodes, orderNodes.length + 1);
                    orderNodes[orderNodes.length - 1] = child;
                    expected = Arrays.copyOf(expected, expected.length + 1);
                    expected[expected.length - 1] = new SerializedString(s.name());
                    nameBytes = Arrays.copyOf(nameBytes, nameBytes.length + 1);
                    nameBytes[nameBytes.length - 1] = JsonFastPath.plainName(s.name());
                    nameWords = Arrays.copyOf(nameWords, nameWords.length + 1);
                    nameWords[nameWords.length - 1] =
                            JsonFastPath.nameWord(nameBytes[nameBytes.length - 1]);
                }
            } else {
                elements = elements == null ? new HashMap<>() : elements;
                child = elements.computeIfAbsent(s.index(), k -> new Node());
            }
            child.add(path, depth + 1, field);
        }

        /** Refuses a path that lies inside another's value (the spec parser reports it first). */
        void checkLeaves() {
            for (Map<?, Node> m : Arrays.asList(fields, elements)) {
                if (m != null) {
                    if (targets.length > 0) {
                        throw new IllegalArgumentException(
                                "a field is read as a value and as a record at once");
                    }
                    m.values().forEach(Node::checkLeaves);
                }
            }
        }

        /** The first layout field at or below this node, for messages. */
        int firstField() {
            if (targets.length > 0) {
                return targets[0];
            }
            int best = Integer.MAX_VALUE;
            for (Map<?, Node> m : Arrays.asList(fields, elements)) {
                if (m != null) {
                    for (Node n : m.values()) {
                        best = Math.min(best, n.firstField());
                    }
                }
            }
            return best;
        }
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
            if (row) {
                rows.commit();
                acceptedBytes += next - start;
            } else {
                int contentEnd = lineEnd > start && b[lineEnd - 1] == '\r' ? lineEnd - 1 : lineEnd;
                dead.add(deadLetter(chunk, lines, b, start, contentEnd));
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
     * Reads the line at {@code s} with the {@link JsonFastPath}, if this decoder has one.
     *
     * @return the line's end (its {@code \n}, or {@code end}) if it read the line as a row, else -1
     *     (the line is read again by {@link #parseLine})
     */
    private int readFast(byte[] b, int s, int end) {
        if (fast == null) {
            return -1;
        }
        clearLine();
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
        if (failReason == Reason.INVALID_JSON && !CriteoDecoder.isUtf8(b, s, e)) {
            return fail(Reason.INVALID_UTF8, "the line is not valid UTF-8");
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
            return fail(
                    Reason.LINE_TOO_LONG,
                    "line has " + (e - s) + " bytes; the limit is " + options.maxLineBytes());
        }
        if (blank(b, s, e)) {
            return fail(Reason.EMPTY_LINE, "the line is empty"); // whitespace to the parser
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
        clearLine();
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

    private void clearLine() {
        rows.clearLine();
    }

    /** Reads the line with a parser of its own, which sees nothing after it. */
    private boolean readAlone(byte[] b, int s, int e) {
        clearLine();
        try (JsonParser p = json.createParser(b, s, e - s)) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                return fail(
                        Reason.INVALID_JSON,
                        "the line is " + kindOf(p.currentToken()) + ", not a JSON object");
            }
            if (!readObject(p, root)) {
                return false;
            }
            JsonToken after = p.nextToken();
            if (after != null) {
                return fail(
                        Reason.INVALID_JSON,
                        "content after the JSON object, at column "
                                + p.currentLocation().getColumnNr());
            }
            return true;
        } catch (JsonParseException bad) {
            String message = bad.getOriginalMessage();
            int source = message.indexOf(" (start marker at ");
            message = (source < 0 ? message : message.substring(0, source)).replace('\n', ' ');
            return fail(
                    Reason.INVALID_JSON,
                    message
                            + " (column "
                            + (bad.getLocation() == null ? "?" : bad.getLocation().getColumnNr())
                            + ")");
        } catch (IOException | RuntimeException bad) {
            // Jackson's other read errors (a number too long, nesting too deep) are the line's.
            return fail(Reason.INVALID_JSON, String.valueOf(bad.getMessage()));
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
    private boolean readObject(JsonParser p, Node node) throws IOException {
        JsonToken t;
        node.next = 0;
        while (true) {
            Node child;
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
                || fail(Reason.INVALID_JSON, "the object does not end where it should");
    }

    /** Walks an array (its START_ARRAY read) along the element paths below {@code node}. */
    private boolean readArray(JsonParser p, Node node) throws IOException {
        int i = 0;
        JsonToken t;
        while ((t = p.nextToken()) != JsonToken.END_ARRAY && t != null) {
            Node child = node.elements.get(i++);
            if (child == null) {
                p.skipChildren();
            } else if (!readValue(p, t, child)) {
                return false;
            }
        }
        return true;
    }

    /** The value at {@code node} (its first token {@code t} read). */
    private boolean readValue(JsonParser p, JsonToken t, Node node) throws IOException {
        if (t == JsonToken.VALUE_NULL) {
            return true; // missing, as if absent
        }
        if (node.targets.length > 0) {
            return readTargets(p, t, node.targets);
        }
        if (t == JsonToken.START_OBJECT && node.fields != null) {
            return readObject(p, node);
        }
        if (t == JsonToken.START_ARRAY && node.elements != null) {
            return readArray(p, node);
        }
        int f = node.firstField();
        return fail(
                Reason.WRONG_TYPE,
                column(f)
                        + ": the event's "
                        + prefix(paths[f], node)
                        + " is "
                        + kindOf(t)
                        + (node.fields != null ? ", not a record" : ", not an array"));
    }

    /** The part of {@code path} that leads to {@code node}, for messages. */
    private String prefix(FieldPath path, Node node) {
        Node n = root;
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

    /** Reads a leaf value into each field that reads it. */
    private boolean readTargets(JsonParser p, JsonToken t, int[] targets) throws IOException {
        if (t == JsonToken.START_ARRAY) {
            int first = -1;
            for (int f : targets) {
                int c = f - width;
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
            return fail(Reason.WRONG_TYPE, column(targets[0]) + ": a record, not a value");
        }
        for (int f : targets) {
            if (!readScalar(p, t, f)) {
                return false;
            }
        }
        return true;
    }

    private boolean readScalar(JsonParser p, JsonToken t, int f) throws IOException {
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

    /** A column and its path, as details name them: {@code C1 (user.id)}. */
    private String column(int f) {
        return layout.fieldName(f) + " (" + paths[f].text() + ")";
    }

    private static String kindOf(JsonToken t) {
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

    private boolean fail(Reason reason, String detail) {
        failReason = reason;
        failDetail = detail;
        return false;
    }

    private DeadLetter deadLetter(RawChunk chunk, int lineIndex, byte[] b, int s, int e) {
        return CriteoDecoder.deadLetter(
                chunk, lineIndex, b, s, e, failReason, failDetail, options.maxRawBytes());
    }
}
