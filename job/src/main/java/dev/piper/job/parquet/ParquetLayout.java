package dev.piper.job.parquet;

import dev.piper.operators.decode.RowLayout;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.schema.LogicalTypeAnnotation;
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
     * @param kind how its values are read
     */
    public record Binding(int field, String column, ColumnDescriptor descriptor, Kind kind) {}

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

    /** Field {@code f}'s column. */
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
        if (layout.hasLists() || layout.generated() > 0) {
            throw new IllegalArgumentException(
                    file
                            + ": "
                            + (layout.hasLists()
                                    ? "list columns ("
                                            + RowLayout.ranges(layout.listColumns())
                                            + ")"
                                    : "generated columns (input.generated_from)")
                            + " cannot be read from Parquet yet; preprocess the text instead");
        }
        List<Binding> bindings = new ArrayList<>(layout.fields());
        Types.MessageTypeBuilder projection = Types.buildMessage();
        Map<String, String> fieldOf = new HashMap<>();
        for (int f = 0; f < layout.fields(); f++) {
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
            Type type = schema.getType(column);
            if (!type.isPrimitive()) {
                throw new IllegalArgumentException(where + ": a group, not a value column");
            }
            if (type.isRepetition(Type.Repetition.REPEATED)) {
                throw new IllegalArgumentException(where + ": repeated; one value per row needed");
            }
            PrimitiveType primitive = type.asPrimitiveType();
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
            ColumnDescriptor descriptor = schema.getColumnDescription(new String[] {column});
            bindings.add(new Binding(f, column, descriptor, kind));
            projection.addField(type);
        }
        return new ParquetLayout(layout, List.copyOf(bindings), projection.named(schema.getName()));
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

    /** {@link #convertSchema(RowLayout)} of Criteo's layout. */
    public static MessageType convertSchema() {
        return convertSchema(RowLayout.CRITEO);
    }

    /**
     * The schema {@code bin/piper convert} writes: {@code label} and {@code I1}..{@code I13} as
     * optional INT32, {@code C1}..{@code C26} (in Criteo's layout; as many as {@code layout} has)
     * as optional INT64 annotated unsigned (the id parsed from its hex text); a null is an empty
     * field of the text.
     */
    public static MessageType convertSchema(RowLayout layout) {
        Types.MessageTypeBuilder b = Types.buildMessage();
        for (int f = 0; f < layout.fields(); f++) {
            String name = layout.fieldName(f);
            if (layout.isLabelOrDense(f)) {
                b.optional(PrimitiveTypeName.INT32).named(name);
            } else {
                b.optional(PrimitiveTypeName.INT64)
                        .as(LogicalTypeAnnotation.intType(64, false))
                        .named(name);
            }
        }
        return b.named("criteo");
    }
}
