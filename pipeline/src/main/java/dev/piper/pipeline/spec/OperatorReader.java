package dev.piper.pipeline.spec;

import com.fasterxml.jackson.databind.JsonNode;
import dev.piper.pipeline.ops.Op;
import dev.piper.pipeline.ops.OpDefinition;
import dev.piper.pipeline.ops.OpParams;
import dev.piper.pipeline.ops.VocabularyPolicy;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.BiConsumer;

/**
 * Reads one operator of a column's chain, a name or an object with {@code "op"} and its parameters,
 * through the operator's {@link OpDefinition}: an unknown operator, a missing, mistyped or stray
 * parameter, or a value the operator refuses is reported with the operator's spec path.
 */
final class OperatorReader {

    /** Where problems go: the spec path and the message. */
    private final BiConsumer<String, String> problems;

    OperatorReader(BiConsumer<String, String> problems) {
        this.problems = problems;
    }

    private void problem(String path, String message) {
        problems.accept(path, message);
    }

    /** The operator {@code node} at {@code path} names, or null once its problem is reported. */
    Op op(JsonNode node, String path) {
        String name;
        Map<String, JsonNode> params = new LinkedHashMap<>();
        if (node.isTextual()) {
            name = node.asText();
        } else if (node.isObject()) {
            JsonNode n = node.get("op");
            if (n == null || !n.isTextual()) {
                problem(path, "an operator object needs \"op\": the operator's name");
                return null;
            }
            name = n.asText();
            node.fields()
                    .forEachRemaining(
                            e -> {
                                if (!e.getKey().equals("op")) {
                                    params.put(e.getKey(), e.getValue());
                                }
                            });
        } else {
            problem(path, "an operator is a name or an object with \"op\", not " + node);
            return null;
        }
        Optional<OpDefinition> definition = OpDefinition.byName(name);
        if (definition.isEmpty()) {
            problem(
                    path,
                    "unknown operator \""
                            + name
                            + "\" (known: "
                            + String.join(", ", OpDefinition.names())
                            + ")");
            return null;
        }
        Params p = new Params(name, params, path);
        Op op = p.make(() -> definition.get().parse().apply(p));
        if (op != null && !p.unused().isEmpty()) {
            problem(
                    path,
                    name
                            + " has no parameter "
                            + String.join(
                                    ", ", p.unused().stream().map(u -> "\"" + u + "\"").toList())
                            + " ("
                            + (definition.get().params().isEmpty()
                                    ? "it takes none"
                                    : "it takes " + String.join(", ", definition.get().params()))
                            + ")");
            return null;
        }
        return op;
    }

    /** A vocab operator's policy from its parameters (docs/SPECS.md, "Vocabulary policies"). */
    private static VocabularyPolicy vocabPolicy(Params p) {
        VocabularyPolicy.Eviction eviction = VocabularyPolicy.Eviction.NONE;
        if (p.has("evict")) {
            String e = p.text("evict");
            eviction =
                    switch (e) {
                        case "lfu" -> VocabularyPolicy.Eviction.LFU;
                        case "ttl" -> VocabularyPolicy.Eviction.TTL;
                        default -> throw p.bad("evict", "\"lfu\" or \"ttl\"", p.node("evict"));
                    };
        }
        Spans.Span ttl = p.has("ttl") ? ttl(p) : new Spans.Span(0, 0);
        return new VocabularyPolicy(
                p.has("min_count") ? p.intValue("min_count", 1) : 1,
                p.has("oov_buckets") ? p.intValue("oov_buckets", 0) : 0,
                p.has("max_size") ? p.intValue("max_size", 1) : VocabularyPolicy.MAX_SIZE,
                p.has("import") ? p.text("import") : null,
                p.has("capacity") ? p.intValue("capacity", 1) : 0,
                eviction,
                ttl.rows(),
                ttl.millis());
    }

    /**
     * A vocab's {@code ttl}: rows (an integer, or a string such as {@code "5M rows"}) or a span of
     * event time ({@code "7d"}, {@link Spans}); that the input has event time for the latter is
     * checked with the whole spec.
     */
    private static Spans.Span ttl(Params p) {
        try {
            return Spans.read(p.node("ttl"));
        } catch (IllegalArgumentException e) {
            throw p.bad("ttl", e.getMessage());
        }
    }

    /** Thrown by {@link Params} once it has reported a bad parameter. */
    private static final class BadParam extends RuntimeException {
        BadParam() {
            super(null, null, false, false);
        }
    }

