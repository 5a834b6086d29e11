package dev.piper.operators.control;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.piper.core.block.KafkaOut;
import dev.piper.core.control.ActiveSpec;
import dev.piper.core.control.ControlMessage;
import dev.piper.core.control.SwitchLimits;
import dev.piper.pipeline.spec.SpecParser;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.streaming.api.operators.ProcessOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.OneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.Test;

class ControlFunctionTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    private static OneInputStreamOperatorTestHarness<ControlMessage, ActiveSpec> harness() {
        return harness(new ControlFunction(ActiveSpec.initial(SpecParser.builtin()), "clicks"));
    }

    private static OneInputStreamOperatorTestHarness<ControlMessage, ActiveSpec> harness(
            ControlFunction function) {
        try {
            return new OneInputStreamOperatorTestHarness<>(new ProcessOperator<>(function));
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** The built-in spec's text with {@code from} replaced by {@code to}. */
    private static ControlMessage builtinWith(String from, String to, long offset) {
        return builtinWith(offset, from, to);
    }

    /** The built-in spec's text with each pair's first string replaced by its second. */
    private static ControlMessage builtinWith(long offset, String... pairs) {
        String text = new String(SpecParser.builtinText(), StandardCharsets.UTF_8);
        for (int i = 0; i < pairs.length; i += 2) {
            if (!text.contains(pairs[i])) {
                throw new IllegalArgumentException(pairs[i] + " is not in the built-in spec");
            }
            text = text.replace(pairs[i], pairs[i + 1]);
        }
        return new ControlMessage("control/0@" + offset, text.getBytes(StandardCharsets.UTF_8));
    }

    private static List<JsonNode> statuses(
            OneInputStreamOperatorTestHarness<ControlMessage, ActiveSpec> h) throws Exception {
        List<JsonNode> out = new ArrayList<>();
        for (StreamRecord<KafkaOut> r : h.getSideOutput(ControlFunction.STATUS)) {
            assertThat(r.getValue().target()).isEqualTo(KafkaOut.STATUS);
            out.add(JSON.readTree(r.getValue().value()));
        }
        return out;
    }

    @Test
    void acceptsAHigherVersionAndRejectsEveryKindOfMisfitNamingTheField() throws Exception {
        try (var h = harness()) {
            h.open();
            h.processElement(builtinWith("\"version\": 1", "\"version\": 2", 0), 0);
            h.processElement(builtinWith("\"version\": 1", "\"version\": 2", 1), 0);
            h.processElement(builtinWith("\"name\": \"dlrm-criteo\"", "\"name\": \"other\"", 2), 0);
            h.processElement(
                    builtinWith(
                            3,
                            "\"version\": 1",
                            "\"version\": 7",
                            "\"input\": {\"format\": \"criteo-tsv\"}",
                            "\"input\": {\"format\": \"criteo-tsv\", \"topic\": \"elsewhere\"}"),
                    0);
            h.processElement(new ControlMessage("control/0@4", new byte[0]), 0);
            h.processElement(builtinWith("\"neg2zero\"", "\"nonsense\"", 5), 0);

            assertThat(h.extractOutputValues()).extracting(ActiveSpec::version).containsExactly(2);
            List<JsonNode> s = statuses(h);
            assertThat(s)
                    .extracting(n -> n.get("status").asText())
                    .containsExactly(
                            "accepted", "rejected", "rejected", "rejected", "rejected", "rejected");
            assertThat(s.get(0).get("source").asText()).isEqualTo("control/0@0");
            assertThat(s.get(0).get("changed").size()).isZero();
            assertThat(s.get(1).get("problems").get(0).asText())
                    .isEqualTo("version: 2 is not above the active version 2");
            assertThat(s.get(2).get("problems").toString())
                    .contains("name: this job runs pipeline \\\"dlrm-criteo\\\"");
            assertThat(s.get(3).get("problems").toString())
                    .contains("input.topic: this job reads clicks")
                    .doesNotContain("version");
            assertThat(s.get(4).get("pipeline").isNull()).isTrue();
            assertThat(s.get(5).get("problems").toString()).contains("nonsense");
            // Rejections concerning the pipeline name its active version; "other" has none.
            for (int i : new int[] {1, 3, 4, 5}) {
                assertThat(s.get(i).get("active_version").asInt()).isEqualTo(2);
            }
            assertThat(s.get(2).get("active_version").isNull()).isTrue();
        }
    }

    /**
     * A switch may change the input's layout: a spec of 14 dense columns and 30 sparse ones is a
     * new version whose every sparse column starts an epoch above all the current ones (C3 had
     * reached 1); the status names the layouts. One with list columns is rejected while the rows
     * topic takes Kafka's default 1 MiB records, naming the setting.
     */
    @Test
    void aSwitchMayChangeTheLayoutWithNewEpochsForEveryColumn() throws Exception {
        String c3 =
                "\"C1..C2\": [\"decode\", \"fill_missing\", \"hex2int\", \"vocab\"],"
                        + " \"C3\": [\"decode\", \"fill_missing\", \"hex2int\","
                        + " {\"op\": \"modulus\", \"m\": 10}, \"vocab\"],"
                        + " \"C4..C26\": [\"decode\", \"fill_missing\", \"hex2int\", \"vocab\"]";
        String sparse = "\"C1..C26\": [\"decode\", \"fill_missing\", \"hex2int\", \"vocab\"]";
        try (var h = harness()) {
            h.open();
            h.processElement(builtinWith(0, "\"version\": 1", "\"version\": 2", sparse, c3), 0);
            h.processElement(
                    builtinWith(
                            1,
                            "\"version\": 1",
                            "\"version\": 3",
                            "\"input\": {\"format\": \"criteo-tsv\"}",
                            "\"input\": {\"format\": \"criteo-tsv\", \"dense\": 14,"
                                    + " \"sparse\": 30}",
                            "I1..I13",
                            "I1..I14",
                            "C1..C26",
                            "C1..C30"),
                    0);
            h.processElement(
                    builtinWith(
                            2,
                            "\"version\": 1",
                            "\"version\": 4",
                            "\"input\": {\"format\": \"criteo-tsv\"}",
                            "\"input\": {\"format\": \"criteo-tsv\", \"list_columns\":"
                                    + " [\"C5\"]}",
                            sparse,
                            sparse.replace("C1..C26", "C1..C4")
                                    + ", "
                                    + sparse.replace("C1..C26", "C5")
                                    + ", "
                                    + sparse.replace("C1..C26", "C6..C26")),
                    0);
            List<JsonNode> s = statuses(h);
            assertThat(s)
                    .extracting(n -> n.get("status").asText())
                    .containsExactly("accepted", "accepted", "rejected");
            ActiveSpec wide = h.extractOutputValues().get(1);
            assertThat(wide.epochs()).hasSize(30).containsOnly(2);
            assertThat(s.get(1).get("layout").asText())
                    .isEqualTo("13 dense, 26 sparse -> 14 dense, 30 sparse");
            assertThat(s.get(1).get("new_epochs").size()).isEqualTo(30);
            assertThat(s.get(2).get("problems").get(0).asText())
                    .isEqualTo(
                            "input.list_columns: lists make rows records of up to 5242880 bytes"
                                    + " at --block-bytes 1048576, and the rows topic takes 1048576"
                                    + " (max.message.bytes): raise it and restart the stream, or"
                                    + " run the stream with a smaller --block-bytes");
        }
    }

    /**
     * A switch gives a column a new vocabulary policy, OOV buckets included (a new epoch; each rows
     * record states its version's buckets), or a warm start.
     */
    @Test
    void aSwitchMayGiveANewVocabularyOovBucketsOrAWarmStart() throws Exception {
        String sparse = "\"C1..C26\": [\"decode\", \"fill_missing\", \"hex2int\", \"vocab\"]";
        String withC7 =
                "\"C1..C6\": [\"decode\", \"fill_missing\", \"hex2int\", \"vocab\"],"
                        + " \"C7\": [\"decode\", \"fill_missing\", \"hex2int\", %s],"
                        + " \"C8..C26\": [\"decode\", \"fill_missing\", \"hex2int\", \"vocab\"]";
        try (var h = harness()) {
            h.open();
            h.processElement(
                    builtinWith(
                            0,
                            "\"version\": 1",
                            "\"version\": 2",
                            sparse,
                            withC7.formatted(
                                    "{\"op\": \"vocab\", \"max_size\": 9, \"oov_buckets\": 1}")),
                    0);
            h.processElement(
                    builtinWith(
                            1,
                            "\"version\": 1",
                            "\"version\": 3",
                            sparse,
                            withC7.formatted("{\"op\": \"vocab\", \"import\": \"/v.tsv\"}")),
                    0);
            List<JsonNode> s = statuses(h);
            assertThat(s)
                    .extracting(n -> n.get("status").asText())
                    .containsExactly("accepted", "accepted");
            ActiveSpec bucketed = h.extractOutputValues().get(0);
            assertThat(bucketed.epochs()[6]).isEqualTo(1);
            assertThat(bucketed.program().vocabPolicy(6).oovBuckets()).isEqualTo(1);
            ActiveSpec imported = h.extractOutputValues().get(1);
            assertThat(imported.epochs()[6]).isEqualTo(2);
            assertThat(imported.epochs()[5]).isZero();
            assertThat(imported.program().vocabPolicy(6).importPath()).isEqualTo("/v.tsv");
        }
    }

    /**
     * A switch may widen the rows (a onehot), within what a record holds: one whose full blocks
     * would overflow a record is rejected, naming the --block-lines that would take it.
     */
    @Test
    void aSwitchMayWidenTheRowsWithinARecord() throws Exception {
        String dense = "\"I1..I13\": [\"decode\", \"fill_missing\", \"neg2zero\"]";
        String onehot =
                "\"I1\": [\"decode\", \"fill_missing\", {\"op\": \"onehot\", \"size\": %d}],"
                        + " \"I2..I13\": [\"decode\", \"fill_missing\", \"neg2zero\"]";
        try (var h = harness()) {
            h.open();
            h.processElement(
                    builtinWith(0, "\"version\": 1", "\"version\": 2", dense, onehot.formatted(5)),
                    0);
            h.processElement(
                    builtinWith(
                            1, "\"version\": 1", "\"version\": 3", dense, onehot.formatted(4096)),
                    0);
            List<JsonNode> s = statuses(h);
            assertThat(s)
                    .extracting(n -> n.get("status").asText())
                    .containsExactly("accepted", "rejected");
            assertThat(h.extractOutputValues().get(0).program().rowBytes()).isEqualTo(43 * 4);
            assertThat(s.get(1).get("problems").get(0).asText())
                    .isEqualTo(
                            "columns: rows of 16536 bytes (4134 int32 slots) in blocks of up to"
                                    + " 4096 lines make rows records of 67731456 bytes, more than"
                                    + " the 983040 a record holds; run the stream with"
                                    + " --block-lines 59 or fewer for this spec");
        }
    }

    /**
     * A job that runs the cost report takes a switch to onehot, which the report prices as an
     * assumption; a switch the report could not price would be rejected (every operator has a price
     * now, so that path is for a new operator without one).
     */
    @Test
    void aPricedJobTakesASwitchToAnOperatorPricedAsAnAssumption() throws Exception {
        ControlFunction priced =
                new ControlFunction(
                        new ActiveSpec[] {ActiveSpec.initial(SpecParser.builtin())},
                        new String[] {"clicks"},
                        new SwitchLimits(new int[] {4096}, 983_040, 1 << 20, 1 << 20, true));
        try (var h = harness(priced)) {
            h.open();
            h.processElement(
                    builtinWith(
                            0,
                            "\"version\": 1",
                            "\"version\": 2",
                            "\"I1..I13\": [\"decode\", \"fill_missing\", \"neg2zero\"]",
                            "\"I1\": [\"decode\", \"fill_missing\", {\"op\": \"onehot\","
                                    + " \"size\": 3}], \"I2..I13\": [\"decode\","
                                    + " \"fill_missing\", \"neg2zero\"]"),
                    0);
            assertThat(statuses(h).get(0).get("status").asText()).isEqualTo("accepted");
            assertThat(h.extractOutputValues()).extracting(ActiveSpec::version).containsExactly(2);
        }
    }

    @Test
    void theActiveSpecSurvivesASnapshot() throws Exception {
        OperatorSubtaskState snapshot;
        try (var h = harness()) {
            h.open();
            h.processElement(builtinWith("\"version\": 1", "\"version\": 3", 0), 0);
            snapshot = h.snapshot(1, 1);
        }
        try (var h = harness()) {
            h.initializeState(snapshot);
            h.open();
            h.processElement(builtinWith("\"version\": 1", "\"version\": 3", 1), 0);
            h.processElement(builtinWith("\"version\": 1", "\"version\": 4", 2), 0);
            assertThat(h.extractOutputValues()).extracting(ActiveSpec::version).containsExactly(4);
            assertThat(statuses(h).get(0).get("problems").get(0).asText())
                    .isEqualTo("version: 3 is not above the active version 3");
            assertThat(statuses(h).get(1).get("previous_version").asInt()).isEqualTo(3);
        }
    }

    /**
     * A restart whose starting spec has a higher version but the original chains: the restored
     * active spec, with its epochs, still wins, so the next switch counts epochs on from it.
     */
    @Test
    void theRestoredSpecWinsOverANewerStartingSpec() throws Exception {
        String c3 = "\"C1..C26\": [\"decode\", \"fill_missing\", \"hex2int\", \"vocab\"]";
        String c3mod =
                "\"C1..C2\": [\"decode\", \"fill_missing\", \"hex2int\", \"vocab\"],"
                        + " \"C3\": [\"decode\", \"fill_missing\", \"hex2int\", {\"op\": \"modulus\","
                        + " \"m\": M}, \"vocab\"], \"C4..C26\": [\"decode\", \"fill_missing\","
                        + " \"hex2int\", \"vocab\"]";
        OperatorSubtaskState snapshot;
        try (var h = harness()) {
            h.open();
            h.processElement(
                    builtinWith(
                            0, "\"version\": 1", "\"version\": 2", c3, c3mod.replace("M", "10")),
                    0);
            snapshot = h.snapshot(1, 1);
        }
        String v5 =
                new String(SpecParser.builtinText(), StandardCharsets.UTF_8)
                        .replace("\"version\": 1", "\"version\": 5");
        try (var h =
                new OneInputStreamOperatorTestHarness<>(
                        new ProcessOperator<>(
                                new ControlFunction(
                                        ActiveSpec.initial(SpecParser.parse(v5.getBytes(), "v5")),
                                        "clicks")))) {
            h.initializeState(snapshot);
            h.open();
            h.processElement(
                    builtinWith(1, "\"version\": 1", "\"version\": 3", c3, c3mod.replace("M", "7")),
                    0);
            List<JsonNode> s = statuses(h);
            assertThat(s.get(0).get("previous_version").asInt()).isEqualTo(2);
            assertThat(s.get(0).get("new_epochs").toString()).isEqualTo("{\"C3\":2}");
        }
    }

    /** Several pipelines: each spec goes to its own pipeline, checked against its own topic. */
    @Test
    void severalPipelinesAreSwitchedOneByOne() throws Exception {
        ActiveSpec a = ActiveSpec.initial(SpecParser.builtin());
        String textB =
                new String(SpecParser.builtinText(), StandardCharsets.UTF_8)
                        .replace("\"name\": \"dlrm-criteo\"", "\"name\": \"b\"");
        ActiveSpec b = ActiveSpec.initial(SpecParser.parse(textB.getBytes(), "b"));
        try (var h =
                new OneInputStreamOperatorTestHarness<>(
                        new ProcessOperator<>(
                                new ControlFunction(
                                        new ActiveSpec[] {a, b}, new String[] {"ta", "tb"})))) {
            h.open();
            h.processElement(
                    new ControlMessage(
                            "c/0@0", textB.replace("\"version\": 1", "\"version\": 2").getBytes()),
                    0);
            h.processElement(
                    new ControlMessage(
                            "c/0@1",
                            textB.replace("\"version\": 1", "\"version\": 3")
                                    .replace(
                                            "\"format\": \"criteo-tsv\"",
                                            "\"format\": \"criteo-tsv\", \"topic\": \"ta\"")
                                    .getBytes()),
                    0);
            h.processElement(builtinWith("\"name\": \"dlrm-criteo\"", "\"name\": \"c\"", 2), 0);
            h.processElement(new ControlMessage("c/0@3", "[]".getBytes()), 0);
            assertThat(h.extractOutputValues())
                    .extracting(s -> s.name() + "/" + s.version())
                    .containsExactly("b/2");
            List<JsonNode> s = statuses(h);
            assertThat(s.get(1).get("problems").toString())
                    .contains("input.topic: this job reads tb");
            assertThat(s.get(2).get("problems").toString()).contains("pipelines [b, dlrm-criteo]");
            assertThat(s.get(2).get("active_version").isNull()).isTrue();
            assertThat(s.get(3).get("active_version").isNull()).isTrue();
        }
    }
}
