package dev.piper.connectors.parquet;

import dev.piper.pipeline.input.EventFields;
import dev.piper.pipeline.input.EventTime;
import dev.piper.pipeline.input.FieldPath;
import dev.piper.pipeline.layout.RowLayout;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.apache.parquet.schema.GroupType;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType;
import org.apache.parquet.schema.Type;

/**
 * Where each column of a spec of named fields ({@code input.fields}, {@code input.timestamp}) is in
 * a Parquet file: the same paths a JSON or Avro event is read by, followed through the file's
 * schema (a dot steps into a group, {@code [i]} takes element {@code i} of a LIST), so one spec
 * reads the events as JSON lines, Avro, or a Parquet file of the same fields. The nodes on the
 * paths form a tree; the reader's record assembly walks it ({@code reader.EventConverters}) and
 * puts the values into rows by the events' rules ({@code TypedEvents}; docs/SEMANTICS.md, "Parquet
 * input").
 *
 * <p>A value whose kind its column can never hold (a BOOLEAN for an id, a LIST for a column of one
 * value, a group for a value, a DECIMAL, INT96, a MAP) is refused here, before the job starts,
 * naming the column, its path and the file's type: every row would be a dead letter. A path the
 * file does not have reads missing values, as an event without the field (the column's fill), and
 * is listed in {@link #absent()} for a note.
 */
public final class ParquetEvents {

    /** How a value's (or a list element's) physical type is read. */
    public enum Kind {
        BOOLEAN,
        /** INT32, signed. */
        INT32,
        /** INT32 annotated unsigned: its 32 bits as an unsigned number. */
        UINT32,
        INT64,
        FLOAT,
        DOUBLE,
        /** BINARY or FIXED_LEN_BYTE_ARRAY: text (a string, or bytes). */
        TEXT
    }

    /** How a list's elements are nested in the file. */
    public enum ListShape {
        /** {@code group (LIST) { repeated group list { element } }}. */
        THREE_LEVEL,
        /** {@code group (LIST) { repeated element }}. */
        TWO_LEVEL,
        /** A bare {@code repeated} value. */
        BARE
    }

    /** A node of the file's schema on the columns' paths, with what reads it. */
    public static final class Node {
        /** The node's type in the file. */
        public final Type type;

        /** Its path, for messages. */
        public final String path;

        /** The fields reading this node's value (its list, for a list node). */
        int[] targets = new int[0];

        /** For a list node, the fields reading one element, by the element's index. */
        final Map<Integer, int[]> elements = new TreeMap<>();

        /** For a group on a path, the nodes below it that are on paths, in the file's order. */
        final Map<String, Node> children = new LinkedHashMap<>();

        /** How its values (a list's elements) are read; null for a group. */
        Kind kind;

        /** How a list node nests its elements; null for a value or group. */
        ListShape shape;

        Node(Type type, String path) {
            this.type = type;
            this.path = path;
        }

        public int[] targets() {
            return targets;
        }

        /** The fields reading element {@code i} of this list, or null. */
        public int[] element(int i) {
            return elements.get(i);
        }

        /** Whether any field reads an element by its index. */
        public boolean readsElements() {
            return !elements.isEmpty();
        }

        public Kind kind() {
            return kind;
        }

        public ListShape shape() {
            return shape;
        }

        /** The nodes below a group, in the projection's order. */
        public List<Node> children() {
            return List.copyOf(children.values());
        }
    }

    private final Node root;
    private final MessageType projection;
    private final List<String> absent;

    private ParquetEvents(Node root, MessageType projection, List<String> absent) {
        this.root = root;
        this.projection = projection;
        this.absent = absent;
    }

    /** The record's node: its children are the projection's fields. */
    public Node root() {
        return root;
    }

    /** The schema of the columns on the paths, to read no other. */
    public MessageType projection() {
        return projection;
    }

    /** The columns whose paths the file lacks ({@code C5 (user.age)}): they read missing values. */
    public List<String> absent() {
        return absent;
    }

