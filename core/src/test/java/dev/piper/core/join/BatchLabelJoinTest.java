package dev.piper.core.join;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.piper.core.block.DeadLetter;
import dev.piper.pipeline.spec.PipelineSpec;
import dev.piper.pipeline.spec.SpecCompiler;
import dev.piper.pipeline.spec.SpecParser;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BatchLabelJoinTest {

    private static final String SPEC =
            """
            {"name": "imp", "version": 1,
             "input": {"format": "json", "dense": 1, "sparse": 1, "key": "rid", "timestamp": "ts",
                       "fields": {"label": "labels.click", "I1": "labels.click_delay_ms",
                                  "C1": "user"}},
             "columns": {"label": ["decode", "fill_missing"], "I1": ["decode", "fill_missing"],
                         "C1": ["decode", "fill_missing", "hash64", "vocab"]},
             "labels": {"max_out_of_orderness": "0s", "negative_sample_rate": %s,
                        "streams": {"click": {"key": "rid", "timestamp": "at", "id": "cid",
                                              "window": "1s", "policy": "%s"}}}}
            """;

    @TempDir Path dir;

    private record Dead(String source, long line, String reason, String detail) {}

    private final List<Dead> dead = new ArrayList<>();

    private List<JsonNode> join(String rate, String policy, String impressions, String clicks)
            throws Exception {
        PipelineSpec spec =
                SpecParser.parse(
                        SPEC.formatted(rate, policy).getBytes(StandardCharsets.UTF_8), "t.json");
        Path imp = Files.writeString(dir.resolve("imp.jsonl"), impressions);
        Path clk = Files.writeString(dir.resolve("clicks.jsonl"), clicks);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        JoinCounts counts =
                BatchLabelJoin.run(
                        spec.labels(),
                        SpecCompiler.decodeOptions(spec, 1024),
                        List.of(imp),
                        List.of(List.of(clk)),
                        out,
                        null,
                        (String source, Path file, long line, DeadLetter d) ->
                                dead.add(new Dead(source, line, d.reason(), d.detail())));
        assertThat(counts.addsUp()).isTrue();
        List<JsonNode> rows = new ArrayList<>();
        ObjectMapper json = new ObjectMapper();
        for (String l : out.toString(StandardCharsets.UTF_8).split("\n")) {
            if (!l.isEmpty()) {
                rows.add(json.readTree(l));
            }
        }
        assertThat(counts.rows()).isEqualTo(rows.size());
        return rows;
    }

    @Test
    void everyRecordIsARowOrADeadLetterWithItsReason() throws Exception {
        String impressions =
                """
                {"rid": "a", "ts": 1000, "user": "u1"}
                {"rid": "a", "ts": 1900, "user": "u4"}
                {"rid": "b", "ts": 2000, "user": "u2"}
                not json
                {"ts": 2500, "user": "u3"}
                {"rid": "c", "ts": 3000, "user": "u5", "labels": {"click": 1}}
                {"rid": "d", "ts": 900, "user": "u6"}
                {"rid": "e", "ts": 9000, "user": "u7"}
                """;
        String clicks =
                """
                {"rid": "a", "at": 1500, "cid": "x"}
                {"rid": "a", "at": 1600, "cid": "x"}
                {"rid": "a", "at": 1700, "cid": "w"}
                {"rid": "b", "at": 3001, "cid": "y"}
                {"rid": "z", "at": 3100, "cid": "z"}
                {"rid": "b", "at": "yesterday"}
                """;
        List<JsonNode> rows = join("1", "wait", impressions, clicks);
        assertThat(rows).extracting(r -> r.get("rid").asText()).containsExactly("a", "b", "e");
        JsonNode a = rows.get(0).get("labels");
        assertThat(a.get("click").asInt()).isEqualTo(1);
        assertThat(a.get("click_delay_ms").asLong()).isEqualTo(500);
        assertThat(a.get("click_count").asInt())
                .isEqualTo(2); // x and w; the second x is a duplicate
        assertThat(a.get("weight").asInt()).isEqualTo(1);
        assertThat(rows.get(0).get("user").asText()).isEqualTo("u1"); // the rest as it was
        assertThat(rows.get(1).get("labels").get("click").asInt()).isZero();
        assertThat(rows.get(1).get("labels").get("click_delay_ms").asLong()).isEqualTo(-1);
        assertThat(dead)
                .extracting(Dead::source, Dead::line, Dead::reason)
                .containsExactlyInAnyOrder(
                        org.assertj.core.groups.Tuple.tuple("impressions", 4L, "invalid_json"),
                        org.assertj.core.groups.Tuple.tuple("impressions", 5L, "bad_join_key"),
                        org.assertj.core.groups.Tuple.tuple(
                                "impressions", 2L, "duplicate_impression"),
                        org.assertj.core.groups.Tuple.tuple(
                                "impressions", 6L, "labels_field_taken"),
                        org.assertj.core.groups.Tuple.tuple("impressions", 7L, "late_impression"),
                        org.assertj.core.groups.Tuple.tuple("click", 2L, "duplicate_action"),
                        org.assertj.core.groups.Tuple.tuple("click", 4L, "action_after_window"),
                        org.assertj.core.groups.Tuple.tuple("click", 5L, "orphan_action"),
                        org.assertj.core.groups.Tuple.tuple("click", 6L, "bad_timestamp"));
        assertThat(dead)
                .filteredOn(d -> d.reason().equals("bad_timestamp"))
                .singleElement()
                .satisfies(d -> assertThat(d.detail()).startsWith("at: \"yesterday\" is neither"));
    }

    @Test
    void aLineTooLongIsADeadLetterOfItsOwnFile() throws Exception {
        String pad = "x".repeat(70_000);
        List<JsonNode> rows =
                join(
                        "1",
                        "wait",
                        "{\"rid\": \"a\", \"ts\": 1000, \"user\": \"u1\"}\r\n"
                                + "{\"rid\": \"b\", \"ts\": 1100, \"user\": \""
                                + pad
                                + "\"}\n"
                                + "{\"rid\": \"c\", \"ts\": 1200, \"user\": \"u3\"}",
                        "{\"rid\": \"a\", \"at\": 1500, \"cid\": \"" + pad + "\"}\n");
        assertThat(rows).extracting(r -> r.get("rid").asText()).containsExactly("a", "c");
        assertThat(dead)
                .extracting(Dead::source, Dead::line, Dead::reason)
                .containsExactlyInAnyOrder(
                        org.assertj.core.groups.Tuple.tuple("impressions", 2L, "line_too_long"),
                        org.assertj.core.groups.Tuple.tuple("click", 1L, "line_too_long"));
        assertThat(dead)
                .filteredOn(d -> d.source().equals("impressions"))
                .singleElement()
                .satisfies(d -> assertThat(d.detail()).endsWith("kept for the join's labels"));
    }

    @Test
    void negativeFirstEmitsAtOnceAndCopiesThePositive() throws Exception {
        List<JsonNode> rows =
                join(
                        "1",
                        "negative-first",
                        """
                        {"rid": "a", "ts": 1000, "user": "u1"}
                        {"rid": "b", "ts": 1200, "user": "u2"}
                        {"rid": "e", "ts": 9000, "user": "u7"}
                        """,
                        """
                        {"rid": "a", "at": 1500, "cid": "x"}
                        """);
        assertThat(rows)
                .extracting(
                        r ->
                                r.get("rid").asText()
                                        + ":"
                                        + r.get("labels").get("click")
                                        + ":"
                                        + r.get("labels").get("copy"))
                .containsExactly("a:0:0", "b:0:0", "a:1:1", "e:0:0");
    }

    @Test
    void sampledNegativesWeighTheirRate() throws Exception {
        StringBuilder impressions = new StringBuilder();
        for (int i = 0; i < 400; i++) {
            impressions
                    .append("{\"rid\": \"r")
                    .append(i)
                    .append("\", \"ts\": ")
                    .append(1000 + i)
                    .append(", \"user\": \"u\"}\n");
        }
        List<JsonNode> rows = join("0.25", "wait", impressions.toString(), "");
        assertThat(rows)
                .allSatisfy(r -> assertThat(r.get("labels").get("weight").asInt()).isEqualTo(4));
        assertThat(rows.size()).isBetween(60, 140); // a quarter of 400, by the key's hash
        assertThat(rows)
                .allSatisfy(
                        r ->
                                assertThat(
                                                dev.piper.pipeline.join.NegativeSampling.keeps(
                                                        r.get("rid").asText(), 0.25))
                                        .isTrue());
    }
}
