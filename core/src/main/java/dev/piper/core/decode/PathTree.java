package dev.piper.core.decode;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.io.SerializedString;
import dev.piper.pipeline.input.EventFields;
import dev.piper.pipeline.input.FieldPath;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * The field paths of an event's columns ({@link EventFields}) as a tree from the event's top-level
 * record: each step holds the layout fields whose value it is and the steps below it. The event
 * decoders (JSON, its fast path, Avro, Protobuf) walk it beside the event and read only where it
 * leads.
 */
final class PathTree {
    /** Layout fields whose value is this node's value. */
    int[] targets = new int[0];

    /**
     * Whether an event holding this field is left to Jackson by {@link JsonFastPath}: the label
     * join's impressions may not have the field its labels go into.
     */
    boolean refused;

    /** Whether this is the label join's key, whose text {@link JsonFastPath} notes. */
    boolean key;

    /** {@link #add}'s field of a path {@link #refused}, and of the {@link #key}. */
    static final int REFUSED = -1;

    static final int KEY = -2;

    Map<String, PathTree> fields;
    Map<Integer, PathTree> elements;

    /**
     * The fields below in the order first added, as the parser matches them ({@link
     * JsonParser#nextFieldName}): events of one producer list their fields in one order, so the
     * field after the last one found is tried first, on the input's bytes, before the map.
     */
    SerializedString[] expected = new SerializedString[0];

    /**
     * The names of {@link #expected} as {@link JsonFastPath} matches them: their bytes, or null for
     * a name it leaves to Jackson ({@link #plainName}).
     */
    byte[][] nameBytes = new byte[0][];

    /** {@link #nameBytes} of up to 7 bytes and their closing quote, as 8 bytes read them. */
    long[] nameWords = new long[0];

    PathTree[] orderNodes = new PathTree[0];

    /** The index in {@link #expected} expected next. */
    int next;

    /** The field {@code name} below, when it was not the one expected next. */
    PathTree child(String name) {
        PathTree n = fields == null ? null : fields.get(name);
        if (n != null) {
            next = n.position + 1;
        }
        return n;
    }

    /** This node's index in its parent's {@link #expected}. */
    int position;

    /**
     * The tree of the {@code fields} first fields' paths, and of the event time's as field {@code
     * fields} if the events have one.
     *
     * @throws IllegalArgumentException if a path lies inside another's value
     */
    static PathTree of(EventFields events, int fields) {
        PathTree root = new PathTree();
        for (int f = 0; f < fields; f++) {
            root.add(events.path(f), 0, f);
        }
        if (events.timePath() != null) { // the event's time: the field after the layout's
            root.add(events.timePath(), 0, fields);
        }
        root.checkLeaves();
        return root;
    }

    /**
     * {@link #of(EventFields, int)} with the label join's key marked {@link #key} and the top-level
     * field {@code refusedTop} {@link #refused}.
     */
    static PathTree withKey(EventFields events, int fields, FieldPath key, String refusedTop) {
        PathTree root = of(events, fields);
        root.add(key, 0, KEY);
        root.add(FieldPath.parse(refusedTop), 0, REFUSED);
        return root;
    }

    /**
     * Adds {@code path} from segment {@code depth} on, its value read into layout field {@code
     * field}; a {@code field} of {@link #REFUSED} or {@link #KEY} marks its node so instead.
     */
    void add(FieldPath path, int depth, int field) {
        if (depth == path.segments().size()) {
            if (field < 0) {
                refused |= field == REFUSED;
                key |= field == KEY;
                return;
            }
            targets = Arrays.copyOf(targets, targets.length + 1);
            targets[targets.length - 1] = field;
            return;
        }
        FieldPath.Segment s = path.segments().get(depth);
        PathTree child;
        if (s.isField()) {
            fields = fields == null ? new HashMap<>() : fields;
            child = fields.get(s.name());
            if (child == null) {
                child = new PathTree();
                child.position = expected.length;
                fields.put(s.name(), child);
                orderNodes = Arrays.copyOf(orderNodes, orderNodes.length + 1);
                orderNodes[orderNodes.length - 1] = child;
                expected = Arrays.copyOf(expected, expected.length + 1);
                expected[expected.length - 1] = new SerializedString(s.name());
                nameBytes = Arrays.copyOf(nameBytes, nameBytes.length + 1);
                nameBytes[nameBytes.length - 1] = plainName(s.name());
                nameWords = Arrays.copyOf(nameWords, nameWords.length + 1);
                nameWords[nameWords.length - 1] = nameWord(nameBytes[nameBytes.length - 1]);
            }
        } else {
            elements = elements == null ? new HashMap<>() : elements;
            child = elements.computeIfAbsent(s.index(), k -> new PathTree());
        }
        child.add(path, depth + 1, field);
    }

    /** Refuses a path that lies inside another's value (the spec parser reports it first). */
    void checkLeaves() {
        for (Map<?, PathTree> m : Arrays.asList(fields, elements)) {
            if (m != null) {
                if (targets.length > 0) {
                    throw new IllegalArgumentException(
                            "a field is read as a value and as a record at once");
                }
                m.values().forEach(PathTree::checkLeaves);
            }
        }
    }

    /** The first layout field at or below this node, for messages. */
    int firstField() {
        if (targets.length > 0) {
            return targets[0];
        }
        int best = Integer.MAX_VALUE;
        for (Map<?, PathTree> m : Arrays.asList(fields, elements)) {
            if (m != null) {
                for (PathTree n : m.values()) {
                    best = Math.min(best, n.firstField());
                }
            }
        }
        return best;
    }

    /**
     * The bytes of a field name for matching, or null if any of its characters may not stand in a
     * JSON string as it is (a quote, a backslash, a control character, anything beyond ASCII): an
     * event holding such a name holds it escaped or beyond ASCII, which the fast path leaves to
     * Jackson ({@link JsonFastPath}).
     */
    static byte[] plainName(String name) {
        for (int k = 0; k < name.length(); k++) {
            char c = name.charAt(k);
            if (c < 0x20 || c >= 0x7f || c == '"' || c == '\\') {
                return null;
            }
        }
        return name.getBytes(StandardCharsets.US_ASCII);
    }

    /**
     * A name of up to 7 bytes and its closing quote as the little-endian word of 8 input bytes that
     * start with them reads, bytes past the quote zero; 0 for a longer name or none.
     */
    static long nameWord(byte[] name) {
        if (name == null || name.length >= Long.BYTES) {
            return 0;
        }
        long w = '"';
        for (int k = name.length - 1; k >= 0; k--) {
            w = w << 8 | (name[k] & 0xff);
        }
        return w;
    }
}
