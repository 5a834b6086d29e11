package dev.piper.pipeline.spec;

import com.fasterxml.jackson.databind.JsonNode;
import dev.piper.pipeline.input.EventTime;
import dev.piper.pipeline.input.FieldPath;
import dev.piper.pipeline.input.InputFormat;
import dev.piper.pipeline.join.ActionSource;
import dev.piper.pipeline.join.ActionStream;
import dev.piper.pipeline.join.EmitPolicy;
import dev.piper.pipeline.join.JoinSettings;
import dev.piper.pipeline.join.LabelFields;
import dev.piper.pipeline.join.LabelSpec;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The {@code labels} section of a spec with {@code input.key}, read with its problems reported to
 * the spec's ({@code docs/SPECS.md}, "Labels that arrive later").
 */
final class LabelsSection {

    static final Set<String> LABELS =
            Set.of("streams", "max_out_of_orderness", "retention", "negative_sample_rate");
    static final Set<String> STREAM =
            Set.of(
                    "format",
                    "key",
                    "timestamp",
                    "timestamp_unit",
                    "id",
                    "value",
                    "window",
                    "policy",
                    "topic");

    /** A stream's name: its label fields are named after it. */
    private static final Pattern NAME = Pattern.compile("[a-z][a-z0-9_]{0,31}");

    /** The bound of out-of-orderness without {@code max_out_of_orderness}. */
    static final long DEFAULT_OUT_OF_ORDERNESS_MS = 10_000;

    private LabelsSection() {}

    /**
     * The {@code labels} section with the impressions' {@code input.key}; null when the spec has
     * neither, or a problem.
     *
     * @param input the spec's input section
     * @param in the input as read (null if it had problems)
     */
    static LabelSpec read(SpecParser spec, JsonNode node, JsonNode input, PipelineSpec.Input in) {
        boolean keyed = input != null && input.isObject() && input.has("key");
        if (node == null) {
            if (keyed) {
                spec.problem(
                        "input.key",
                        "is the join key of a labels section, which is missing (the impressions"
                                + " join actions by it)");
            }
            return null;
        }
        if (!node.isObject()) {
            spec.problem("labels", "must be an object");
            return null;
        }
        spec.unknownFields(node, LABELS, "labels");
        int before = spec.problemCount();
        String key = impressionKey(spec, input, in);
        long bound =
                span(spec, node, "labels.max_out_of_orderness", DEFAULT_OUT_OF_ORDERNESS_MS, true);
        List<ActionStream> streams = new ArrayList<>();
        List<ActionSource> sources = new ArrayList<>();
        streams(spec, node.get("streams"), streams, sources);
        long longest = streams.stream().mapToLong(ActionStream::windowMs).max().orElse(1);
        long retention = span(spec, node, "labels.retention", longest, true);
        double rate = sampleRate(spec, node.get("negative_sample_rate"));
        if (spec.problemCount() > before || streams.isEmpty() || key == null) {
            return null;
        }
        LabelSpec labels =
                new LabelSpec(key, new JoinSettings(streams, bound, retention, rate), sources);
        if (in != null) {
            checkFields(spec, in.fields(), labels);
        }
        return labels;
    }

    /** {@code input.key}: required, a path, and the impressions must be JSON. */
    private static String impressionKey(SpecParser spec, JsonNode input, PipelineSpec.Input in) {
        if (input == null || !input.isObject()) {
            return null;
        }
        String key = spec.text(input, "key", "input.key");
        if (key != null) {
            path(spec, key, "input.key");
        }
        if (in == null) {
            return key;
        }
        if (!InputFormat.JSON.specName().equals(in.format())) {
            spec.problem(
                    "labels",
                    "joins JSON impressions (input.format json); "
                            + in.format()
                            + " impressions are not supported yet");
        }
        if (in.eventTime() == null) {
            spec.problem(
                    "input.timestamp",
                    "missing: a label join places impressions in event time (name their time"
                            + " field)");
        }
        return key;
    }

