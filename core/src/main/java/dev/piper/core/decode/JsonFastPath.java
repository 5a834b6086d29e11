package dev.piper.core.decode;

import dev.piper.pipeline.input.EventTime;
import dev.piper.pipeline.input.StringIds;
import dev.piper.pipeline.layout.HexIds;
import java.util.Arrays;

/**
 * Reads the common JSON event straight from its bytes: one object on a line, ASCII strings without
 * escapes, integers that fit their column. It validates everything it passes over (a skipped field
 * too) against JSON's grammar, and gives up on anything else: then the line is read again by
 * Jackson, whose reading is the reference ({@link JsonEventDecoder}), so that both agree on every
 * line the fast path accepts and every error is worded by Jackson. {@code JsonFastPathTest}
 * compares the two on generated and mutated events.
 *
 * <p>Why it exists: Jackson's streaming parser, even walking only the spec's paths, decoded JSON
 * events at 0.30 of the Criteo text decoder's rows/s in {@code bin/piper bench --events} (a
 * character buffer per string, a symbol table per field name). Over the same events in one thread
 * this reads 2.3 times as many lines a second as Jackson does (611k against 260k rows/s, best of 15
 * passes over 1M lines), names matched eight bytes at a time in the order events list them, hex ids
 * as {@link Swar#hex8} words, line ends found as it goes (docs/PERFORMANCE.md, "JSON events").
 *
 * <p>It writes the line's values into the decoder's line arrays exactly as {@link JsonEventDecoder}
 * does, and leaves them undefined when it gives up.
 */
final class JsonFastPath {

    /** Deeper nesting is left to Jackson, whose limit is the documented one. */
    private static final int MAX_DEPTH = 32;

    /** How many fields after the one expected next are tried in place before any other. */
    private static final int NEAR = 4;

    /** Integers of at most this many digits fit a 32-bit dense value. */
    private static final int INT_DIGITS = 9;

    /** Integers of at most this many digits fit a 64-bit id. */
    private static final int LONG_DIGITS = 18;

    private final PathTree root;
    private final int width;
    private final boolean[] hashes;
    private final int[] lineDense;
    private final long[] lineIds;
    private final boolean[] present;
    private final long[][] lineLists;
    private final int[] lineListSize;

    private byte[] b;
    private int e;

    /** The read position. */
    private int i;

    /** The original strings of hash64 columns, or null. */
    private final NameCollector names;

    /** The rows, for the event's time; the field of the time (-1: none) and how it reads. */
    private final EventRows rows;

    private final int timeField;
    private final EventTime time;

    /** Where the join key's text lies in the line read last ({@link PathTree#key}); -1: none. */
    int keyStart;

    int keyEnd;

    // The last number read: its value and digits (sign not counted).
    private long number;
    private int digits;

    /** A fast path along {@code root} into the line arrays of {@code rows}. */
    JsonFastPath(PathTree root, boolean[] hashes, EventRows rows) {
        this.root = root;
        this.width = rows.width;
        this.hashes = hashes;
        this.lineDense = rows.lineDense;
        this.lineIds = rows.lineIds;
        this.present = rows.present;
        this.lineLists = rows.lineLists;
        this.lineListSize = rows.lineListSize;
        this.names = rows.names;
        this.rows = rows;
        this.timeField = rows.timeField;
        this.time = rows.time;
    }

    /**
     * Reads the line that starts at {@code s} in {@code b[s, end)} (whole lines) into the line
     * arrays, which the caller cleared; it finds the line's end as it goes, a line break being no
     * JSON whitespace to it.
     *
     * @return the end of the line (its {@code \n}, or {@code end}) if it is one JSON object and
     *     every value it holds was read; -1 if Jackson must read it (it may be good or bad)
     */
    int read(byte[] bytes, int s, int end) {
        this.b = bytes;
        this.e = end;
        this.i = s;
        keyStart = -1;
        space();
        if (i >= e || b[i] != '{') {
            return -1;
        }
        i++;
        if (!object(root, 0)) {
            return -1;
        }
        space();
        return i == e || b[i] == '\n' ? i : -1;
    }

    // What follows a value in an object or array (separator()).
    private static final int MORE = 0;
    private static final int CLOSED = 1;
    private static final int BAD = 2;

    /**
     * Reads what follows a value inside an object or array whose closing byte is {@code close}:
     * {@link #MORE} after a comma (and the space after it), {@link #CLOSED} after {@code close},
     * {@link #BAD} for anything else.
     */
    private int separator(byte close) {
        space();
        if (i >= e) {
            return BAD;
        }
        byte c = b[i++];
        if (c == close) {
            return CLOSED;
        }
        if (c != ',') {
            return BAD;
        }
        space();
        return MORE;
    }

