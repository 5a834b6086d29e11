package dev.piper.core.join;

import static org.assertj.core.api.Assertions.assertThat;

import dev.piper.core.decode.JsonEventDecoder;
import dev.piper.pipeline.input.FieldPath;
import dev.piper.pipeline.join.LabelFields;
import dev.piper.pipeline.spec.PipelineSpec;
import dev.piper.pipeline.spec.SpecCompiler;
import dev.piper.pipeline.spec.SpecParser;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The impressions' join keys as the decoder's fast path notes them ({@link
 * JsonEventDecoder#withJoinKey}) against Jackson's reading of them ({@link ImpressionKeys}, the
 * reference): on keys of every JSON kind, keys missing, null, given twice, a {@code labels} field
 * at the top level and below it, and seeded mutations of all of them, both readers give every line
 * the same record or the same dead letter, detail for detail; and the fast path takes the plain
 * keys.
 */
class StreamJoinReaderTest {

    private static final String SPEC =
            """
            {"name": "imp", "version": 1,
             "input": {"format": "json", "dense": 1, "sparse": 2, "key": "%s", "timestamp": "ts",
                       "fields": {"label": "labels.click", "I1": "price", "C1": "user.id",
                                  "C2": "item"}},
             "columns": {"label": ["decode", "fill_missing"], "I1": ["decode", "fill_missing"],
                         "C1": ["decode", "fill_missing", "hash64", "vocab"],
                         "C2": ["decode", "fill_missing", "hash64", "vocab"]},
             "labels": {"max_out_of_orderness": "0s",
                        "streams": {"click": {"key": "rid", "timestamp": "at", "window": "1s"}}}}
            """;

    /** Keys of every kind: strings, integers, and values that are no key or that Jackson reads. */
    private static final String[] KEYS = {
        "\"a\"",
        "\"q123\"",
        "\"with space\"",
        "\"\"",
        "\"a\\u0041\"",
        "\"\\\"\"",
        "\"é\"",
        "0",
        "-0",
        "7",
        "-12",
        "123456789012345678",
        "1234567890123456789",
        "123456789012345678901",
        "00",
        "1.5",
        "2.0",
        "1e3",
        "true",
        "false",
        "null",
        "[1]",
        "{\"x\": 1}",
        "-",
    };

    private static PipelineSpec spec(String key) throws Exception {
        return SpecParser.parse(SPEC.formatted(key).getBytes(StandardCharsets.UTF_8), "t.json");
    }

    /** The lines of one key path: every key kind in several placements, plain and odd. */
    private static List<String> lines(String keyPath) {
        String[] path = keyPath.split("\\.");
        List<String> lines = new ArrayList<>();
        for (String k : KEYS) {
            String field =
                    path.length == 1
                            ? field(path[0], k)
                            : field(path[0], "{" + field(path[1], k) + "}");
            lines.add("{" + field + ", \"ts\": 1000, \"price\": 5, \"user\": {\"id\": \"u1\"}}");
            lines.add("{\"ts\": 1000, \"item\": \"i9\", " + field + "}");
            lines.add("{\"ts\": 1000, " + field + ", " + field + "}");
            lines.add("{\"ts\": 1000, \"labels\": {\"click\": 1}, " + field + "}");
            lines.add("{\"ts\": 1000, \"user\": {\"labels\": 1}, " + field + "}");
            lines.add("{\"labels\": null, \"ts\": 1000, " + field + "}");
            lines.add(" {  " + field + " ,\"ts\":1000 }  ");
        }
        lines.add("{\"ts\": 1000, \"price\": 5}");
        lines.add(
                "{\"ts\": 1000, " + field(path[0], "null") + ", " + field(path[0], "\"b\"") + "}");
        lines.add(
                "{\"ts\": 1000, " + field(path[0], "\"b\"") + ", " + field(path[0], "null") + "}");
        lines.add("not json");
        lines.add("{\"ts\": \"yesterday\", " + field(path[0], "\"b\"") + "}");
        return lines;
    }

    private static String field(String name, String value) {
        return "\"" + name + "\": " + value;
    }

    /** A reading as text: the record's key and time, or the dead letter's reason and detail. */
    private static String reading(JoinRead r) {
        if (r instanceof JoinInput in) {
            return "key " + in.key() + " at " + in.timeMs();
        }
        JoinDeadLetter d = (JoinDeadLetter) r;
        return "dead " + d.reason() + ": " + d.detail();
    }

    private static void agree(String keyPath, List<String> lines) throws Exception {
        PipelineSpec spec = spec(keyPath);
        var options = SpecCompiler.decodeOptions(spec, 1024);
        StreamJoinReader fast = new StreamJoinReader(spec.labels(), options, true, false);
        StreamJoinReader reference = new StreamJoinReader(spec.labels(), options, false, false);
        for (int n = 0; n < lines.size(); n++) {
            byte[] line = lines.get(n).getBytes(StandardCharsets.UTF_8);
            assertThat(reading(fast.read(0, 0, n, line)))
                    .as("line %s", lines.get(n))
                    .isEqualTo(reading(reference.read(0, 0, n, line)));
        }
    }

    @Test
    void fastAndReferenceKeysAgreeOnEveryKindOfKey() throws Exception {
        agree("rid", lines("rid"));
        agree("req.id", lines("req.id"));
        agree("item", lines("item")); // the key is a column too
    }

    @Test
    void fastAndReferenceKeysAgreeOnMutatedLines() throws Exception {
        Random random = new Random(66);
        String bytes = "{}[]\":,0123456789-.eE abtnulrsfq\\";
        for (String keyPath : List.of("rid", "req.id")) {
            List<String> mutated = new ArrayList<>();
            for (String base : lines(keyPath)) {
                for (int m = 0; m < 40; m++) {
                    StringBuilder b = new StringBuilder(base);
                    int edits = 1 + random.nextInt(3);
                    for (int e = 0; e < edits && b.length() > 0; e++) {
                        int at = random.nextInt(b.length());
                        switch (random.nextInt(3)) {
                            case 0 -> b.deleteCharAt(at);
                            case 1 -> b.insert(at, bytes.charAt(random.nextInt(bytes.length())));
                            default ->
                                    b.setCharAt(at, bytes.charAt(random.nextInt(bytes.length())));
                        }
                    }
                    mutated.add(b.toString());
                }
            }
            agree(keyPath, mutated);
        }
    }

    @Test
    void theFastPathTakesPlainKeysAndLeavesTheRestToJackson() throws Exception {
        PipelineSpec spec = spec("rid");
        JsonEventDecoder d =
                JsonEventDecoder.withJoinKey(
                        SpecCompiler.decodeOptions(spec, 1024),
                        FieldPath.parse("rid"),
                        LabelFields.OBJECT);
        assertThat(key(d, "{\"rid\": \"q7\", \"ts\": 1000, \"user\": {\"id\": \"u1\"}}"))
                .isEqualTo("q7");
        assertThat(key(d, "{\"ts\": 1000, \"rid\": -42}")).isEqualTo("-42");
        assertThat(key(d, "{\"ts\": 1000}")).isNull(); // missing: Jackson's reading says so
        assertThat(key(d, "{\"ts\": 1000, \"rid\": \"\"}")).isNull();
        assertThat(key(d, "{\"ts\": 1000, \"rid\": \"a\\u0041\"}")).isNull(); // an escape
        assertThat(key(d, "{\"ts\": 1000, \"rid\": \"a\", \"labels\": {}}")).isNull();
        assertThat(key(d, "{\"ts\": 1000, \"rid\": \"a\", \"user\": {\"labels\": 1}}"))
                .isEqualTo("a");
    }

    /** The key the fast path noted in {@code line}, or null if it left it to Jackson. */
    private static String key(JsonEventDecoder d, String line) {
        byte[] b = line.getBytes(StandardCharsets.UTF_8);
        d.rowTime(b, 0, b.length);
        return d.keyStart() < 0
                ? null
                : new String(b, d.keyStart(), d.keyEnd() - d.keyStart(), StandardCharsets.US_ASCII);
    }
}
