package dev.piper.operators.cost;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.piper.core.cost.CostSample;
import dev.piper.core.cost.ReportSettings;
import dev.piper.pipeline.layout.CriteoLayout;
import dev.piper.pipeline.ops.ColumnProgram;
import dev.piper.pipeline.spec.SpecCompiler;
import dev.piper.pipeline.spec.SpecParser;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.flink.streaming.util.OneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.Test;

class CostModelOperatorTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    private static CostSample block(long rows) {
        int[] bytes = new int[CriteoLayout.FIELDS];
        Arrays.fill(bytes, 10);
        return CostSample.decode(0, rows, rows, bytes, rows * 400, 1_000_000, 0, 1_200_000);
    }

    private static List<JsonNode> reports(OneInputStreamOperatorTestHarness<?, String> h)
            throws Exception {
        List<JsonNode> out = new ArrayList<>();
        for (String s : h.extractOutputValues()) {
            out.add(JSON.readTree(s));
        }
        return out;
    }

    /**
     * An interval report when the interval's time has passed (none for an interval without
     * samples), one by decoded lines, and the whole run's at the end of the input, whose figures
     * are the intervals' added up.
     */
    @Test
    void reportsPerIntervalByTimeAndLinesAndTheWholeRunAtTheEnd() throws Exception {
        ReportSettings settings = new ReportSettings(1_000, 10_000, -1, 1);
        try (var h =
                new OneInputStreamOperatorTestHarness<>(
                        new CostModelOperator(
                                new ColumnProgram[] {ColumnProgram.dlrm(-1)}, settings))) {
            h.setProcessingTime(0);
            h.open();
            h.processElement(block(4_000), 0);
            h.processElement(CostSample.vocabulary(0, 2, 4_000, 1234, 500_000, 600_000), 0);
            h.setProcessingTime(1_000);
            assertThat(reports(h)).hasSize(1);
            h.setProcessingTime(2_000); // nothing arrived: no report
            assertThat(reports(h)).hasSize(1);
            h.processElement(block(10_000), 0); // 10,000 lines since the last report
            assertThat(reports(h)).hasSize(2);
            h.processElement(CostSample.output(0, 14_000, 300_000, 400_000), 0);
            h.endInput();

            List<JsonNode> all = reports(h);
            assertThat(all).hasSize(4);
            assertThat(all)
                    .extracting(r -> r.get("report").get("index").asInt())
                    .containsExactly(0, 1, 2, 3);
            JsonNode last = all.get(3);
            assertThat(last.get("report").get("final").asBoolean()).isTrue();
            assertThat(last.get("report").get("rows").asLong()).isEqualTo(14_000);
            JsonNode c3 = last.get("columns").get(CriteoLayout.DENSE + 2);
            assertThat(c3.get("column").asText()).isEqualTo("C3");
            assertThat(c3.get("vocab_entries").asLong()).isEqualTo(1234);
            assertThat(c3.get("input_bytes").asLong()).isEqualTo(20);
            double sum = 0;
            for (JsonNode interval : all.subList(0, 3)) {
                sum +=
                        interval.get("columns")
                                .get(CriteoLayout.DENSE + 2)
                                .get("cpu_core_seconds")
                                .asDouble();
            }
            assertThat(c3.get("cpu_core_seconds").asDouble())
                    .isCloseTo(sum, org.assertj.core.api.Assertions.within(1e-12));
            assertThat(last.get("job").get("task_cpu_seconds").asDouble())
                    .isCloseTo(
                            (1_200_000 * 2 + 600_000 + 400_000) / 1e9,
                            org.assertj.core.api.Assertions.within(1e-12));
        }
    }

    /**
     * A spec switch: version 2 (C3 modulo 1000, so C3 in epoch 1) is announced after some of its
     * samples arrived over other paths; they wait for it, then every version's report prices its
     * own chains, with its own rows and its own vocabulary's entries.
     */
    @Test
    void eachSpecVersionIsPricedWithItsOwnChains() throws Exception {
        ColumnProgram v1 = ColumnProgram.dlrm(-1);
        String text =
                new String(SpecParser.builtinText(), StandardCharsets.UTF_8)
                        .replace("\"version\": 1", "\"version\": 2")
                        .replace(
                                "\"C1..C26\": [\"decode\", \"fill_missing\", \"hex2int\","
                                        + " \"vocab\"]",
                                "\"C1..C2\": [\"decode\", \"fill_missing\", \"hex2int\","
                                        + " \"vocab\"], \"C3\": [\"decode\", \"fill_missing\","
                                        + " \"hex2int\", {\"op\": \"modulus\", \"m\": 1000},"
                                        + " \"vocab\"], \"C4..C26\": [\"decode\","
                                        + " \"fill_missing\", \"hex2int\", \"vocab\"]");
        int[] epochs = new int[CriteoLayout.SPARSE];
        epochs[2] = 1;
        ColumnProgram v2 = SpecCompiler.program(SpecParser.parse(text.getBytes(), "v2"), epochs);
        assertThat(v2.version()).isEqualTo(2);
        assertThat(v2.chainOf(CriteoLayout.DENSE + 3)).contains("modulus");
        ReportSettings settings = new ReportSettings(1_000_000, 0, -1, 1);
        try (var h =
                new OneInputStreamOperatorTestHarness<>(
                        new CostModelOperator(new ColumnProgram[] {v1}, settings))) {
            h.setProcessingTime(0);
            h.open();
            h.processElement(block(4_000).withVersion(1), 0);
            h.processElement(CostSample.vocabulary(0, 2, 4_000, 1_000, 1, 1).withEpoch(0), 0);
            // version 2's work, before its announcement
            h.processElement(block(3_000).withVersion(2), 0);
            h.processElement(CostSample.vocabulary(0, 2, 3_000, 77, 1, 1).withEpoch(1), 0);
            h.processElement(CostSample.vocabulary(0, 5, 3_000, 500, 1, 1).withEpoch(0), 0);
            h.processElement(CostSample.program(0, v2), 0);
            h.processElement(CostSample.output(0, 3_000, 1, 1).withVersion(2), 0);
            h.endInput();

            List<JsonNode> all = reports(h);
            assertThat(all).extracting(r -> r.get("pipeline_version").asInt()).contains(1, 2);
            JsonNode final1 = finalReport(all, 1);
            JsonNode final2 = finalReport(all, 2);
            assertThat(final1.get("report").get("rows").asLong()).isEqualTo(4_000);
            assertThat(final2.get("report").get("rows").asLong()).isEqualTo(3_000);
            JsonNode c3v1 = final1.get("columns").get(CriteoLayout.DENSE + 2);
            JsonNode c3v2 = final2.get("columns").get(CriteoLayout.DENSE + 2);
            assertThat(c3v1.get("ops").toString()).doesNotContain("modulus");
            assertThat(c3v2.get("ops").toString()).contains("modulus");
            assertThat(c3v1.get("vocab_entries").asLong()).isEqualTo(1_000);
            assertThat(c3v2.get("vocab_entries").asLong()).isEqualTo(77);
            // C6 kept epoch 0: its vocabulary's work goes to the newest version using it
            assertThat(
                            final2.get("columns")
                                    .get(CriteoLayout.DENSE + 5)
                                    .get("vocab_entries")
                                    .asLong())
                    .isEqualTo(500);
        }
    }

    private static JsonNode finalReport(List<JsonNode> reports, int version) {
        return reports.stream()
                .filter(r -> r.get("report").get("final").asBoolean())
                .filter(r -> r.get("pipeline_version").asInt() == version)
                .findFirst()
                .orElseThrow();
    }
}
