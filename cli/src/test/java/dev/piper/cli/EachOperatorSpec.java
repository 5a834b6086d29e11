package dev.piper.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.piper.pipeline.ops.Chains.Kind;
import dev.piper.pipeline.ops.OpDefinition;
import dev.piper.pipeline.spec.PipelineSpec;
import dev.piper.pipeline.spec.SpecCompiler;
import dev.piper.pipeline.spec.SpecException;
import dev.piper.pipeline.spec.SpecParser;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Specs generated from the operators' definitions ({@link OpDefinition#all()}): a preset whose
 * columns each take one operator not yet placed, with the example parameters below, after the
 * shortest chain around it that the spec language accepts for that column. A new operator lands in
 * them by itself; one with parameters fails here until it has its example.
 */
final class EachOperatorSpec {

    private static final ObjectMapper JSON = new ObjectMapper();

    /** Example parameters of each operator that has parameters ({@code IDS}: the id table). */
    static final Map<String, String> EXAMPLES =
            Map.ofEntries(
                    Map.entry("fill_null", "{\"op\": \"fill_null\", \"value\": 7}"),
                    Map.entry("clamp", "{\"op\": \"clamp\", \"lo\": -3.5, \"hi\": 20.7}"),
                    Map.entry(
                            "bucketize",
                            "{\"op\": \"bucketize\", \"borders\": [0, 1, 2, 5, 10, 100],"
                                    + " \"right\": false}"),
                    Map.entry("boxcox", "{\"op\": \"boxcox\", \"lambda\": 0.5}"),
                    Map.entry("logit", "{\"op\": \"logit\", \"eps\": 0.001}"),
                    Map.entry("cast", "{\"op\": \"cast\", \"to\": \"float32\"}"),
                    Map.entry("onehot", "{\"op\": \"onehot\", \"size\": 7}"),
                    Map.entry("modulus", "{\"op\": \"modulus\", \"m\": 1000}"),
                    Map.entry(
                            "sigrid_hash",
                            "{\"op\": \"sigrid_hash\", \"salt\": 5, \"max\": 100000}"),
                    Map.entry("mapid", "{\"op\": \"mapid\", \"file\": \"IDS\", \"default\": 0}"),
                    Map.entry("firstx", "{\"op\": \"firstx\", \"x\": 3}"),
                    Map.entry("ngram", "{\"op\": \"ngram\", \"n\": 2}"),
                    Map.entry("vocab", "{\"op\": \"vocab\", \"oov_buckets\": 4}"));

    /** Chains tried for an operator {@code X} of label and dense columns, shortest first. */
    private static final List<String> DENSE_CHAINS =
            List.of(
                    "[\"decode\", \"fill_missing\", X]",
                    "[\"decode\", \"fill_missing\", \"neg2zero\", X]",
                    "[\"decode\", \"fill_missing\", " + EXAMPLES.get("bucketize") + ", X]",
                    "[\"decode\", X]");

    /** Chains tried for an operator {@code X} of id columns, shortest first. */
    private static final List<String> ID_CHAINS =
            List.of(
                    "[\"decode\", \"fill_missing\", \"hex2int\", X, \"vocab\"]",
                    "[\"decode\", \"fill_missing\", \"hash64\", X, \"vocab\"]",
                    "[\"decode\", \"fill_missing\", X, \"vocab\"]",
                    "[\"decode\", \"fill_missing\", \"hex2int\", X]",
                    "[\"decode\", \"fill_missing\", \"hash64\", X]",
                    "[\"decode\", X, \"hex2int\", \"vocab\"]",
                    "[\"decode\", X, \"hash64\", \"vocab\"]");

    private static final Pattern RANGE = Pattern.compile("([A-Z]+)(\\d+)\\.\\.[A-Z]+(\\d+)");

    private EachOperatorSpec() {}

