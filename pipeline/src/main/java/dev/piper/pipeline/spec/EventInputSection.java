package dev.piper.pipeline.spec;

import com.fasterxml.jackson.databind.JsonNode;
import dev.piper.pipeline.input.AvroOptions;
import dev.piper.pipeline.input.CsvOptions;
import dev.piper.pipeline.input.EventFields;
import dev.piper.pipeline.input.EventTime;
import dev.piper.pipeline.input.FieldPath;
import dev.piper.pipeline.input.InputFormat;
import dev.piper.pipeline.input.ProtobufOptions;
import dev.piper.pipeline.layout.RowLayout;
import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import org.apache.avro.Schema;

/**
 * The parts of a spec's {@code input} section that events of named fields have: {@code fields}
 * (column to path), CSV's {@code columns}, {@code header} and {@code delimiter}, Avro's {@code
 * schema} or {@code schema_registry}, Protobuf's {@code descriptor} and {@code message}, and the
 * event time's {@code timestamp} and {@code timestamp_unit}; read with their problems reported to
 * the spec's, each path checked against the writer schema or message where the spec gives one.
 */
final class EventInputSection {

    /** What the section holds; a part is null where the format has none or it is invalid. */
    record Read(
            Map<String, String> fields,
            CsvOptions csv,
            AvroOptions avro,
            ProtobufOptions protobuf,
            EventTime eventTime) {}

    private final SpecParser spec;

    /** The input's layout (null if it is invalid). */
    private final RowLayout layout;

    EventInputSection(SpecParser spec, RowLayout layout) {
        this.spec = spec;
        this.layout = layout;
    }

    /** The section of input {@code node}, whose {@code input.format} is {@code format}. */
    Read read(JsonNode node, String format) {
        CsvOptions csv = csv(node, format);
        AvroOptions avro = avro(node, format);
        ProtobufOptions protobuf = protobuf(node, format);
        Map<String, String> fields = fields(node.get("fields"), format, csv);
        EventTime time = eventTime(node, format, csv, fields);
        if (avro != null && avro.schema() != null && layout != null) {
            Schema schema = AvroOptions.parse(avro.schema());
            checkPaths(
                    InputFormat.AVRO,
                    fields,
                    path -> AvroOptions.problem(schema, path),
                    "input.schema");
            checkTimePath(time, path -> AvroOptions.problem(schema, path), "input.schema");
        }
        if (protobuf != null && layout != null) {
            var message = protobuf.descriptor();
            checkPaths(
                    InputFormat.PROTOBUF,
                    fields,
                    path -> ProtobufOptions.problem(message, path),
                    "input.message");
            checkTimePath(time, path -> ProtobufOptions.problem(message, path), "input.message");
        }
        return new Read(fields, csv, avro, protobuf, time);
    }

    /**
     * {@code input.timestamp} (the path of each event's time: a CSV column's name for CSV) and
     * {@code input.timestamp_unit} (what a number there counts: {@code s}, {@code ms} (the default)
     * or {@code us}); refused for positional formats. Null when the spec has none or it is invalid.
     */
    private EventTime eventTime(
            JsonNode node, String format, CsvOptions csv, Map<String, String> fields) {
        if (!node.has("timestamp")) {
            if (node.has("timestamp_unit")) {
                spec.problem("input.timestamp_unit", "is for input.timestamp, which is missing");
            }
            return null;
        }
        String path = spec.text(node, "timestamp", "input.timestamp");
        EventTime.Unit unit = timeUnit(spec, node, "input");
        Optional<InputFormat> f = InputFormat.of(format);
        if (f.isPresent() && !f.get().namedFields()) {
            spec.problem(
                    "input.timestamp",
                    "names an event field, but input.format "
                            + format
                            + " has positional fields (json, csv, avro and protobuf have named"
                            + " ones)");
            return null;
        }
        if (path == null || unit == null || f.isEmpty()) {
            return null;
        }
        if (f.get() == InputFormat.CSV) {
            if (csv != null && csv.indexOf(path) < 0) {
                spec.problem("input.timestamp", "\"" + path + "\" is not one of input.columns");
                return null;
            }
            return new EventTime(path, unit);
        }
        FieldPath parsed;
        try {
            parsed = FieldPath.parse(path);
        } catch (IllegalArgumentException bad) {
            spec.problem("input.timestamp", bad.getMessage());
            return null;
        }
        if (layout != null) {
            EventFields all = EventFields.of(f.get(), layout, fields);
            for (int i = 0; i < layout.fields(); i++) {
                String overlap = overlap(parsed, all.path(i));
                if (overlap != null) {
                    spec.problem(
                            "input.timestamp",
                            "\""
                                    + path
                                    + "\" "
                                    + overlap
                                    + " \""
                                    + all.path(i).text()
                                    + "\", the field of "
                                    + layout.fieldName(i)
                                    + ": a field is a value or a record, not both");
                    return null;
                }
            }
        }
        return new EventTime(path, unit);
    }

