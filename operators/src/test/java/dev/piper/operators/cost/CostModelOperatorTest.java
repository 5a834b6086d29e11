package dev.piper.operators.cost;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.piper.pipeline.layout.CriteoLayout;
import dev.piper.pipeline.ops.ColumnProgram;
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
}
