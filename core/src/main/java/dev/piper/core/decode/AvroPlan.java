package dev.piper.core.decode;

import java.nio.charset.StandardCharsets;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import org.apache.avro.Schema;

/**
 * A writer schema compiled against the columns' paths, for {@link AvroEventDecoder}: a tree of the
 * schema's types ({@link Step}s) in which the steps on a column's path carry the column, so the
 * decoder's walk over a datum reads those and skips everything else. Compiled once per writer
 * schema; a recursive type that nothing is read in compiles once.
 */
final class AvroPlan {

    // The schema's types, as a step's {@link Step#type}.
    static final int T_NULL = 0;
    static final int T_BOOLEAN = 1;
    static final int T_INT = 2;
    static final int T_LONG = 3;
    static final int T_FLOAT = 4;
    static final int T_DOUBLE = 5;
    static final int T_STRING = 6; // and bytes
    static final int T_FIXED = 7;
    static final int T_ENUM = 8;
    static final int T_RECORD = 9;
    static final int T_ARRAY = 10;
    static final int T_MAP = 11;
    static final int T_UNION = 12;

    /** The step of the writer schema's top-level record. */
    final Step root;

    /** The datums' straight reading into the block's columns, or null if they have none. */
    final AvroFlat flat;

    private AvroPlan(Step root, AvroFlat flat) {
        this.root = root;
        this.flat = flat;
    }

    /** A type of the writer schema, and what is read at it. */
    static final class Step {
        int type;

        /** Layout fields whose value this is. */
        int[] targets = new int[0];

        /** Whether any column is read here or below (else the value is skipped). */
        boolean wanted;

        /** Set when a path steps into this value, but it is no record or array: the message. */
        String mismatch;

        /** With {@link #mismatch}: the first layout field whose path steps in, for the detail. */
        int mismatchField;

        /** A record's fields, in the writer's order. */
        Step[] fields;

        /** A union's branches. */
        Step[] branches;

        /** An array's or map's items, skipped. */
        Step items;

        /** An array's elements that paths name, by index (null where none does). */
        Step[] elements;

        /** The keys of a map that paths name, as UTF-8, and their values' steps. */
        byte[][] keys;

        Step[] values;

        int fixedSize;

        /** An enum's symbols, as UTF-8. */
        byte[][] symbols;

        /** The path to this value, for messages. */
        String at;
    }

    /**
     * {@code schema} compiled against the paths of {@code paths}, whose values go to {@code
     * values}' columns.
     */
    static AvroPlan compile(Schema schema, PathTree paths, EventValues values) {
        Step root = compile(schema, paths, "", new IdentityHashMap<>());
        return new AvroPlan(root, AvroFlat.of(root, values));
    }

    /**
     * The step of {@code s}, where the paths below {@code node} are read (null: nothing is); {@code
     * skips} holds the steps of types nothing is read in, so a recursive type compiles once.
     */
    private static Step compile(Schema s, PathTree node, String at, Map<Schema, Step> skips) {
        boolean memo = node == null && s.getType() == Schema.Type.RECORD;
        if (memo) {
            Step known = skips.get(s); // a recursive record: compiled once
            if (known != null) {
                return known;
            }
        }
        Step step = new Step();
        step.at = at;
        step.type = typeOf(s.getType());
        if (memo) {
            skips.put(s, step);
        } else if (node != null) {
            step.wanted = true;
            step.targets = node.targets;
        }
        switch (s.getType()) {
            case RECORD -> record(s, node, step, skips);
            case UNION -> {
                List<Schema> bs = s.getTypes();
                step.branches = new Step[bs.size()];
                for (int i = 0; i < bs.size(); i++) {
                    step.branches[i] = compile(bs.get(i), node, at, skips);
                }
            }
            case ARRAY -> array(s, node, step, skips);
            case MAP -> map(s, node, step, skips);
            case FIXED -> step.fixedSize = s.getFixedSize();
            case ENUM -> {
                List<String> symbols = s.getEnumSymbols();
                step.symbols = new byte[symbols.size()][];
                for (int i = 0; i < symbols.size(); i++) {
                    step.symbols[i] = symbols.get(i).getBytes(StandardCharsets.UTF_8);
                }
            }
            default -> {
                // a null where a record or an array belongs is missing, as a JSON null (an
                // optional nested record is a union with null); another type is no record
                if (node != null
                        && s.getType() != Schema.Type.NULL
                        && (node.fields != null || node.elements != null)) {
                    step.mismatch =
                            "of type "
                                    + s.getType().getName()
                                    + (node.fields != null ? ", not a record" : ", not an array");
                    step.mismatchField = node.firstField();
                }
            }
        }
        return step;
    }

    /** A record's fields, each with the paths below it that name it. */
    private static void record(Schema s, PathTree node, Step step, Map<Schema, Step> skips) {
        List<Schema.Field> fs = s.getFields();
        step.fields = new Step[fs.size()];
        for (int i = 0; i < fs.size(); i++) {
            Schema.Field f = fs.get(i);
            PathTree below = node == null || node.fields == null ? null : node.fields.get(f.name());
            String at = step.at.isEmpty() ? f.name() : step.at + "." + f.name();
            step.fields[i] = compile(f.schema(), below, at, skips);
        }
        if (node != null && node.elements != null) {
            step.mismatch = "a record, not an array";
            step.mismatchField = node.firstField();
        }
    }

    /** An array's items (skipped), and the elements that paths name by index. */
    private static void array(Schema s, PathTree node, Step step, Map<Schema, Step> skips) {
        step.items = compile(s.getElementType(), null, step.at + "[]", skips);
        if (node != null && node.elements != null) {
            int n = 0;
            for (int i : node.elements.keySet()) {
                n = Math.max(n, i + 1);
            }
            step.elements = new Step[n];
            for (Map.Entry<Integer, PathTree> e : node.elements.entrySet()) {
                String at = step.at + "[" + e.getKey() + "]";
                step.elements[e.getKey()] = compile(s.getElementType(), e.getValue(), at, skips);
            }
        }
        if (node != null && node.fields != null) {
            step.mismatch = "an array, not a record";
            step.mismatchField = node.firstField();
        }
    }

    /** A map's values (skipped), and those whose keys are names of paths. */
    private static void map(Schema s, PathTree node, Step step, Map<Schema, Step> skips) {
        step.items = compile(s.getValueType(), null, step.at + "{}", skips);
        if (node != null && node.fields != null) { // a path's name is a key of the map
            step.keys = new byte[node.fields.size()][];
            step.values = new Step[node.fields.size()];
            int i = 0;
            for (Map.Entry<String, PathTree> e : node.fields.entrySet()) {
                step.keys[i] = e.getKey().getBytes(StandardCharsets.UTF_8);
                String at = step.at + "." + e.getKey();
                step.values[i++] = compile(s.getValueType(), e.getValue(), at, skips);
            }
        }
        if (node != null && node.elements != null) {
            step.mismatch = "a map, not an array";
            step.mismatchField = node.firstField();
        }
    }

    private static int typeOf(Schema.Type t) {
        return switch (t) {
            case NULL -> T_NULL;
            case BOOLEAN -> T_BOOLEAN;
            case INT -> T_INT;
            case LONG -> T_LONG;
            case FLOAT -> T_FLOAT;
            case DOUBLE -> T_DOUBLE;
            case STRING, BYTES -> T_STRING;
            case FIXED -> T_FIXED;
            case ENUM -> T_ENUM;
            case RECORD -> T_RECORD;
            case ARRAY -> T_ARRAY;
            case MAP -> T_MAP;
            case UNION -> T_UNION;
        };
    }
}