    /** Skips JSON whitespace on the line: spaces, tabs and carriage returns. */
    private void space() {
        while (i < e) {
            byte c = b[i];
            if (c != ' ' && c != '\t' && c != '\r') {
                return;
            }
            i++;
        }
    }

    /** The rest of an object whose '{' was read, along the paths below {@code node}. */
    private boolean object(PathTree node, int depth) {
        space();
        if (i < e && b[i] == '}') {
            i++;
            return true;
        }
        byte[][] names = node.nameBytes;
        int next = 0;
        while (true) {
            if (i >= e || b[i] != '"') {
                return false;
            }
            i++;
            PathTree child = null;
            if (next < names.length && nameAt(names[next], node.nameWords[next])) {
                // the field that followed the last one found, matched in place
                child = node.orderNodes[next++];
            } else {
                // events leave out missing fields: one of the next few, in place, or any
                int k = next + 1;
                int near = Math.min(names.length, next + NEAR);
                while (k < near && !nameAt(names[k], node.nameWords[k])) {
                    k++;
                }
                if (k < near) {
                    child = node.orderNodes[k];
                    next = k + 1;
                } else {
                    int nameStart = i;
                    if (!string()) {
                        return false;
                    }
                    int nameEnd = i - 1;
                    for (k = 0; k < names.length; k++) {
                        if (same(names[k], nameStart, nameEnd)) {
                            child = node.orderNodes[k];
                            next = k + 1;
                            break;
                        }
                    }
                }
            }
            space();
            if (i >= e || b[i] != ':') {
                return false;
            }
            i++;
            space();
            if (!(child == null ? skip(depth + 1) : value(child, depth + 1))) {
                return false;
            }
            int after = separator((byte) '}');
            if (after != MORE) {
                return after == CLOSED;
            }
        }
    }

    /**
     * Whether the name at {@code i} is {@code name} ({@code word} its {@link #nameWord}) with its
     * closing quote; if so, skips both.
     */
    private boolean nameAt(byte[] name, long word) {
        if (name == null) {
            return false;
        }
        int n = name.length;
        if (word != 0 && i + Long.BYTES <= e) {
            long mask = -1L >>> ((Long.BYTES - 1 - n) << 3);
            if ((Swar.load(b, i) & mask) != word) {
                return false;
            }
            i += n + 1;
            return true;
        }
        if (i + n >= e || b[i + n] != '"') {
            return false;
        }
        for (int k = 0; k < n; k++) {
            if (name[k] != b[i + k]) {
                return false;
            }
        }
        i += n + 1;
        return true;
    }

    private boolean same(byte[] name, int s, int end) {
        if (name == null || name.length != end - s) {
            return false;
        }
        for (int k = 0; k < name.length; k++) {
            if (name[k] != b[s + k]) {
                return false;
            }
        }
        return true;
    }

    /** The value at {@code node}, at {@code i}. */
    private boolean value(PathTree node, int depth) {
        if (i >= e || depth > MAX_DEPTH) {
            return false;
        }
        byte c = b[i];
        if (node.refused) { // Jackson's reading refuses it
            return false;
        }
        if (c == 'n') {
            return literal("null"); // missing, as if absent
        }
        if (node.key) {
            return joinKey(node, c);
        }
        if (node.targets.length > 0) {
            return targets(node.targets, c);
        }
        if (c == '{' && node.fields != null) {
            i++;
            return object(node, depth);
        }
        if (c == '[' && node.elements != null) {
            i++;
            return elements(node, depth);
        }
        return false; // a value of the wrong kind: Jackson's reading names it
    }

    /** The rest of an array whose '[' was read, along the element paths below {@code node}. */
    private boolean elements(PathTree node, int depth) {
        space();
        if (i < e && b[i] == ']') {
            i++;
            return true;
        }
        int index = 0;
        while (true) {
            PathTree child = node.elements.get(index++);
            if (!(child == null ? skip(depth + 1) : value(child, depth + 1))) {
                return false;
            }
            int after = separator((byte) ']');
            if (after != MORE) {
                return after == CLOSED;
            }
        }
    }

