package dev.piper.pipeline.input;

import dev.piper.pipeline.layout.RowLayout;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Where each field of a layout is read from in an event of a named-field format: {@code
 * input.fields} of a spec, from column name to {@link FieldPath}; a column the spec does not name
 * reads the event's field of its own name ({@code label}, {@code I3}, {@code C7}), and a generated
 * column reads its source's field again.
 *
 * @param format the events' format (one with {@link InputFormat#namedFields() named fields})
 * @param layout the pipeline's layout
 * @param paths per field of the layout (label, dense, generated, sparse), its path
 * @param csv the CSV's columns and delimiter, for {@link InputFormat#CSV} (whose paths are column
 *     names, each one of them); else null
 * @param avro where writer schemas come from, for {@link InputFormat#AVRO}; else null
 * @param protobuf the message and its descriptors, for {@link InputFormat#PROTOBUF} (null only
 *     where no message is read, as when a spec's paths are checked); else null
 * @param time the field of each event's time and its unit, or null when the rows carry none
 */
public record EventFields(
        InputFormat format,
        RowLayout layout,
        List<FieldPath> paths,
        CsvOptions csv,
        AvroOptions avro,
        ProtobufOptions protobuf,
        EventTime time)
        implements Serializable {

    public EventFields {
        Objects.requireNonNull(format, "format");
        paths = List.copyOf(paths);
        if (paths.size() != layout.fields()) {
            throw new IllegalArgumentException(
                    paths.size() + " paths for the " + layout.fields() + " fields of " + layout);
        }
        if ((format == InputFormat.CSV) != (csv != null)) {
            throw new IllegalArgumentException("CSV options are for CSV input only: " + format);
        }
        if ((format == InputFormat.AVRO) != (avro != null)) {
            throw new IllegalArgumentException("Avro options are for Avro input only: " + format);
        }
        if (protobuf != null && format != InputFormat.PROTOBUF) {
            throw new IllegalArgumentException(
                    "Protobuf options are for Protobuf input only: " + format);
        }
        if (csv != null && time != null && csv.indexOf(time.field()) < 0) {
            throw new IllegalArgumentException(
                    "\"" + time.field() + "\" is not one of the CSV's columns " + csv.columns());
        }
        if (csv != null) {
            for (FieldPath p : paths) {
                if (csv.indexOf(p.text()) < 0) {
                    throw new IllegalArgumentException(
                            "\""
                                    + p.text()
                                    + "\" is not one of the CSV's columns "
                                    + csv.columns());
                }
            }
        }
    }

    /** Fields without event time. */
    public EventFields(
            InputFormat format,
            RowLayout layout,
            List<FieldPath> paths,
            CsvOptions csv,
            AvroOptions avro,
            ProtobufOptions protobuf) {
        this(format, layout, paths, csv, avro, protobuf, null);
    }

    /** The fields of events of a format other than CSV and Avro. */
    public EventFields(InputFormat format, RowLayout layout, List<FieldPath> paths) {
        this(
                format,
                layout,
                paths,
                null,
                format == InputFormat.AVRO ? AvroOptions.CONTAINER : null,
                null);
    }

    /** These fields read with other Avro options (a container file's writer schema). */
    public EventFields withAvro(AvroOptions options) {
        return new EventFields(format, layout, paths, csv, options, protobuf, time);
    }

    /** These fields, each event's time read as {@code eventTime} says (null: none). */
    public EventFields withTime(EventTime eventTime) {
        return new EventFields(format, layout, paths, csv, avro, protobuf, eventTime);
    }

    /** The path of each event's time, or null when the rows carry none. */
    public FieldPath timePath() {
        if (time == null) {
            return null;
        }
        return format == InputFormat.CSV
                ? FieldPath.name(time.field())
                : FieldPath.parse(time.field());
    }

    /**
     * The fields of {@code layout} read as {@code fields} (column name to path text, checked by the
     * spec parser) says.
     *
     * @throws IllegalArgumentException if a name is not a column of the layout or a path is not one
     */
    public static EventFields of(InputFormat format, RowLayout layout, Map<String, String> fields) {
        return of(format, layout, fields, null);
    }

    /**
     * As {@link #of(InputFormat, RowLayout, Map)}, for CSV with its {@code csv} options: a CSV
     * column's name is a path of one field, dots and all ({@link FieldPath#name}).
     *
     * @throws IllegalArgumentException also if a path names no column of the CSV
     */
    public static EventFields of(
            InputFormat format, RowLayout layout, Map<String, String> fields, CsvOptions csv) {
        return of(
                format,
                layout,
                fields,
                csv,
                format == InputFormat.AVRO ? AvroOptions.CONTAINER : null);
    }

    /** As {@link #of(InputFormat, RowLayout, Map, CsvOptions)}, with Avro's {@code avro}. */
    public static EventFields of(
            InputFormat format,
            RowLayout layout,
            Map<String, String> fields,
            CsvOptions csv,
            AvroOptions avro) {
        return of(format, layout, fields, csv, avro, null);
    }

    /** As {@link #of(InputFormat, RowLayout, Map, CsvOptions, AvroOptions)}, with Protobuf's. */
    public static EventFields of(
            InputFormat format,
            RowLayout layout,
            Map<String, String> fields,
            CsvOptions csv,
            AvroOptions avro,
            ProtobufOptions protobuf) {
        java.util.function.Function<String, FieldPath> path =
                format == InputFormat.CSV ? FieldPath::name : FieldPath::parse;
        Map<String, FieldPath> named = new LinkedHashMap<>();
        for (Map.Entry<String, String> e : fields.entrySet()) {
            int f = layout.fieldOf(e.getKey());
            if (f < 0 || layout.isGenerated(f)) {
                throw new IllegalArgumentException(
                        e.getKey() + " is not an input column of " + layout);
            }
            named.put(e.getKey(), path.apply(e.getValue()));
        }
        List<FieldPath> paths = new ArrayList<>(layout.fields());
        for (int f = 0; f < layout.fields(); f++) {
            String name = layout.fieldName(f);
            paths.add(null);
            if (!layout.isGenerated(f)) {
                FieldPath p = named.get(name);
                paths.set(f, p != null ? p : path.apply(name));
            }
        }
        for (int f = 0; f < layout.fields(); f++) {
            if (layout.isGenerated(f)) {
                int source = 1 + layout.generatedFrom().get(f - 1 - layout.dense());
                paths.set(f, paths.get(source));
            }
        }
        return new EventFields(format, layout, paths, csv, avro, protobuf);
    }

    /**
     * Two fields of which the first's path lies inside the second's value ({@code user.id} and
     * {@code user}), if any: a field is a value or a record, not both. Paths the spec does not name
     * count too (a column reads the field of its own name).
     *
     * @return {@code {inner, outer}} field numbers, or an empty array
     */
    public int[] enclosure() {
        Map<List<FieldPath.Segment>, Integer> byPath = new java.util.HashMap<>();
        for (int f = 0; f < paths.size(); f++) {
            byPath.putIfAbsent(paths.get(f).segments(), f);
        }
        for (int f = 0; f < paths.size(); f++) {
            List<FieldPath.Segment> s = paths.get(f).segments();
            for (int k = 1; k < s.size(); k++) {
                Integer outer = byPath.get(s.subList(0, k));
                if (outer != null) {
                    return new int[] {f, outer};
                }
            }
        }
        return new int[0];
    }

    /**
     * Why a column of these fields reads nothing in records of Avro schema {@code writerSchema}
     * (its JSON), or null if every input column's path leads to a value in them.
     */
    public String avroProblem(String writerSchema) {
        org.apache.avro.Schema schema = AvroOptions.parse(writerSchema);
        for (Map.Entry<Integer, String> e :
                unreadable(p -> AvroOptions.problem(schema, p)).entrySet()) {
            int f = e.getKey();
            return layout.fieldName(f)
                    + " reads \""
                    + paths.get(f)
                    + "\", but in the file's records "
                    + e.getValue();
        }
        return null;
    }

    /**
     * The input columns (generated ones read their source's field) whose path leads nowhere in the
     * events {@code why} describes, by field number in layout order, with why ({@code why} answers
     * null for a path that leads to a value).
     */
    public Map<Integer, String> unreadable(java.util.function.Function<FieldPath, String> why) {
        Map<Integer, String> out = new LinkedHashMap<>();
        for (int f = 0; f < paths.size(); f++) {
            String problem = layout.isGenerated(f) ? null : why.apply(paths.get(f));
            if (problem != null) {
                out.put(f, problem);
            }
        }
        return out;
    }

    /** Field {@code f}'s path. */
    public FieldPath path(int f) {
        return paths.get(f);
    }
}