    /**
     * Binds every column of {@code events} (and its event time) to {@code schema}.
     *
     * @param file the file's name, for messages
     * @throws IllegalArgumentException naming the file, the column, its path and the file's type
     */
    public static ParquetEvents bind(MessageType schema, EventFields events, String file) {
        RowLayout layout = events.layout();
        int fields = layout.fields();
        Node root = new Node(schema, "");
        List<String> absent = new ArrayList<>();
        int count = events.timePath() == null ? fields : fields + 1;
        for (int f = 0; f < count; f++) {
            FieldPath path = f < fields ? events.path(f) : events.timePath();
            Field field = new Field(f, path, events, file);
            if (!place(root, field)) {
                absent.add(field.name);
            }
        }
        try {
            check(root, events);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(file + ": " + e.getMessage(), e);
        }
        List<Type> kept = new ArrayList<>();
        for (Node n : root.children.values()) {
            kept.add(projected(n));
        }
        return new ParquetEvents(
                root,
                new MessageType(schema.getName(), kept),
                Collections.unmodifiableList(absent));
    }

    /** A column being bound, and how messages name it. */
    private record Field(int number, FieldPath path, String name, boolean list, String file) {
        Field(int f, FieldPath path, EventFields events, String file) {
            this(f, path, describe(f, path, events), isList(f, events), file);
        }

        static String describe(int f, FieldPath path, EventFields events) {
            RowLayout layout = events.layout();
            String name = f < layout.fields() ? layout.fieldName(f) : "the event time";
            return name + " (" + path.text() + ")";
        }

        static boolean isList(int f, EventFields events) {
            RowLayout layout = events.layout();
            int c = f - layout.labelDenseWidth();
            return f < layout.fields() && c >= 0 && layout.isList(c);
        }

        IllegalArgumentException refused(String why) {
            return new IllegalArgumentException(file + ": " + name + ": " + why);
        }
    }

    /** Follows {@code field}'s path from {@code root}; false if the file lacks a step of it. */
    private static boolean place(Node root, Field field) {
        Node node = root;
        List<FieldPath.Segment> segments = field.path.segments();
        for (int s = 0; s < segments.size(); s++) {
            FieldPath.Segment seg = segments.get(s);
            if (!seg.isField()) {
                if (s != segments.size() - 1) {
                    throw field.refused(
                            "a step into an element of a list ("
                                    + seg
                                    + " then more) is not read from Parquet; read a list of"
                                    + " values, or one element of it");
                }
                listShape(node, field);
                node.elements.merge(seg.index(), new int[] {field.number}, ParquetEvents::concat);
                return true;
            }
            if (node.type.isPrimitive() || isListNode(node.type) || isMap(node.type)) {
                throw field.refused(
                        "\""
                                + node.path
                                + "\" is "
                                + typeName(node.type)
                                + " in the file, not a group with a field \""
                                + seg.name()
                                + "\"");
            }
            GroupType group = node.type.asGroupType();
            if (!group.containsField(seg.name())) {
                return false;
            }
            Type child = group.getType(seg.name());
            String at = node.path.isEmpty() ? seg.name() : node.path + "." + seg.name();
            node = node.children.computeIfAbsent(seg.name(), k -> new Node(child, at));
        }
        node.targets = concat(node.targets, new int[] {field.number});
        return true;
    }