    /**
     * {@code timestamp_unit} of {@code node} (the section at {@code at}): milliseconds absent, null
     * (with the problem reported) for a unit that is none.
     */
    static EventTime.Unit timeUnit(SpecParser spec, JsonNode node, String at) {
        if (!node.has("timestamp_unit")) {
            return EventTime.Unit.MILLIS;
        }
        String name = spec.text(node, "timestamp_unit", at + ".timestamp_unit");
        EventTime.Unit unit = name == null ? null : EventTime.Unit.of(name);
        if (name != null && unit == null) {
            spec.problem(
                    at + ".timestamp_unit",
                    "unknown unit \"" + name + "\" (known: " + EventTime.Unit.names() + ")");
        }
        return unit;
    }

    /** How {@code time} and {@code column} overlap, if one lies inside the other; else null. */
    private static String overlap(FieldPath time, FieldPath column) {
        List<FieldPath.Segment> t = time.segments();
        List<FieldPath.Segment> c = column.segments();
        int n = Math.min(t.size(), c.size());
        if (t.size() == c.size() || !t.subList(0, n).equals(c.subList(0, n))) {
            return null;
        }
        return t.size() < c.size() ? "holds" : "lies inside";
    }

    /** The time's path leads to a value in the events ({@code problem} says why it does not). */
    private void checkTimePath(EventTime time, Function<FieldPath, String> problem, String source) {
        if (time == null) {
            return;
        }
        String why = problem.apply(FieldPath.parse(time.field()));
        if (why != null) {
            spec.problem("input.timestamp", why + " (" + source + ")");
        }
    }

    /**
     * {@code input.descriptor} (a descriptor set, read now; a relative path from the working
     * directory) and {@code input.message} (the events' message, its full name) of a protobuf
     * input, both required; refused for other formats. Null unless the format is protobuf and they
     * are valid.
     */
    private ProtobufOptions protobuf(JsonNode node, String format) {
        if (!"protobuf".equals(format)) {
            for (String key : List.of("descriptor", "message")) {
                if (node.has(key)) {
                    spec.problem(
                            "input." + key, "is for protobuf input; input.format is " + format);
                }
            }
            return null;
        }
        if (!node.has("descriptor")) {
            spec.problem(
                    "input.descriptor",
                    "missing: a protobuf input names its descriptor set (protoc"
                            + " --include_imports --descriptor_set_out=FILE)");
        }
        if (!node.has("message")) {
            spec.problem("input.message", "missing: the events' message, e.g. \"shop.Click\"");
        }
        String file =
                node.has("descriptor") ? spec.text(node, "descriptor", "input.descriptor") : null;
        String message = node.has("message") ? spec.text(node, "message", "input.message") : null;
        if (file == null || message == null) {
            return null;
        }
        byte[] set;
        try {
            set = Files.readAllBytes(Path.of(file));
        } catch (IOException | RuntimeException e) {
            spec.problem("input.descriptor", "cannot read " + file + ": " + e);
            return null;
        }
        try {
            ProtobufOptions.find(set, message);
        } catch (IllegalArgumentException bad) {
            spec.problem(
                    bad.getMessage().startsWith("no message")
                            ? "input.message"
                            : "input.descriptor",
                    file + ": " + bad.getMessage());
            return null;
        }
        return new ProtobufOptions(file, set, message);
    }