    private static void streams(
            SpecParser spec, JsonNode node, List<ActionStream> streams, List<ActionSource> out) {
        if (node == null) {
            spec.problem("labels.streams", "missing (at least one action stream, e.g. clicks)");
            return;
        }
        if (!node.isObject() || node.isEmpty()) {
            spec.problem(
                    "labels.streams",
                    "must be an object of at least one action stream by name, not " + node);
            return;
        }
        Set<String> fields = new HashSet<>(Set.of(LabelFields.WEIGHT, LabelFields.COPY));
        for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            String name = e.getKey();
            String at = "labels.streams." + name;
            if (!NAME.matcher(name).matches()) {
                spec.problem(at, "is not a stream name ([a-z][a-z0-9_]*, at most 32)");
                continue;
            }
            for (String f : LabelFields.names(List.of(name)).subList(0, 4)) {
                if (!fields.add(f)) {
                    spec.problem(
                            at,
                            "its label field labels."
                                    + f
                                    + " is another stream's or the join's; rename the stream");
                }
            }
            stream(spec, name, e.getValue(), at, streams, out);
        }
    }

    private static void stream(
            SpecParser spec,
            String name,
            JsonNode node,
            String at,
            List<ActionStream> streams,
            List<ActionSource> out) {
        if (!node.isObject()) {
            spec.problem(at, "must be an object");
            return;
        }
        spec.unknownFields(node, STREAM, at);
        int before = spec.problemCount();
        String format = ActionSource.JSON;
        if (node.has("format")) {
            format = spec.text(node, "format", at + ".format");
            if (format != null && !format.equals(ActionSource.JSON)) {
                spec.problem(
                        at + ".format",
                        "\"" + format + "\": action records are read as json so far");
            }
        }
        String key = spec.text(node, "key", at + ".key");
        path(spec, key, at + ".key");
        EventTime time = time(spec, node, at);
        String id = optionalPath(spec, node, "id", at);
        String value = optionalPath(spec, node, "value", at);
        String topic = node.has("topic") ? spec.text(node, "topic", at + ".topic") : null;
        long window = span(spec, node, at + ".window", -1, false);
        EmitPolicy policy = EmitPolicy.WAIT;
        if (node.has("policy")) {
            String p = spec.text(node, "policy", at + ".policy");
            policy = p == null ? null : EmitPolicy.of(p).orElse(null);
            if (p != null && policy == null) {
                spec.problem(
                        at + ".policy",
                        "unknown policy \"" + p + "\" (known: " + EmitPolicy.names() + ")");
            }
        }
        if (spec.problemCount() > before) {
            return;
        }
        streams.add(new ActionStream(name, window, policy));
        out.add(new ActionSource(format, key, time, id, value, topic));
    }

    private static EventTime time(SpecParser spec, JsonNode node, String at) {
        String path = spec.text(node, "timestamp", at + ".timestamp");
        path(spec, path, at + ".timestamp");
        EventTime.Unit unit = EventInputSection.timeUnit(spec, node, at);
        return path == null || unit == null ? null : new EventTime(path, unit);
    }

    private static String optionalPath(SpecParser spec, JsonNode node, String field, String at) {
        if (!node.has(field)) {
            return null;
        }
        String path = spec.text(node, field, at + "." + field);
        path(spec, path, at + "." + field);
        return path;
    }

    private static void path(SpecParser spec, String path, String at) {
        if (path == null) {
            return;
        }
        try {
            FieldPath.parse(path);
        } catch (IllegalArgumentException bad) {
            spec.problem(at, bad.getMessage());
        }
    }

    /**
     * A span of event time ({@code "15m"}, {@code "7d"}): {@code absent} when the field is missing
     * (or a problem when {@code absent} is negative); 0 ({@code "0s"}) only where {@code zero}.
     */
    private static long span(SpecParser spec, JsonNode node, String at, long absent, boolean zero) {
        JsonNode n = node.get(at.substring(at.lastIndexOf('.') + 1));
        if (n == null) {
            if (absent < 0) {
                spec.problem(at, "missing (a span of event time such as \"15m\" or \"7d\")");
            }
            return absent;
        }
        if (zero && n.isTextual() && n.asText().matches("\\s*0+\\s*(ms|s|m|h|d|w)\\s*")) {
            return 0;
        }
        try {
            Spans.Span s = Spans.read(n);
            if (!s.inEventTime()) {
                spec.problem(at, n + " counts rows; the join needs a span of event time (\"15m\")");
                return absent;
            }
            return s.millis();
        } catch (IllegalArgumentException e) {
            spec.problem(at, e.getMessage());
            return absent;
        }
    }

    /**
     * {@code negative_sample_rate}: 1 absent; else {@code 1/n} for a whole {@code n}, so that a
     * kept negative's weight counts the rows it stands for.
     */
    private static double sampleRate(SpecParser spec, JsonNode n) {
        if (n == null) {
            return 1;
        }
        String at = "labels.negative_sample_rate";
        if (!n.isNumber() || !(n.doubleValue() > 0 && n.doubleValue() <= 1)) {
            spec.problem(at, "must be a number in (0, 1], not " + n);
            return 1;
        }
        double rate = n.doubleValue();
        long weight = Math.round(1 / rate);
        if (Math.abs(weight * rate - 1) > 1e-9) {
            spec.problem(
                    at,
                    rate
                            + " is not 1/n for a whole n: a kept negative weighs 1/rate rows, a"
                            + " whole number (0.25 keeps one negative in 4, weight 4)");
            return 1;
        }
        return 1.0 / weight;
    }

    /**
     * The columns that read label fields read ones the join writes, and at least one column reads
     * one (else the join labels nothing).
     */
    private static void checkFields(SpecParser spec, Map<String, String> fields, LabelSpec labels) {
        Set<String> known = new HashSet<>(LabelFields.names(labels.streamNames()));
        boolean any = false;
        for (Map.Entry<String, String> e : fields.entrySet()) {
            String path = e.getValue();
            if (!path.equals(LabelFields.OBJECT) && !path.startsWith(LabelFields.OBJECT + ".")) {
                continue;
            }
            String name = path.substring(Math.min(path.length(), LabelFields.OBJECT.length() + 1));
            if (!known.contains(name)) {
                spec.problem(
                        "input.fields." + e.getKey(),
                        "\""
                                + path
                                + "\" is not a field the label join writes (known: "
                                + String.join(
                                        ", ",
                                        LabelFields.names(labels.streamNames()).stream()
                                                .map(LabelFields::path)
                                                .toList())
                                + ")");
            }
            any = true;
        }
        if (!any) {
            spec.problem(
                    "input.fields",
                    "no column reads a label of the join: map one, e.g. \"label\": \""
                            + LabelFields.path(labels.streamNames().get(0))
                            + "\"");
        }
        if (labels.key().equals(LabelFields.OBJECT)
                || labels.key().startsWith(LabelFields.OBJECT + ".")) {
            spec.problem("input.key", "lies in the join's labels object; name the impression's id");
        }
    }
}
