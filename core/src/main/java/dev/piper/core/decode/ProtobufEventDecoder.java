package dev.piper.core.decode;

import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.EnumValueDescriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import dev.piper.core.block.RecordFrames;
import dev.piper.pipeline.input.EventFields;
import dev.piper.pipeline.input.ProtobufOptions;
import dev.piper.pipeline.layout.Reason;
import dev.piper.pipeline.ops.DecodeOptions;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Decodes Protobuf messages ({@link RecordFrames} of one message each: Kafka records, or the
 * length-delimited messages of a file) into rows: each column's value is read from the field its
 * path names, by the rules JSON's values follow ({@link EventValues}; docs/SEMANTICS.md, "Protobuf
 * input"), so an event carried in Protobuf or in JSON becomes the same row.
 *
 * <p>The message type comes from the spec's descriptor set, built by protobuf-java; it is compiled
 * once into a plan of the fields on the columns' paths, by field number, and the walk reads the
 * wire format straight from the chunk's bytes: fields it wants are read (a repeated field's items
 * in order, packed or not; a nested message's fields merged across its occurrences, as protobuf
 * merges them), every other field, known or not, is skipped by its wire type. Rather than {@code
 * DynamicMessage}, which builds a map of every field per message: the same reason as Avro's ({@link
 * AvroEventDecoder}). An absent field is missing (its column's fill), as in JSON.
 *
 * <p>A message that does not parse ({@code invalid_protobuf}: it ends early, a varint runs past 10
 * bytes, a field number is 0, a group is unclosed) or whose wire types contradict the message's
 * declared types (a message of another type, most often: {@code field 2 (clicked) has wire type 2
 * (length-delimited), but Click declares it bool}) is a dead letter, and the walk goes on with the
 * next message.
 *
 * <p>Not thread-safe; one per decoding subtask.
 */
public final class ProtobufEventDecoder extends FramedEventDecoder {

    private static final int VARINT = 0;
    private static final int FIXED64 = 1;
    private static final int LEN = 2;
    private static final int START_GROUP = 3;
    private static final int END_GROUP = 4;
    private static final int FIXED32 = 5;

    private static final String[] WIRE_NAMES = {
        "0 (varint)",
        "1 (64-bit)",
        "2 (length-delimited)",
        "3 (group start)",
        "4 (group end)",
        "5 (32-bit)",
        "6",
        "7"
    };

    private final Message root;

    // The message being read.
    private byte[] buf;
    private int pos;

    public ProtobufEventDecoder(DecodeOptions options, boolean measure) {
        super(checked(options), measure);
        EventFields events = options.events();
        PathTree tree = PathTree.of(events, values.layout.fields());
        ProtobufOptions protobuf = events.protobuf();
        this.root = compile(protobuf.descriptor(), tree, "");
    }

    private static DecodeOptions checked(DecodeOptions options) {
        if (options.events() == null || options.events().protobuf() == null) {
            throw new IllegalArgumentException("options without Protobuf event fields");
        }
        return options;
    }

    // ---------------------------------------------------------------------------------------
    // The plan

    /** A message type: the fields read in it, by number. */
    static final class Message {
        String name;

        /** By field number, where numbers are small; else {@link #byNumberMap}. */
        Field[] byNumber = new Field[0];

        Map<Integer, Field> byNumberMap;

        /** The fields read here that are repeated and read as lists, for the message's end. */
        Field[] lists = new Field[0];

        /** The fields with element paths ({@code items[2]}), which count their occurrences. */
        int counted;

        Field field(int number) {
            if (number < byNumber.length) {
                return byNumber[number];
            }
            return byNumberMap == null ? null : byNumberMap.get(number);
        }
    }

    /** A field of a message, and what is read in it. */
    static final class Field {
        FieldDescriptor.Type type;
        String at;
        boolean repeated;

        /** Layout fields whose value this is. */
        int[] targets = new int[0];

        /** The first of {@link #targets} that is a list column, for a repeated field; else -1. */
        int firstList = -1;

        /** A message field's type, where paths go below it. */
        Message message;

        /** A repeated field's elements that paths name, by index (null where none does). */
        Field[] elements;

        /** This field's slot in its message's occurrence counts, if it has {@link #elements}. */
        int counter = -1;

        /** Set when a path steps into this field, but it is no message: the message. */
        String mismatch;

        /** The first layout field whose path goes through this field, for {@link #mismatch}. */
        int mismatchField;

        /** An enum's value names by number, as UTF-8. */
        Map<Integer, byte[]> enumNames;

        /** The wire type the declared type is written with (a repeated scalar may also be LEN). */
        int wire;
    }

    /** The plan of message {@code d}, where the paths below {@code node} are read. */
    private Message compile(Descriptor d, PathTree node, String at) {
        Message m = new Message();
        m.name = d.getFullName();
        List<Field> lists = new ArrayList<>();
        Map<Integer, Field> fields = new HashMap<>();
        int max = 0;
        if (node.fields != null) {
            for (Map.Entry<String, PathTree> e : node.fields.entrySet()) {
                FieldDescriptor fd = d.findFieldByName(e.getKey());
                if (fd == null) {
                    continue; // a field the message lacks (the spec parser names it): missing
                }
                String path = at.isEmpty() ? e.getKey() : at + "." + e.getKey();
                Field f = field(fd, e.getValue(), path, false);
                if (e.getValue().elements != null && fd.isRepeated()) {
                    f.counter = m.counted++;
                }
                if (f.firstList >= 0) {
                    lists.add(f);
                }
                fields.put(fd.getNumber(), f);
                max = Math.max(max, fd.getNumber());
            }
        }
        if (max < 4096) {
            m.byNumber = new Field[max + 1];
            fields.forEach((n, f) -> m.byNumber[n] = f);
        } else {
            m.byNumberMap = fields;
        }
        m.lists = lists.toArray(new Field[0]);
        return m;
    }

    /**
     * The plan of field {@code fd}, where the paths below {@code node} are read; {@code one}: of
     * one element of a repeated field.
     */
    private Field field(FieldDescriptor fd, PathTree node, String at, boolean one) {
        Field f = new Field();
        f.type = fd.getType();
        f.at = at;
        f.repeated = fd.isRepeated() && !one;
        f.targets = node.targets;
        f.wire = wireOf(fd.getType());
        if (f.type == FieldDescriptor.Type.ENUM) {
            f.enumNames = new HashMap<>();
            for (EnumValueDescriptor v : fd.getEnumType().getValues()) {
                f.enumNames.putIfAbsent(
                        v.getNumber(), v.getName().getBytes(StandardCharsets.UTF_8));
            }
        }
        if (f.repeated && f.targets.length > 0) {
            for (int t : f.targets) {
                if (values.isList(t)) {
                    f.firstList = t;
                    break;
                }
            }
        }
        boolean below = node.fields != null;
        f.mismatchField = node.firstField();
        if (node.elements != null) {
            if (!f.repeated) {
                f.mismatch = "a " + typeName(f.type) + ", not repeated";
            } else {
                int n = 0;
                for (int i : node.elements.keySet()) {
                    n = Math.max(n, i + 1);
                }
                f.elements = new Field[n];
                for (Map.Entry<Integer, PathTree> e : node.elements.entrySet()) {
                    f.elements[e.getKey()] =
                            field(fd, e.getValue(), at + "[" + e.getKey() + "]", true);
                }
            }
        } else if (below) {
            if (f.type != FieldDescriptor.Type.MESSAGE) {
                f.mismatch = "a " + typeName(f.type) + ", not a message";
            } else if (f.repeated) {
                f.mismatch = "a repeated message (an element, [i], is one message)";
            } else {
                f.message = compile(fd.getMessageType(), node, at);
            }
        }
        return f;
    }

    private static int wireOf(FieldDescriptor.Type t) {
        return switch (t) {
            case DOUBLE, FIXED64, SFIXED64 -> FIXED64;
            case FLOAT, FIXED32, SFIXED32 -> FIXED32;
            case STRING, BYTES, MESSAGE -> LEN;
            case GROUP -> START_GROUP;
            default -> VARINT; // the integers, bool, enum
        };
    }

    private static String typeName(FieldDescriptor.Type t) {
        return t.name().toLowerCase(java.util.Locale.ROOT);
    }

    // ---------------------------------------------------------------------------------------
    // Decoding

    @Override
    void decodeFrame(byte[] b, int from, int to, int records) {
        if (records != 1) {
            throw new IllegalStateException("a frame of " + records + " messages");
        }
        values.startEvent();
        buf = b;
        pos = from;
        try {
            message(root, to);
        } catch (Malformed bad) {
            // the reason is set
        }
        if (values.complete()) {
            accept(to - from);
        } else {
            reject(b, from, to);
        }
    }

    /** A message that does not parse; its message is the dead letter's detail. */
    private static final class Malformed extends Exception {
        Malformed(String message) {
            super(message, null, false, false);
        }
    }

    private Malformed malformed(String what) {
        values.failReason = null; // the message's structure comes before any value's type
        values.fail(Reason.INVALID_PROTOBUF, what);
        return new Malformed(what);
    }

    /** Reads the fields of message {@code m} up to {@code end}. */
    private void message(Message m, int end) throws Malformed {
        int[] seen = m.counted == 0 ? null : new int[m.counted];
        boolean[] listed = m.lists.length == 0 ? null : new boolean[m.lists.length];
        while (pos < end) {
            long tag = varint(end, m.name);
            int number = (int) (tag >>> 3);
            int wire = (int) (tag & 7);
            if (number <= 0 || tag >>> 3 > 0x1fffffff) {
                throw malformed("field number " + (tag >>> 3) + " in message " + m.name);
            }
            Field f = m.field(number);
            if (f == null) {
                skip(wire, number, end, m.name);
                continue;
            }
            if (f.mismatch != null) {
                values.fail(
                        values.typeReason(f.mismatchField),
                        values.column(f.mismatchField)
                                + ": the event's \""
                                + f.at
                                + "\" is "
                                + f.mismatch);
                skip(wire, number, end, m.name);
                continue;
            }
            if (f.elements != null && wire == LEN && f.wire != LEN) { // packed: items counted
                int run = length(end, f.at); // read before pos is added: it moves pos
                int stop = pos + run;
                while (pos < stop) {
                    int i = seen[f.counter]++;
                    Field element = i < f.elements.length ? f.elements[i] : null;
                    if (element == null) {
                        skip(f.wire, number, stop, m.name);
                    } else {
                        value(element, f.wire, number, stop, m.name);
                    }
                }
                continue;
            }
            if (f.elements != null) {
                int i = seen[f.counter]++;
                Field element = i < f.elements.length ? f.elements[i] : null;
                if (element == null) {
                    skip(wire, number, end, m.name);
                } else {
                    value(element, wire, number, end, m.name);
                }
                continue;
            }
            if (f.firstList >= 0) {
                int k = indexOf(m.lists, f);
                if (!listed[k]) {
                    listed[k] = true;
                    values.startList(f.targets);
                }
                listItems(f, wire, number, end, m.name);
                continue;
            }
            value(f, wire, number, end, m.name);
        }
        if (pos != end) {
            throw malformed("message " + m.name + " runs past its end");
        }
        if (listed != null) {
            for (int k = 0; k < listed.length; k++) {
                if (listed[k]) {
                    values.endList(m.lists[k].targets, m.lists[k].firstList);
                }
            }
        }
    }

    private static int indexOf(Field[] fields, Field f) {
        for (int k = 0; k < fields.length; k++) {
            if (fields[k] == f) {
                return k;
            }
        }
        throw new IllegalStateException(f.at);
    }

    /** One occurrence of field {@code f} (not read as a list). */
    private void value(Field f, int wire, int number, int end, String in) throws Malformed {
        if (f.message != null) {
            checkWire(f, wire, LEN, number, in);
            int length = length(end, f.at);
            message(f.message, pos + length);
            return;
        }
        if (f.repeated && f.targets.length > 0) {
            // a repeated field read by columns of one value: startList names the column
            values.startList(f.targets);
            skip(wire, number, end, in);
            return;
        }
        if (f.targets.length == 0) {
            skip(wire, number, end, in);
            return;
        }
        checkWire(f, wire, f.wire, number, in);
        int[] targets = f.targets;
        switch (f.type) {
            case BOOL -> values.bool(targets, varint(end, f.at) != 0);
            case INT32, INT64, UINT64, ENUM -> {
                long v = varint(end, f.at);
                if (f.type == FieldDescriptor.Type.ENUM) {
                    byte[] name = f.enumNames.get((int) v);
                    if (name == null) {
                        values.integer(targets, v); // a value this descriptor does not know
                    } else {
                        values.text(targets, name, 0, name.length);
                    }
                } else {
                    values.integer(targets, f.type == FieldDescriptor.Type.INT32 ? (int) v : v);
                }
            }
            case UINT32 -> values.integer(targets, varint(end, f.at) & 0xffffffffL);
            case SINT32, SINT64 -> {
                long raw = varint(end, f.at);
                values.integer(targets, (raw >>> 1) ^ -(raw & 1));
            }
            case FIXED32 -> values.integer(targets, fixed32(end, f.at) & 0xffffffffL);
            case SFIXED32 -> values.integer(targets, fixed32(end, f.at));
            case FIXED64, SFIXED64 -> values.integer(targets, fixed64(end, f.at));
            case FLOAT -> values.real(targets, Float.intBitsToFloat(fixed32(end, f.at)), "float");
            case DOUBLE ->
                    values.real(targets, Double.longBitsToDouble(fixed64(end, f.at)), "double");
            case STRING, BYTES -> {
                int n = length(end, f.at);
                values.text(targets, buf, pos, pos + n);
                pos += n;
            }
            case MESSAGE, GROUP -> {
                values.notAValue(targets, "a message");
                skip(wire, number, end, in);
            }
        }
    }

    /** One occurrence of repeated field {@code f} read as a list: one item, or a packed run. */
    private void listItems(Field f, int wire, int number, int end, String in) throws Malformed {
        int list = f.firstList;
        FieldDescriptor.Type t = f.type;
        if (t == FieldDescriptor.Type.STRING || t == FieldDescriptor.Type.BYTES) {
            checkWire(f, wire, LEN, number, in);
            int n = length(end, f.at);
            values.listText(list, count(list), buf, pos, pos + n);
            pos += n;
            return;
        }
        if (f.wire == LEN) { // a message or group: no id
            values.listWrongType(list, count(list), typeName(t));
            skip(wire, number, end, in);
            return;
        }
        if (wire == LEN) { // packed
            int run = length(end, f.at); // read before pos is added: it moves pos
            int stop = pos + run;
            while (pos < stop) {
                listItem(f, list, stop);
            }
            if (pos != stop) {
                throw malformed("the packed \"" + f.at + "\" runs past its end");
            }
            return;
        }
        checkWire(f, wire, f.wire, number, in);
        listItem(f, list, end);
    }

    /** The number of ids list field {@code list} holds so far. */
    private int count(int list) {
        return rows.lineListSize[list - values.width];
    }

    private void listItem(Field f, int list, int end) throws Malformed {
        switch (f.type) {
            case INT32 -> values.listInteger(list, (int) varint(end, f.at));
            case INT64, UINT64 -> values.listInteger(list, varint(end, f.at));
            case UINT32 -> values.listInteger(list, varint(end, f.at) & 0xffffffffL);
            case SINT32, SINT64 -> {
                long raw = varint(end, f.at);
                values.listInteger(list, (raw >>> 1) ^ -(raw & 1));
            }
            case FIXED32 -> values.listInteger(list, fixed32(end, f.at) & 0xffffffffL);
            case SFIXED32 -> values.listInteger(list, fixed32(end, f.at));
            case FIXED64, SFIXED64 -> values.listInteger(list, fixed64(end, f.at));
            case ENUM -> {
                long v = varint(end, f.at);
                byte[] name = f.enumNames.get((int) v);
                if (name == null) {
                    values.listInteger(list, v);
                } else {
                    values.listText(list, count(list), name, 0, name.length);
                }
            }
            case BOOL -> {
                varint(end, f.at);
                values.listWrongType(list, count(list), "bool");
            }
            case FLOAT -> {
                fixed32(end, f.at);
                values.listWrongType(list, count(list), "float");
            }
            case DOUBLE -> {
                fixed64(end, f.at);
                values.listWrongType(list, count(list), "double");
            }
            default -> throw new IllegalStateException(f.type.name());
        }
    }

    private void checkWire(Field f, int wire, int expected, int number, String in)
            throws Malformed {
        if (wire != expected) {
            throw malformed(
                    "field "
                            + number
                            + " ("
                            + f.at
                            + ") has wire type "
                            + WIRE_NAMES[wire]
                            + ", but "
                            + in
                            + " declares it "
                            + typeName(f.type));
        }
    }

    /** Skips a field's value of wire type {@code wire}. */
    private void skip(int wire, int number, int end, String in) throws Malformed {
        switch (wire) {
            case VARINT -> varint(end, in);
            case FIXED64 -> advance(8, end, in);
            case LEN -> advance(length(end, in), end, in);
            case FIXED32 -> advance(4, end, in);
            case START_GROUP -> {
                while (true) { // a group's fields, then its end tag
                    long tag = varint(end, in);
                    int w = (int) (tag & 7);
                    if (w == END_GROUP) {
                        if ((int) (tag >>> 3) != number) {
                            throw malformed("group " + number + " in " + in + " ends as another");
                        }
                        return;
                    }
                    skip(w, (int) (tag >>> 3), end, in);
                }
            }
            default ->
                    throw malformed(
                            "field " + number + " in " + in + " has wire type " + WIRE_NAMES[wire]);
        }
    }

    private void advance(int n, int end, String where) throws Malformed {
        if (n > end - pos) {
            throw truncated(where);
        }
        pos += n;
    }

    private Malformed truncated(String where) {
        return malformed("the message ends early, reading \"" + where + "\"");
    }

    private int length(int end, String where) throws Malformed {
        long n = varint(end, where);
        if (n < 0 || n > end - pos) {
            throw truncated(where);
        }
        return (int) n;
    }

    private long varint(int end, String where) throws Malformed {
        byte[] b = buf;
        int p = pos;
        long v = 0;
        for (int shift = 0; ; shift += 7) {
            if (p >= end) {
                throw truncated(where);
            }
            int x = b[p++];
            v |= (long) (x & 0x7f) << shift;
            if (x >= 0) {
                break;
            }
            if (shift >= 63) {
                throw malformed("\"" + where + "\" has a varint longer than 10 bytes");
            }
        }
        pos = p;
        return v;
    }

    private int fixed32(int end, String where) throws Malformed {
        advance(4, end, where);
        int at = pos - 4;
        return (buf[at] & 0xff)
                | (buf[at + 1] & 0xff) << 8
                | (buf[at + 2] & 0xff) << 16
                | (buf[at + 3] & 0xff) << 24;
    }

    private long fixed64(int end, String where) throws Malformed {
        long low = fixed32(end, where) & 0xffffffffL;
        return low | (long) fixed32(end, where) << 32;
    }
}
