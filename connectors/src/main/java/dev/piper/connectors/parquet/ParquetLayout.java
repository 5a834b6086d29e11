package dev.piper.connectors.parquet;

import dev.piper.pipeline.layout.RowLayout;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.schema.GroupType;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
import org.apache.parquet.schema.Type;
import org.apache.parquet.schema.Types;

/**
 * Where each field of the Criteo layout (label, I1..I13, C1..C26) is in a Parquet file, and how its
 * values become the layout's: a field reads the top-level column of its own name, or the one the
 * spec's {@code input.parquet_columns} names for it.
 *
 * <ul>
 *   <li>label and I1..I13: INT32, or INT64 whose values must fit in 32 bits (a row with one that
 *       does not is a dead letter, {@code dense_not_int32} or {@code label_not_int32});
 *   <li>C1..C26: INT64 (the id's 64 bits, read as unsigned like a hex id of 16 digits), INT32 (its
 *       32 bits as an unsigned id, so {@code -1} is the id {@code ffffffff} of the text), or BINARY
 *       holding the id's hexadecimal text as Criteo's TSV has it ({@code categorical_not_hex},
 *       {@code categorical_overflow} as in the text).
 * </ul>
 *
 * A null value, and an empty BINARY, is missing: it takes the field's fill, as an empty TSV field
 * does. Columns may be required or optional; repeated or nested ones are refused, as are other
 * types, naming the field and the column.
 */
public final class ParquetLayout {

    /** How a column's values are read. */
    public enum Kind {
        /** A label or dense value stored as INT32. */
        INT32,
        /** A label or dense value stored as INT64, checked to fit in 32 bits. */
        INT64,
        /** An id stored as INT32: its bits as an unsigned 32-bit id. */
        ID_INT32,
        /** An id stored as INT64: its bits as an unsigned 64-bit id. */
        ID_INT64,
        /** An id stored as its hexadecimal text. */
        ID_HEX
    }

    /**
     * One field's column.
     *
     * @param field the field's index in the layout (0 label, 1..13 I1..I13, 14.. C1..)
     * @param column the Parquet column's name
     * @param descriptor the column as Parquet's readers know it
     * @param kind how its values (a list's ids) are read
     * @param slotLevel for a list column, the definition level from which a slot holds an id (or a
     *     null id): below it, the row's list is empty (or null); -1 for a column of one value
     */
    public record Binding(
            int field, String column, ColumnDescriptor descriptor, Kind kind, int slotLevel) {

        /** Whether the column holds lists. */
        public boolean isList() {
            return slotLevel >= 0;
        }
    }

    private final RowLayout layout;
    private final List<Binding> bindings;
    private final MessageType projection;

    private ParquetLayout(RowLayout layout, List<Binding> bindings, MessageType projection) {
        this.layout = layout;
        this.bindings = bindings;
        this.projection = projection;
    }

    /** The fields the columns are bound to. */
    public RowLayout layout() {
        return layout;
    }

    /**
     * Field {@code f}'s column, or null for a generated field (it has none: it decodes another).
     */
    public Binding binding(int f) {
        return bindings.get(f);
    }

    /** The schema of the columns the layout reads, to read no other. */
    public MessageType projection() {
        return projection;
    }

    /** Binds every field of Criteo's layout to a column of {@code schema}. */
    public static ParquetLayout bind(MessageType schema, Map<String, String> columns, String file) {
        return bind(RowLayout.CRITEO, schema, columns, file);
    }

    /**
     * Binds every field of {@code layout} to a column of {@code schema}.
     *
     * @param columns the spec's {@code input.parquet_columns}: a column name for some fields
     * @param file the file's name, for messages
     * @throws IllegalArgumentException naming the file, field and column of the first problem
     */
    public static ParquetLayout bind(
            RowLayout layout, MessageType schema, Map<String, String> columns, String file) {
        List<Binding> bindings = new ArrayList<>(layout.fields());
        Types.MessageTypeBuilder projection = Types.buildMessage();
        Map<String, String> fieldOf = new HashMap<>();
        for (int f = 0; f < layout.fields(); f++) {
            if (layout.isGenerated(f)) {
                bindings.add(null); // decodes its source's column again
                continue;
            }
            String field = layout.fieldName(f);
            String column = columns.getOrDefault(field, field);
            String other = fieldOf.putIfAbsent(column, field);
            if (other != null) {
                throw new IllegalArgumentException(
                        file
                                + ": fields "
                                + other
                                + " and "
                                + field
                                + " would both read column \""
                                + column
                                + "\"; give one another column in input.parquet_columns");
            }
            String where =
                    file
                            + ": field "
                            + field
                            + (column.equals(field) ? "" : " (Parquet column \"" + column + "\")");
            if (!schema.containsField(column)) {
                throw new IllegalArgumentException(
                        where
                                + ": no such column"
                                + (column.equals(field)
                                        ? " (name another in the spec's input.parquet_columns)"
                                        : "")
                                + "; the file has "
                                + schema.getFields().stream()
                                        .map(Type::getName)
                                        .collect(Collectors.joining(", ")));
            }
            bindings.add(binding(layout, schema, f, column, where));
            projection.addField(schema.getType(column));
        }
        return new ParquetLayout(
                layout,
                java.util.Collections.unmodifiableList(bindings),
                projection.named(schema.getName()));
    }