    /** A leaf value, first byte {@code c}, read into each field that reads it. */
    private boolean targets(int[] targets, byte c) {
        if (c == '[') {
            i++;
            return list(targets);
        }
        if (c == '"') {
            int s = ++i;
            if (targets.length == 1 && hex(targets[0])) {
                return true;
            }
            if (!string()) {
                return false;
            }
            int end = i - 1;
            for (int f : targets) {
                if (f == timeField) {
                    if (end > s && !time(time.millis(b, s, end))) {
                        return false; // no time: Jackson's reading names it
                    }
                } else if (f < width) {
                    if (end > s) {
                        return false; // decimal text: Jackson's reading parses it
                    }
                } else if (lineLists[f - width] != null || (end > s && !id(f, s, end))) {
                    return false;
                }
            }
            return true;
        }
        if (c == 't' || c == 'f') {
            if (!literal(c == 't' ? "true" : "false")) {
                return false;
            }
            for (int f : targets) {
                if (f >= width) {
                    return false;
                }
                lineDense[f] = c == 't' ? 1 : 0;
                present[f] = true;
            }
            return true;
        }
        if (c == '-' || (c >= '0' && c <= '9')) {
            if (!integer()) {
                return false;
            }
            for (int f : targets) {
                if (f == timeField) {
                    if (!time(time.millis(number))) {
                        return false;
                    }
                    continue;
                }
                if (f < width) {
                    if (digits > INT_DIGITS) {
                        return false;
                    }
                    lineDense[f] = (int) number;
                } else {
                    int col = f - width;
                    if (digits > LONG_DIGITS || lineLists[col] != null) {
                        return false;
                    }
                    lineIds[col] = number;
                }
                present[f] = true;
            }
            return true;
        }
        return false;
    }

    /**
     * The join key at {@code i}, into its node's fields too: a non-empty string or integer, once.
     */
    private boolean joinKey(PathTree node, byte c) {
        int s = i;
        boolean text = c == '"';
        boolean number = c == '-' || c >= '0' && c <= '9';
        boolean read =
                node.targets.length > 0
                        ? targets(node.targets, c)
                        : text ? ++i > s && string() : number && integer();
        if (!read || keyStart >= 0 || !(text || number)) {
            return false;
        }
        keyStart = text ? s + 1 : s;
        keyEnd = text ? i - 1 : i;
        return keyEnd > keyStart;
    }

    /** A list column's array, '[' read: into the first target's list, copied to the others. */
    private boolean list(int[] targets) {
        for (int f : targets) {
            if (f < width || f == timeField || lineLists[f - width] == null) {
                return false;
            }
        }
        int first = targets[0] - width;
        lineListSize[first] = 0; // a field given twice: the last one counts
        space();
        if (i < e && b[i] == ']') {
            i++;
        } else {
            while (true) {
                if (i >= e) {
                    return false;
                }
                byte c = b[i];
                long id;
                if (c == '"') {
                    int s = ++i;
                    if (!string() || i - 1 == s || !key(first, s, i - 1)) {
                        return false;
                    }
                    id = key;
                } else if ((c == '-' || (c >= '0' && c <= '9')) && integer()) {
                    if (digits > LONG_DIGITS) {
                        return false;
                    }
                    id = number;
                } else {
                    return false;
                }
                long[] values = lineLists[first];
                if (lineListSize[first] == values.length) {
                    lineLists[first] = values = Arrays.copyOf(values, values.length * 2);
                }
                values[lineListSize[first]++] = id;
                int after = separator((byte) ']');
                if (after == CLOSED) {
                    break;
                }
                if (after == BAD) {
                    return false;
                }
            }
        }
        for (int k = 0; k < targets.length; k++) {
            int col = targets[k] - width;
            if (k > 0) {
                lineLists[col] = Arrays.copyOf(lineLists[first], lineLists[first].length);
                lineListSize[col] = lineListSize[first];
                if (names != null) {
                    names.copyLine(first, col);
                }
            }
            present[targets[k]] = lineListSize[col] > 0;
        }
        return true;
    }

    /**
     * Reads the text at {@code i} (its quote read) as field {@code f}'s id when it is 8 or 16 hex
     * digits of a column of single hex ids, Criteo's: eight digits a step ({@link Swar#hex8}).
     *
     * @return whether it did (else nothing is read)
     */
    private boolean hex(int f) {
        int col = f - width;
        if (col < 0
                || col >= hashes.length // the event's time
                || hashes[col]
                || lineLists[col] != null
                || i + 2 * Long.BYTES + 1 > e) {
            return false;
        }
        long high = Swar.load(b, i);
        if (!Swar.isHex8(high)) {
            return false;
        }
        long id;
        if (b[i + Long.BYTES] == '"') {
            id = Swar.hex8(high);
            i += Long.BYTES + 1;
        } else {
            long low = Swar.load(b, i + Long.BYTES);
            if (!Swar.isHex8(low) || b[i + 2 * Long.BYTES] != '"') {
                return false;
            }
            id = Swar.hex8(high) << 32 | Swar.hex8(low);
            i += 2 * Long.BYTES + 1;
        }
        lineIds[col] = id;
        present[f] = true;
        return true;
    }

    /** The id {@link #key} read last. */
    private long key;

    /** Reads the text {@code b[s, end)} (not empty) as sparse field {@code f}'s id. */
    private boolean id(int f, int s, int end) {
        int col = f - width;
        if (!key(col, s, end)) {
            return false;
        }
        lineIds[col] = key;
        present[f] = true;
        return true;
    }