    /**
     * The spec of {@code preset} (a spec file) with the operators not in {@code held} placed on its
     * columns as far as they take them, {@code ids} the id table's path; every operator the
     * generated spec holds is added to {@code held}.
     */
    static String json(Path preset, String ids, Set<String> held)
            throws IOException, SpecException {
        ObjectNode spec = (ObjectNode) JSON.readTree(preset.toFile());
        spec.put("name", "each-operator-" + spec.get("name").asText());
        spec.remove("description");
        Map<String, JsonNode> columns = expand(spec.get("columns"));
        Map<String, Kind> kinds = new LinkedHashMap<>();
        for (PipelineSpec.Column c : SpecParser.parse(preset).columns()) {
            kinds.put(c.name(), c.kind());
        }
        List<String> free = new ArrayList<>(columns.keySet());
        free.remove("label");
        for (OpDefinition d : OpDefinition.all()) {
            if (held.contains(d.name()) || (d.params().isEmpty() && holds(columns, d.name()))) {
                continue;
            }
            String step = step(d).replace("IDS", ids);
            Set<Kind> refused = new HashSet<>(); // a kind one column refused, all refuse
            for (Iterator<String> it = free.iterator(); it.hasNext(); ) {
                String column = it.next();
                Kind kind = kinds.get(column);
                if (!d.kinds().contains(kind) || refused.contains(kind)) {
                    continue;
                }
                if (place(spec, columns, column, kind, step)) {
                    it.remove();
                    break;
                }
                refused.add(kind);
            }
        }
        spec.set("columns", JSON.valueToTree(columns));
        String text = JSON.writeValueAsString(spec);
        for (PipelineSpec.Column c :
                SpecParser.parse(text.getBytes(StandardCharsets.UTF_8), preset.toString())
                        .columns()) {
            c.ops().forEach(op -> held.add(op.name()));
        }
        return text;
    }

    /** The columns of a spec's {@code columns}, each range ({@code C1..C42}) as its columns. */
    private static Map<String, JsonNode> expand(JsonNode columns) {
        Map<String, JsonNode> out = new LinkedHashMap<>();
        columns.fields()
                .forEachRemaining(
                        e -> {
                            Matcher m = RANGE.matcher(e.getKey());
                            if (!m.matches()) {
                                out.put(e.getKey(), e.getValue());
                                return;
                            }
                            int to = Integer.parseInt(m.group(3));
                            for (int i = Integer.parseInt(m.group(2)); i <= to; i++) {
                                out.put(m.group(1) + i, e.getValue());
                            }
                        });
        return out;
    }

    /** The operator's step: its name, or its example when it has parameters. */
    private static String step(OpDefinition d) {
        if (d.params().isEmpty()) {
            return "\"" + d.name() + "\"";
        }
        String example = EXAMPLES.get(d.name());
        if (example == null) {
            throw new AssertionError(
                    d.name() + " has parameters " + d.params() + " but no example in " + EXAMPLES);
        }
        return example;
    }

    /** Whether a column's chain holds operator {@code name} already (one without parameters). */
    private static boolean holds(Map<String, JsonNode> columns, String name) {
        return columns.values().stream()
                .anyMatch(chain -> chain.toString().contains("\"" + name + "\""));
    }

    /**
     * Puts the first chain around {@code step} that the spec language accepts on {@code column}.
     */
    private static boolean place(
            ObjectNode spec, Map<String, JsonNode> columns, String column, Kind kind, String step)
            throws IOException {
        List<String> chains = kind == Kind.label || kind == Kind.dense ? DENSE_CHAINS : ID_CHAINS;
        for (String chain : chains) {
            ArrayNode tried = (ArrayNode) JSON.readTree(chain.replace("X", step));
            Map<String, JsonNode> all = new LinkedHashMap<>(columns);
            all.put(column, tried);
            ObjectNode candidate = spec.deepCopy();
            candidate.set("columns", JSON.valueToTree(all));
            try {
                SpecCompiler.program(
                        SpecParser.parse(JSON.writeValueAsBytes(candidate), "generated"));
            } catch (SpecException | IllegalArgumentException e) {
                continue;
            }
            columns.put(column, tried);
            return true;
        }
        return false;
    }
}