    /**
     * {@code input.schema} (a {@code .avsc} file, read now, a relative path taken from the working
     * directory; or the schema itself, a JSON object) or {@code input.schema_registry} (an http or
     * https URL) of an avro input; neither is needed to read container files, which hold their
     * schema. Refused for other formats. Null unless the format is avro.
     */
    private AvroOptions avro(JsonNode node, String format) {
        if (!"avro".equals(format)) {
            for (String key : List.of("schema", "schema_registry")) {
                if (node.has(key)) {
                    spec.problem("input." + key, "is for avro input; input.format is " + format);
                }
            }
            return null;
        }
        if (node.has("schema") && node.has("schema_registry")) {
            spec.problem(
                    "input.schema",
                    "names one writer schema for every record; input.schema_registry looks each"
                            + " record's up: give one of them");
            return null;
        }
        if (node.has("schema")) {
            JsonNode inline = node.get("schema");
            String file = null;
            String text;
            if (inline.isObject()) { // the schema itself: nothing to read where the job is built
                text = inline.toString();
            } else {
                file = spec.text(node, "schema", "input.schema");
                if (file == null) {
                    return null;
                }
                try {
                    text = Files.readString(Path.of(file));
                } catch (IOException | RuntimeException e) {
                    spec.problem("input.schema", "cannot read " + file + ": " + e);
                    return null;
                }
            }
            String what = file == null ? "the schema" : file;
            try {
                Schema schema = AvroOptions.parse(text);
                if (schema.getType() != Schema.Type.RECORD) {
                    spec.problem(
                            "input.schema",
                            what
                                    + " is a schema of "
                                    + schema.getType().getName()
                                    + ", not a record");
                    return null;
                }
            } catch (IllegalArgumentException bad) {
                spec.problem("input.schema", what + " is " + bad.getMessage());
                return null;
            }
            return new AvroOptions(file, text, null);
        }
        if (node.has("schema_registry")) {
            String url = spec.text(node, "schema_registry", "input.schema_registry");
            if (url == null) {
                return null;
            }
            try {
                URI uri = new URI(url);
                if (!"http".equals(uri.getScheme()) && !"https".equals(uri.getScheme())
                        || uri.getHost() == null) {
                    spec.problem(
                            "input.schema_registry",
                            "\"" + url + "\" is not an http(s) URL such as http://localhost:8081");
                    return null;
                }
            } catch (URISyntaxException bad) {
                spec.problem(
                        "input.schema_registry",
                        "\"" + url + "\" is not a URL: " + bad.getMessage());
                return null;
            }
            return new AvroOptions(null, null, url);
        }
        return AvroOptions.CONTAINER;
    }

    /**
     * Each input column's path leads to a value in the events {@code source} describes ({@code
     * problem} says why a path does not).
     */
    private void checkPaths(
            InputFormat format,
            Map<String, String> fields,
            Function<FieldPath, String> problem,
            String source) {
        Map<Integer, String> unreadable =
                EventFields.of(format, layout, fields).unreadable(problem);
        for (Map.Entry<Integer, String> e : unreadable.entrySet()) {
            String name = layout.fieldName(e.getKey());
            spec.problem(
                    "input.fields." + name,
                    e.getValue()
                            + " ("
                            + source
                            + ")"
                            + (fields.containsKey(name)
                                    ? ""
                                    : "; "
                                            + name
                                            + " reads the field of its own name unless"
                                            + " input.fields names another"));
        }
    }

    /**
     * {@code input.columns}, {@code input.header} and {@code input.delimiter}: a CSV input's
     * columns in order (required), whether its files start with a header line (default false), and
     * its delimiter (default {@code ,}); refused for other formats. Null unless the format is csv
     * and they are valid.
     */
    private CsvOptions csv(JsonNode node, String format) {
        boolean isCsv = "csv".equals(format);
        if (!isCsv) {
            for (String key : List.of("columns", "header", "delimiter")) {
                if (node.has(key)) {
                    spec.problem("input." + key, "is for csv input; input.format is " + format);
                }
            }
            return null;
        }
        int before = spec.problemCount();
        List<String> columns = new ArrayList<>();
        JsonNode c = node.get("columns");
        if (c == null) {
            spec.problem(
                    "input.columns",
                    "missing: a csv input names its columns in order, e.g. [\"clicked\","
                            + " \"user_id\", \"price\"]");
        } else if (!c.isArray() || c.isEmpty()) {
            spec.problem("input.columns", "must be a non-empty array of column names, not " + c);
        } else {
            for (int i = 0; i < c.size(); i++) {
                JsonNode n = c.get(i);
                String at = "input.columns[" + i + "]";
                if (!n.isTextual() || n.asText().isEmpty()) {
                    spec.problem(at, "must be a non-empty string, not " + n);
                } else if (columns.contains(n.asText())) {
                    spec.problem(at, "\"" + n.asText() + "\" is named twice");
                } else {
                    columns.add(n.asText());
                }
            }
        }
        boolean header = false;
        JsonNode h = node.get("header");
        if (h != null) {
            if (!h.isBoolean()) {
                spec.problem("input.header", "must be true or false, not " + h);
            } else {
                header = h.booleanValue();
            }
        }
        char delimiter = CsvOptions.DEFAULT_DELIMITER;
        JsonNode d = node.get("delimiter");
        if (d != null) {
            if (!d.isTextual() || d.asText().length() != 1) {
                spec.problem(
                        "input.delimiter",
                        "must be one character, such as \",\" or \"\\t\", not " + d);
            } else if (!CsvOptions.validDelimiter(d.asText().charAt(0))) {
                spec.problem(
                        "input.delimiter",
                        CsvOptions.describe(d.asText().charAt(0)) + " cannot separate fields");
            } else {
                delimiter = d.asText().charAt(0);
            }
        }
        return columns.isEmpty() || spec.problemCount() > before
                ? null
                : new CsvOptions(columns, header, delimiter);
    }

