package dev.piper.pipeline.generate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.piper.pipeline.spec.PipelineSpec;
import dev.piper.pipeline.spec.SpecParser;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ImpressionLogTest {

    private static final ImpressionLog.Rates RATES =
            new ImpressionLog.Rates(10_000, 2_000, 0.01, 0.02, 0.005);

    private record Logs(
            List<JsonNode> impressions, List<JsonNode> clicks, ImpressionLog.Counts n) {}

    private static Logs write(long seed, int n) throws Exception {
        ByteArrayOutputStream imps = new ByteArrayOutputStream();
        ByteArrayOutputStream clicks = new ByteArrayOutputStream();
        ImpressionLog.Counts counts =
                new ImpressionLog(new ClickEvents(seed, 0.01, -1), seed, RATES)
                        .write(n, imps, clicks, done -> {});
        return new Logs(parse(imps), parse(clicks), counts);
    }

    private static List<JsonNode> parse(ByteArrayOutputStream out) throws Exception {
        ObjectMapper json = new ObjectMapper();
        List<JsonNode> lines = new ArrayList<>();
        for (String l : out.toString(StandardCharsets.UTF_8).split("\n")) {
            lines.add(json.readTree(l));
        }
        return lines;
    }

    @Test
    void theLogsHoldEveryImpressionAndClickWithTheirDisorder() throws Exception {
        Logs logs = write(7, 20_000);
        assertThat(logs.impressions()).hasSize(20_000);
        assertThat(logs.clicks()).hasSize((int) logs.n().clicks());
        Set<String> ids = new HashSet<>();
        Map<String, Long> times = new HashMap<>();
        for (JsonNode m : logs.impressions()) {
            assertThat(ids.add(m.get("request_id").asText())).isTrue();
            assertThat(m.has("clicked")).isFalse();
            times.put(m.get("request_id").asText(), m.get("ts").asLong());
        }
        // clicks: of their impression's request, after it, with the orphans' requests unknown
        long orphans = 0;
        long behind = 0;
        long latest = Long.MIN_VALUE;
        Set<String> clickIds = new HashSet<>();
        long repeated = 0;
        for (JsonNode c : logs.clicks()) {
            Long t = times.get(c.get("request_id").asText());
            if (t == null) {
                orphans++;
            } else {
                assertThat(c.get("ts").asLong()).isGreaterThanOrEqualTo(t);
            }
            if (!clickIds.add(c.get("click_id").asText())) {
                repeated++;
            }
            long ts = c.get("ts").asLong();
            if (ts < latest - RATES.outOfOrdernessMs()) {
                behind++;
            }
            latest = Math.max(latest, ts);
        }
        ImpressionLog.Counts n = logs.n();
        assertThat(repeated).isEqualTo(n.duplicates()).isGreaterThan(50);
        // an orphan click may be sent twice too
        assertThat(orphans).isBetween(n.orphans(), n.orphans() + n.duplicates()).isGreaterThan(50);
        assertThat(n.clicks()).isEqualTo(n.clicked() + n.orphans() + n.duplicates());
        assertThat(behind).isGreaterThan(10).isLessThanOrEqualTo(n.late());
        // the impressions come out of order, within the bound unless late
        long inversions = 0;
        long prev = Long.MIN_VALUE;
        for (JsonNode m : logs.impressions()) {
            inversions += m.get("ts").asLong() < prev ? 1 : 0;
            prev = Math.max(prev, m.get("ts").asLong());
        }
        assertThat(inversions).isGreaterThan(1_000);
    }

    @Test
    void theSameSeedWritesTheSameLogs() throws Exception {
        assertThat(write(3, 2_000)).isEqualTo(write(3, 2_000));
        assertThat(write(3, 2_000).clicks()).isNotEqualTo(write(4, 2_000).clicks());
    }

    @Test
    void theSpecJoinsTheLogs() throws Exception {
        PipelineSpec spec = SpecParser.parse(ImpressionLog.spec(2_000, "1m").getBytes(), "spec");
        assertThat(spec.labels().key()).isEqualTo("request_id");
        assertThat(spec.labels().join().maxOutOfOrdernessMs()).isEqualTo(2_000);
        assertThat(spec.labels().sources().get(0).topic()).isEqualTo("clicks");
        assertThat(spec.labels().join().longestWindowMs()).isEqualTo(60_000);
    }

    @Test
    void aSampledSpecKeepsEachRowsWeightInAColumnOfItsOwn() throws Exception {
        String text = ImpressionLog.spec(2_000, "1m", 0.25);
        PipelineSpec spec = SpecParser.parse(text.getBytes(), "spec");
        assertThat(spec.labels().join().negativeSampleRate()).isEqualTo(0.25);
        assertThat(text).contains("\"I4\": \"labels.weight\"");
        assertThat(spec.layout().dense()).isEqualTo(4);
        assertThat(SpecParser.parse(ImpressionLog.spec(2_000, "1m", 1).getBytes(), "spec"))
                .isEqualTo(SpecParser.parse(ImpressionLog.spec(2_000, "1m").getBytes(), "spec"));
    }

    @Test
    void ratesOutsideTheirRangeAreRefused() {
        assertThatThrownBy(() -> new ImpressionLog.Rates(0, 0, 0, 0, 0))
                .hasMessageContaining("mean click delay");
        assertThatThrownBy(() -> new ImpressionLog.Rates(1, 0, 1.5, 0, 0))
                .hasMessageContaining("between 0 and 1");
    }
}
