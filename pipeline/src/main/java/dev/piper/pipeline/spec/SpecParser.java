package dev.piper.pipeline.spec;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.piper.pipeline.hotline.HotlineSettings;
import dev.piper.pipeline.input.InputFormat;
import dev.piper.pipeline.join.LabelSpec;
import dev.piper.pipeline.layout.CriteoLayout;
import dev.piper.pipeline.layout.RowLayout;
import dev.piper.pipeline.ops.Chains;
import dev.piper.pipeline.ops.Chains.Kind;
import dev.piper.pipeline.ops.DenseOp;
import dev.piper.pipeline.ops.Op;
import dev.piper.pipeline.spec.PipelineSpec.Column;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads and validates a pipeline spec (JSON, documented in {@code docs/SPECS.md}). It reports every
 * problem it finds, each with the path of the offending field, and accepts a spec only when there
 * is none.
 */
public final class SpecParser {

    /** Resource path of the built-in DLRM Criteo spec. */
    public static final String BUILTIN_RESOURCE = "/specs/dlrm-criteo.json";

    private static final Pattern NAME = Pattern.compile("[a-z0-9][a-z0-9_-]{0,63}");
    private static final Pattern RANGE =
            Pattern.compile("([A-Za-z]+)([0-9]+)\\.\\.([A-Za-z]+)([0-9]+)");
    private static final Set<String> TOP =
            Set.of(
                    "name",
                    "version",
                    "description",
                    "input",
                    "columns",
                    "output",
                    "hotline",
                    "labels");
    private static final Set<String> INPUT =
            Set.of(
                    "format",
                    "dense",
                    "sparse",
                    "list_columns",
                    "list_separator",
                    "generated_from",
                    "topic",
                    "route",
                    "parquet_columns",
                    "fields",
                    "columns",
                    "header",
                    "delimiter",
                    "schema",
                    "schema_registry",
                    "descriptor",
                    "message",
                    "timestamp",
                    "timestamp_unit",
                    "key");
    private static final Set<String> ROUTE = Set.of("field", "value");
    private static final Set<String> OUTPUT =
            Set.of("format", "pad_missing_fields", "max_line_bytes");