    /**
     * The key of the ASCII text {@code b[s, end)} in column {@code col} into {@link #key}; false
     * for hexadecimal text that is not an id (Jackson's reading words the dead letter).
     */
    private boolean key(int col, int s, int end) {
        if (hashes[col]) {
            key = StringIds.key(b, s, end - s);
            if (names != null) {
                names.note(col, key, b, s, end - s);
            }
            return true;
        }
        if (HexIds.status(b, s, end) != HexIds.OK) {
            return false;
        }
        key = HexIds.value(b, s, end);
        return true;
    }

    /**
     * The rest of a string whose '"' was read, up to and past its closing '"'; false at an escape,
     * a control character or a byte beyond ASCII (Jackson decodes and checks those).
     */
    private boolean string() {
        while (i + Long.BYTES <= e) {
            int plain = Swar.plainJsonChars(Swar.load(b, i));
            i += plain;
            if (plain < Long.BYTES) {
                return b[i++] == '"';
            }
        }
        while (i < e) {
            byte c = b[i++];
            if (c == '"') {
                return true;
            }
            if (c < 0x20 || c == '\\') { // bytes >= 0x80 are negative
                return false;
            }
        }
        return false;
    }

    /** An integer at {@code i} into {@link #number} and {@link #digits}; false if it is not one. */
    private boolean integer() {
        boolean negative = b[i] == '-';
        if (negative) {
            i++;
        }
        int s = i;
        long v = 0;
        while (i < e && b[i] >= '0' && b[i] <= '9') {
            v = v * 10 + (b[i++] - '0');
        }
        digits = i - s;
        if (digits == 0 || (digits > 1 && b[s] == '0') || digits > LONG_DIGITS) {
            return false; // also a leading zero, which JSON does not allow
        }
        if (i < e && (b[i] == '.' || b[i] == 'e' || b[i] == 'E')) {
            return false; // a fraction or an exponent: Jackson's reading decides
        }
        number = negative ? -v : v;
        return true;
    }

    /** Sets the event's time to {@code millis}, unless it is {@link EventTime#INVALID}. */
    private boolean time(long millis) {
        if (millis == EventTime.INVALID) {
            return false;
        }
        rows.setTime(millis);
        return true;
    }

    /** Skips a value the spec does not read, checking it is well-formed JSON. */
    private boolean skip(int depth) {
        if (i >= e || depth > MAX_DEPTH) {
            return false;
        }
        byte c = b[i];
        switch (c) {
            case '"' -> {
                i++;
                return string();
            }
            case '{' -> {
                i++;
                space();
                if (i < e && b[i] == '}') {
                    i++;
                    return true;
                }
                while (true) {
                    if (i >= e || b[i] != '"') {
                        return false;
                    }
                    i++;
                    if (!string()) {
                        return false;
                    }
                    space();
                    if (i >= e || b[i] != ':') {
                        return false;
                    }
                    i++;
                    space();
                    if (!skip(depth + 1)) {
                        return false;
                    }
                    int after = separator((byte) '}');
                    if (after != MORE) {
                        return after == CLOSED;
                    }
                }
            }
            case '[' -> {
                i++;
                space();
                if (i < e && b[i] == ']') {
                    i++;
                    return true;
                }
                while (true) {
                    if (!skip(depth + 1)) {
                        return false;
                    }
                    int after = separator((byte) ']');
                    if (after != MORE) {
                        return after == CLOSED;
                    }
                }
            }
            case 't' -> {
                return literal("true");
            }
            case 'f' -> {
                return literal("false");
            }
            case 'n' -> {
                return literal("null");
            }
            default -> {
                return (c == '-' || (c >= '0' && c <= '9')) && number();
            }
        }
    }

    /** Any JSON number at {@code i}, checked against the grammar and skipped. */
    private boolean number() {
        if (b[i] == '-') {
            i++;
        }
        int s = i;
        while (i < e && b[i] >= '0' && b[i] <= '9') {
            i++;
        }
        if (i == s || (i - s > 1 && b[s] == '0')) {
            return false;
        }
        if (i < e && b[i] == '.') {
            int f = ++i;
            while (i < e && b[i] >= '0' && b[i] <= '9') {
                i++;
            }
            if (i == f) {
                return false;
            }
        }
        if (i < e && (b[i] == 'e' || b[i] == 'E')) {
            i++;
            if (i < e && (b[i] == '+' || b[i] == '-')) {
                i++;
            }
            int x = i;
            while (i < e && b[i] >= '0' && b[i] <= '9') {
                i++;
            }
            return i > x;
        }
        return true;
    }

    private boolean literal(String word) {
        int n = word.length();
        if (e - i < n) {
            return false;
        }
        for (int k = 0; k < n; k++) {
            if (b[i + k] != word.charAt(k)) {
                return false;
            }
        }
        i += n;
        return true;
    }
}
