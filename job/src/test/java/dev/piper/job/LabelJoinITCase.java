package dev.piper.job;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.piper.job.EmbeddedRunner.StateBackend;
import java.io.BufferedWriter;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code preprocess} of impressions and clicks with a spec's labels: its rows against a join of the
 * same logs computed here, directly from the rules (keys are unique, so every click belongs to the
 * one impression of its key), at parallelism 1 and 2.
 */
class LabelJoinITCase {

    @RegisterExtension static final MiniClusterExtension CLUSTER = TestClusters.twoByTwo();

    private static final long WINDOW = 60_000;
    private static final long BOUND = 2_000;

    static final String SPEC =
            """
            {"name": "impressions", "version": 1,
             "input": {"format": "json", "dense": 3, "sparse": 1, "key": "rid", "timestamp": "ts",
                       "fields": {"label": "labels.click", "I1": "price",
                                  "I2": "labels.click_count", "I3": "labels.click_delay_ms",
                                  "C1": "user"}},
             "columns": {"label": ["decode", "fill_missing"], "I1..I3": ["decode", "fill_missing"],
                         "C1": ["decode", "fill_missing", "hash64", "vocab"]},
             "labels": {"max_out_of_orderness": "2s",
                        "streams": {"click": {"key": "rid", "timestamp": "ts", "id": "cid",
                                              "window": "1m"}}}}
            """;

    @TempDir static Path tmp;

    static Path impressions;
    static Path clicks;

    /** An impression as generated: its line, key, time and price. */
    private record Imp(int line, String key, long t, int price) {}

    private record Click(String key, long t, String id) {}

    static final List<Imp> IMPS = new ArrayList<>();
    static final List<Click> CLICKS = new ArrayList<>();

    /**
     * 20,000 impressions out of order within the bound, a tenth clicked once or more (some twice
     * with the same id, some after the window), and orphan clicks; clicks in time order.
     */
    @BeforeAll
    static void writeTheLogs() throws Exception {
        Random r = new Random(20261207);
        long base = 1_764_230_400_000L;
        for (int i = 0; i < 20_000; i++) {
            base += r.nextInt(50);
            Imp m = new Imp(i + 1, "r" + i, base + r.nextInt((int) BOUND / 2), r.nextInt(1000));
            IMPS.add(m);
            if (r.nextInt(10) == 0) {
                for (int c = 0; c < 1 + r.nextInt(2); c++) {
                    CLICKS.add(new Click(m.key(), m.t() + r.nextLong(WINDOW * 3 / 2), "c" + i + c));
                }
                if (r.nextInt(20) == 0) {
                    CLICKS.add(new Click(m.key(), m.t() + r.nextLong(WINDOW), "c" + i + "0"));
                }
            }
            if (r.nextInt(200) == 0) {
                CLICKS.add(new Click("nobody" + i, base, "o" + i));
            }
        }
        CLICKS.sort(Comparator.comparingLong(Click::t));
        impressions = tmp.resolve("impressions.jsonl");
        try (BufferedWriter w = Files.newBufferedWriter(impressions)) {
            for (Imp m : IMPS) {
                w.write(
                        "{\"rid\":\"%s\",\"ts\":%d,\"price\":%d,\"user\":\"u%d\"}\n"
                                .formatted(m.key(), m.t(), m.price(), m.price() % 37));
            }
        }
        clicks = tmp.resolve("clicks.jsonl");
        try (BufferedWriter w = Files.newBufferedWriter(clicks)) {
            for (Click c : CLICKS) {
                w.write(
                        "{\"rid\":\"%s\",\"ts\":%d,\"cid\":\"%s\"}\n"
                                .formatted(c.key(), c.t(), c.id()));
            }
        }
    }