    /** Duplicate fields and anything after the spec's object (`{...} xyz`) are errors. */
    private final ObjectMapper json =
            new ObjectMapper()
                    .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION)
                    .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

    /**
     * The most borders of one bucketize: PreSto's mixes use 1,024 to 4,096; 12 million validated
     * and ran the job out of memory (issue 23).
     */
    public static final int MAX_BORDERS = DenseOp.BucketizeOp.MAX_BORDERS;

    private final List<String> problems = new ArrayList<>();

    /** How many problems are reported so far. */
    int problemCount() {
        return problems.size();
    }

    /** Reads the columns' operators, reporting their problems with the spec's. */
    private final OperatorReader operators = new OperatorReader(this::problem);

    /** The input's layout, once {@code input} is read (Criteo's if it is missing or invalid). */
    private RowLayout layout = RowLayout.CRITEO;

    private SpecParser() {}

    /** Reads the spec in {@code file}. */
    public static PipelineSpec parse(Path file) throws SpecException, IOException {
        return parse(Files.readAllBytes(file), file.toString());
    }

    /** Reads a spec from its bytes; {@code source} names it in messages. */
    public static PipelineSpec parse(byte[] bytes, String source) throws SpecException {
        return new SpecParser().read(bytes, source);
    }

    /** The built-in spec: Meta's DLRM Criteo preprocessing, the batch contract's pipeline. */
    public static PipelineSpec builtin() {
        return parseBuiltin(builtinText());
    }

    /** The built-in spec's JSON text. */
    public static byte[] builtinText() {
        try (InputStream in = SpecParser.class.getResourceAsStream(BUILTIN_RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException(BUILTIN_RESOURCE + " is missing from the jar");
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static PipelineSpec parseBuiltin(byte[] text) {
        try {
            return parse(text, "built-in spec");
        } catch (SpecException e) {
            throw new IllegalStateException(e.getMessage(), e);
        }
    }

    private PipelineSpec read(byte[] bytes, String source) throws SpecException {
        JsonNode root;
        try {
            root = json.readTree(bytes);
        } catch (JsonProcessingException e) {
            // a syntax error, or content after the spec's JSON value
            String where =
                    e.getLocation() == null
                            ? ""
                            : "line "
                                    + e.getLocation().getLineNr()
                                    + ", column "
                                    + e.getLocation().getColumnNr()
                                    + ": ";
            throw new SpecException(source, List.of(where + e.getOriginalMessage()));
        } catch (IOException e) {
            throw new SpecException(source, List.of("not JSON: " + e.getMessage()));
        }
        if (root == null || !root.isObject()) {
            throw new SpecException(source, List.of("(top): must be a JSON object"));
        }
        unknownFields(root, TOP, "");
        String name = text(root, "name", "name");
        if (name != null && !NAME.matcher(name).matches()) {
            problem(
                    "name",
                    "\"" + name + "\" is not a pipeline name ([a-z0-9][a-z0-9_-]*, at most 64)");
        }
        int version = 0;
        JsonNode v = root.get("version");
        if (v == null) {
            problem("version", "missing");
        } else if (!v.canConvertToInt() || !v.isIntegralNumber() || v.intValue() < 1) {
            problem("version", "must be a positive integer, not " + v);
        } else {
            version = v.intValue();
        }
        PipelineSpec.Input input = input(root.get("input"));
        List<Column> columns = columns(root.get("columns"));
        PipelineSpec.Output output = output(root.get("output"));
        HotlineSettings hotline =
                HotlineSection.read(
                        this, root.get("hotline"), input != null && input.eventTime() != null);
        LabelSpec labels = LabelsSection.read(this, root.get("labels"), root.get("input"), input);
        ColumnChecks.idParsers(this, input, columns);
        ColumnChecks.eventTimeTtls(this, input, columns);
        if (!problems.isEmpty()) {
            throw new SpecException(source, problems);
        }
        return new PipelineSpec(name, version, input, columns, output, hotline, labels);
    }

    void problem(String path, String message) {
        problems.add((path.isEmpty() ? "(top)" : path) + ": " + message);
    }

    void unknownFields(JsonNode node, Set<String> known, String path) {
        for (Iterator<String> it = node.fieldNames(); it.hasNext(); ) {
            String f = it.next();
            if (!known.contains(f)) {
                problem(
                        path.isEmpty() ? f : path + "." + f,
                        "unknown field (known: " + String.join(", ", sorted(known)) + ")");
            }
        }
    }

    private static List<String> sorted(Set<String> s) {
        return s.stream().sorted().toList();
    }

    String text(JsonNode parent, String field, String path) {
        JsonNode n = parent.get(field);
        if (n == null) {
            problem(path, "missing");
            return null;
        }
        if (!n.isTextual() || n.asText().isEmpty()) {
            problem(path, "must be a non-empty string, not " + n);
            return null;
        }
        return n.asText();
    }

    private PipelineSpec.Input input(JsonNode node) {
        if (node == null) {
            problem("input", "missing");
            return null;
        }
        if (!node.isObject()) {
            problem("input", "must be an object");
            return null;
        }
        unknownFields(node, INPUT, "input");
        String format = text(node, "format", "input.format");
        if (format != null && InputFormat.of(format).isEmpty()) {
            problem(
                    "input.format",
                    "unknown format \""
                            + format
                            + "\" (known: "
                            + String.join(", ", InputFormat.names())
                            + ")");
        }
        int dense = columnCount(node, "dense", CriteoLayout.DENSE, RowLayout.MAX_DENSE);
        int sparse = columnCount(node, "sparse", CriteoLayout.SPARSE, RowLayout.MAX_SPARSE);
        if (dense > 0 && sparse > 0) {
            layout = new RowLayout(dense, sparse);
            layout = withLists(node, layout);
            layout = withGenerated(node, layout);
        }
        Optional<String> topic = Optional.empty();
        if (node.has("topic")) {
            topic = Optional.ofNullable(text(node, "topic", "input.topic"));
        }
        Optional<String> field = Optional.empty();
        Optional<String> value = Optional.empty();
        JsonNode route = node.get("route");
        if (route != null) {
            if (!route.isObject()) {
                problem("input.route", "must be an object with field and value");
            } else {
                unknownFields(route, ROUTE, "input.route");
                field = Optional.ofNullable(text(route, "field", "input.route.field"));
                value = Optional.ofNullable(text(route, "value", "input.route.value"));
                field.filter(f -> layoutIndex(f) < 0)
                        .ifPresent(
                                f ->
                                        problem(
                                                "input.route.field",
                                                "\""
                                                        + f
                                                        + "\" is not a column of "
                                                        + layoutText()));
            }
        }
        EventInputSection.Read events = new EventInputSection(this, layout).read(node, format);
        return PipelineSpec.Input.builder()
                .format(format)
                .topic(topic)
                .routeField(field)
                .routeValue(value)
                .parquetColumns(parquetColumns(node.get("parquet_columns")))
                .layout(layout)
                .fields(events.fields())
                .csv(events.csv())
                .avro(events.avro())
                .protobuf(events.protobuf())
                .eventTime(events.eventTime())
                .build();
    }

    /**
     * {@code input.dense} or {@code input.sparse}: a column count from 1 to {@code max}, {@code
     * criteo} when absent; 0 when invalid (reported).
     */
    private int columnCount(JsonNode input, String field, int criteo, int max) {
        JsonNode n = input.get(field);
        if (n == null) {
            return criteo;
        }
        if (!n.isIntegralNumber()
                || !n.canConvertToInt()
                || n.intValue() < 1
                || n.intValue() > max) {
            problem("input." + field, "must be an integer from 1 to " + max + ", not " + n);
            return 0;
        }
        return n.intValue();
    }

    /**
     * {@code input.list_columns} (names or ranges of sparse columns that hold lists) and {@code
     * input.list_separator} (one character, default {@code ,}) on top of {@code layout}.
     */
    private RowLayout withLists(JsonNode input, RowLayout layout) {
        JsonNode columns = input.get("list_columns");
        JsonNode separator = input.get("list_separator");
        char sep = RowLayout.DEFAULT_LIST_SEPARATOR;
        if (separator != null) {
            String text = text(input, "list_separator", "input.list_separator");
            if (text != null
                    && (text.length() != 1 || !RowLayout.isValidSeparator(text.charAt(0)))) {
                problem(
                        "input.list_separator",
                        "must be one printable ASCII character other than a hex digit, not \""
                                + text
                                + "\"");
            } else if (text != null) {
                sep = text.charAt(0);
            }
            if (columns == null) {
                problem("input.list_separator", "given without input.list_columns");
            }
        }
        if (columns == null) {
            return layout;
        }
        TreeSet<Integer> lists = new TreeSet<>();
        columnList(
                columns,
                "input.list_columns",
                "sparse column names or ranges, such as [\"C1..C42\"]",
                (path, f) -> {
                    if (layout.isLabelOrDense(f)) {
                        problem(
                                path,
                                layout.fieldName(f) + " is not a sparse column; lists are ids");
                        return false;
                    }
                    if (!lists.add(f - layout.labelDenseWidth())) {
                        problem(path, layout.fieldName(f) + " is named twice");
                        return false;
                    }
                    return true;
                });
        return new RowLayout(layout.dense(), layout.sparse(), List.copyOf(lists), sep);
    }

    /** Takes a field of a column list, or reports it (with its path) and returns false. */
    private interface FieldTaker {
        boolean take(String path, int field);
    }

    /**
     * The fields of a non-empty array of column names and ranges at {@code path}, in order, each
     * given to {@code taker} with the element's path; the rest of an element is skipped once the
     * taker refuses a field.
     */
    private void columnList(JsonNode array, String path, String what, FieldTaker taker) {
        if (!array.isArray() || array.isEmpty()) {
            problem(path, "must be a non-empty array of " + what);
            return;
        }
        for (int i = 0; i < array.size(); i++) {
            String at = path + "[" + i + "]";
            JsonNode n = array.get(i);
            if (!n.isTextual()) {
                problem(at, "must be a column name or range, not " + n);
                continue;
            }
            int[] fields = fieldsOf(n.asText(), at);
            if (fields == null) {
                continue;
            }
            for (int f : fields) {
                if (!taker.take(at, f)) {
                    break;
                }
            }
        }
    }

    /**
     * {@code input.generated_from}: dense columns (names or ranges, in order), each decoded again
     * as a generated column {@code G1, G2, ...} with a chain of its own (PreSto's generated
     * features).
     */
    private RowLayout withGenerated(JsonNode input, RowLayout layout) {
        JsonNode from = input.get("generated_from");
        if (from == null) {
            return layout;
        }
        List<Integer> sources = new ArrayList<>();
        columnList(
                from,
                "input.generated_from",
                "dense column names or ranges, such as [\"I1..I13\"]",
                (path, f) -> {
                    if (f == 0 || !layout.isLabelOrDense(f)) {
                        problem(path, layout.fieldName(f) + " is not a dense column");
                        return false;
                    }
                    sources.add(f - 1);
                    return true;
                });
        if (sources.isEmpty()) {
            return layout;
        }
        if (sources.size() > RowLayout.MAX_DENSE) {
            problem(
                    "input.generated_from",
                    "at most " + RowLayout.MAX_DENSE + " generated columns");
            return layout;
        }
        return new RowLayout(
                layout.dense(),
                layout.sparse(),
                layout.listColumns(),
                layout.listSeparator(),
                sources);
    }

    /** The input's columns as messages name them: {@code criteo-tsv (label, I1..I13, C1..C26)}. */
    String layoutText() {
        return "criteo-tsv (label, I1..I"
                + layout.dense()
                + (layout.generated() > 0 ? ", G1..G" + layout.generated() : "")
                + ", C1..C"
                + layout.sparse()
                + ")";
    }

    /**
     * {@code input.parquet_columns}: layout field name to Parquet column name, for the fields a
     * Parquet input holds under another name. Every key a field, every value a distinct column.
     */
    private Map<String, String> parquetColumns(JsonNode node) {
        Map<String, String> columns = new LinkedHashMap<>();
        if (node == null) {
            return columns;
        }
        String path = "input.parquet_columns";
        if (!node.isObject()) {
            problem(path, "must be an object from field name (label, I1.., C1..) to column name");
            return columns;
        }
        Map<String, String> fieldOf = new LinkedHashMap<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            String field = e.getKey();
            if (layoutIndex(field) < 0) {
                problem(path + "." + field, "not a field of " + layoutText());
                continue;
            }
            String column = text(node, field, path + "." + field);
            if (column == null) {
                continue;
            }
            String other = fieldOf.putIfAbsent(column, field);
            if (other != null) {
                problem(
                        path + "." + field,
                        "column \"" + column + "\" is already the column of " + other);
                continue;
            }
            columns.put(field, column);
        }
        return columns;
    }

    /** Index of a column name in the input's layout, or -1. */
    int layoutIndex(String name) {
        return layout.fieldOf(name);
    }

    private Kind kindOf(int field) {
        return Chains.kindOf(layout, field);
    }

    private List<Column> columns(JsonNode node) {
        if (node == null) {
            problem("columns", "missing");
            return List.of();
        }
        if (!node.isObject()) {
            problem(
                    "columns",
                    "must be an object from column names (or ranges such as C1..C26) to operator chains");
            return List.of();
        }
        @SuppressWarnings("unchecked")
        List<Op>[] chains = new List[layout.fields()];
        String[] definedBy = new String[layout.fields()];
        for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            String key = e.getKey();
            String path = "columns." + key;
            int[] fields = fieldsOf(key, path);
            if (fields == null) {
                continue;
            }
            for (int f : fields) {
                if (definedBy[f] != null) {
                    problem(
                            path,
                            "duplicate column "
                                    + layout.fieldName(f)
                                    + " (also in "
                                    + definedBy[f]
                                    + ")");
                    continue;
                }
                definedBy[f] = key;
            }
            Kind kind = kindOf(fields[0]);
            for (int f : fields) {
                if (kindOf(f) != kind) {
                    problem(path, "a range must not mix column kinds");
                    break;
                }
            }
            List<Op> chain = chain(e.getValue(), kind, path);
            for (int f : fields) {
                if (chains[f] == null) {
                    chains[f] = chain;
                }
            }
        }
        List<Column> out = new ArrayList<>(layout.fields());
        List<String> absent = new ArrayList<>();
        for (int f = 0; f < layout.fields(); f++) {
            if (definedBy[f] == null) {
                absent.add(layout.fieldName(f));
            } else if (chains[f] != null) {
                out.add(new Column(layout.fieldName(f), kindOf(f), chains[f]));
            }
        }
        if (!absent.isEmpty()) {
            problem(
                    "columns",
                    layoutText().replace(" (", " has " + layout.fields() + " columns (")
                            + "; no chain for "
                            + abbreviated(absent));
        }
        return out;
    }

    /** The first 20 names, then how many more: a wide layout's absent columns in one line. */
    private static String abbreviated(List<String> names) {
        if (names.size() <= 20) {
            return String.join(", ", names);
        }
        return String.join(", ", names.subList(0, 20)) + " and " + (names.size() - 20) + " more";
    }

    /** The layout fields a key names: one column or a range such as {@code I1..I13}. */
    private int[] fieldsOf(String key, String path) {
        int single = layoutIndex(key);
        if (single >= 0) {
            return new int[] {single};
        }
        Matcher m = RANGE.matcher(key);
        if (!m.matches()) {
            problem(
                    path,
                    "\""
                            + key
                            + "\" is not a column of "
                            + layoutText()
                            + " nor a range such as C1..C"
                            + layout.sparse());
            return null;
        }
        int from = layoutIndex(m.group(1) + m.group(2));
        int to = layoutIndex(m.group(3) + m.group(4));
        if (!m.group(1).equals(m.group(3))) {
            problem(path, "a range must stay within one prefix, as in C1..C26");
            return null;
        }
        if (from < 0 || to < 0) {
            problem(
                    path,
                    (from < 0 ? m.group(1) + m.group(2) : m.group(3) + m.group(4))
                            + " is not a column of "
                            + layoutText());
            return null;
        }
        if (from > to) {
            problem(path, "an empty range");
            return null;
        }
        int[] fields = new int[to - from + 1];
        for (int i = 0; i < fields.length; i++) {
            fields[i] = from + i;
        }
        return fields;
    }

    private List<Op> chain(JsonNode node, Kind kind, String path) {
        if (!node.isArray() || node.isEmpty()) {
            problem(path, "must be a non-empty array of operators");
            return null;
        }
        List<Op> ops = new ArrayList<>();
        boolean ok = true;
        for (int i = 0; i < node.size(); i++) {
            Op op = operators.op(node.get(i), path + "[" + i + "]");
            if (op == null) {
                ok = false;
            } else {
                ops.add(op);
            }
        }
        if (!ok) {
            return null;
        }
        var problem = Chains.check(kind, ops);
        if (problem.isPresent()) {
            int at = problem.get().at();
            problem(at < 0 ? path : path + "[" + at + "]", problem.get().message());
            return null;
        }
        return List.copyOf(ops);
    }

    private PipelineSpec.Output output(JsonNode node) {
        if (node == null) {
            return new PipelineSpec.Output("dlrm-rows", false, 65536);
        }
        if (!node.isObject()) {
            problem("output", "must be an object");
            return null;
        }
        unknownFields(node, OUTPUT, "output");
        String format = "dlrm-rows";
        if (node.has("format")) {
            format = text(node, "format", "output.format");
            if (format != null && !format.equals("dlrm-rows")) {
                problem("output.format", "unknown format \"" + format + "\" (known: dlrm-rows)");
            }
        }
        boolean pad = false;
        JsonNode p = node.get("pad_missing_fields");
        if (p != null) {
            if (!p.isBoolean()) {
                problem("output.pad_missing_fields", "must be true or false, not " + p);
            } else {
                pad = p.booleanValue();
            }
        }
        int maxLine = 65536;
        JsonNode l = node.get("max_line_bytes");
        if (l != null) {
            if (!l.isIntegralNumber() || !l.canConvertToInt() || l.intValue() < 1) {
                problem("output.max_line_bytes", "must be a positive integer, not " + l);
            } else {
                maxLine = l.intValue();
            }
        }
        return new PipelineSpec.Output(format, pad, maxLine);
    }
}