    /** Checks each node with readers, and sets how its values are read. */
    private static void check(Node node, EventFields events) {
        if (node.targets.length > 0 || node.readsElements()) {
            boolean listNode = isListNode(node.type);
            for (int f : node.targets) {
                Field field = new Field(f, pathOf(f, events), events, "");
                if (listNode != field.list) {
                    throw new IllegalArgumentException(
                            field.name
                                    + ": \""
                                    + node.path
                                    + "\" is "
                                    + typeName(node.type)
                                    + (field.list
                                            ? ", but the column is a list (a LIST or repeated"
                                                    + " column expected)"
                                            : ", but the column holds one value (name it in"
                                                    + " input.list_columns, or read one element:"
                                                    + " "
                                                    + node.path
                                                    + "[0])"));
                }
            }
            for (int[] readers : node.elements.values()) {
                for (int f : readers) {
                    Field field = new Field(f, pathOf(f, events), events, "");
                    if (field.list) {
                        throw new IllegalArgumentException(
                                field.name + ": one element of a list, but the column is a list");
                    }
                }
            }
            if (!listNode && node.type.isPrimitive()) {
                node.kind = kind(node.type.asPrimitiveType(), node.targets, events, node.path);
            } else if (listNode) {
                node.shape = shapeOf(node.type);
                PrimitiveType element = elementType(node.type);
                if (element == null) {
                    throw new IllegalArgumentException(
                            describe(node.targets, node.elements, events)
                                    + ": \""
                                    + node.path
                                    + "\" is a LIST of groups; a list column reads a LIST of"
                                    + " values");
                }
                int[] readers = node.targets;
                for (int[] e : node.elements.values()) {
                    readers = concat(readers, e);
                }
                node.kind = kind(element, readers, events, node.path + "[]");
            } else {
                throw new IllegalArgumentException(
                        describe(node.targets, node.elements, events)
                                + ": \""
                                + node.path
                                + "\" is "
                                + typeName(node.type)
                                + " in the file, not a value");
            }
        }
        for (Node child : node.children.values()) {
            check(child, events);
        }
    }

    private static FieldPath pathOf(int f, EventFields events) {
        return f < events.layout().fields() ? events.path(f) : events.timePath();
    }

    private static String describe(int[] targets, Map<Integer, int[]> elements, EventFields ev) {
        int f = targets.length > 0 ? targets[0] : elements.values().iterator().next()[0];
        return Field.describe(f, pathOf(f, ev), ev);
    }

    /**
     * How {@code type}'s values are read by {@code readers}, or a refusal naming the first reader
     * that can never take them.
     */
    private static Kind kind(PrimitiveType type, int[] readers, EventFields events, String at) {
        LogicalTypeAnnotation logical = type.getLogicalTypeAnnotation();
        Kind kind =
                switch (type.getPrimitiveTypeName()) {
                    case BOOLEAN -> Kind.BOOLEAN;
                    case INT32 ->
                            logical instanceof LogicalTypeAnnotation.IntLogicalTypeAnnotation i
                                            && !i.isSigned()
                                    ? Kind.UINT32
                                    : Kind.INT32;
                    case INT64 -> Kind.INT64;
                    case FLOAT -> Kind.FLOAT;
                    case DOUBLE -> Kind.DOUBLE;
                    case BINARY, FIXED_LEN_BYTE_ARRAY -> Kind.TEXT;
                    case INT96 -> null;
                };
        String refusal = null;
        if (kind == null) {
            refusal = "INT96 (a legacy timestamp) is no value piper reads";
        } else if (logical instanceof LogicalTypeAnnotation.DecimalLogicalTypeAnnotation) {
            refusal = "a DECIMAL; store it as an integer, a float or a double";
        } else if (logical instanceof LogicalTypeAnnotation.DateLogicalTypeAnnotation
                || logical instanceof LogicalTypeAnnotation.TimeLogicalTypeAnnotation) {
            refusal = "a " + logical + ", no instant; store the time as a TIMESTAMP or a number";
        }
        int width = events.layout().labelDenseWidth();
        int timeField = events.layout().fields();
        for (int f : readers) {
            String why = refusal;
            if (why == null && f == timeField) {
                why = timeRefusal(type, kind, events.time());
            } else if (why == null
                    && f >= width
                    && (kind == Kind.BOOLEAN || kind == Kind.FLOAT || kind == Kind.DOUBLE)) {
                why = type.getPrimitiveTypeName() + " where an integer or a string id belongs";
            } else if (why == null
                    && f != timeField
                    && logical instanceof LogicalTypeAnnotation.TimestampLogicalTypeAnnotation) {
                why = "a TIMESTAMP where a " + (f < width ? "number" : "id") + " belongs";
            }
            if (why != null) {
                throw new IllegalArgumentException(
                        Field.describe(f, pathOf(f, events), events)
                                + ": \""
                                + at
                                + "\" is "
                                + type
                                + "; "
                                + why);
            }
        }
        return kind;
    }

