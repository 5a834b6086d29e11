package dev.piper.pipeline.input;

import java.io.Serializable;
import java.util.Objects;
import org.apache.avro.Schema;
import org.apache.avro.SchemaParseException;

/**
 * Where an Avro input's writer schemas come from ({@code input.format} {@code avro}):
 *
 * <ul>
 *   <li>a <b>schema registry</b> ({@code input.schema_registry}, a base URL): each Kafka record is
 *       in Confluent's wire format (a zero byte, the schema's id as 4 big-endian bytes, then the
 *       datum), and the decoder looks each id up ({@code GET /schemas/ids/{id}}) and caches it;
 *   <li>a <b>schema file</b> ({@code input.schema}, a {@code .avsc} file read when the spec is
 *       parsed, or the schema itself inline): each Kafka record is one datum in Avro's binary
 *       encoding, written with that schema;
 *   <li>an <b>Avro container file</b> (batch input): the file's header holds its writer schema,
 *       which the job reads and passes on ({@link #withSchema}); the spec may name neither of the
 *       above.
 * </ul>
 *
 * @param schemaFile the {@code input.schema} path as the spec gives it, or null (none, or the
 *     schema given inline)
 * @param schema the writer schema's JSON (from {@code schemaFile} or a container file's header), or
 *     null
 * @param registry the registry's base URL, without a trailing slash, or null
 */
public record AvroOptions(String schemaFile, String schema, String registry)
        implements Serializable {

    public AvroOptions {
        if (schemaFile != null && schema == null) {
            throw new IllegalArgumentException("a schema file without its schema: " + schemaFile);
        }
        if (registry != null && schema != null) {
            throw new IllegalArgumentException(
                    "an avro input reads its schemas from a registry or from one schema, not both");
        }
        if (registry != null) {
            while (registry.endsWith("/")) {
                registry = registry.substring(0, registry.length() - 1);
            }
        }
    }

    /** An input with neither: its writer schema comes from a container file's header. */
    public static final AvroOptions CONTAINER = new AvroOptions(null, null, null);

    /** Whether Kafka records carry Confluent's wire format (a registry) rather than bare datums. */
    public boolean registered() {
        return registry != null;
    }

    /** These options reading datums written with {@code writerSchema} (a container file's). */
    public AvroOptions withSchema(String writerSchema) {
        return new AvroOptions(null, Objects.requireNonNull(writerSchema), null);
    }

    /**
     * Parses a writer schema; every decoder parses its own copy (a {@link Schema} is not
     * serializable).
     *
     * @throws IllegalArgumentException naming what is wrong with it
     */
    public static Schema parse(String json) {
        try {
            return new Schema.Parser().setValidateDefaults(false).parse(json);
        } catch (SchemaParseException | NullPointerException bad) {
            throw new IllegalArgumentException("not an Avro schema: " + bad.getMessage(), bad);
        }
    }

    /**
     * Why {@code path} leads nowhere in records of {@code schema}, or null if it leads to a value:
     * a field the schema has not, or a step into a value that is no record (or array). A name after
     * a map is one of its keys, which any datum may have or lack.
     */
    public static String problem(Schema schema, FieldPath path) {
        Schema s = schema;
        StringBuilder at = new StringBuilder();
        for (FieldPath.Segment step : path.segments()) {
            s = nonNull(s);
            if (step.isField() && s.getType() == Schema.Type.MAP) {
                at.append(at.length() == 0 ? "" : ".").append(step.name()); // a key, if present
                s = s.getValueType();
            } else if (step.isField()) {
                if (s.getType() != Schema.Type.RECORD) {
                    return "\"" + at + "\" is " + kind(s) + ", not a record";
                }
                Schema.Field f = s.getField(step.name());
                if (f == null) {
                    return "record "
                            + s.getFullName()
                            + (at.length() == 0 ? "" : " (at \"" + at + "\")")
                            + " has no field \""
                            + step.name()
                            + "\"";
                }
                at.append(at.length() == 0 ? "" : ".").append(step.name());
                s = f.schema();
            } else {
                if (s.getType() != Schema.Type.ARRAY) {
                    return "\"" + at + "\" is " + kind(s) + ", not an array";
                }
                at.append(step);
                s = s.getElementType();
            }
        }
        return null;
    }

    /** The branch of a union of null and one type that is not null; else {@code s}. */
    private static Schema nonNull(Schema s) {
        if (s.getType() != Schema.Type.UNION) {
            return s;
        }
        Schema other = null;
        for (Schema b : s.getTypes()) {
            if (b.getType() != Schema.Type.NULL) {
                if (other != null) {
                    return s; // a union of several types: checked datum by datum
                }
                other = b;
            }
        }
        return other == null ? s : other;
    }

    private static String kind(Schema s) {
        return s.getType() == Schema.Type.UNION
                ? "a union " + s.getTypes().stream().map(Schema::getType).toList()
                : "of type " + s.getType().getName();
    }
}