    private static Path preprocess(int parallelism, String name) throws Exception {
        Configuration conf = new Configuration();
        conf.set(PiperOptions.SPEC, SPEC);
        conf.set(PiperOptions.LABEL_ACTIONS, "click=" + clicks);
        Path out = tmp.resolve(name);
        Preprocess.prepareOutput(out, false);
        Preprocess.run(
                impressions, out, parallelism, StateBackend.hashmap, conf, TestClusters.QUIET);
        return out;
    }

    @Test
    void theRowsAreTheJoinOfTheLogsAtEveryParallelism() throws Exception {
        Path one = preprocess(1, "p1");
        Path two = preprocess(2, "p2");
        assertThat(Files.readAllBytes(two.resolve("rows.bin")))
                .isEqualTo(Files.readAllBytes(one.resolve("rows.bin")));
        assertThat(Files.readAllBytes(two.resolve("vocab/C1.tsv")))
                .isEqualTo(Files.readAllBytes(one.resolve("vocab/C1.tsv")));

        // the join computed here: per impression its clicks in [t, t + window], distinct ids
        Map<String, List<Click>> byKey = new HashMap<>();
        CLICKS.forEach(c -> byKey.computeIfAbsent(c.key(), k -> new ArrayList<>()).add(c));
        List<Imp> order = new ArrayList<>(IMPS);
        order.sort(Comparator.comparingLong(Imp::t).thenComparing(Imp::key)); // JoinedRow.ORDER
        ByteBuffer rows =
                ByteBuffer.wrap(Files.readAllBytes(one.resolve("rows.bin")))
                        .order(ByteOrder.LITTLE_ENDIAN);
        assertThat(rows.remaining()).isEqualTo(order.size() * 5 * 4);
        long joined = 0;
        long afterWindow = 0;
        long duplicates = 0;
        for (Imp m : order) {
            Set<String> ids = new HashSet<>();
            long first = -1;
            for (Click c : byKey.getOrDefault(m.key(), List.of())) {
                if (c.t() - m.t() > WINDOW) {
                    afterWindow++;
                } else if (!ids.add(c.id())) {
                    duplicates++;
                } else if (first < 0) {
                    first = c.t() - m.t();
                }
            }
            joined += ids.size();
            int[] row = new int[5];
            for (int f = 0; f < 5; f++) {
                row[f] = rows.getInt();
            }
            assertThat(row)
                    .as("impression %s", m.key())
                    .containsExactly(
                            ids.isEmpty() ? 0 : 1, m.price(), ids.size(), (int) first, row[4]);
        }
        JsonNode meta = new ObjectMapper().readTree(one.resolve("metadata.json").toFile());
        JsonNode join = meta.get("label_join");
        long orphans = CLICKS.stream().filter(c -> c.key().startsWith("nobody")).count();
        assertThat(join.get("impressions").asLong()).isEqualTo(IMPS.size());
        assertThat(join.get("actions").asLong()).isEqualTo(CLICKS.size());
        assertThat(join.get("actions_joined").asLong()).isEqualTo(joined);
        assertThat(join.get("dead_letters_by_reason").get("orphan_action").asLong())
                .isEqualTo(orphans);
        assertThat(join.get("dead_letters_by_reason").get("action_after_window").asLong())
                .isEqualTo(afterWindow);
        assertThat(join.get("dead_letters_by_reason").get("duplicate_action").asLong())
                .isEqualTo(duplicates);
        assertThat(meta.get("lines_read").asLong()).isEqualTo(IMPS.size() + CLICKS.size());
        assertThat(meta.get("dead_letters").asLong())
                .isEqualTo(orphans + afterWindow + duplicates)
                .isEqualTo(Files.readAllLines(one.resolve("dead-letters.jsonl")).size());
        assertThat(joined).isGreaterThan(1_000);
        assertThat(afterWindow).isGreaterThan(100);
        assertThat(duplicates).isGreaterThan(10);
        try (var left = Files.list(tmp)) {
            assertThat(left.map(p -> p.getFileName().toString()))
                    .noneMatch(n -> n.contains("staging")); // the joined rows are removed
        }
    }
}