    /** Why a column of {@code type} cannot hold the event time, or null if it can. */
    private static String timeRefusal(PrimitiveType type, Kind kind, EventTime time) {
        if (kind == Kind.BOOLEAN) {
            return "a boolean where a time belongs";
        }
        if (type.getLogicalTypeAnnotation()
                instanceof LogicalTypeAnnotation.TimestampLogicalTypeAnnotation t) {
            String unit =
                    switch (t.getUnit()) {
                        case MILLIS -> "ms";
                        case MICROS -> "us";
                        case NANOS -> null;
                    };
            if (unit == null) {
                return "nanoseconds; piper reads times in s, ms or us";
            }
            if (!unit.equals(time.unit().specName())) {
                return "its values count "
                        + unit
                        + ", but input.timestamp_unit is "
                        + time.unit().specName()
                        + " (set \"timestamp_unit\": \""
                        + unit
                        + "\")";
            }
        }
        return null;
    }

    /** Whether {@code type} holds a list: a LIST-annotated group, or a repeated field. */
    private static boolean isListNode(Type type) {
        return !(type instanceof MessageType) && type.isRepetition(Type.Repetition.REPEATED)
                || !type.isPrimitive()
                        && type.getLogicalTypeAnnotation()
                                instanceof LogicalTypeAnnotation.ListLogicalTypeAnnotation;
    }

    private static boolean isMap(Type type) {
        return !type.isPrimitive()
                && (type.getLogicalTypeAnnotation()
                                instanceof LogicalTypeAnnotation.MapLogicalTypeAnnotation
                        || type.getLogicalTypeAnnotation()
                                == LogicalTypeAnnotation.MapKeyValueTypeAnnotation.getInstance());
    }

    /** Refuses an element step into a node that holds no list. */
    private static void listShape(Node node, Field field) {
        if (!isListNode(node.type)) {
            throw field.refused(
                    "\"" + node.path + "\" is " + typeName(node.type) + " in the file, not a LIST");
        }
    }

    private static ListShape shapeOf(Type type) {
        if (type.isRepetition(Type.Repetition.REPEATED)) {
            return ListShape.BARE;
        }
        Type repeated = type.asGroupType().getType(0);
        return repeated.isPrimitive() ? ListShape.TWO_LEVEL : ListShape.THREE_LEVEL;
    }

    /**
     * The element type of list node {@code type} (any of the three shapes), or null if its elements
     * are groups of more than one value or not a well-formed LIST.
     */
    private static PrimitiveType elementType(Type type) {
        if (type.isRepetition(Type.Repetition.REPEATED)) {
            return type.isPrimitive() ? type.asPrimitiveType() : null;
        }
        GroupType list = type.asGroupType();
        if (list.getFieldCount() != 1 || !list.getType(0).isRepetition(Type.Repetition.REPEATED)) {
            return null;
        }
        Type repeated = list.getType(0);
        if (repeated.isPrimitive()) {
            return repeated.asPrimitiveType();
        }
        GroupType inner = repeated.asGroupType();
        if (inner.getFieldCount() != 1
                || !inner.getType(0).isPrimitive()
                || inner.getType(0).isRepetition(Type.Repetition.REPEATED)) {
            return null;
        }
        return inner.getType(0).asPrimitiveType();
    }

    /** The node's type with only the children on paths (a value or list node: all of it). */
    private static Type projected(Node node) {
        if (node.type.isPrimitive() || node.children.isEmpty()) {
            return node.type;
        }
        List<Type> kept = new ArrayList<>();
        for (Node child : node.children.values()) {
            kept.add(projected(child));
        }
        return node.type.asGroupType().withNewFields(kept);
    }

    private static String typeName(Type type) {
        if (isMap(type)) {
            return "a MAP";
        }
        if (isListNode(type)) {
            return type.isPrimitive()
                    ? "a repeated " + type.asPrimitiveType().getPrimitiveTypeName()
                    : "a LIST";
        }
        if (!type.isPrimitive()) {
            return "a group of "
                    + type.asGroupType().getFields().stream()
                            .map(Type::getName)
                            .collect(Collectors.joining(", "));
        }
        return type.asPrimitiveType().getPrimitiveTypeName().toString();
    }

    private static int[] concat(int[] a, int[] b) {
        int[] out = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }
}