    /**
     * An operator's parameters: typed reads that report a missing or mistyped parameter with the
     * operator's path, and the check the operator's own constructor makes.
     */
    private final class Params implements OpParams {
        private final String op;
        private final Map<String, JsonNode> values;
        private final String path;
        private final java.util.Set<String> read = new java.util.HashSet<>();

        Params(String op, Map<String, JsonNode> values, String path) {
            this.op = op;
            this.values = values;
            this.path = path;
        }

        @Override
        public boolean has(String name) {
            return values.containsKey(name);
        }

        List<String> unused() {
            return values.keySet().stream().filter(k -> !read.contains(k)).toList();
        }

        /** The parameter's JSON value, which must be present. */
        JsonNode node(String name) {
            return get(name);
        }

        private JsonNode get(String name) {
            read.add(name);
            JsonNode n = values.get(name);
            if (n == null) {
                problem(
                        path,
                        op
                                + " needs its parameter \""
                                + name
                                + "\" ("
                                + op
                                + " takes "
                                + String.join(", ", OpDefinition.byName(op).orElseThrow().params())
                                + "; docs/SPECS.md)");
                throw new BadParam();
            }
            return n;
        }

        BadParam bad(String name, String what, JsonNode n) {
            return bad(name, "must be " + what + ", not " + n);
        }

        /** Reports {@code message} about parameter {@code name} (it says what the value is). */
        BadParam bad(String name, String message) {
            problem(path, op + " \"" + name + "\" " + message);
            return new BadParam();
        }

        @Override
        public double number(String name) {
            JsonNode n = get(name);
            if (!n.isNumber() || !Double.isFinite(n.doubleValue())) {
                throw bad(name, "a number", n);
            }
            return n.doubleValue();
        }

        @Override
        public double[] numbers(String name, int max) {
            JsonNode n = get(name);
            if (!n.isArray() || n.isEmpty()) {
                throw bad(name, "a non-empty array of numbers", n);
            }
            if (n.size() > max) {
                throw new IllegalArgumentException(
                        "\""
                                + name
                                + "\" must hold at most "
                                + max
                                + " numbers, not "
                                + n.size()
                                + " (each is kept by every decoder and written into"
                                + " metadata.json)");
            }
            double[] out = new double[n.size()];
            for (int i = 0; i < out.length; i++) {
                if (!n.get(i).isNumber() || !Double.isFinite(n.get(i).doubleValue())) {
                    throw bad(name + "[" + i + "]", "a number", n.get(i));
                }
                out[i] = n.get(i).doubleValue();
            }
            return out;
        }

        @Override
        public boolean flag(String name, boolean fallback) {
            if (!has(name)) {
                return fallback;
            }
            JsonNode n = get(name);
            if (!n.isBoolean()) {
                throw bad(name, "true or false", n);
            }
            return n.booleanValue();
        }

        @Override
        public long longValue(String name, long min) {
            JsonNode n = get(name);
            if (!n.isIntegralNumber() || !n.canConvertToLong() || n.longValue() < min) {
                throw bad(
                        name,
                        min == Long.MIN_VALUE
                                ? "a 64-bit integer"
                                : min == 1 ? "a positive integer" : "an integer of at least " + min,
                        n);
            }
            return n.longValue();
        }

        @Override
        public int intValue(String name, int min) {
            JsonNode n = get(name);
            if (!n.isIntegralNumber() || !n.canConvertToInt() || n.intValue() < min) {
                throw bad(
                        name,
                        min == 1
                                ? "a positive 32-bit integer"
                                : "a 32-bit integer of at least " + min,
                        n);
            }
            return n.intValue();
        }

        @Override
        public String text(String name) {
            JsonNode n = get(name);
            if (!n.isTextual() || n.asText().isEmpty()) {
                throw bad(name, "a non-empty string", n);
            }
            return n.asText();
        }

        @Override
        public Op.ValueType valueType(String name) {
            JsonNode n = get(name);
            for (Op.ValueType t : Op.ValueType.values()) {
                if (n.isTextual() && n.asText().equals(t.name())) {
                    return t;
                }
            }
            throw bad(name, "\"int32\" or \"float32\"", n);
        }

        @Override
        public VocabularyPolicy vocabularyPolicy() {
            return vocabPolicy(this);
        }

        /** The operator {@code make} builds, or null once a problem is reported. */
        Op make(java.util.function.Supplier<Op> make) {
            try {
                return make.get();
            } catch (BadParam e) {
                return null;
            } catch (IllegalArgumentException e) {
                problem(path, e.getMessage());
                return null;
            }
        }
    }
}