    /**
     * {@code input.fields}: from column name to the path of the event field it is read from ({@link
     * FieldPath}), for a format of named fields; no path may lie inside another's value.
     */
    private Map<String, String> fields(JsonNode node, String format, CsvOptions csv) {
        Map<String, String> fields = new LinkedHashMap<>();
        if (node == null) {
            checkCsvColumns(fields, csv);
            return fields;
        }
        String path = "input.fields";
        boolean named = InputFormat.of(format).map(InputFormat::namedFields).orElse(true);
        if (!named) {
            spec.problem(
                    path,
                    "names event fields, but input.format "
                            + format
                            + " has positional fields (json, csv, avro and protobuf have named ones)");
            return fields;
        }
        if (!node.isObject()) {
            spec.problem(
                    path,
                    "must be an object from column name (label, I1.., C1..) to a field path such"
                            + " as \"user.id\" or \"items[0]\"");
            return fields;
        }
        for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            String column = e.getKey();
            int f = spec.layoutIndex(column);
            if (f < 0 || layout.isGenerated(f)) {
                spec.problem(
                        path + "." + column,
                        f < 0
                                ? "not a column of " + spec.layoutText()
                                : "a generated column reads its source's field");
                continue;
            }
            String text = spec.text(node, column, path + "." + column);
            if (text == null) {
                continue;
            }
            if ("csv".equals(format)) {
                fields.put(column, text); // a column's name, checked below
                continue;
            }
            try {
                FieldPath.parse(text); // checked here, read again where it is used
                fields.put(column, text);
            } catch (IllegalArgumentException bad) {
                spec.problem(path + "." + column, bad.getMessage());
            }
        }
        if ("csv".equals(format)) {
            checkCsvColumns(fields, csv);
            return fields;
        }
        if (InputFormat.of(format).isPresent()) { // the paths with those not named: own names
            EventFields all = EventFields.of(InputFormat.of(format).get(), layout, fields);
            int[] pair = all.enclosure();
            if (pair.length == 2) {
                String inner = layout.fieldName(pair[0]);
                String outer = layout.fieldName(pair[1]);
                spec.problem(
                        path + "." + (fields.containsKey(inner) ? inner : outer),
                        "\""
                                + all.path(pair[0])
                                + "\" (the field of "
                                + inner
                                + ") lies inside \""
                                + all.path(pair[1])
                                + "\", the field of "
                                + outer
                                + ": a field is a value or a record, not both");
            }
        }
        return fields;
    }

    /**
     * Each input column of a csv spec reads a column {@code input.columns} names: the one {@code
     * input.fields} gives it, or the one of its own name.
     */
    private void checkCsvColumns(Map<String, String> fields, CsvOptions csv) {
        if (csv == null || layout == null) {
            return; // no valid columns to check against (reported already), or not csv
        }
        for (int f = 0; f < layout.fields(); f++) {
            if (layout.isGenerated(f)) {
                continue;
            }
            String name = layout.fieldName(f);
            String column = fields.getOrDefault(name, name);
            if (csv.indexOf(column) < 0) {
                spec.problem(
                        fields.containsKey(name) ? "input.fields." + name : "input.columns",
                        fields.containsKey(name)
                                ? "\"" + column + "\" is not one of input.columns"
                                : "has no column \""
                                        + name
                                        + "\", which "
                                        + name
                                        + " reads unless input.fields names another");
            }
        }
    }
}
