package dev.piper.core.decode;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.io.SerializedString;
import dev.piper.pipeline.input.EventFields;
import dev.piper.pipeline.input.FieldPath;
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
     * a name it leaves to Jackson ({@link JsonFastPath#plainName}).
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
     * {@link #of(EventFields, int)} with the label join's key as field {@code fields + 1} (after
     * the time's) and the top-level field {@code refusedTop} {@link #refused}.
     *
     * @throws IllegalArgumentException if a path lies inside another's value, the key's included
     */
    static PathTree withKey(EventFields events, int fields, FieldPath key, String refusedTop) {
        PathTree root = of(events, fields);
        root.add(key, 0, fields + 1);
        root.add(FieldPath.parse(refusedTop), 0, -1);
        root.checkLeaves();
        return root;
    }

    /**
     * Adds {@code path} from segment {@code depth} on, its value read into layout field {@code
     * field}; a {@code field} of -1 marks its node {@link #refused} instead.
     */
    void add(FieldPath path, int depth, int field) {
        if (depth == path.segments().size()) {
            if (field < 0) {
                refused = true;
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
                nameBytes[nameBytes.length - 1] = JsonFastPath.plainName(s.name());
                nameWords = Arrays.copyOf(nameWords, nameWords.length + 1);
                nameWords[nameWords.length - 1] =
                        JsonFastPath.nameWord(nameBytes[nameBytes.length - 1]);
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
}