    /**
     * Field {@code f}'s binding to {@code column}: a value column of a type the field can take, or
     * for a list column a LIST of them.
     *
     * @throws IllegalArgumentException naming {@code where} and what the column is instead
     */
    private static Binding binding(
            RowLayout layout, MessageType schema, int f, String column, String where) {
        Type type = schema.getType(column);
        boolean list = !layout.isLabelOrDense(f) && layout.isList(f - layout.labelDenseWidth());
        String[] leaf = new String[] {column};
        int slotLevel = -1;
        if (list) {
            String[] repeated = listPath(type, where);
            leaf = leafPath(type, repeated);
            slotLevel = schema.getMaxDefinitionLevel(repeated);
        } else if (!type.isPrimitive()) {
            throw new IllegalArgumentException(
                    where
                            + ": a group, not a value column"
                            + (layout.isLabelOrDense(f)
                                    ? ""
                                    : " (a list? name the field in input.list_columns)"));
        } else if (type.isRepetition(Type.Repetition.REPEATED)) {
            throw new IllegalArgumentException(
                    where
                            + ": repeated; one value per row needed"
                            + (layout.isLabelOrDense(f)
                                    ? ""
                                    : " (a list? name the field in input.list_columns)"));
        }
        PrimitiveType primitive = schema.getType(leaf).asPrimitiveType();
        Kind kind = kind(layout.isLabelOrDense(f), primitive);
        if (kind == null) {
            throw new IllegalArgumentException(
                    where
                            + ": type "
                            + primitive.getPrimitiveTypeName()
                            + " cannot hold "
                            + (layout.isLabelOrDense(f)
                                    ? "a Criteo integer (INT32 or INT64 expected)"
                                    : "a categorical id (INT64, INT32 or BINARY hex text"
                                            + " expected)"));
        }
        ColumnDescriptor descriptor = schema.getColumnDescription(leaf);
        return new Binding(f, column, descriptor, kind, slotLevel);
    }

    /**
     * The path of a list column's repeated node: Parquet's three-level list ({@code group C (LIST)
     * { repeated group list { element; } }}), its two-level form ({@code group C (LIST) { repeated
     * int64 element; }}) or a bare repeated value ({@code repeated int64 C}).
     *
     * @throws IllegalArgumentException naming the field if {@code type} is none of them
     */
    private static String[] listPath(Type type, String where) {
        if (type.isPrimitive()) {
            if (type.isRepetition(Type.Repetition.REPEATED)) {
                return new String[] {type.getName()};
            }
            throw new IllegalArgumentException(
                    where + ": one value per row; a list column needs a LIST (repeated) column");
        }
        GroupType group = type.asGroupType();
        if (group.isRepetition(Type.Repetition.REPEATED)
                || group.getFieldCount() != 1
                || !group.getType(0).isRepetition(Type.Repetition.REPEATED)) {
            throw new IllegalArgumentException(
                    where + ": not a LIST (a group holding one repeated field expected)");
        }
        Type repeated = group.getType(0);
        if (!repeated.isPrimitive()) {
            GroupType inner = repeated.asGroupType();
            if (inner.getFieldCount() != 1
                    || !inner.getType(0).isPrimitive()
                    || inner.getType(0).isRepetition(Type.Repetition.REPEATED)) {
                throw new IllegalArgumentException(
                        where + ": not a LIST of ids (one element value per list entry expected)");
            }
        }
        return new String[] {type.getName(), repeated.getName()};
    }

    /** The path of a list's element values, given the path of its repeated node. */
    private static String[] leafPath(Type type, String[] repeated) {
        if (repeated.length == 1) {
            return repeated;
        }
        Type node = type.asGroupType().getType(0);
        if (node.isPrimitive()) {
            return repeated;
        }
        return new String[] {repeated[0], repeated[1], node.asGroupType().getType(0).getName()};
    }

    private static Kind kind(boolean labelOrDense, PrimitiveType type) {
        PrimitiveTypeName name = type.getPrimitiveTypeName();
        if (labelOrDense) {
            return switch (name) {
                case INT32 -> Kind.INT32;
                case INT64 -> Kind.INT64;
                default -> null;
            };
        }
        return switch (name) {
            case INT32 -> Kind.ID_INT32;
            case INT64 -> Kind.ID_INT64;
            case BINARY -> Kind.ID_HEX;
            default -> null;
        };
    }
}
